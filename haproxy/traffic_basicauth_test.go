package haproxy

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/routecore"
)

// sha512Crypt is the SHA-512 crypt hash of "s3cret".
const sha512Crypt = "$6$routeshift$JOA6dNHseHf4WV8rlnj8fEn6/c0YhwKy8hj3W9d7GeaL4GTIEsaf/YTA1k3dLcLoCfMTe7j4ygU38731ZJL9G/"

// secret puts Secret ns/name with the htpasswd data into the store.
func (r *trafficRouter) secret(ns, name, htpasswd string) {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	r.rv++
	r.store.SetSecret(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: fmt.Sprint(r.rv)},
		Data: map[string][]byte{routecore.BasicAuthKey: []byte(htpasswd)}})
}

// TestTrafficBasicAuth: a Route with basic authentication answers 401
// with WWW-Authenticate to requests without a user's credentials, serves
// users with bcrypt and SHA-512 crypt hashes, keeps the Authorization
// header from the endpoints unless asked, and follows a rotated Secret.
func TestTrafficBasicAuth(t *testing.T) {
	r := newTrafficRouter(t)
	web := newBackend(t, "web", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("X-Authorization", req.Header.Get("Authorization"))
		fmt.Fprint(w, "web")
	}, nil)
	r.endpoints("ns", "web", web)
	bc, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.DefaultCost)
	if err != nil {
		t.Fatal(err)
	}
	r.secret("ns", "users", "alice:"+string(bc)+"\nbob:"+sha512Crypt+"\n")
	r.route(rt("ns", "shop", "shop.example.com", 1, toService("web"),
		annotated(routecore.AnnAuthBasicSecret, "users", routecore.AnnAuthBasicRealm, "Shop staff")))
	r.route(rt("ns", "api", "api.example.com", 2, toService("web"), terminated(routecore.TLSTerminationEdge, "", nil, nil),
		annotated(routecore.AnnAuthBasicSecret, "users", routecore.AnnAuthBasicForward, "true")))
	r.start()

	c := r.client(clientOptions{})
	get := func(url, user, password string) reply {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if user != "" {
			req.SetBasicAuth(user, password)
		}
		resp, err := c.Do(req)
		if err != nil {
			return reply{err: err}
		}
		defer resp.Body.Close()
		return reply{code: resp.StatusCode, header: resp.Header}
	}
	cases := []struct {
		url, user, password string
		code                int
		authorization       string // what the endpoint saw
	}{
		{"http://shop.example.com/", "", "", 401, ""},
		{"http://shop.example.com/", "alice", "wrong", 401, ""},
		{"http://shop.example.com/", "carol", "s3cret", 401, ""},
		{"http://shop.example.com/", "alice", "s3cret", 200, ""},
		{"http://shop.example.com/", "bob", "s3cret", 200, ""},
		{"https://api.example.com/", "", "", 401, ""},
		{"https://api.example.com/", "bob", "s3cret", 200, "Basic Ym9iOnMzY3JldA=="},
	}
	for _, tc := range cases {
		got := get(tc.url, tc.user, tc.password)
		if got.err != nil || got.code != tc.code {
			t.Errorf("%s as %q: %v, want %d", tc.url, tc.user, got, tc.code)
			continue
		}
		if tc.code == 200 && got.header.Get("X-Authorization") != tc.authorization {
			t.Errorf("%s as %q: the endpoint saw Authorization %q, want %q", tc.url, tc.user, got.header.Get("X-Authorization"), tc.authorization)
		}
	}
	if got := get("http://shop.example.com/", "", ""); got.header.Get("WWW-Authenticate") != `Basic realm="Shop staff"` {
		t.Errorf("WWW-Authenticate %q", got.header.Get("WWW-Authenticate"))
	}
	if got := get("https://api.example.com/", "", ""); got.header.Get("WWW-Authenticate") != `Basic realm="Authentication Required"` {
		t.Errorf("WWW-Authenticate without a realm %q", got.header.Get("WWW-Authenticate"))
	}

	// Rotated: alice leaves, carol comes.
	r.secret("ns", "users", "bob:"+sha512Crypt+"\ncarol:"+string(bc)+"\n")
	r.publish()
	eventually(t, 30*time.Second, "the rotated Secret is honoured", func() error {
		if got := get("http://shop.example.com/", "carol", "s3cret"); got.code != 200 {
			return fmt.Errorf("carol: %v", got)
		}
		return nil
	})
	if got := get("http://shop.example.com/", "alice", "s3cret"); got.code != 401 {
		t.Errorf("alice after she left: %v", got)
	}
}
