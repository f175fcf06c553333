package router

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/internal/wstest"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// The test label keeps a router of these tests on its own namespace's
// Routes: the control plane, and the Routes of other tests, are shared.
const testLabel = "routeshift.test/router"

// tlsBackend is a server on the machine's own address (Kubernetes refuses
// loopback endpoints) with handler h, serving TLS with kp when not nil.
func tlsBackend(t *testing.T, h http.HandlerFunc, kp *certs.KeyPair) (ip string, port int32) {
	t.Helper()
	l, ip, port := hostListener(t)
	if kp != nil {
		pair, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		l = tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{pair}})
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: h}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ip, port
}

// answer replies with name.
func answer(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, name) }
}

// service creates Service ns/name and an EndpointSlice with one ready
// endpoint.
func service(t *testing.T, cp *framework.ControlPlane, ns, name, ip string, port int32) {
	t.Helper()
	svc := &corev1.Service{}
	svc.Namespace, svc.Name = ns, name
	svc.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80}}
	es := endpointSlice(ns, map[string]int32{ip: port})
	es.Name = name + "-1"
	es.Labels["kubernetes.io/service-name"] = name
	create(t, cp, svc, es)
}

// labelled is a Route to service svc, labelled for the test's router.
func labelled(ns, name, host, svc string, tlsCfg *routecore.TLSConfig) *routecore.Route {
	r := route(ns, name, host, map[string]string{testLabel: ns})
	r.Spec.To.Name = svc
	r.Spec.TLS = tlsCfg
	return r
}

func newCA(t *testing.T, name string) *certs.KeyPair {
	t.Helper()
	ca, err := certs.NewCA(name)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func issue(t *testing.T, ca *certs.KeyPair, name string) *certs.KeyPair {
	t.Helper()
	kp, err := ca.Issue(certs.Options{CommonName: name, DNSNames: []string{name}})
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

// TestRouterServesTLSTraffic: `routeshift router` against the real API
// server serves a reencrypt Route whose endpoint it verifies with the
// Route's destinationCACertificate (and refuses one whose CA does not
// verify it), a passthrough Route whose client sees the endpoint's own
// certificate, and a WebSocket upgrade through an edge Route.
func TestRouterServesTLSTraffic(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "tls")
	host := func(name string) string { return name + "." + ns + ".example.com" }

	backendCA, otherCA, podCA := newCA(t, "backend CA"), newCA(t, "another CA"), newCA(t, "pod CA")
	ip, port := tlsBackend(t, answer("secure-pod"), issue(t, backendCA, "secure."+ns+".svc"))
	service(t, cp, ns, "secure", ip, port)
	podLeaf := issue(t, podCA, host("passthrough"))
	ip, port = tlsBackend(t, answer("passthrough-pod"), podLeaf)
	service(t, cp, ns, "pod", ip, port)
	ip, port = tlsBackend(t, wstest.Echo, nil)
	service(t, cp, ns, "ws", ip, port)
	create(t, cp,
		labelled(ns, "reencrypt", host("reencrypt"), "secure", &routecore.TLSConfig{Termination: routecore.TLSTerminationReencrypt,
			DestinationCACertificate: string(backendCA.CertPEM)}),
		labelled(ns, "wrong-ca", host("wrong-ca"), "secure", &routecore.TLSConfig{Termination: routecore.TLSTerminationReencrypt,
			DestinationCACertificate: string(otherCA.CertPEM)}),
		labelled(ns, "passthrough", host("passthrough"), "pod", &routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough}),
		labelled(ns, "websocket", host("websocket"), "ws", &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}))

	r := cp.StartRouter(t, "tls", "--labels", testLabel+"="+ns)
	for _, name := range []string{"reencrypt", "wrong-ca", "passthrough", "websocket"} {
		waitStatus(t, cp, ns, name, "tls: True")
	}
	// https asks the router's HTTPS port for a host, with SNI, verifying
	// the router's certificate with roots (nil: not verified).
	https := func(h string, roots *x509.CertPool) (int, string, *tls.ConnectionState, error) {
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", r.HTTPSPort))
			},
			TLSClientConfig:   &tls.Config{RootCAs: roots, InsecureSkipVerify: roots == nil}, //nolint:gosec // the router's default certificate is self-signed
			DisableKeepAlives: true,
		}}
		resp, err := c.Get("https://" + h + "/")
		if err != nil {
			return 0, "", nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), resp.TLS, err
	}

	t.Run("reencrypt_verifies_the_endpoint_with_the_destination_CA", func(t *testing.T) {
		framework.Eventually(t, "reencrypt served by the endpoint", func() error {
			if code, body, _, err := https(host("reencrypt"), nil); err != nil || code != http.StatusOK || body != "secure-pod" {
				return fmt.Errorf("%d %q %v", code, body, err)
			}
			return nil
		})
		if code, body, _, err := https(host("wrong-ca"), nil); err != nil || code != http.StatusServiceUnavailable || body == "secure-pod" {
			t.Errorf("reencrypt with a destination CA that does not verify the endpoint: %d %q %v, want 503", code, body, err)
		}
	})
	t.Run("passthrough_client_sees_the_endpoint_certificate", func(t *testing.T) {
		roots := x509.NewCertPool()
		roots.AddCert(podCA.Cert)
		framework.Eventually(t, "passthrough served by the endpoint", func() error {
			code, body, state, err := https(host("passthrough"), roots)
			if err != nil || code != http.StatusOK || body != "passthrough-pod" {
				return fmt.Errorf("%d %q %v", code, body, err)
			}
			if len(state.PeerCertificates) == 0 || !bytes.Equal(state.PeerCertificates[0].Raw, podLeaf.Cert.Raw) {
				return errors.New("the client did not see the endpoint's certificate")
			}
			return nil
		})
	})
	t.Run("websocket_upgrade_through_an_edge_route", func(t *testing.T) {
		framework.Eventually(t, "a WebSocket message echoed through the edge route", func() error {
			return wstest.RoundTrip(fmt.Sprintf("127.0.0.1:%d", r.HTTPSPort), host("websocket"), "hello through routeshift")
		})
	})
}

// TestRouterReadyAfterFirstLoad: a router whose TEMPLATE_FILE renders a
// line HAProxy refuses outside any route (in its HTTP routing rules) is
// alive (/healthz 200) but not ready (/healthz/ready not 200) while no
// configuration with the synced Routes has loaded, retries included, and
// logs HAProxy's words. A line HAProxy refuses in one Route's backend only
// does not hold the first load: that Route is reported RouteNotServable,
// the router is ready and serves the others.
func TestRouterReadyAfterFirstLoad(t *testing.T) {
	cp := framework.Cluster(t)
	ip, port := tlsBackend(t, answer("web-pod"), nil)
	// Each router reads Routes of its own namespace.
	routes := func(t *testing.T) (ns string, good *routecore.Route) {
		ns = cp.CreateNamespace(t, "ready")
		service(t, cp, ns, "web", ip, port)
		good = labelled(ns, "good", "good."+ns+".example.com", "web", nil)
		create(t, cp, good, labelled(ns, "broken", "broken."+ns+".example.com", "web", nil))
		return ns, good
	}
	templateFile := func(text string) string {
		file := filepath.Join(t.TempDir(), "custom.tmpl")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}

	t.Run("a line outside any route: not ready", func(t *testing.T) {
		ns, _ := routes(t)
		file := templateFile(`{{define "http-routing"}}
  this-is-not-a-directive
{{end}}`)
		r := cp.LaunchRouter(t, "unready", "--labels", testLabel+"="+ns, "--template", file, "--interval", "1s")
		framework.Eventually(t, "a retry of the refused configuration failed too", func() error {
			if !strings.Contains(r.Output(), `"msg":"applying the configuration again"`) {
				return errors.New("no failed retry logged")
			}
			series, err := scrape(r)
			if err != nil {
				return err
			}
			if n := series["routeshift_router_reload_failures_total"]; n < 2 {
				return fmt.Errorf("routeshift_router_reload_failures_total = %v", n)
			}
			return nil
		})
		if code, body, err := r.GetListen("/healthz", ""); err != nil || code != http.StatusOK {
			t.Errorf("/healthz while HAProxy refuses the configuration: %d %q %v, want 200", code, body, err)
		}
		if code, body, err := r.GetListen("/healthz/ready", ""); err != nil || code == http.StatusOK {
			t.Errorf("/healthz/ready while HAProxy refuses the configuration: %d %q %v, want not 200", code, body, err)
		}
		if !strings.Contains(r.Output(), "this-is-not-a-directive") {
			t.Errorf("HAProxy's reason is not logged:\n%s", r.Output())
		}
		if strings.Contains(r.Output(), `"msg":"not serving a route"`) {
			t.Errorf("a route was blamed for a line outside any route:\n%s", r.Output())
		}
	})

	t.Run("a line in one route's backend: that route is not servable", func(t *testing.T) {
		ns, good := routes(t)
		// A custom backend template (the documented data), with a line
		// HAProxy refuses in the backend of ns/broken.
		file := templateFile(fmt.Sprintf(`{{define "backend"}}backend {{.Name}} from {{.Defaults}}
{{- if eq .Route %q}}
  this-is-not-a-directive
{{- end}}
{{- with .ServerDefaults}}
  default-server{{with .CheckInterval}} check inter {{.}}{{end}}
{{- end}}
{{- range .Servers}}
  server {{.Name}} {{.Endpoint}}{{if .Enabled}} weight {{.Weight}}{{else}} disabled{{end}}
{{- end}}
{{end}}
`, ns+"/broken"))
		r := cp.LaunchRouter(t, "ready", "--labels", testLabel+"="+ns, "--template", file, "--interval", "1s")
		framework.Eventually(t, "/healthz/ready 200 once the configuration without ns/broken loads", func() error {
			if code, body, err := r.GetListen("/healthz/ready", ""); err != nil || code != http.StatusOK {
				return fmt.Errorf("%d %q %v", code, body, err)
			}
			return nil
		})
		got := waitStatus(t, cp, ns, "broken", "ready: False RouteNotServable")
		if in, _ := entryOf(got, "ready"); !strings.Contains(in.Conditions[0].Message, "this-is-not-a-directive") {
			t.Errorf("message %q, want HAProxy's words", in.Conditions[0].Message)
		}
		waitStatus(t, cp, ns, "good", "ready: True")
		httpClient := &http.Client{Timeout: 5 * time.Second}
		framework.Eventually(t, good.Spec.Host+" served", func() error {
			if code, body, err := get(httpClient, fmt.Sprintf("http://127.0.0.1:%d/", r.HTTPPort), good.Spec.Host); err != nil || code != http.StatusOK || body != "web-pod" {
				return fmt.Errorf("%d %q %v", code, body, err)
			}
			return nil
		})
	})
}
