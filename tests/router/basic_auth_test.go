package router

import (
	"fmt"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestRouterBasicAuth: with the manifests' RBAC and a Role granting one
// Secret, a Route whose routeshift.io/auth-basic-secret names it asks
// for credentials (401, then 200 with a user's), while a Route naming a
// Secret the router may not read is refused with the reason in its
// status.
func TestRouterBasicAuth(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "basic-auth")
	ip, port := backend(t, "web")
	service(t, cp, ns, "web", ip, port)
	users := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "users"},
		Data: map[string][]byte{routecore.BasicAuthKey: []byte("alice:$6$routeshift$JOA6dNHseHf4WV8rlnj8fEn6/c0YhwKy8hj3W9d7GeaL4GTIEsaf/YTA1k3dLcLoCfMTe7j4ygU38731ZJL9G/\n")}}
	locked := labelled(ns, "locked", "locked."+ns+".example.com", "web", nil)
	locked.Annotations = map[string]string{routecore.AnnAuthBasicSecret: "users"}
	denied := labelled(ns, "denied", "denied."+ns+".example.com", "web", nil)
	denied.Annotations = map[string]string{routecore.AnnAuthBasicSecret: "others"}
	create(t, cp, users, locked, denied)
	cp.GrantRouterSecret(t, ns, "users")

	r := cp.StartRouter(t, "basic-auth", "--labels", testLabel+"="+ns)
	waitStatus(t, cp, ns, "locked", "basic-auth: True")
	st := waitStatus(t, cp, ns, "denied", "basic-auth: False BasicAuthValidationFailed")
	in, _ := entryOf(st, "basic-auth")
	const want = "metadata.annotations[routeshift.io/auth-basic-secret]: Forbidden: router serviceaccount does not have permission to list this secret: " +
		"grant it get, list and watch on the secret with a Role and a RoleBinding (docs/router.md)"
	if got := in.Conditions[0].Message; got != want {
		t.Errorf("message of route denied:\n  %q\nwant\n  %q", got, want)
	}

	url := fmt.Sprintf("http://127.0.0.1:%d/", r.HTTPPort)
	framework.Eventually(t, "the locked Route asks for credentials", func() error {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Host = locked.Spec.Host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			return fmt.Errorf("%d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		return nil
	})
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Host = locked.Spec.Host
	req.SetBasicAuth("alice", "s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("alice got %d", resp.StatusCode)
	}
}
