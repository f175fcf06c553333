package haproxy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

var (
	edgeRedirect = tlsRoute(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect)
	edgeAllow    = tlsRoute(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyAllow)
	reencrypt    = tlsRoute(routecore.TLSTerminationReencrypt, "")
	passthrough  = tlsRoute(routecore.TLSTerminationPassthrough, "")
)

// TestRenderBackendFeatures: each route feature shows as its directive in
// the route's backend. Routes are ns/r on service ns/r.
func TestRenderBackendFeatures(t *testing.T) {
	one := []*router.ServiceEndpoints{eps("ns", "r", "10.0.0.1")}
	two := []*router.ServiceEndpoints{eps("ns", "r", "10.0.0.1", "10.0.0.2")}
	var many []string
	for i := range 61 {
		many = append(many, fmt.Sprintf("10.1.0.%d", i))
	}
	cases := []struct {
		name     string
		cfg      func(*proxyconfig.Config)
		route    []func(*router.Route)
		services []*router.ServiceEndpoints
		want     []string
		unwanted []string
	}{
		// Balance.
		{name: "balance annotation", route: []func(*router.Route){withOverrides(routecore.Overrides{Balance: "roundrobin"})},
			want: []string{"balance roundrobin"}},
		{name: "balance annotation equal to the default is left to the defaults section", route: []func(*router.Route){withOverrides(routecore.Overrides{Balance: "leastconn"})},
			unwanted: []string{"balance leastconn"}},
		{name: "passthrough balance annotation", route: []func(*router.Route){passthrough, withOverrides(routecore.Overrides{Balance: "leastconn"})},
			want: []string{"backend be_tcp:ns:r from tcp_route", "balance leastconn"}},
		{name: "roundrobin when two services are active",
			route:    []func(*router.Route){withBackends(svcWeight("ns", "r", 100), svcWeight("ns", "alt", 50))},
			services: []*router.ServiceEndpoints{eps("ns", "r", "10.0.0.1"), eps("ns", "alt", "10.0.1.1")},
			want:     []string{"balance roundrobin"}},
		{name: "the annotation wins over roundrobin for two services",
			route:    []func(*router.Route){withBackends(svcWeight("ns", "r", 100), svcWeight("ns", "alt", 50)), withOverrides(routecore.Overrides{Balance: "source"})},
			services: []*router.ServiceEndpoints{eps("ns", "r", "10.0.0.1"), eps("ns", "alt", "10.0.1.1")},
			want:     []string{"balance source"}},
		{name: "one service active of two: the default",
			route:    []func(*router.Route){withBackends(svcWeight("ns", "r", 100), svcWeight("ns", "alt", 50))},
			services: one, unwanted: []string{"balance roundrobin"}},

		// Cookies.
		{name: "cookie named after the route", want: []string{"cookie 9f4b23239cf893b80f5a8ee8c4855289 insert indirect nocache httponly dynamic"}},
		{name: "cookie_name annotation", route: []func(*router.Route){withOverrides(routecore.Overrides{CookieName: "my_cookie-1"})},
			want: []string{"cookie my_cookie-1 insert indirect nocache httponly dynamic"}},
		{name: "ROUTER_COOKIE_NAME", cfg: func(c *proxyconfig.Config) { c.CookieName = "shared" },
			want: []string{"cookie shared insert indirect nocache httponly dynamic"}},
		{name: "the annotation wins over ROUTER_COOKIE_NAME", cfg: func(c *proxyconfig.Config) { c.CookieName = "shared" },
			route: []func(*router.Route){withOverrides(routecore.Overrides{CookieName: "mine"})},
			want:  []string{"cookie mine insert indirect nocache httponly dynamic"}},
		{name: "disable_cookies", route: []func(*router.Route){withOverrides(routecore.Overrides{DisableCookies: true})},
			unwanted: []string{"cookie 9f4b23239cf893b80f5a8ee8c4855289 insert indirect nocache httponly dynamic"}},
		{name: "edge: secure cookie, SameSite None", route: []func(*router.Route){edgeRedirect},
			want: []string{"cookie 9f4b23239cf893b80f5a8ee8c4855289 insert indirect nocache httponly dynamic secure attr SameSite=None"}},
		{name: "cookie-same-site annotation", route: []func(*router.Route){reencrypt, withOverrides(routecore.Overrides{CookieSameSite: "Strict"})},
			want: []string{"cookie 9f4b23239cf893b80f5a8ee8c4855289 insert indirect nocache httponly dynamic secure attr SameSite=Strict"}},
		{name: "edge with insecure policy Allow: no secure attribute", route: []func(*router.Route){edgeAllow, withOverrides(routecore.Overrides{CookieSameSite: "Lax"})},
			want: []string{"cookie 9f4b23239cf893b80f5a8ee8c4855289 insert indirect nocache httponly dynamic"}},
		{name: "passthrough: no cookie", route: []func(*router.Route){passthrough},
			unwanted: []string{"cookie 9f4b23239cf893b80f5a8ee8c4855289 insert indirect nocache httponly dynamic"}},

		// Timeouts.
		{name: "timeout annotation", route: []func(*router.Route){withOverrides(routecore.Overrides{Timeout: 5500 * time.Millisecond})},
			want: []string{"timeout server 5500ms"}},
		{name: "timeout clipped to HAProxy's maximum", route: []func(*router.Route){withOverrides(routecore.Overrides{Timeout: 30 * 24 * time.Hour})},
			want: []string{"timeout server 2147483647ms"}},
		{name: "passthrough timeout: server and tunnel", route: []func(*router.Route){passthrough, withOverrides(routecore.Overrides{Timeout: 2 * time.Hour})},
			want: []string{"timeout server 7200000ms", "timeout tunnel 7200000ms"}},

		{name: "tunnel timeout annotation", route: []func(*router.Route){withOverrides(routecore.Overrides{TimeoutTunnel: 30 * time.Minute})},
			want: []string{"timeout tunnel 1800000ms"}, unwanted: []string{"timeout server 1800000ms"}},
		{name: "passthrough: the tunnel annotation wins over timeout", route: []func(*router.Route){passthrough,
			withOverrides(routecore.Overrides{Timeout: 2 * time.Hour, TimeoutTunnel: time.Minute})},
			want: []string{"timeout server 7200000ms", "timeout tunnel 60000ms"}, unwanted: []string{"timeout tunnel 7200000ms"}},

		// Path rewrites.
		{name: "rewrite to /", route: []func(*router.Route){rtPath("/api"), withOverrides(routecore.Overrides{RewriteTarget: "/"})},
			want: []string{`http-request replace-path '^/api/?(.*)$' '/\1'`}},
		{name: "rewrite to another prefix", route: []func(*router.Route){rtPath("/api/"), withOverrides(routecore.Overrides{RewriteTarget: "/v2"})},
			want: []string{`http-request replace-path '^/api(.*)$' '/v2\1'`}},
		{name: "rewrite: regular expression characters of the path are literal, % of the target too",
			route: []func(*router.Route){rtPath("/a.b+(c)$"), withOverrides(routecore.Overrides{RewriteTarget: "/caf%C3%A9/"})},
			want:  []string{`http-request replace-path '^/a\.b\+\(c\)\$/?(.*)$' '/caf%%C3%%A9/\1'`}},
		{name: "rewrite with a quote in the path", route: []func(*router.Route){rtPath("/it's"), withOverrides(routecore.Overrides{RewriteTarget: "/x"})},
			want: []string{`http-request replace-path '^/it'\''s(.*)$' '/x\1'`}},
		{name: "rewrite of a route without a path prepends the target", route: []func(*router.Route){withOverrides(routecore.Overrides{RewriteTarget: "/v2"})},
			want: []string{`http-request replace-path '^(.*)$' '/v2\1'`}},
		{name: "no rewrite for passthrough", route: []func(*router.Route){passthrough, withOverrides(routecore.Overrides{RewriteTarget: "/"})},
			unwanted: []string{`http-request replace-path '^/?(.*)$' '/\1'`}},

		// Health checks and connection caps.
		{name: "health checks with two endpoints", services: two, want: []string{"default-server check inter 5000ms"}},
		// Checks are configured on every slot; the router turns a lone
		// endpoint's off at runtime (TestRenderIncrementalEndpoints).
		{name: "health checks configured with one endpoint", services: one, want: []string{"default-server check inter 5000ms"}},
		{name: "health check interval annotation", services: two,
			route: []func(*router.Route){withOverrides(routecore.Overrides{HealthCheckInterval: 2 * time.Second})},
			want:  []string{"default-server check inter 2000ms"}},
		{name: "ROUTER_BACKEND_CHECK_INTERVAL", services: two, cfg: func(c *proxyconfig.Config) { c.BackendCheckInterval = 3 * time.Second },
			want: []string{"default-server check inter 3000ms"}},
		{name: "pod-concurrent-connections", route: []func(*router.Route){withOverrides(routecore.Overrides{PodConcurrentConnections: 10})},
			want: []string{"default-server check inter 5000ms maxconn 10"}},

		// IP allowlist.
		{name: "allowlist inline, canonical", route: []func(*router.Route){withOverrides(routecore.Overrides{IPAllowlist: []string{"10.0.0.1", "192.168.0.0/16", "2001:DB8::/32"}})},
			want: []string{"acl allowlist src 10.0.0.1 192.168.0.0/16 2001:db8::/32", "tcp-request content reject if !allowlist"}},
		{name: "long allowlist in a file", route: []func(*router.Route){passthrough, withOverrides(routecore.Overrides{IPAllowlist: many})},
			want: []string{"acl allowlist src -f WORKDIR/allowlists/ns_r.txt", "tcp-request content reject if !allowlist"}},
		{name: "allowlist without a valid entry: not served", route: []func(*router.Route){withOverrides(routecore.Overrides{IPAllowlist: []string{"nope"}})},
			want:     []string{"# not served: no valid address in the IP allowlist"},
			unwanted: []string{"server s0 10.0.0.1:8080 weight 1"}},

		// Rate limits.
		{name: "rate limits", route: []func(*router.Route){withOverrides(routecore.Overrides{RateLimit: true, ConcurrentTCP: 5, RateTCP: 10, RateHTTP: 20})},
			want: []string{"stick-table type ip size 100k expire 30s store conn_cur,conn_rate(3s),http_req_rate(10s)",
				"tcp-request content track-sc2 src", "tcp-request content reject if { src_conn_cur gt 5 }",
				"tcp-request content reject if { src_conn_rate gt 10 }", "tcp-request content reject if { src_http_req_rate ge 20 }"}},
		{name: "rate limits of passthrough routes count no HTTP requests", route: []func(*router.Route){passthrough, withOverrides(routecore.Overrides{RateLimit: true, ConcurrentTCP: 5, RateHTTP: 20})},
			want:     []string{"stick-table type ip size 100k expire 30s store conn_cur,conn_rate(3s)", "tcp-request content reject if { src_conn_cur gt 5 }"},
			unwanted: []string{"tcp-request content reject if { src_http_req_rate ge 20 }"}},
		{name: "thresholds without rate-limit-connections do nothing", route: []func(*router.Route){withOverrides(routecore.Overrides{ConcurrentTCP: 5})},
			unwanted: []string{"tcp-request content track-sc2 src"}},

		// Headers.
		{name: "HSTS on edge routes", route: []func(*router.Route){edgeRedirect, withOverrides(routecore.Overrides{HSTSHeader: "max-age=31536000;includeSubDomains;preload"})},
			want: []string{"http-response set-header Strict-Transport-Security 'max-age=31536000;includeSubDomains;preload' if { ssl_fc }"}},
		{name: "no HSTS on plain routes", route: []func(*router.Route){withOverrides(routecore.Overrides{HSTSHeader: "max-age=1"})},
			unwanted: []string{"http-response set-header Strict-Transport-Security 'max-age=1'"}},
		{name: "header actions, quoted", route: []func(*router.Route){edgeRedirect, func(r *router.Route) {
			r.HTTPHeaders = &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{
				Request: []routecore.RouteHTTPHeader{
					{Name: "X-It's", Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Set, Set: &routecore.RouteSetHTTPHeader{Value: "it's #1 %[req.hdr(host),lower]"}}},
					{Name: "X-Gone", Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Delete}},
				},
				Response: []routecore.RouteHTTPHeader{
					{Name: "X-Frame-Options", Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Set, Set: &routecore.RouteSetHTTPHeader{Value: "DENY"}}},
					{Name: "Server", Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Delete}},
				},
			}}
		}},
			want: []string{`http-request set-header 'X-It'\''s' 'it'\''s #1 %[req.hdr(host),lower]'`, "http-request del-header 'X-Gone'",
				"http-response set-header 'X-Frame-Options' 'DENY'", "http-response del-header 'Server'"}},
		{name: "a header value with a line break is never printed", route: []func(*router.Route){edgeRedirect, func(r *router.Route) {
			r.HTTPHeaders = &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{Request: []routecore.RouteHTTPHeader{
				{Name: "X-A", Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Set, Set: &routecore.RouteSetHTTPHeader{Value: "a\nbackend evil"}}}}}}
		}},
			want: []string{"# not served: a header action or HSTS value cannot be quoted"}, unwanted: []string{"backend evil"}},

		// Reencrypt.
		{name: "reencrypt with destination CA", route: []func(*router.Route){reencrypt, destCA(t)},
			want: []string{"default-server check inter 5000ms ssl verify required ca-file WORKDIR/cacerts/ns_r.pem"}},
		{name: "reencrypt without any CA", route: []func(*router.Route){reencrypt},
			want: []string{"default-server check inter 5000ms ssl verify none"}},
		{name: "reencrypt with a destination CA that holds no certificate", route: []func(*router.Route){reencrypt, func(r *router.Route) { r.TLS.DestinationCACertificate = "junk" }},
			want: []string{"# not served: the destination CA certificate holds no certificate"}, unwanted: []string{"default-server ssl verify none"}},
		{name: "reencrypt with the default destination CA missing on disk", route: []func(*router.Route){reencrypt},
			cfg:  func(c *proxyconfig.Config) { c.DefaultDestinationCAPath = "/nonexistent/service-ca.crt" },
			want: []string{"default-server check inter 5000ms ssl verify none"}},

		// Weights and slots.
		{name: "one active service: weight 1", services: two,
			want: []string{"server s0 10.0.0.1:8080 weight 1", "server s1 10.0.0.2:8080 weight 1"}, unwanted: []string{"server s2 192.0.2.1:1 disabled"}},
		{name: "weights spread over endpoints and scaled to 256",
			route:    []func(*router.Route){withBackends(svcWeight("ns", "r", 20), svcWeight("ns", "alt", 10))},
			services: []*router.ServiceEndpoints{eps("ns", "r", "10.0.0.1", "10.0.0.2"), eps("ns", "alt", "10.0.1.1")},
			// Per endpoint 10 and 10: both 256.
			want: []string{"server s0 10.0.0.1:8080 weight 256", "server s1 10.0.0.2:8080 weight 256", "server s2 10.0.1.1:8080 weight 256"}},
		{name: "a positive weight never rounds to 0",
			route:    []func(*router.Route){withBackends(svcWeight("ns", "r", 256), svcWeight("ns", "alt", 1))},
			services: []*router.ServiceEndpoints{eps("ns", "r", "10.0.0.1"), eps("ns", "alt", "10.0.1.1", "10.0.1.2", "10.0.1.3", "10.0.1.4", "10.0.1.5")},
			want:     []string{"server s0 10.0.0.1:8080 weight 256", "server s1 10.0.1.1:8080 weight 1", "server s5 10.0.1.5:8080 weight 1"}},
		{name: "weight 0 service keeps weight 0 servers in HTTP backends",
			route:    []func(*router.Route){withBackends(svcWeight("ns", "r", 100), svcWeight("ns", "alt", 0))},
			services: []*router.ServiceEndpoints{eps("ns", "r", "10.0.0.1"), eps("ns", "alt", "10.0.1.1")},
			want:     []string{"server s0 10.0.0.1:8080 weight 1", "server s1 10.0.1.1:8080 weight 0"}},
		{name: "weight 0 service has no servers in passthrough backends",
			route:    []func(*router.Route){passthrough, withBackends(svcWeight("ns", "r", 100), svcWeight("ns", "alt", 0))},
			services: []*router.ServiceEndpoints{eps("ns", "r", "10.0.0.1"), eps("ns", "alt", "10.0.1.1")},
			want:     []string{"server s0 10.0.0.1:8080 weight 1"}, unwanted: []string{"server s1 10.0.1.1:8080 weight 0"}},
		{name: "all weights 0: no usable server (503)", route: []func(*router.Route){withBackends(svcWeight("ns", "r", 0))},
			want: []string{"server s0 10.0.0.1:8080 weight 0"}},
		{name: "one slot per endpoint, no spare slots",
			services: []*router.ServiceEndpoints{eps("ns", "r", "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5")},
			want:     []string{"server s4 10.0.0.5:8080 weight 1"}, unwanted: []string{"server s5 192.0.2.1:1 disabled"}},
		{name: "target port selects endpoints by port name",
			route: []func(*router.Route){func(r *router.Route) { tp := intstr.FromString("https"); r.TargetPort = &tp }},
			services: []*router.ServiceEndpoints{{Service: eps("ns", "r").Service, Endpoints: []router.Endpoint{
				{IP: "10.0.0.1", Port: 8080, PortName: "http"}, {IP: "10.0.0.1", Port: 8443, PortName: "https"}}}},
			want: []string{"server s0 10.0.0.1:8443 weight 1"}, unwanted: []string{"server s0 10.0.0.1:8080 weight 1"}},
		{name: "IPv6 endpoint", services: []*router.ServiceEndpoints{eps("ns", "r", "fd00::1")},
			want: []string{"server s0 [fd00::1]:8080 weight 1"}},
		{name: "service without endpoints: one disabled slot", services: []*router.ServiceEndpoints{},
			want: []string{"server s0 192.0.2.1:1 disabled"}, unwanted: []string{"server s1 192.0.2.1:1 disabled"}},

		// Header-name case for HTTP/1 endpoints.
		{name: "h1-adjust-case with ROUTER_H1_CASE_ADJUST", cfg: func(c *proxyconfig.Config) { c.H1CaseAdjust = []string{"X-Id"} },
			route: []func(*router.Route){withOverrides(routecore.Overrides{H1AdjustCase: true})}, want: []string{"option h1-case-adjust-bogus-server"}},
		{name: "h1-adjust-case without ROUTER_H1_CASE_ADJUST does nothing", route: []func(*router.Route){withOverrides(routecore.Overrides{H1AdjustCase: true})},
			unwanted: []string{"option h1-case-adjust-bogus-server"}},
		{name: "h1-adjust-case: passthrough routes carry no HTTP", cfg: func(c *proxyconfig.Config) { c.H1CaseAdjust = []string{"X-Id"} },
			route: []func(*router.Route){passthrough, withOverrides(routecore.Overrides{H1AdjustCase: true})}, unwanted: []string{"option h1-case-adjust-bogus-server"}},

		// HTTP/2 to endpoints, by their ports' appProtocol.
		{name: "h2c: cleartext HTTP/2 from HTTP routes", services: withAppProtocol("kubernetes.io/h2c", two),
			want: []string{"server s0 10.0.0.1:8080 weight 1 proto h2", "server s1 10.0.0.2:8080 weight 1 proto h2"}},
		{name: "h2c (OpenShift's name) from edge routes", route: []func(*router.Route){edgeRedirect}, services: withAppProtocol("h2c", one),
			want: []string{"server s0 10.0.0.1:8080 weight 1 proto h2"}},
		{name: "h2: ALPN from reencrypt routes", route: []func(*router.Route){reencrypt}, services: withAppProtocol("h2", one),
			want: []string{"default-server check inter 5000ms ssl verify none", "server s0 10.0.0.1:8080 weight 1 alpn h2,http/1.1"}},
		{name: "h2c means nothing to reencrypt routes, whose endpoints speak TLS", route: []func(*router.Route){reencrypt},
			services: withAppProtocol("kubernetes.io/h2c", one), want: []string{"server s0 10.0.0.1:8080 weight 1"},
			unwanted: []string{"server s0 10.0.0.1:8080 weight 1 proto h2"}},
		{name: "h2 means nothing to HTTP routes, which speak cleartext", services: withAppProtocol("h2", one),
			want: []string{"server s0 10.0.0.1:8080 weight 1"}, unwanted: []string{"server s0 10.0.0.1:8080 weight 1 alpn h2,http/1.1"}},
		{name: "passthrough routes do not speak HTTP", route: []func(*router.Route){passthrough}, services: withAppProtocol("kubernetes.io/h2c", one),
			want: []string{"server s0 10.0.0.1:8080 weight 1"}},
		{name: "other protocols: HTTP/1.1", services: withAppProtocol("kubernetes.io/ws", one),
			want: []string{"server s0 10.0.0.1:8080 weight 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRenderer(t, func(cfg *proxyconfig.Config) {
				if c.cfg != nil {
					c.cfg(cfg)
				}
			})
			services := c.services
			if services == nil {
				services = one
			}
			rt := served("ns", "r", "www.example.com", c.route...)
			out := mustRender(t, r, snapshotOf([]*router.Route{rt}, services...))
			assertLines(t, backendName(rt), backendText(t, out, backendName(rt)), r.cfg.WorkingDir, c.want, c.unwanted)
			haproxyCheck(t, r, out)
		})
	}
}

// withAppProtocol is services with every endpoint's appProtocol set to p.
func withAppProtocol(p string, services []*router.ServiceEndpoints) []*router.ServiceEndpoints {
	var out []*router.ServiceEndpoints
	for _, s := range services {
		c := *s
		c.Endpoints = slices.Clone(s.Endpoints)
		for i := range c.Endpoints {
			c.Endpoints[i].AppProtocol = p
		}
		out = append(out, &c)
	}
	return out
}

// rtPath sets the route's path.
func rtPath(p string) func(*router.Route) { return func(r *router.Route) { r.Path = p } }

func TestRenderAllowListFile(t *testing.T) {
	r := newTestRenderer(t)
	var list []string
	for i := range 61 {
		list = append(list, fmt.Sprintf("10.1.0.%d", i))
	}
	rt := served("ns", "r", "www.example.com", withOverrides(routecore.Overrides{IPAllowlist: list}))
	out := mustRender(t, r, snapshotOf([]*router.Route{rt}))
	f := out.Files["allowlists/ns_r.txt"]
	if want := strings.Join(list, "\n") + "\n"; string(f.Data) != want || f.Mode != 0o644 {
		t.Errorf("allowlist file (%o):\n%s\nwant:\n%s", f.Mode, f.Data, want)
	}
	// Down to 60 entries: inline, and the file goes.
	short := served("ns", "r", "www.example.com", withOverrides(routecore.Overrides{IPAllowlist: list[:60]}))
	out = mustRender(t, r, nextSnapshot(snapshotOf([]*router.Route{rt}), map[string]*router.Route{"ns/r": short}, nil))
	if len(out.Removed) != 1 || out.Removed[0] != "allowlists/ns_r.txt" {
		t.Errorf("removed %v, want the allowlist file", out.Removed)
	}
	assertLines(t, "backend", backendText(t, out, "be_http:ns:r"), r.cfg.WorkingDir,
		[]string{"acl allowlist src " + strings.Join(list[:60], " ")}, nil)
}

func TestRenderDefaultDestinationCA(t *testing.T) {
	caFile := filepath.Join(t.TempDir(), "service-ca.crt")
	pki := destCA(t)
	probe := &router.Route{TLS: &routecore.TLSConfig{}}
	pki(probe)
	if err := os.WriteFile(caFile, []byte(probe.TLS.DestinationCACertificate), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newTestRenderer(t, func(c *proxyconfig.Config) { c.DefaultDestinationCAPath = caFile })
	rt := served("ns", "r", "re.example.com", reencrypt, withBackends(svcWeight("ns", "web", 100)))
	snap := snapshotOf([]*router.Route{rt}, eps("ns", "web", "10.0.0.1"))
	out := mustRender(t, r, snap)
	assertLines(t, "backend", backendText(t, out, "be_secure:ns:r"), r.cfg.WorkingDir, []string{
		"default-server check inter 5000ms ssl verify required ca-file WORKDIR/" + destCAFile,
		"server s0 10.0.0.1:8080 weight 1 verifyhost 'web.ns.svc'",
	}, []string{"server s1 192.0.2.1:1 disabled verifyhost 'web.ns.svc'"})
	haproxyCheck(t, r, out)
	if f := out.Files[destCAFile]; string(f.Data) != probe.TLS.DestinationCACertificate || f.Mode != 0o600 {
		t.Errorf("the router's copy of the CA: mode %v, %d bytes; want the file's content, 0600", f.Mode, len(f.Data))
	}
	if filesChanged(r) {
		t.Error("FilesChanged with the CA file as rendered")
	}

	// A rotated CA: the copy changes, and HAProxy must reload to read it.
	other := destCA(t)
	rotated := &router.Route{TLS: &routecore.TLSConfig{}}
	other(rotated)
	bundle := rotated.TLS.DestinationCACertificate + probe.TLS.DestinationCACertificate
	if err := os.WriteFile(caFile, []byte(bundle), 0o644); err != nil {
		t.Fatal(err)
	}
	if !filesChanged(r) {
		t.Error("FilesChanged false after the CA file changed")
	}
	snap.Version++
	out = mustRender(t, r, snap)
	if string(out.Files[destCAFile].Data) != bundle || !out.Reload() || !slices.Contains(out.Changed, destCAFile) {
		t.Errorf("after the CA changed: reload %v, changed %v", out.Reload(), out.Changed)
	}

	// A half-written file keeps the last CA.
	if err := os.WriteFile(caFile, []byte("-----BEGIN CERT"), 0o644); err != nil {
		t.Fatal(err)
	}
	if filesChanged(r) {
		t.Error("FilesChanged true for a CA file without a certificate")
	}
	snap.Version++
	out = mustRender(t, r, snap)
	if string(out.Files[destCAFile].Data) != bundle || out.Reload() {
		t.Errorf("with a broken CA file: reload %v, copy changed %v", out.Reload(), string(out.Files[destCAFile].Data) != bundle)
	}

	// The file goes away: every reencrypt route is rendered again, now
	// without verification.
	if err := os.Remove(caFile); err != nil {
		t.Fatal(err)
	}
	snap.Version++
	out = mustRender(t, r, snap)
	assertLines(t, "backend", backendText(t, out, "be_secure:ns:r"), r.cfg.WorkingDir, []string{"default-server check inter 5000ms ssl verify none"}, nil)
	if !out.Reload() || !slices.Contains(out.Removed, destCAFile) {
		t.Errorf("changing how endpoints are verified needs a reload (%v) and the copy removed (%v)", out.Reload(), out.Removed)
	}
}

// TestRenderBrokenDestinationCA: a CA file that exists but holds no
// certificate, with no earlier one to keep, fails the rendering rather than
// leaving reencrypt endpoints unverified.
func TestRenderBrokenDestinationCA(t *testing.T) {
	caFile := filepath.Join(t.TempDir(), "service-ca.crt")
	if err := os.WriteFile(caFile, []byte("not a certificate"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newTestRenderer(t, func(c *proxyconfig.Config) { c.DefaultDestinationCAPath = caFile })
	rt := served("ns", "r", "re.example.com", reencrypt, withBackends(svcWeight("ns", "web", 100)))
	in, err := renderInputs(r)
	if err == nil {
		_, err = r.Render(snapshotOf([]*router.Route{rt}, eps("ns", "web", "10.0.0.1")), in)
	}
	if err == nil || !strings.Contains(err.Error(), "DEFAULT_DESTINATION_CA_PATH "+caFile+": no PEM certificate in it") {
		t.Errorf("error %v, want one naming DEFAULT_DESTINATION_CA_PATH", err)
	}
}

// TestAllowListFromAnnotations: the allowlist annotations as the router
// reads them from a Route that bypassed the webhook. Invalid entries never
// widen access: they are dropped, and a list without a valid entry serves
// nobody; an empty value is no allowlist (as in OpenShift).
func TestAllowListFromAnnotations(t *testing.T) {
	tests := []struct {
		name           string
		annotations    []string
		want, unwanted []string
	}{
		{name: "one invalid entry is dropped, the valid ones stay",
			annotations: []string{routecore.AnnIPAllowlist, "10.0.0.1 10.0.0.0/33 nope"},
			want:        []string{"acl allowlist src 10.0.0.1", "tcp-request content reject if !allowlist", "server s0 10.0.0.1:8080 weight 1"}},
		{name: "no valid entry: not served",
			annotations: []string{routecore.AnnIPWhitelist, "10.0.0.0/33"},
			want:        []string{"# not served: no valid address in the IP allowlist"},
			unwanted:    []string{"server s0 10.0.0.1:8080 weight 1"}},
		{name: "an invalid ip_allowlist does not fall back to a valid ip_whitelist",
			annotations: []string{routecore.AnnIPWhitelist, "192.168.0.1", routecore.AnnIPAllowlist, "all"},
			want:        []string{"# not served: no valid address in the IP allowlist"},
			unwanted:    []string{"acl allowlist src 192.168.0.1"}},
		{name: "an empty ip_allowlist leaves ip_whitelist in force",
			annotations: []string{routecore.AnnIPWhitelist, "192.168.0.1", routecore.AnnIPAllowlist, ""},
			want:        []string{"acl allowlist src 192.168.0.1"}},
		{name: "empty: no allowlist",
			annotations: []string{routecore.AnnIPAllowlist, " "},
			want:        []string{"server s0 10.0.0.1:8080 weight 1"},
			unwanted:    []string{"acl allowlist", "not served"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := router.NewStore(router.AdmissionConfig{})
			store.SetRoute(rt("ns", "r", "www.example.com", 1, toService("svc"), annotated(tt.annotations...)))
			store.SetEndpointSlice(sliceFor("ns", "svc", "10.0.0.1", 8080))
			snap := store.Build(true)
			if _, ok := snap.Routes.Get("ns/r"); !ok {
				t.Fatal("the route is not admitted")
			}
			r := newTestRenderer(t)
			assertLines(t, "backend", backendText(t, mustRender(t, r, snap), "be_http:ns:r"), r.cfg.WorkingDir, tt.want, tt.unwanted)
		})
	}
}

// TestPlaceEndpointsProtocol: a slot speaks its endpoint's protocol; a free
// slot keeps the protocol of the service's endpoints, or the one it had
// when the service has none, so that a service scaling down, to zero and
// back changes no server's options (no reload).
func TestPlaceEndpointsProtocol(t *testing.T) {
	h2c := func(ips ...string) []router.Endpoint {
		return withAppProtocol("kubernetes.io/h2c", []*router.ServiceEndpoints{eps("ns", "r", ips...)})[0].Endpoints
	}
	show := func(slots []ServerData) string {
		var out []string
		for _, s := range slots {
			out = append(out, strings.TrimSpace(fmt.Sprintf("%s %v %s", s.Endpoint, s.Enabled, s.Options())))
		}
		return strings.Join(out, ", ")
	}
	var prev []ServerData
	steps := []struct {
		name string
		eps  []router.Endpoint
		want string
	}{
		{"two h2c endpoints", h2c("10.0.0.1", "10.0.0.2"), "10.0.0.1:8080 true proto h2, 10.0.0.2:8080 true proto h2"},
		{"one goes: its slot keeps h2", h2c("10.0.0.1"), "10.0.0.1:8080 true proto h2, 192.0.2.1:1 false proto h2"},
		{"none left: the slots keep h2", nil, "192.0.2.1:1 false proto h2, 192.0.2.1:1 false proto h2"},
		{"back: h2 again", h2c("10.0.0.3"), "10.0.0.3:8080 true proto h2, 192.0.2.1:1 false proto h2"},
		{"appProtocol removed: HTTP/1.1 everywhere", eps("ns", "r", "10.0.0.3").Endpoints, "10.0.0.3:8080 true, 192.0.2.1:1 false"},
	}
	for _, step := range steps {
		prev = placeEndpoints(prev, step.eps, 1, false, "")
		if got := show(prev); got != step.want {
			t.Errorf("%s: slots %s, want %s", step.name, got, step.want)
		}
	}
}
