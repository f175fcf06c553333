package haproxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// handshakeLoad runs TLS handshakes (each a new connection, verified
// against roots for serverName, then one HTTP request) against the router
// from a few clients until stopped, and counts them.
type handshakeLoad struct {
	ok, failed atomic.Int64
	mu         sync.Mutex
	errs       []error
	stop       func()
}

// startHandshakeLoad starts the clients; stop waits for them.
func (r *trafficRouter) startHandshakeLoad(serverName string, roots *x509.CertPool) *handshakeLoad {
	l := &handshakeLoad{}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				if err := r.handshakeAndGet(serverName, roots); err != nil {
					l.failed.Add(1)
					l.mu.Lock()
					l.errs = append(l.errs, err)
					l.mu.Unlock()
				} else {
					l.ok.Add(1)
				}
			}
		})
	}
	l.stop = func() { cancel(); wg.Wait() }
	return l
}

// handshakeAndGet verifies the router's certificate for serverName and
// sends one request over the connection, which must be answered 200.
func (r *trafficRouter) handshakeAndGet(serverName string, roots *x509.CertPool) error {
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPSPort)),
		&tls.Config{ServerName: serverName, RootCAs: roots})
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", serverName); err != nil {
		return err
	}
	status := make([]byte, 12)
	if _, err := conn.Read(status); err != nil {
		return err
	}
	if string(status) != "HTTP/1.1 200" {
		return fmt.Errorf("answered %q", status)
	}
	return nil
}

// servesCertificate polls until a handshake with serverName gets kp.
func (r *trafficRouter) servesCertificate(t *testing.T, serverName string, kp *certs.KeyPair) {
	t.Helper()
	eventually(t, 30*time.Second, fmt.Sprintf("%s serves the certificate with serial %s", serverName, kp.Cert.SerialNumber), func() error {
		state, err := r.handshake(serverName, nil)
		if err != nil {
			return err
		}
		if !sameCert(state, kp) {
			return fmt.Errorf("served %s (serial %s)", leafName(state), state.PeerCertificates[0].SerialNumber)
		}
		return nil
	})
}

// TestTrafficCertificatesWithoutReload: a route's certificate renewed
// again and again while clients make TLS handshakes to it, a certificate
// added to a route served by the default certificate, and one removed,
// reach HAProxy through its runtime API: no reload, no failed handshake,
// each load counted under method "runtime". A certificate renewed together
// with a change that needs a reload is loaded by that reload and counted
// under "reload".
func TestTrafficCertificatesWithoutReload(t *testing.T) {
	_, defaultLeaf := routerDefaultCertificate(t)
	r := newTrafficRouter(t, func(d *proxyconfig.Config) {
		d.DefaultCertificate = string(defaultLeaf.CertPEM) + string(defaultLeaf.KeyPEM)
	})
	ca := newCA(t, "renewals CA")
	web := newBackend(t, "web", nil, nil)
	r.endpoints("ns", "web", web)
	edge := func(name, host string, leaf *certs.KeyPair, mods ...func(*routecore.Route)) *routecore.Route {
		mods = append([]func(*routecore.Route){toService("web"),
			terminated(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect, leaf, nil)}, mods...)
		return rt("ns", name, host, 1, mods...)
	}
	r.route(edge("tls", "tls.example.com", issue(t, ca, "tls.example.com")))
	r.route(edge("plain", "plain.example.com", nil))
	r.start()
	reloads := r.reloads()

	load := r.startHandshakeLoad("tls.example.com", pool(ca))
	const renewals = 3
	for range renewals {
		renewed := issue(t, ca, "tls.example.com")
		r.route(edge("tls", "tls.example.com", renewed))
		r.publish()
		r.servesCertificate(t, "tls.example.com", renewed)
	}
	plainLeaf := issue(t, ca, "plain.example.com")
	r.route(edge("plain", "plain.example.com", plainLeaf))
	r.publish()
	r.servesCertificate(t, "plain.example.com", plainLeaf)
	load.stop()
	if n := load.failed.Load(); n != 0 {
		t.Errorf("%d of %d TLS handshakes failed while certificates changed; first: %v", n, n+load.ok.Load(), errors.Join(load.errs[:min(3, len(load.errs))]...))
	}
	if load.ok.Load() == 0 {
		t.Error("no handshake succeeded: the load ran against nothing")
	}
	t.Logf("%d TLS handshakes while the certificates changed", load.ok.Load())

	r.route(edge("plain", "plain.example.com", nil))
	r.publish()
	r.servesCertificate(t, "plain.example.com", defaultLeaf)
	if n := r.reloads() - reloads; n != 0 {
		t.Errorf("certificate changes reloaded HAProxy %d times, want 0", n)
	}
	if got := r.counterValues(t, "routeshift_router_certificate_updates_total"); got["runtime"] != renewals+1 || got["reload"] != 0 {
		t.Errorf("routeshift_router_certificate_updates_total %v, want runtime %d, reload 0", got, renewals+1)
	}

	// A renewal that comes with a change the runtime API cannot make.
	renewed := issue(t, ca, "tls.example.com")
	r.route(edge("tls", "tls.example.com", renewed, annotated(routecore.AnnBalance, "random")))
	r.publish()
	r.waitReloads(reloads + 1)
	r.servesCertificate(t, "tls.example.com", renewed)
	eventually(t, 10*time.Second, "the reload's certificate is counted", func() error {
		if got := r.counterValues(t, "routeshift_router_certificate_updates_total"); got["runtime"] != renewals+1 || got["reload"] != 1 {
			return fmt.Errorf("routeshift_router_certificate_updates_total %v, want runtime %d, reload 1", got, renewals+1)
		}
		return nil
	})
}

// TestTrafficACMEChallengeBesideRedirect: the route cert-manager's HTTP-01
// solver gets (through its Ingress) for
// /.well-known/acme-challenge/<token> on a host whose route redirects
// plain HTTP to HTTPS (insecureEdgeTerminationPolicy Redirect) is admitted
// beside it (same namespace, a longer path) and answers over plain HTTP:
// the redirect takes only the paths no plain-HTTP route serves. The
// solver's Ingress path is Exact (cert-manager's default) or
// ImplementationSpecific (a prefix here).
func TestTrafficACMEChallengeBesideRedirect(t *testing.T) {
	const challenge = "/.well-known/acme-challenge/5PMRyjvDbvv2Ecm0EmEvpJ4hG6n_rq0BoXgVwNy2lzg"
	for _, pathType := range []string{"Exact", "Prefix"} {
		t.Run(pathType, func(t *testing.T) {
			r := newTrafficRouter(t)
			web, solver := newBackend(t, "web", nil, nil), newBackend(t, "solver", nil, nil)
			r.endpoints("ns", "web", web)
			r.endpoints("ns", "solver", solver)
			r.route(rt("ns", "app", "www.example.com", 1, toService("web"),
				terminated(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect, nil, nil)))
			r.route(rt("ns", "cm-acme-http-solver-x7k2q", "www.example.com", 2, toService("solver"), withPath(challenge),
				annotated(routecore.AnnPathType, pathType)))
			r.start()

			for _, name := range []string{"app", "cm-acme-http-solver-x7k2q"} {
				if d := r.decision("ns", name); d.Verdict != router.Admitted {
					t.Errorf("route ns/%s: %v %s %s, want admitted", name, d.Verdict, d.Reason, d.Message)
				}
			}
			wantServed(t, "http://www.example.com"+challenge, r.get("www.example.com", challenge), "solver")
			for _, path := range []string{"/", "/.well-known/acme-challenge/another-token", challenge + "x"} {
				x := r.get("www.example.com", path)
				if want := "https://www.example.com" + path; x.err != nil || x.code != http.StatusFound || x.header.Get("Location") != want {
					t.Errorf("http://www.example.com%s: %v, Location %q; want a 302 to %s", path, x, x.header.Get("Location"), want)
				}
			}
			wantServed(t, "https://www.example.com/", fetch(r.client(clientOptions{}), "https://www.example.com/"), "web")
		})
	}
}

// TestTrafficRefusedCertificateRenewal: a route's certificate renewed with
// one HAProxy cannot load (a 1024-bit RSA key, which routecore accepts and
// OpenSSL 3 refuses) is refused by the runtime API: the route is reported
// not servable with HAProxy's words and answered closed (503), as a route
// HAProxy refuses in a configuration is, without a configuration failing
// to load; the other routes keep being served, and a good certificate
// brings the route back.
func TestTrafficRefusedCertificateRenewal(t *testing.T) {
	r := newTrafficRouter(t)
	web := newBackend(t, "web", nil, nil)
	r.endpoints("ns", "web", web)
	ca := newCA(t, "renewals CA")
	edge := func(mod func(*routecore.Route)) *routecore.Route {
		return rt("ns", "tls", "tls.example.com", 1, toService("web"), mod)
	}
	r.route(edge(terminated(routecore.TLSTerminationEdge, "", issue(t, ca, "tls.example.com"), nil)))
	r.route(rt("ns", "plain", "plain.example.com", 2, toService("web")))
	r.start()
	failures := r.counterValue(t, "routeshift_router_reload_failures_total")

	r.route(edge(weakEdge(t, "tls.example.com")))
	r.publish()
	const want = "HAProxy refuses this route's configuration: unable to load SSL certificate into SSL Context 'certs/ns_tls.pem'."
	if d := r.waitNotServable("ns", "tls", "unable to load SSL certificate"); d.Message != want {
		t.Errorf("status message %q, want %q", d.Message, want)
	}
	eventually(t, 30*time.Second, "https://tls.example.com/ answered closed", func() error {
		if x := fetch(r.client(clientOptions{}), "https://tls.example.com/"); x.err != nil || x.code != http.StatusServiceUnavailable {
			return errors.New(x.String())
		}
		return nil
	})
	r.servedBy("plain.example.com", "/", "web")
	if got := r.counterValue(t, "routeshift_router_reload_failures_total"); got != failures {
		t.Errorf("%v configurations failed to load; the refused certificate should never reach one", got-failures)
	}

	fixed := issue(t, ca, "tls.example.com")
	r.route(edge(terminated(routecore.TLSTerminationEdge, "", fixed, nil)))
	r.publish()
	r.servesCertificate(t, "tls.example.com", fixed)
	eventually(t, 30*time.Second, "the fixed route is admitted and served", func() error {
		if d := r.decision("ns", "tls"); d.Verdict != router.Admitted {
			return fmt.Errorf("decision %+v", d)
		}
		if x := fetch(r.client(clientOptions{roots: pool(ca)}), "https://tls.example.com/"); !x.served("web") {
			return errors.New(x.String())
		}
		return nil
	})
}
