package webhook

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/tests/framework"
)

// installUserRoles applies manifests/rbac/user-roles.yaml and waits until
// kube-controller-manager has aggregated routes/custom-host into edit.
func installUserRoles(t *testing.T, cp *framework.ControlPlane) {
	t.Helper()
	if _, errOut, err := cp.Kubectl(t, "apply", "-f", filepath.Join(cp.RepoRoot, "manifests", "rbac", "user-roles.yaml")); err != nil {
		t.Fatal(errOut)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var edit rbacv1.ClusterRole
		if err := cp.Client.Get(context.Background(), key("", "edit"), &edit); err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(edit.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, "routes/custom-host") }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("routes/custom-host was not aggregated into the edit role within 30s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func bind(t *testing.T, cp *framework.ControlPlane, ns, user, kind, role string) {
	t.Helper()
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: user + "-"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}
	if err := cp.Client.Create(context.Background(), rb); err != nil {
		t.Fatal(err)
	}
}

func role(t *testing.T, cp *framework.ControlPlane, ns, name string, rules ...rbacv1.PolicyRule) {
	t.Helper()
	if err := cp.Client.Create(context.Background(), &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}); err != nil {
		t.Fatal(err)
	}
}

// TestCustomHostPermission: setting a host or certificates needs create on
// routes/custom-host (granted to edit by the manifests' aggregated role);
// changing a host needs update on it.
func TestCustomHostPermission(t *testing.T) {
	cp := framework.Cluster(t)
	installUserRoles(t, cp)
	ns := cp.CreateNamespace(t, "custom-host")
	routeWriter := rbacv1.PolicyRule{APIGroups: []string{"route.openshift.io"}, Resources: []string{"routes"},
		Verbs: []string{"get", "list", "create", "update", "patch"}}
	role(t, cp, ns, "route-writer", routeWriter)
	bind(t, cp, ns, "alice", "Role", "route-writer")
	bind(t, cp, ns, "bob", "ClusterRole", "edit")
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name, user, manifest string
		wantOut, wantErr     string
	}{
		{name: "host without the custom-host role", user: "alice",
			manifest: routeYAML("custom", ns, "spec:\n  host: custom.example.com\n  to: {name: web}\n"),
			wantErr:  `The Route "custom" is invalid: spec.host: Forbidden: you do not have permission to set the host field of the route`},
		{name: "certificate without the custom-host role", user: "alice",
			manifest: routeYAML("secure", ns, "spec:\n  tls:\n    termination: edge\n    certificate: |\n"+fixtures.Indent(string(p.Leaf.CertPEM), 6)+"\n    key: |\n"+fixtures.Indent(string(p.Leaf.KeyPEM), 6)+"\n  to: {name: web}\n"),
			wantErr:  `The Route "secure" is invalid: spec.tls: Forbidden: you do not have permission to set certificate fields on the route`},
		{name: "generated host needs no permission", user: "alice",
			manifest: routeYAML("generated", ns, "spec:\n  to: {name: web}\n"),
			wantOut:  "route.route.openshift.io/generated created"},
		{name: "host with edit", user: "bob",
			manifest: routeYAML("custom", ns, "spec:\n  host: custom.example.com\n  to: {name: web}\n"),
			wantOut:  "route.route.openshift.io/custom created"},
		{name: "changing the host with edit", user: "bob",
			manifest: routeYAML("custom", ns, "spec:\n  host: renamed.example.com\n  to: {name: web}\n"),
			wantErr:  `The Route "custom" is invalid: spec.host: Invalid value: "renamed.example.com": you do not have permission to set the host field of the route`},
		{name: "adding a certificate with edit (create is enough)", user: "bob",
			manifest: routeYAML("custom", ns, "spec:\n  host: custom.example.com\n  tls:\n    termination: edge\n    certificate: |\n"+fixtures.Indent(string(p.Leaf.CertPEM), 6)+"\n    key: |\n"+fixtures.Indent(string(p.Leaf.KeyPEM), 6)+"\n  to: {name: web}\n"),
			wantOut:  "route.route.openshift.io/custom configured"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			out, errOut, ok := apply(t, cp, s.manifest, "--as", s.user)
			if ok != (s.wantErr == "") || out != nl(s.wantOut) || errOut != nl(s.wantErr) {
				t.Errorf("kubectl apply --as %s: ok=%v\nstdout: %q\nstderr: %q\nwant:   %q / %q", s.user, ok, out, errOut, s.wantOut, s.wantErr)
			}
		})
	}

	t.Run("changing the host with update on routes/custom-host", func(t *testing.T) {
		role(t, cp, ns, "host-changer", rbacv1.PolicyRule{APIGroups: []string{"route.openshift.io"}, Resources: []string{"routes/custom-host"}, Verbs: []string{"update"}})
		bind(t, cp, ns, "bob", "Role", "host-changer")
		manifest := routeYAML("custom", ns, "spec:\n  host: renamed.example.com\n  to: {name: web}\n")
		// RBAC caches are refreshed within moments of the binding.
		var out, errOut string
		for range 50 {
			var ok bool
			if out, errOut, ok = apply(t, cp, manifest, "--as", "bob"); ok {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if out != "route.route.openshift.io/custom configured\n" {
			t.Errorf("stdout %q, stderr %q", out, errOut)
		}
	})
}

func nl(s string) string {
	if s == "" {
		return ""
	}
	return s + "\n"
}
