package haproxy

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
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/atomicfile"
	"github.com/routeshift/routeshift/internal/wstest"
	"github.com/routeshift/routeshift/routecore"
)

// TLS traffic: edge (own and default certificate, insecure policies),
// reencrypt (the backend is verified), passthrough (the backend's
// certificate reaches the client), WebSockets through an edge route,
// unknown hosts over HTTPS and ROUTER_STRICT_SNI.

// routerDefaultCertificate is a router default certificate issued by its own CA.
func routerDefaultCertificate(t *testing.T) (ca, leaf *certs.KeyPair) {
	ca = newCA(t, "router default CA")
	return ca, issue(t, ca, "router-default.example.org")
}

// sameCert reports whether the connection's leaf certificate is kp's.
func sameCert(state *tls.ConnectionState, kp *certs.KeyPair) bool {
	return state != nil && len(state.PeerCertificates) > 0 && bytes.Equal(state.PeerCertificates[0].Raw, kp.Cert.Raw)
}

func leafName(state *tls.ConnectionState) string {
	if state == nil || len(state.PeerCertificates) == 0 {
		return "no certificate"
	}
	return state.PeerCertificates[0].Subject.CommonName
}

// handshake dials the router's HTTPS port with SNI serverName ("" sends
// none) and returns the connection state.
func (r *trafficRouter) handshake(serverName string, roots *x509.CertPool) (*tls.ConnectionState, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPSPort)),
		&tls.Config{ServerName: serverName, RootCAs: roots, InsecureSkipVerify: roots == nil})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	state := conn.ConnectionState()
	return &state, nil
}

func TestTrafficTLS(t *testing.T) {
	defaultCA, defaultLeaf := routerDefaultCertificate(t)
	r := newTrafficRouter(t, func(d *proxyconfig.Config) {
		d.DefaultCertificate = string(defaultLeaf.CertPEM) + string(defaultLeaf.KeyPEM)
	})

	// Plain backends behind edge routes.
	web := newBackend(t, "web", nil, nil)
	r.endpoints("ns", "web", web)
	routeCA := newCA(t, "route CA")
	routeLeaf := issue(t, routeCA, "secure.example.com")
	edge := routecore.TLSTerminationEdge
	r.route(rt("ns", "edge-own-cert", "secure.example.com", 1, toService("web"), terminated(edge, "", routeLeaf, routeCA)))
	r.route(rt("ns", "edge-default-cert", "default-cert.example.com", 2, toService("web"), terminated(edge, "", nil, nil)))
	r.route(rt("ns", "insecure-none", "none.example.com", 3, toService("web"), terminated(edge, routecore.InsecureEdgeTerminationPolicyNone, nil, nil)))
	r.route(rt("ns", "insecure-allow", "allow.example.com", 4, toService("web"), terminated(edge, routecore.InsecureEdgeTerminationPolicyAllow, nil, nil)))
	r.route(rt("ns", "insecure-redirect", "redirect.example.com", 5, toService("web"), terminated(edge, routecore.InsecureEdgeTerminationPolicyRedirect, nil, nil)))

	// Reencrypt: the backend serves a certificate of backendCA.
	backendCA, otherCA := newCA(t, "backend CA"), newCA(t, "another CA")
	secureBackend := newBackend(t, "secure-backend", nil, tlsServerConfig(t, issue(t, backendCA, "127.0.0.1", "secure-backend.ns.svc")))
	r.endpoints("ns", "secure-backend", secureBackend)
	reencrypt := routecore.TLSTerminationReencrypt
	r.route(rt("ns", "reencrypt", "reencrypt.example.com", 6, toService("secure-backend"), terminated(reencrypt, "", nil, nil), destinationCA(backendCA)))
	r.route(rt("ns", "reencrypt-wrong-ca", "wrong-ca.example.com", 7, toService("secure-backend"), terminated(reencrypt, "", nil, nil), destinationCA(otherCA)))

	// Passthrough: the backend terminates TLS with its own certificate.
	podCA := newCA(t, "pod CA")
	podLeaf := issue(t, podCA, "passthrough.example.com")
	pod := newBackend(t, "pod", nil, tlsServerConfig(t, podLeaf))
	r.endpoints("ns", "pod", pod)
	r.route(rt("ns", "passthrough", "passthrough.example.com", 8, toService("pod"), terminated(routecore.TLSTerminationPassthrough, "", nil, nil)))

	// WebSocket echo behind an edge route.
	ws := newBackend(t, "ws", wstest.Echo, nil)
	r.endpoints("ns", "ws", ws)
	r.route(rt("ns", "websocket", "ws.example.com", 9, toService("ws"), terminated(edge, "", nil, nil)))
	r.start()

	https := r.client(clientOptions{})
	t.Run("edge_own_certificate_via_SNI", func(t *testing.T) {
		x := fetch(r.client(clientOptions{roots: pool(routeCA)}), "https://secure.example.com/")
		wantServed(t, "https://secure.example.com/ verified with the route's CA", x, "web")
		if !sameCert(x.tls, routeLeaf) {
			t.Errorf("the client saw %s, want the route's certificate", leafName(x.tls))
		}
		state, err := r.handshake("secure.example.com", pool(routeCA))
		if err != nil || !sameCert(state, routeLeaf) {
			t.Errorf("tls.Dial with SNI secure.example.com: %v, leaf %s", err, leafName(state))
		}
	})
	t.Run("edge_without_certificate_serves_the_default_one", func(t *testing.T) {
		x := fetch(https, "https://default-cert.example.com/")
		wantServed(t, "https://default-cert.example.com/", x, "web")
		if !sameCert(x.tls, defaultLeaf) {
			t.Errorf("the client saw %s, want the default certificate", leafName(x.tls))
		}
		state, err := r.handshake("router-default.example.org", pool(defaultCA))
		if err != nil || !sameCert(state, defaultLeaf) {
			t.Errorf("the default certificate does not verify with its CA: %v, leaf %s", err, leafName(state))
		}
	})
	t.Run("insecure_policy_None_refuses_HTTP", func(t *testing.T) {
		wantNotServed(t, "http://none.example.com/", r.get("none.example.com", "/"))
		wantServed(t, "https://none.example.com/", fetch(https, "https://none.example.com/"), "web")
		wantNotServed(t, "http://secure.example.com/ (policy empty)", r.get("secure.example.com", "/"))
	})
	t.Run("insecure_policy_Allow_serves_HTTP", func(t *testing.T) {
		wantServed(t, "http://allow.example.com/", r.get("allow.example.com", "/"), "web")
		wantServed(t, "https://allow.example.com/", fetch(https, "https://allow.example.com/"), "web")
	})
	t.Run("insecure_policy_Redirect_sends_302_to_https", func(t *testing.T) {
		before := web.hits.Load()
		x := r.get("redirect.example.com", "/some/path?q=1")
		if want := "https://redirect.example.com/some/path?q=1"; x.err != nil || x.code != http.StatusFound || x.header.Get("Location") != want {
			t.Errorf("http://redirect.example.com/some/path?q=1: %v, Location %q; want 302 to %s", x, x.header.Get("Location"), want)
		}
		if web.hits.Load() != before {
			t.Error("the redirected request reached the backend")
		}
		wantServed(t, "https://redirect.example.com/", fetch(https, "https://redirect.example.com/some/path"), "web")
	})
	t.Run("reencrypt_verifies_the_backend_with_the_destination_CA", func(t *testing.T) {
		wantServed(t, "https://reencrypt.example.com/", fetch(https, "https://reencrypt.example.com/"), "secure-backend")
	})
	t.Run("reencrypt_with_the_wrong_destination_CA_fails", func(t *testing.T) {
		before := secureBackend.hits.Load()
		x := fetch(https, "https://wrong-ca.example.com/")
		if x.err != nil || x.code != http.StatusServiceUnavailable || x.header.Get("X-Backend") != "" {
			t.Errorf("https://wrong-ca.example.com/: %v, want HAProxy's 503", x)
		}
		if secureBackend.hits.Load() != before {
			t.Error("a request reached a backend whose certificate the destination CA does not verify")
		}
	})
	t.Run("passthrough_client_sees_the_backend_certificate", func(t *testing.T) {
		x := fetch(r.client(clientOptions{roots: pool(podCA)}), "https://passthrough.example.com/")
		wantServed(t, "https://passthrough.example.com/ verified with the pod's CA", x, "pod")
		if !sameCert(x.tls, podLeaf) {
			t.Errorf("the client saw %s, want the backend's certificate", leafName(x.tls))
		}
		if x.tls != nil && sameCert(x.tls, defaultLeaf) {
			t.Error("the router terminated TLS")
		}
	})
	t.Run("websocket_upgrade_through_edge_route", func(t *testing.T) {
		if err := wstest.RoundTrip(net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPSPort)), "ws.example.com", "hello through the router"); err != nil {
			t.Error(err)
		}
	})
	t.Run("unknown_host_HTTPS_gets_default_certificate_and_503", func(t *testing.T) {
		x := fetch(https, "https://unknown.example.com/")
		wantNotServed(t, "https://unknown.example.com/", x)
		if !sameCert(x.tls, defaultLeaf) {
			t.Errorf("the client saw %s, want the default certificate", leafName(x.tls))
		}
		state, err := r.handshake("", nil)
		if err != nil || !sameCert(state, defaultLeaf) {
			t.Errorf("TLS without SNI: %v, leaf %s; want the default certificate", err, leafName(state))
		}
		wantNotServed(t, "http://unknown.example.com/", r.get("unknown.example.com", "/"))
	})
}

// TestTrafficStrictSNI: with ROUTER_STRICT_SNI a TLS handshake whose SNI no
// route's certificate matches fails, while a route with its own
// certificate is still served.
func TestTrafficStrictSNI(t *testing.T) {
	_, defaultLeaf := routerDefaultCertificate(t)
	r := newTrafficRouter(t, func(d *proxyconfig.Config) {
		d.StrictSNI = true
		d.DefaultCertificate = string(defaultLeaf.CertPEM) + string(defaultLeaf.KeyPEM)
	})
	r.endpoints("ns", "web", newBackend(t, "web", nil, nil))
	routeCA := newCA(t, "route CA")
	routeLeaf := issue(t, routeCA, "secure.example.com")
	r.route(rt("ns", "edge", "secure.example.com", 1, toService("web"), terminated(routecore.TLSTerminationEdge, "", routeLeaf, routeCA)))
	r.start()

	x := fetch(r.client(clientOptions{roots: pool(routeCA)}), "https://secure.example.com/")
	wantServed(t, "https://secure.example.com/ under strict SNI", x, "web")
	if state, err := r.handshake("unknown.example.com", nil); err == nil {
		t.Errorf("TLS handshake with SNI unknown.example.com succeeded (certificate %s), want it refused", leafName(state))
	}
}

// TestTrafficDefaultCertificateRenewed: a certificate renewed in
// DEFAULT_CERTIFICATE_DIR (as cert-manager or a Secret volume renews it) is
// served without any route changing, through the runtime API.
func TestTrafficDefaultCertificateRenewed(t *testing.T) {
	dir := t.TempDir()
	ca := newCA(t, "default certificate CA")
	write := func(kp *certs.KeyPair) {
		for name, data := range map[string][]byte{"tls.crt": kp.CertPEM, "tls.key": kp.KeyPEM} {
			if err := atomicfile.Write(filepath.Join(dir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	first, renewed := issue(t, ca, "first.example.org"), issue(t, ca, "renewed.example.org")
	write(first)
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.DefaultCertificateDir = dir })
	r.filePoll = 100 * time.Millisecond
	r.start()
	state, err := r.handshake("", nil)
	if err != nil || !sameCert(state, first) {
		t.Fatalf("before the renewal: %v, leaf %s; want first.example.org", err, leafName(state))
	}
	reloads := r.reloads()
	write(renewed)
	eventually(t, 10*time.Second, "the renewed default certificate is served", func() error {
		state, err := r.handshake("", nil)
		if err != nil {
			return err
		}
		if !sameCert(state, renewed) {
			return fmt.Errorf("served %s", leafName(state))
		}
		return nil
	})
	if n := r.reloads() - reloads; n != 0 {
		t.Errorf("the renewal reloaded HAProxy %d times, want 0 (runtime API)", n)
	}
	if got := r.counterValues(t, "routeshift_router_certificate_updates_total"); got["runtime"] != 1 || got["reload"] != 0 {
		t.Errorf("routeshift_router_certificate_updates_total %v, want runtime 1, reload 0", got)
	}
}

// TestTrafficRedirectPort: with ROUTER_HTTPS_REDIRECT_PORT the redirect of
// insecureEdgeTerminationPolicy Redirect names the port, and following it
// reaches the route over HTTPS.
func TestTrafficRedirectPort(t *testing.T) {
	r := newTrafficRouter(t)
	r.cfg.HTTPSRedirectPort = r.cfg.HTTPSPort
	web := newBackend(t, "web", nil, nil)
	r.endpoints("ns", "web", web)
	r.route(rt("ns", "redirect", "redirect.example.com", 1, toService("web"),
		terminated(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect, nil, nil)))
	r.start()

	x := r.get("redirect.example.com", "/p?q=1")
	want := fmt.Sprintf("https://redirect.example.com:%d/p?q=1", r.cfg.HTTPSPort)
	if x.err != nil || x.code != http.StatusFound || x.header.Get("Location") != want {
		t.Fatalf("http://redirect.example.com/p?q=1: %v, Location %q; want 302 to %s", x, x.header.Get("Location"), want)
	}
	// Follow it as a client would: to the port it names.
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	follow := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			_, port, _ := net.SplitHostPort(addr)
			return dialer.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", port))
		},
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the router's generated default certificate
	}}
	wantServed(t, want, fetch(follow, want), "web")
}

// TestTrafficReencryptScaleUp: a reencrypt service that grows gets servers
// added through the runtime API, verifying the new endpoint with the
// route's destination CA like the others, without a reload.
func TestTrafficReencryptScaleUp(t *testing.T) {
	r := newTrafficRouter(t)
	backendCA := newCA(t, "backend CA")
	cert := issue(t, backendCA, "127.0.0.1", "secure.ns.svc")
	first := newBackend(t, "secure-1", nil, tlsServerConfig(t, cert))
	r.endpoints("ns", "secure", first)
	r.route(rt("ns", "reencrypt", "reencrypt.example.com", 1, toService("secure"),
		terminated(routecore.TLSTerminationReencrypt, "", nil, nil), destinationCA(backendCA), annotated(routecore.AnnBalance, "roundrobin")))
	r.start()
	https := r.client(clientOptions{})
	wantServed(t, "https://reencrypt.example.com/", fetch(https, "https://reencrypt.example.com/"), "secure-1")

	base := r.reloads()
	second := newBackend(t, "secure-2", nil, tlsServerConfig(t, cert))
	r.endpoints("ns", "secure", first, second)
	r.publish()
	eventually(t, 30*time.Second, "the added endpoint serves over verified TLS", func() error {
		if x := fetch(https, "https://reencrypt.example.com/"); !x.served("secure-2") {
			return errors.New(x.String())
		}
		return nil
	})
	if n := r.reloads() - base; n != 0 {
		t.Errorf("adding a reencrypt endpoint reloaded HAProxy %d times, want 0", n)
	}
	// An endpoint whose certificate the destination CA did not issue is
	// not served, added at runtime or not.
	other := newBackend(t, "untrusted", nil, tlsServerConfig(t, issue(t, newCA(t, "other CA"), "127.0.0.1", "secure.ns.svc")))
	r.endpoints("ns", "secure", other)
	r.publish()
	eventually(t, 30*time.Second, "the untrusted endpoint is not served", func() error {
		if x := fetch(https, "https://reencrypt.example.com/"); x.err == nil && x.code == http.StatusOK {
			return fmt.Errorf("served: %s", x)
		}
		return nil
	})
}

// TestTrafficDefaultDestinationCARotated: reencrypt routes without a
// destinationCACertificate verify endpoints with DEFAULT_DESTINATION_CA_PATH;
// when that file's CA is rotated, the router loads the new one without any
// route or endpoint change.
func TestTrafficDefaultDestinationCARotated(t *testing.T) {
	oldCA, rotatedCA := newCA(t, "old service CA"), newCA(t, "new service CA")
	caFile := filepath.Join(t.TempDir(), "service-ca.crt")
	if err := atomicfile.Write(caFile, oldCA.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.DefaultDestinationCAPath = caFile })
	r.filePoll = 100 * time.Millisecond
	// The endpoint already serves a certificate of the new CA.
	r.endpoints("ns", "secure", newBackend(t, "secure", nil, tlsServerConfig(t, issue(t, rotatedCA, "secure.ns.svc"))))
	r.route(rt("ns", "reencrypt", "reencrypt.example.com", 1, toService("secure"), terminated(routecore.TLSTerminationReencrypt, "", nil, nil)))
	r.start()
	https := r.client(clientOptions{})
	if x := fetch(https, "https://reencrypt.example.com/"); x.err == nil && x.code == http.StatusOK {
		t.Fatalf("served with the old CA in the file: %v", x)
	}
	if err := atomicfile.Write(caFile, append(slices.Clone(rotatedCA.CertPEM), oldCA.CertPEM...), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "the endpoint is verified with the rotated CA", func() error {
		if x := fetch(https, "https://reencrypt.example.com/"); !x.served("secure") {
			return errors.New(x.String())
		}
		return nil
	})
	r.wantReloadLogged(t, runtime.Reason{Kind: ReasonDefaultCA, Subject: destCAFile})
}

// TestTrafficHTTP2: with ROUTER_DISABLE_HTTP2=false a route with its own
// certificate is served over HTTP/2, a route with the default certificate
// over HTTP/1.1, and an HTTP/2 request for another host than the
// connection's SNI name gets 421 (the client retries on a new connection).
func TestTrafficHTTP2(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.DisableHTTP2 = false })
	r.endpoints("ns", "web", newBackend(t, "web", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("X-Backend", "web")
		fmt.Fprintf(w, "%s %s", req.Proto, req.Host)
	}, nil))
	routeCA := newCA(t, "route CA")
	edge := routecore.TLSTerminationEdge
	r.route(rt("ns", "own", "own.example.com", 1, toService("web"), terminated(edge, "", issue(t, routeCA, "own.example.com", "other.example.com"), routeCA)))
	r.route(rt("ns", "other", "other.example.com", 2, toService("web"), terminated(edge, "", nil, nil)))
	r.start()

	h2 := func(serverName string) *http.Client {
		dialer := &net.Dialer{Timeout: 5 * time.Second}
		return &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{
			ForceAttemptHTTP2: true,
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return dialer.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPSPort)))
			},
			TLSClientConfig: &tls.Config{ServerName: serverName, InsecureSkipVerify: true}, //nolint:gosec // the default certificate is self-signed
		}}
	}
	get := func(c *http.Client, url string) (int, string, string) {
		resp, err := c.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Proto, string(body)
	}
	// The route's own certificate offers h2; the endpoint still gets HTTP/1.1.
	if code, proto, body := get(h2("own.example.com"), "https://own.example.com/"); code != http.StatusOK || proto != "HTTP/2.0" || body != "HTTP/1.1 own.example.com" {
		t.Errorf("own certificate: %d %s %q, want 200 over HTTP/2.0 with the endpoint spoken to in HTTP/1.1", code, proto, body)
	}
	// The default certificate does not.
	if code, proto, _ := get(h2("other.example.com"), "https://other.example.com/"); code != http.StatusOK || proto != "HTTP/1.1" {
		t.Errorf("default certificate: %d %s, want 200 over HTTP/1.1", code, proto)
	}
	// Reusing the HTTP/2 connection of own.example.com (its certificate
	// also covers other.example.com) for other.example.com: 421.
	if code, proto, _ := get(h2("own.example.com"), "https://other.example.com/"); code != http.StatusMisdirectedRequest || proto != "HTTP/2.0" {
		t.Errorf("HTTP/2 request for another host than the SNI name: %d %s, want 421", code, proto)
	}
}

// TestTrafficWildcardTLS: wildcard routes over TLS. An edge wildcard route
// serves HTTPS for every host of one more label in its domain with its own
// certificate, chosen by SNI; a passthrough wildcard route is reached by
// SNI and the client sees the backend's certificate. Routes of exact hosts
// in those domains take their host (their certificate, their backend);
// deeper subdomains get the default certificate and the router's 503.
func TestTrafficWildcardTLS(t *testing.T) {
	_, defaultLeaf := routerDefaultCertificate(t)
	r := newTrafficRouter(t, func(d *proxyconfig.Config) {
		d.DefaultCertificate = string(defaultLeaf.CertPEM) + string(defaultLeaf.KeyPEM)
	}).allowWildcardRoutes()
	edge, passthrough := routecore.TLSTerminationEdge, routecore.TLSTerminationPassthrough

	// Edge: the wildcard route's certificate is for *.edge.test.
	routeCA := newCA(t, "route CA")
	wildLeaf, exactLeaf := issue(t, routeCA, "*.edge.test"), issue(t, routeCA, "exact.edge.test")
	r.endpoints("ns", "web", newBackend(t, "web", nil, nil))
	r.endpoints("ns", "exact-web", newBackend(t, "exact-web", nil, nil))
	r.route(rt("ns", "edge-wild", "www.edge.test", 1, toService("web"), wildcard, terminated(edge, "", wildLeaf, routeCA)))
	r.route(rt("ns", "edge-exact", "exact.edge.test", 2, toService("exact-web"), terminated(edge, "", exactLeaf, routeCA)))

	// Passthrough: the backends terminate TLS with their own certificates.
	podCA := newCA(t, "pod CA")
	podLeaf, exactPodLeaf := issue(t, podCA, "*.pass.test"), issue(t, podCA, "exact.pass.test")
	r.endpoints("ns", "pod", newBackend(t, "pod", nil, tlsServerConfig(t, podLeaf)))
	r.endpoints("ns", "exact-pod", newBackend(t, "exact-pod", nil, tlsServerConfig(t, exactPodLeaf)))
	r.route(rt("ns", "pass-wild", "www.pass.test", 3, toService("pod"), wildcard, terminated(passthrough, "", nil, nil)))
	r.route(rt("ns", "pass-exact", "exact.pass.test", 4, toService("exact-pod"), terminated(passthrough, "", nil, nil)))
	r.start()

	for _, c := range []struct {
		host     string
		roots    *x509.CertPool // verify the router's answer; nil: no verification
		servedBy string         // "" = the router's 503
		cert     *certs.KeyPair // the certificate the client sees
	}{
		{"x.edge.test", pool(routeCA), "web", wildLeaf},
		{"www.edge.test", pool(routeCA), "web", wildLeaf},
		{"exact.edge.test", pool(routeCA), "exact-web", exactLeaf},
		{"a.b.edge.test", nil, "", defaultLeaf},
		{"edge.test", nil, "", defaultLeaf},
		{"y.pass.test", pool(podCA), "pod", podLeaf},
		{"www.pass.test", pool(podCA), "pod", podLeaf},
		{"exact.pass.test", pool(podCA), "exact-pod", exactPodLeaf},
		{"a.b.pass.test", nil, "", defaultLeaf},
		{"pass.test", nil, "", defaultLeaf},
	} {
		url := "https://" + c.host + "/"
		x := fetch(r.client(clientOptions{roots: c.roots}), url)
		if c.servedBy == "" {
			wantNotServed(t, url, x)
		} else {
			wantServed(t, url, x, c.servedBy)
		}
		if !sameCert(x.tls, c.cert) {
			t.Errorf("%s: the client saw %s, want %s", url, leafName(x.tls), c.cert.Cert.Subject.CommonName)
		}
		// The bare handshake with SNI: the certificate is chosen before
		// any request.
		if state, err := r.handshake(c.host, c.roots); err != nil || !sameCert(state, c.cert) {
			t.Errorf("tls.Dial with SNI %s: %v, leaf %s; want %s", c.host, err, leafName(state), c.cert.Cert.Subject.CommonName)
		}
	}
	// Edge without an insecure policy: no plain HTTP, wildcard or not.
	wantNotServed(t, "http://x.edge.test/", r.get("x.edge.test", "/"))
}
