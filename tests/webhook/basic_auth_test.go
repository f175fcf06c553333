package webhook

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestBasicAuthSecret: a Route naming a Secret in
// routeshift.io/auth-basic-secret is refused unless the router's service
// account may read that Secret, it exists, and its key auth holds
// htpasswd lines the router can check; then it is created.
func TestBasicAuthSecret(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "basic-auth")
	for name, htpasswd := range map[string]string{
		"users": "alice:$2a$04$osqfGYtzaF6ce0K1gFh0g.WpX7aRwMdZ92CuyBHUmlmSOXTiJBvnu\n",
		"md5":   "alice:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/\n",
	} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string][]byte{"auth": []byte(htpasswd)}}
		if err := cp.Client.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	manifest := func(secret string) string {
		return routeYAML("auth-"+secret, ns, "  annotations:\n    routeshift.io/auth-basic-secret: "+secret+"\nspec:\n  host: auth.example.com\n  to: {name: web}\n")
	}
	const path = "metadata.annotations[routeshift.io/auth-basic-secret]"

	_, errOut, ok := apply(t, cp, manifest("users"))
	want := `The Route "auth-users" is invalid: ` + "\n" +
		"* " + path + ": Forbidden: router serviceaccount does not have permission to get this secret\n" +
		"* " + path + ": Forbidden: router serviceaccount does not have permission to watch this secret\n" +
		"* " + path + ": Forbidden: router serviceaccount does not have permission to list this secret\n"
	if ok || errOut != want {
		t.Errorf("without a grant: ok=%v\nstderr: %q\nwant:   %q", ok, errOut, want)
	}
	for _, secret := range []string{"users", "md5", "missing"} {
		cp.GrantRouterSecret(t, ns, secret)
	}
	cases := []struct{ secret, wantErr, wantOut string }{
		{"missing", `The Route "auth-missing" is invalid: ` + path + `: Not found: "secrets \"missing\" not found"`, ""},
		{"md5", `The Route "auth-md5" is invalid: ` + path + `: Invalid value: "md5": key "auth": line 1 (user "alice"): Apache MD5 ($apr1$) hashes cannot be checked by the router: re-hash the password with bcrypt (htpasswd -B) or SHA-512 crypt (mkpasswd -m sha-512)`, ""},
		{"users", "", "route.route.openshift.io/auth-users created"},
	}
	for _, c := range cases {
		t.Run(c.secret, func(t *testing.T) {
			var out, errOut string
			var ok bool
			// The binding takes effect within moments.
			for range 50 {
				if out, errOut, ok = apply(t, cp, manifest(c.secret)); errOut == nl(c.wantErr) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if ok != (c.wantErr == "") || out != nl(c.wantOut) || errOut != nl(c.wantErr) {
				t.Errorf("ok=%v\nstdout: %q\nstderr: %q\nwant:   %q / %q", ok, out, errOut, c.wantOut, c.wantErr)
			}
		})
	}
}
