// Package acme tests certificates from cert-manager served by the router,
// against the real programs: cert-manager's controller and its HTTP-01
// solver, pebble as the ACME server, kube-apiserver with routeshift's
// webhook and Ingress-to-Route controller, and `routeshift router` running
// HAProxy. An ACME HTTP-01 challenge is answered through the router for a
// host whose Route redirects plain HTTP to HTTPS, and certificates renewed
// by cert-manager reach HAProxy without a reload while clients make TLS
// handshakes.
package acme

import (
	"os"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

func TestMain(m *testing.M) {
	os.Exit(framework.MainWith(m, framework.Options{Webhook: true, Controller: true}))
}
