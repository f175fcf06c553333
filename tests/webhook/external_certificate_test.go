package webhook

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestExternalCertificate: a Route naming a secret in
// spec.tls.externalCertificate is refused unless the router's service
// account can read the secret and it is a kubernetes.io/tls secret. The
// manifests' RBAC gives the router no Secret: a Role and RoleBinding naming
// the secret (docs/router.md) do.
func TestExternalCertificate(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "external-cert")
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "routeshift:router"}}
	if err := cp.Client.Delete(ctx, crb); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "opaque", Namespace: ns}, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("b")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "serving", Namespace: ns}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: p.Leaf.CertPEM, corev1.TLSPrivateKeyKey: p.Leaf.KeyPEM}},
	} {
		if err := cp.Client.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	manifest := func(secret string) string {
		return routeYAML("ext-"+secret, ns, "spec:\n  host: ext.example.com\n  tls:\n    termination: edge\n    externalCertificate: {name: "+secret+"}\n  to: {name: web}\n")
	}

	_, errOut, ok := apply(t, cp, manifest("missing"))
	want := `The Route "ext-missing" is invalid: ` + "\n" +
		"* spec.tls.externalCertificate: Forbidden: router serviceaccount does not have permission to get this secret\n" +
		"* spec.tls.externalCertificate: Forbidden: router serviceaccount does not have permission to watch this secret\n" +
		"* spec.tls.externalCertificate: Forbidden: router serviceaccount does not have permission to list this secret\n" +
		`* spec.tls.externalCertificate: Not found: "secrets \"missing\" not found"` + "\n"
	if ok || errOut != want {
		t.Errorf("without the router's role: ok=%v\nstderr: %q\nwant:   %q", ok, errOut, want)
	}

	if _, errOut, err := cp.Kubectl(t, "apply", "-f", filepath.Join(cp.RepoRoot, "manifests", "rbac", "router.yaml")); err != nil {
		t.Fatal(errOut)
	}
	_, errOut, ok = apply(t, cp, manifest("serving"))
	want = `The Route "ext-serving" is invalid: ` + "\n" +
		"* spec.tls.externalCertificate: Forbidden: router serviceaccount does not have permission to get this secret\n" +
		"* spec.tls.externalCertificate: Forbidden: router serviceaccount does not have permission to watch this secret\n" +
		"* spec.tls.externalCertificate: Forbidden: router serviceaccount does not have permission to list this secret\n"
	if ok || errOut != want {
		t.Errorf("with the router's role, which grants no Secret: ok=%v\nstderr: %q\nwant:   %q", ok, errOut, want)
	}
	for _, secret := range []string{"missing", "opaque", "serving"} {
		cp.GrantRouterSecret(t, ns, secret)
	}
	cases := []struct{ secret, wantErr, wantOut string }{
		{"missing", `The Route "ext-missing" is invalid: spec.tls.externalCertificate: Not found: "secrets \"missing\" not found"`, ""},
		{"opaque", `The Route "ext-opaque" is invalid: spec.tls.externalCertificate: Invalid value: "opaque": secret of type "kubernetes.io/tls" required`, ""},
		{"serving", "", "route.route.openshift.io/ext-serving created"},
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
