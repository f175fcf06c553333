package proxyconfig

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLeaf: the data-plane settings import, of routeshift's packages, only
// routecore and settingfield, so that the renderer, the process manager
// and the settings table can all import them.
func TestLeaf(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/routeshift/routeshift/haproxy/proxyconfig").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	allowed := map[string]bool{
		"github.com/routeshift/routeshift/haproxy/proxyconfig":   true,
		"github.com/routeshift/routeshift/routecore":             true,
		"github.com/routeshift/routeshift/internal/settingfield": true,
		"github.com/routeshift/routeshift/certs":                 true, // routecore's certificate rules
	}
	n := 0
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/routeshift/routeshift/") {
			n++
			if !allowed[dep] {
				t.Errorf("proxyconfig depends on %s", dep)
			}
		}
		if strings.HasPrefix(dep, "k8s.io/client-go/") || strings.HasPrefix(dep, "sigs.k8s.io/controller-runtime") {
			t.Errorf("proxyconfig depends on the client %s", dep)
		}
	}
	if n < 3 {
		t.Errorf("go list -deps listed %d of routeshift's packages; want the real list", n)
	}
}
