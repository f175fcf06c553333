package cli

import (
	"strings"
	"testing"
)

// TestRouterRefusesMutualTLS: a router asked for client-certificate
// authentication, which it does not have, stops before serving anything.
func TestRouterRefusesMutualTLS(t *testing.T) {
	t.Setenv("ROUTER_MUTUAL_TLS_AUTH", "required")
	_, stderr, code := run(t, "", "router", "--kubeconfig", "/nonexistent/kubeconfig", "--working-dir", t.TempDir())
	if code == 0 || !strings.Contains(stderr, `ROUTER_MUTUAL_TLS_AUTH "required": routeshift's router has no client-certificate authentication`) {
		t.Errorf("exit %d, stderr:\n%s\nwant a refusal naming ROUTER_MUTUAL_TLS_AUTH", code, stderr)
	}
}
