// Package certmanager proves the cert-manager and pebble the tests of
// routeshift's certificate support run are the real programs: cert-manager's
// own controller issues certificates from self-signed and CA issuers and
// registers ACME accounts, its CA injector fills webhook caBundles, pebble
// serves its ACME directory over TLS, and cert-manager's HTTP-01 solver
// answers challenges. It talks to them only through the API server, HTTP and
// the files they write.
//
// kube-controller-manager runs beside the API server: cert-manager relies on
// its garbage collector to delete the ACME Order of a CertificateRequest it
// replaced by one of the same name, which otherwise waits for that Order
// forever.
package certmanager

import (
	"os"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

func TestMain(m *testing.M) {
	os.Exit(framework.MainWith(m, framework.Options{ControllerManager: true}))
}
