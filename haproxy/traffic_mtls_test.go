package haproxy

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
)

// Client-certificate authentication (ROUTER_MUTUAL_TLS_AUTH): which
// clients an edge route serves under none, optional and required, what
// its endpoint learns of their certificates, CRLs from a file and from the
// CA bundle's distribution point, and a passthrough route left alone.

// mtlsPKI is a client CA and its clients: good and revoked (O=Acme), and
// outsider (O=Other), which the filter ^/O=Acme/ keeps out.
type mtlsPKI struct {
	ca                     *certs.KeyPair
	good, revoked, outside *certs.KeyPair
}

func newMTLSPKI(t testing.TB, crlURL string) *mtlsPKI {
	t.Helper()
	opts := certs.Options{CommonName: "clients CA", IsCA: true}
	if crlURL != "" {
		opts.CRLDistributionPoints = []string{crlURL}
	}
	ca, err := certs.Generate(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := func(cn, org string) *certs.KeyPair {
		kp, err := ca.Issue(certs.Options{CommonName: cn, Organization: []string{org}, ClientAuth: true})
		if err != nil {
			t.Fatal(err)
		}
		return kp
	}
	return &mtlsPKI{ca: ca, good: client("good", "Acme"), revoked: client("revoked", "Acme"), outside: client("outsider", "Other")}
}

// crl is the CA's CRL revoking certs, valid for validity.
func (p *mtlsPKI) crl(t *testing.T, number int64, validity time.Duration, revoked ...*certs.KeyPair) []byte {
	t.Helper()
	var list []*x509.Certificate
	for _, kp := range revoked {
		list = append(list, kp.Cert)
	}
	pem, err := p.ca.RevocationList(number, time.Now().Add(validity), list...)
	if err != nil {
		t.Fatal(err)
	}
	return pem
}

// clientCertEcho answers with the X-SSL* headers it receives, one line
// each, sorted by name.
func clientCertEcho(w http.ResponseWriter, req *http.Request) {
	var lines []string
	for name, values := range req.Header {
		if strings.HasPrefix(name, "X-Ssl") {
			lines = append(lines, name+": "+strings.Join(values, " | "))
		}
	}
	slices.Sort(lines)
	fmt.Fprint(w, strings.Join(lines, "\n"))
}

// mtlsClient is an HTTPS client of the router for secure.example.com with
// the client certificate kp (nil: none); it trusts serverCA.
func (r *trafficRouter) mtlsClient(serverCA, kp *certs.KeyPair) *http.Client {
	c := r.client(clientOptions{roots: pool(serverCA)})
	cfg := c.Transport.(*http.Transport).TLSClientConfig
	if kp != nil {
		pair, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
		if err != nil {
			r.t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return c
}

// TestTrafficMutualTLS: under each ROUTER_MUTUAL_TLS_AUTH mode, with a CRL
// file and the subject filter ^/O=Acme/, what a good, a revoked, a
// filtered-out and a missing client certificate get from an edge route,
// and what its endpoint sees; a forged X-SSL-Client-DN never reaches it,
// and a passthrough route serves every client.
func TestTrafficMutualTLS(t *testing.T) {
	for _, mode := range []string{"none", "optional", "required"} {
		t.Run(mode, func(t *testing.T) {
			p := newMTLSPKI(t, "")
			caFile, crlFile := writeTempFile(t, "ca.pem", string(p.ca.CertPEM)), writeTempFile(t, "ca.crl", string(p.crl(t, 1, time.Hour, p.revoked)))
			r, serverCA := mtlsRouter(t, func(d *proxyconfig.Config) {
				d.MutualTLSAuth, d.MutualTLSAuthCA, d.MutualTLSAuthCRL, d.MutualTLSAuthFilter = mode, caFile, crlFile, "^/O=Acme/"
			})
			const served, refused, forbidden = "served", "refused", "403"
			want := map[string]map[string]string{
				"none":     {"good": served, "revoked": served, "outsider": served, "missing": served},
				"optional": {"good": served, "revoked": refused, "outsider": forbidden, "missing": forbidden},
				"required": {"good": served, "revoked": refused, "outsider": forbidden, "missing": refused},
			}[mode]
			clients := map[string]*certs.KeyPair{"good": p.good, "revoked": p.revoked, "outsider": p.outside, "missing": nil}
			check := func(host string) {
				t.Helper()
				for name, kp := range clients {
					x := fetch(r.mtlsClient(serverCA, kp), "https://"+host+"/", "X-SSL-Client-DN", "/O=Acme/CN=admin")
					got := served
					switch {
					case x.err != nil:
						got = refused
					case x.code == http.StatusForbidden:
						got = forbidden
					case x.code != http.StatusOK:
						got = x.String()
					}
					if got != want[name] {
						t.Errorf("%s, %s client certificate: %v, want %s", host, name, x, want[name])
					} else if got == served {
						checkClientHeaders(t, name, mode, x.body)
					}
				}
			}
			check("secure.example.com")
			// A route certificate the runtime API adds to the crt-list
			// (the route had none) asks for client certificates as well.
			r.route(rt("ns", "later", "later.example.com", 3, toService("echo"),
				terminated(routecore.TLSTerminationEdge, "", issue(t, serverCA, "later.example.com"), nil)))
			reloads := r.reloads()
			r.publish()
			eventually(t, 30*time.Second, "later.example.com served with its own certificate", func() error {
				if x := fetch(r.mtlsClient(serverCA, p.good), "https://later.example.com/"); x.code != http.StatusOK {
					return fmt.Errorf("%v", x)
				}
				return nil
			})
			if n := r.reloads(); n != reloads {
				t.Errorf("adding a route certificate reloaded HAProxy %d times, want 0 (runtime API)", n-reloads)
			}
			check("later.example.com")
			// Passthrough routes are never asked for client certificates.
			if x := fetch(r.mtlsClient(serverCA, nil), "https://pass.example.com/"); !x.served("pass") {
				t.Errorf("passthrough route without a client certificate: %v, want served", x)
			}
		})
	}
}

// checkClientHeaders checks the X-SSL* headers the endpoint saw for a
// served client: the certificate's own under optional and required, none
// under none; never the forged DN.
func checkClientHeaders(t *testing.T, name, mode, body string) {
	t.Helper()
	if strings.Contains(body, "CN=admin") {
		t.Errorf("%s, %s: the forged X-SSL-Client-DN reached the endpoint:\n%s", name, mode, body)
	}
	if mode == "none" {
		if body != "" {
			t.Errorf("%s, none: the endpoint saw X-SSL headers:\n%s", name, body)
		}
		return
	}
	for _, want := range []string{`X-Ssl: 1`, `X-Ssl-Client-Dn: /O=Acme/CN=good`, `X-Ssl-Client-Cn: good`,
		`X-Ssl-Client-Verify: 0`, `X-Ssl-Issuer: /CN=clients CA`} {
		if !strings.Contains(body+"\n", want+"\n") {
			t.Errorf("%s, %s: the endpoint saw\n%s\nwant the line %s", name, mode, body, want)
		}
	}
}

// mtlsRouter starts a router with mods serving secure.example.com (edge,
// its own certificate from the returned CA) and later.example.com (edge,
// the default certificate) from an endpoint that echoes the X-SSL*
// headers, and pass.example.com (passthrough).
func mtlsRouter(t *testing.T, mods ...func(*proxyconfig.Config)) (*trafficRouter, *certs.KeyPair) {
	t.Helper()
	r := newTrafficRouter(t, mods...)
	serverCA := newCA(t, "server CA")
	r.endpoints("ns", "echo", newBackend(t, "echo", clientCertEcho, nil))
	r.endpoints("ns", "pass", newBackend(t, "pass", nil, tlsServerConfig(t, issue(t, serverCA, "pass.example.com"))))
	r.route(rt("ns", "secure", "secure.example.com", 1, toService("echo"),
		terminated(routecore.TLSTerminationEdge, "", issue(t, serverCA, "secure.example.com"), nil)))
	r.route(rt("ns", "pass", "pass.example.com", 2, toService("pass"), terminated(routecore.TLSTerminationPassthrough, "", nil, nil)))
	r.route(rt("ns", "later", "later.example.com", 3, toService("echo"), terminated(routecore.TLSTerminationEdge, "", nil, nil)))
	r.filePoll = 100 * time.Millisecond
	r.start()
	return r, serverCA
}

// TestTrafficMutualTLSFiles: a new client CA bundle and a new CRL file
// are loaded without a restart: the old CA's clients are refused once the
// bundle names another CA, a certificate revoked in a new CRL file is
// refused.
func TestTrafficMutualTLSFiles(t *testing.T) {
	p := newMTLSPKI(t, "")
	caFile, crlFile := writeTempFile(t, "ca.pem", string(p.ca.CertPEM)), writeTempFile(t, "ca.crl", string(p.crl(t, 1, time.Hour)))
	r, serverCA := mtlsRouter(t, func(d *proxyconfig.Config) {
		d.MutualTLSAuth, d.MutualTLSAuthCA, d.MutualTLSAuthCRL = "required", caFile, crlFile
	})
	get := func(kp *certs.KeyPair) reply { return fetch(r.mtlsClient(serverCA, kp), "https://secure.example.com/") }
	if x := get(p.revoked); x.code != http.StatusOK {
		t.Fatalf("a certificate no CRL revokes yet: %v", x)
	}
	writeFile(t, crlFile, p.crl(t, 2, time.Hour, p.revoked))
	eventually(t, 30*time.Second, "the revoked certificate refused", func() error {
		if x := get(p.revoked); x.err == nil {
			return fmt.Errorf("still served: %v", x)
		}
		return nil
	})
	if x := get(p.good); x.code != http.StatusOK {
		t.Errorf("the good certificate after the new CRL: %v", x)
	}

	other := newMTLSPKI(t, "")
	writeFile(t, crlFile, other.crl(t, 1, time.Hour))
	writeFile(t, caFile, other.ca.CertPEM)
	eventually(t, 30*time.Second, "the new CA's client served", func() error {
		if x := get(other.good); x.code != http.StatusOK {
			return fmt.Errorf("%v", x)
		}
		return nil
	})
	if x := get(p.good); x.err == nil {
		t.Errorf("a client of the CA no longer in the bundle: %v, want refused", x)
	}
}

// TestTrafficMutualTLSDistributionPoint: the CRL the CA bundle's
// distribution point names is fetched (here from a server on loopback) and
// followed: until it has been fetched every client certificate is refused
// (fail closed); then the good one is served; a CRL that revokes it is
// picked up at its next update.
func TestTrafficMutualTLSDistributionPoint(t *testing.T) {
	var current atomic.Pointer[[]byte] // nil: the server answers 503
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	crlServer := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if b := current.Load(); b != nil {
			_, _ = w.Write(*b)
			return
		}
		http.Error(w, "not yet", http.StatusServiceUnavailable)
	})}
	go func() { _ = crlServer.Serve(l) }()
	t.Cleanup(func() { _ = crlServer.Close() })
	p := newMTLSPKI(t, "http://"+l.Addr().String()+"/clients.crl")
	caFile := writeTempFile(t, "ca.pem", string(p.ca.CertPEM))
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.MutualTLSAuth, d.MutualTLSAuthCA = "required", caFile })
	serverCA := newCA(t, "server CA")
	r.endpoints("ns", "echo", newBackend(t, "echo", clientCertEcho, nil))
	r.route(rt("ns", "secure", "secure.example.com", 1, toService("echo"),
		terminated(routecore.TLSTerminationEdge, "", issue(t, serverCA, "secure.example.com"), nil)))
	r.filePoll = 100 * time.Millisecond
	r.launch(func() {
		r.p.files.crls.minRefresh, r.p.files.crls.retryAfter = 200*time.Millisecond, 200*time.Millisecond
	})
	eventually(t, 30*time.Second, "ready", func() error {
		if !r.p.Ready() {
			return fmt.Errorf("not ready")
		}
		return nil
	})
	get := func(kp *certs.KeyPair) reply { return fetch(r.mtlsClient(serverCA, kp), "https://secure.example.com/") }

	if x := get(p.good); x.err == nil {
		t.Fatalf("before its CA's CRL could be fetched, a client certificate got %v, want refused", x)
	}
	crl := p.crl(t, 1, time.Minute)
	current.Store(&crl)
	eventually(t, 30*time.Second, "the good certificate served once the CRL is fetched", func() error {
		if x := get(p.good); x.code != http.StatusOK {
			return fmt.Errorf("%v", x)
		}
		return nil
	})
	revoking := p.crl(t, 2, time.Hour, p.good)
	current.Store(&revoking)
	eventually(t, 30*time.Second, "the good certificate refused once a CRL revokes it", func() error {
		if x := get(p.good); x.err == nil {
			return fmt.Errorf("still served: %v", x)
		}
		return nil
	})
}

// writeFile replaces the file at path atomically.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
