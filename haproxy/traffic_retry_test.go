package haproxy

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
)

// A configuration that cannot be rendered or loaded is applied again
// after a backoff, without waiting for another change, so that transient
// failures heal by themselves.

// waitFailures polls until routeshift_router_reload_failures_total has
// grown to at least want.
func (r *trafficRouter) waitFailures(t *testing.T, want float64) {
	t.Helper()
	eventually(t, 30*time.Second, fmt.Sprintf("routeshift_router_reload_failures_total reaches %v", want), func() error {
		if v := r.counterValue(t, "routeshift_router_reload_failures_total"); v < want {
			return fmt.Errorf("%v", v)
		}
		return nil
	})
}

// TestTrafficRetryUnreadableCertificate: the DEFAULT_CERTIFICATE_DIR
// certificate is briefly unreadable when a route is added. The change is
// not loaded, the running configuration keeps serving, the router retries
// on its own (the failure counter grows although nothing else is
// published), and once the file is back the route is served without any
// new change.
func TestTrafficRetryUnreadableCertificate(t *testing.T) {
	ca := newCA(t, "default CA")
	leaf := issue(t, ca, "router-default.example.org")
	dir := trafficWorkDir(t)
	crt := filepath.Join(dir, "tls.crt")
	for name, data := range map[string][]byte{"tls.crt": leaf.CertPEM, "tls.key": leaf.KeyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.DefaultCertificateDir = dir })
	// The file check would not see a change (the certificate comes back
	// the same): only the retry can load the route.
	r.filePoll = time.Hour
	r.endpoints("ns", "web", newBackend(t, "web", nil, nil))
	r.route(rt("ns", "first", "first.example.com", 1, toService("web")))
	r.start()
	wantServed(t, "first.example.com", r.get("first.example.com", "/"), "web")

	failures := r.counterValue(t, "routeshift_router_reload_failures_total")
	if err := os.Rename(crt, crt+".away"); err != nil {
		t.Fatal(err)
	}
	r.route(rt("ns", "second", "second.example.com", 2, toService("web")))
	r.publish()
	// One failure for the change, at least one more for a retry.
	r.waitFailures(t, failures+2)
	if !strings.Contains(r.logged(), "retryIn") || !strings.Contains(r.logged(), "DEFAULT_CERTIFICATE_DIR") {
		t.Errorf("the failure and its retry are not logged:\n%s", r.logged())
	}
	wantServed(t, "first.example.com while the certificate is unreadable", r.get("first.example.com", "/"), "web")
	wantNotServed(t, "second.example.com while the certificate is unreadable", r.get("second.example.com", "/"))
	if !r.p.Ready() {
		t.Error("the process is not ready any more")
	}

	if err := os.Rename(crt+".away", crt); err != nil {
		t.Fatal(err)
	}
	r.servedBy("second.example.com", "/", "web")
	wantServed(t, "first.example.com after the retry", r.get("first.example.com", "/"), "web")
	// The new worker serves just before the process sees it.
	eventually(t, 10*time.Second, "the recovery is logged", func() error {
		if !strings.Contains(r.logged(), "the configuration applies again") {
			return fmt.Errorf("log:\n%s", r.logged())
		}
		return nil
	})
}

// TestTrafficRetryRefusedFirstConfiguration: HAProxy refuses the very
// first configuration (its ROUTER_ERRORFILE_503 is missing when it is
// loaded): nothing listens and the router is not ready; the router
// retries, and once the file is there it starts HAProxy and becomes ready
// without any new change.
func TestTrafficRetryRefusedFirstConfiguration(t *testing.T) {
	page := writeTempFile(t, "503.http", "HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain\r\n\r\ndown\n")
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.ErrorFile503 = page })
	r.endpoints("ns", "web", newBackend(t, "web", nil, nil))
	r.route(rt("ns", "web", "web.example.com", 1, toService("web")))
	failures := r.counterValue(t, "routeshift_router_reload_failures_total")
	// The renderer checks the file when it is created; it goes away
	// before the first load.
	done := r.launch(func() {
		if err := os.Rename(page, page+".away"); err != nil {
			t.Fatal(err)
		}
	})
	r.waitFailures(t, failures+2)
	select {
	case err := <-done:
		t.Fatalf("DataPlane.Serve returned: %v", err)
	default:
	}
	if r.p.Ready() {
		t.Error("ready although HAProxy refused every configuration")
	}
	if conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPPort)), time.Second); err == nil {
		conn.Close()
		t.Error("something listens on the HTTP port although HAProxy refused the configuration")
	}
	if !strings.Contains(r.logged(), page) {
		t.Errorf("HAProxy's reason, naming the missing file, is not logged:\n%s", r.logged())
	}

	if err := os.Rename(page+".away", page); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "ready after the file came back", func() error {
		if !r.p.Ready() {
			return errors.New("not ready")
		}
		return nil
	})
	wantServed(t, "web.example.com", r.get("web.example.com", "/"), "web")
}
