package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestLocalWithCertManager: `routeshift local --with-cert-manager` starts
// cert-manager, and the curl command it prints fetches the demo Route
// secure over HTTPS, verifying the certificate cert-manager issued against
// the local CA it wrote to the data directory; the Route names its Secret
// and holds no key.
func TestLocalWithCertManager(t *testing.T) {
	framework.RequireTools(t, filepath.Dir(binDir(t)), "cert-manager-controller", "cert-manager-crds-"+framework.CertManagerVersion)
	bin, err := framework.BuildRouteshift(t)
	if err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	httpPort, _ := framework.FreePort()
	httpsPort, _ := framework.FreePort()
	run := start(t, bin, dataDir, "--with-cert-manager", "--http-port", fmt.Sprint(httpPort), "--https-port", fmt.Sprint(httpsPort))
	commands := run.untilReady(t)
	var env []string
	curl := ""
	for _, line := range commands {
		if e, ok := strings.CutPrefix(line, "export "); ok {
			env = append(env, e)
		}
		if strings.HasPrefix(line, "curl --cacert ") {
			curl = line
		}
	}
	wantCurl := fmt.Sprintf("curl --cacert %s https://secure.routeshift.localhost:%d/", filepath.Join(dataDir, "cert-manager-ca.crt"), httpsPort)
	if curl != wantCurl {
		t.Errorf("printed curl command %q, want %q; printed:\n%s", curl, wantCurl, strings.Join(commands, "\n"))
	}
	if out, err := sh(t, env, wantCurl); err != nil || !strings.Contains(out, "Hello from the routeshift demo: secure.routeshift.localhost") {
		t.Errorf("%s: %v\n%s", wantCurl, err, out)
	}
	if st, err := os.Stat(filepath.Join(dataDir, "cert-manager-ca.crt")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("CA certificate file: %v %v, want mode 0600", st, err)
	}
	kubectl := filepath.Join(filepath.Dir(binDir(t)), "kubectl")
	out, err := sh(t, env, kubectl+" get route -n demo secure -o jsonpath='{.spec.tls}'")
	if err != nil || !strings.Contains(out, `"externalCertificate":{"name":"secure-route-tls"}`) || strings.Contains(out, `"key"`) {
		t.Errorf("Route demo/secure spec.tls: %v %s; want externalCertificate secure-route-tls and no key", err, out)
	}
	ownRoute(t, env, kubectl, wantCurl)
	run.interrupt(t, 1)
}

// shopRoute is the Route of docs/certificates.md's five commands.
const shopRoute = `apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: shop
  namespace: demo
  annotations: {cert-manager.io/cluster-issuer: routeshift-local-ca}
spec:
  host: shop.routeshift.localhost
  to: {kind: Service, name: demo}
  tls: {termination: edge}
`

// ownRoute follows docs/certificates.md: a Route of one's own annotated
// with the local CA ClusterIssuer is described with the controller's
// events and served with a certificate that verifies against the CA.
func ownRoute(t *testing.T, env []string, kubectl, demoCurl string) {
	t.Helper()
	docs, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(binDir(t))), "docs", "certificates.md"))
	if err != nil || !strings.Contains(string(docs), shopRoute) {
		t.Errorf("docs/certificates.md does not show the Route this test applies (%v):\n%s", err, shopRoute)
	}
	if out, err := sh(t, env, "echo '"+shopRoute+"' | "+kubectl+" apply -f -"); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	curl := strings.Replace(demoCurl, "https://secure.", "https://shop.", 1)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		out, err := sh(t, env, curl)
		if err == nil && strings.Contains(out, "Hello from the routeshift demo: shop.routeshift.localhost") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v\n%s", curl, err, out)
		}
		time.Sleep(time.Second)
	}
	out, err := sh(t, env, kubectl+" describe route -n demo shop")
	if err != nil || !strings.Contains(out, "CertificateRequested") || !strings.Contains(out, "CertificateIssued") {
		t.Errorf("kubectl describe route -n demo shop: %v\n%s", err, out)
	}
}
