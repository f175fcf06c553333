// Package certificates tests the route-certificates controller end to end:
// `routeshift manager` running as its service account with the manifests'
// RBAC, real cert-manager issuing from CA issuers, kube-controller-manager
// collecting garbage, and a real router with HAProxy serving what was
// issued to a client that verifies it against the CA.
package certificates

import (
	"os"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

func TestMain(m *testing.M) {
	os.Exit(framework.MainWith(m, framework.Options{Controller: true, ControllerManager: true}))
}
