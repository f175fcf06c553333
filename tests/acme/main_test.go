// Package acme tests certificates from cert-manager served by the router,
// against the real programs: cert-manager's controller and its HTTP-01
// solver, pebble as the ACME server, kube-apiserver with routeshift's
// webhook and Ingress-to-Route controller, kube-controller-manager, and
// `routeshift router` running HAProxy. An ACME HTTP-01 challenge is answered
// through the router for a host whose Route redirects plain HTTP to HTTPS,
// and certificates renewed by cert-manager reach HAProxy without a reload
// while clients make TLS handshakes.
//
// cert-manager needs kube-controller-manager's garbage collector, as on any
// cluster: when it replaces a CertificateRequest by a new one of the same
// name (its next private key changed while it made the first, which a
// loaded machine provokes), the new request waits until the ACME Order the
// deleted one owned is gone, and only the garbage collector deletes it.
package acme

import (
	"os"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

func TestMain(m *testing.M) {
	os.Exit(framework.MainWith(m, framework.Options{ControllerManager: true, Webhook: true, Controller: true}))
}
