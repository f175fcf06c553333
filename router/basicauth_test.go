package router

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/routecore"
)

// Hashes of "s3cret".
const (
	testBcrypt = "$2a$04$osqfGYtzaF6ce0K1gFh0g.WpX7aRwMdZ92CuyBHUmlmSOXTiJBvnu"
	testSHA512 = "$6$routeshift$JOA6dNHseHf4WV8rlnj8fEn6/c0YhwKy8hj3W9d7GeaL4GTIEsaf/YTA1k3dLcLoCfMTe7j4ygU38731ZJL9G/"
)

// authSecret is Secret ns/name with htpasswd data under auth, at
// resourceVersion rv.
func authSecret(name, rv, htpasswd string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv},
		Data: map[string][]byte{routecore.BasicAuthKey: []byte(htpasswd)}}
}

func basicAuth(secret string, more ...string) func(*routecore.Route) {
	return func(r *routecore.Route) {
		if r.Annotations == nil {
			r.Annotations = map[string]string{}
		}
		r.Annotations[routecore.AnnAuthBasicSecret] = secret
		for i := 0; i+1 < len(more); i += 2 {
			r.Annotations[more[i]] = more[i+1]
		}
	}
}

// servedUsers are the users snap lets use route ns/name, nil when it
// asks for none, or ["not served"].
func servedUsers(snap Snapshot, name string) []string {
	r, ok := snap.Routes.Get("ns/" + name)
	if !ok {
		return []string{"not served"}
	}
	if r.BasicAuth == nil {
		return nil
	}
	var users []string
	for _, u := range r.BasicAuth.Users {
		users = append(users, u.Name+":"+u.Hash)
	}
	return users
}

// TestStoreBasicAuth: a route with basic authentication waits for its
// Secret to be read, is refused (with the reason in status) when the
// router may not read it, when it is missing or holds hashes the router
// cannot check, and serves the Secret's users, following its changes.
func TestStoreBasicAuth(t *testing.T) {
	s := NewStore(AdmissionConfig{})
	s.WatchSecrets()
	s.SetRoute(rt("ns", "shop", "shop.example.com", 1, basicAuth("users", routecore.AnnAuthBasicRealm, "Shop", routecore.AnnAuthBasicForward, "true")))
	s.SetRoute(rt("ns", "open", "open.example.com", 2))
	snap := s.Build(true)
	if snap.Synced {
		t.Error("the snapshot is synced although ns/shop waits for its secret")
	}
	if got, want := watches(s), "start [ns/users] stop []"; got != want {
		t.Errorf("watches %s, want %s", got, want)
	}

	const denied = "router serviceaccount does not have permission to get this secret"
	s.SetSecretUnreadable("ns", "users", denied)
	expect(t, s.Build(true), "ns/open admitted",
		"ns/shop rejected BasicAuthValidationFailed: metadata.annotations[routeshift.io/auth-basic-secret]: Forbidden: "+denied)

	s.DeleteSecret("ns", "users")
	expect(t, s.Build(true), "ns/open admitted",
		`ns/shop rejected BasicAuthValidationFailed: metadata.annotations[routeshift.io/auth-basic-secret]: Not found: "secrets \"users\" not found"`)

	s.SetSecret(authSecret("users", "1", "alice:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/"))
	expect(t, s.Build(true), "ns/open admitted",
		`ns/shop rejected BasicAuthValidationFailed: metadata.annotations[routeshift.io/auth-basic-secret]: Invalid value: "users": key "auth": line 1 (user "alice"): Apache MD5 ($apr1$) hashes cannot be checked by the router: re-hash the password with bcrypt (htpasswd -B) or SHA-512 crypt (mkpasswd -m sha-512)`)

	s.SetSecret(authSecret("users", "2", "alice:"+testBcrypt+"\n"))
	snap = s.Build(true)
	expect(t, snap, "ns/open admitted", "ns/shop admitted")
	if got := servedUsers(snap, "shop"); !slices.Equal(got, []string{"alice:" + testBcrypt}) {
		t.Errorf("users %v", got)
	}
	if r, _ := snap.Routes.Get("ns/shop"); r.BasicAuth.Realm != "Shop" || !r.BasicAuth.Forward {
		t.Errorf("basic auth %+v", r.BasicAuth)
	}
	if got := servedUsers(snap, "open"); got != nil {
		t.Errorf("a route without the annotation asks for users %v", got)
	}

	// Rotated: the route is served anew with the new users.
	s.SetSecret(authSecret("users", "3", "alice:"+testBcrypt+"\nbob:"+testSHA512+"\n"))
	snap = s.Build(true)
	if !snap.Changed.Routes["ns/shop"] {
		t.Errorf("a changed secret did not change the route: %v", snap.Changed.Routes)
	}
	if got := servedUsers(snap, "shop"); !slices.Equal(got, []string{"alice:" + testBcrypt, "bob:" + testSHA512}) {
		t.Errorf("users after the rotation %v", got)
	}

	// The annotation removed: no read, no authentication.
	s.SetRoute(rt("ns", "shop", "shop.example.com", 1, func(r *routecore.Route) { r.ResourceVersion = "2" }))
	snap = s.Build(true)
	if got, want := watches(s), "start [] stop [ns/users]"; got != want {
		t.Errorf("watches %s, want %s", got, want)
	}
	if got := servedUsers(snap, "shop"); got != nil {
		t.Errorf("users after the annotation went %v", got)
	}
}

// TestRouteSecrets: the secrets a route names, once each.
func TestRouteSecrets(t *testing.T) {
	cases := []struct {
		route *routecore.Route
		want  []string
	}{
		{rt("ns", "r", "h", 1), nil},
		{rt("ns", "r", "h", 1, external("tls")), []string{"tls"}},
		{rt("ns", "r", "h", 1, basicAuth("users")), []string{"users"}},
		{rt("ns", "r", "h", 1, external("tls"), basicAuth("users")), []string{"tls", "users"}},
		{rt("ns", "r", "h", 1, external("both"), basicAuth("both")), []string{"both"}},
		{rt("ns", "r", "h", 1, basicAuth("Not_A_Name")), nil},
	}
	for i, c := range cases {
		if got := routeSecrets(c.route); !slices.Equal(got, c.want) {
			t.Errorf("case %d: %v, want %v", i, got, c.want)
		}
	}
}
