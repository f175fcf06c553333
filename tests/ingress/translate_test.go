package ingress

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestTranslateFromCluster: `routeshift translate --from-cluster` prints
// exactly the Routes the running controller created, and changes nothing.
func TestTranslateFromCluster(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "dry-run")
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}),
		&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "site"},
			Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{
				rule("a.example.com", path("/", "web", networkingv1.ServiceBackendPort{Name: "http"}), path("/b", "web", networkingv1.ServiceBackendPort{Number: 80})),
				rule("*.example.org", path("/", "web", networkingv1.ServiceBackendPort{Name: "http"})),
			}}})
	stored := wantRoutes(t, cp, ns, routeNames("site", "a.example.com/", "a.example.com/b", "wildcard.example.org/")...)

	bin, err := cp.Routeshift()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "translate", "--from-cluster", "--kubeconfig", cp.Kubeconfig, "-n", ns)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("translate --from-cluster: %v\n%s", err, stderr.String())
	}
	if want := "summary: 1 ingress read (0 of another class, ignored); 3 routes emitted; 0 rules or paths produced no Route\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	docs := strings.Split(string(out), "\n---\n")
	if len(docs) != len(stored) {
		t.Fatalf("%d routes printed, %d stored:\n%s", len(docs), len(stored), out)
	}
	for _, doc := range docs {
		var r routecore.Route
		if err := yaml.UnmarshalStrict([]byte(doc), &r); err != nil {
			t.Fatal(err)
		}
		s, ok := stored[r.Name]
		if !ok || !equality.Semantic.DeepEqual(r.Spec, s.Spec) || !equality.Semantic.DeepEqual(r.OwnerReferences, s.OwnerReferences) {
			t.Errorf("printed route %s differs from the stored one:\n%+v\n%+v", r.Name, r.Spec, s.Spec)
		}
	}
	after, err := routesOf(context.Background(), cp.Client, ns)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range after {
		if r.ResourceVersion != stored[name].ResourceVersion {
			t.Errorf("route %s changed during the dry run", name)
		}
	}
}

// routeNames are the Route names of an Ingress for "host/path" pairs.
func routeNames(ing string, hostPaths ...string) []string {
	var out []string
	for _, hp := range hostPaths {
		host, p, _ := strings.Cut(hp, "/")
		out = append(out, ingress.RouteName(ing, host, "/"+p))
	}
	slices.Sort(out)
	return out
}

// TestTranslateFromClusterContextNamespace: without -n, --from-cluster
// reads the namespace of the kubeconfig's current context, as kubectl
// does; -n and -A still win.
func TestTranslateFromClusterContextNamespace(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "context-ns")
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}),
		&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "site"},
			Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{
				rule("ctx.example.com", path("/", "web", networkingv1.ServiceBackendPort{Name: "http"})),
			}}})
	wantRoutes(t, cp, ns, routeNames("site", "ctx.example.com/")...)

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	data, err := os.ReadFile(cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kubeconfig, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := cp.Kubectl(t, "config", "set-context", "--current", "--namespace", ns, "--kubeconfig", kubeconfig); err != nil {
		t.Fatalf("kubectl config set-context: %v\n%s%s", err, out, errOut)
	}
	bin, err := cp.Routeshift()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		want  string
		names string
	}{
		{"the context's namespace", nil, "1 ingress read", ns + "/" + routeNames("site", "ctx.example.com/")[0] + "\n"},
		{"-n wins", []string{"-n", "default"}, "0 ingresses read", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"translate", "--from-cluster", "--kubeconfig", kubeconfig, "-o", "name"}, tt.args...)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || string(out) != tt.names || !strings.HasPrefix(stderr.String(), "summary: "+tt.want+" ") {
				t.Errorf("translate %v: %v\nstdout:\n%s\nstderr:\n%s\nwant %q and %q", tt.args, err, out, stderr.String(), tt.names, tt.want)
			}
		})
	}
}
