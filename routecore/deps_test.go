package routecore

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoClientDependencies: the route model and the certificate rules it
// calls are pure. Neither may depend on a Kubernetes client (client-go,
// controller-runtime), directly or through another package.
func TestNoClientDependencies(t *testing.T) {
	for _, pkg := range []string{"github.com/routeshift/routeshift/routecore", "github.com/routeshift/routeshift/certs"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s listed %d packages; want the real list", pkg, len(deps))
		}
		for _, dep := range deps {
			if strings.HasPrefix(dep, "k8s.io/client-go/") || strings.HasPrefix(dep, "sigs.k8s.io/controller-runtime") {
				t.Errorf("%s depends on %s: keep clients in the adapters", pkg, dep)
			}
		}
	}
}
