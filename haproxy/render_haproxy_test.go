package haproxy

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// everyAnnotation sets every per-route setting.
func everyAnnotation(term routecore.TLSTerminationType, allowlist int) routecore.Overrides {
	o := routecore.Overrides{Balance: "source", CookieName: "sticky", CookieSameSite: "Lax", PodConcurrentConnections: 50,
		RateLimit: true, ConcurrentTCP: 10, RateHTTP: 100, RateTCP: 20, Timeout: 90 * time.Second, HealthCheckInterval: 2 * time.Second,
		HSTSHeader: `max-age="31536000"; includeSubDomains; preload`}
	for i := range allowlist {
		o.IPAllowlist = append(o.IPAllowlist, fmt.Sprintf("10.9.%d.0/24", i))
	}
	o.IPAllowlist = append(o.IPAllowlist, "2001:db8::1")
	return o
}

func headerActions(r *router.Route) {
	set := func(name, value string) routecore.RouteHTTPHeader {
		return routecore.RouteHTTPHeader{Name: name, Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Set, Set: &routecore.RouteSetHTTPHeader{Value: value}}}
	}
	del := func(name string) routecore.RouteHTTPHeader {
		return routecore.RouteHTTPHeader{Name: name, Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Delete}}
	}
	r.HTTPHeaders = &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{
		Request: []routecore.RouteHTTPHeader{set("X-Client-Cert", "%{+Q}[ssl_c_der,base64]"), set("X-It's", `it's "100%%" #1 \ %[req.hdr(Host),lower]`), del("X-Remove")},
		Response: []routecore.RouteHTTPHeader{set("X-Frame-Options", "SAMEORIGIN"), set("X-Echo", "%[res.hdr(X-Up)]"), del("Server"),
			set("!#$%&'*+-.^_`|~", "v")},
	}}
}

// TestRenderHAProxyAcceptsEverything: HAProxy accepts the rendering of
// every route kind with every annotation, with every router setting on.
func TestRenderHAProxyAcceptsEverything(t *testing.T) {
	caFile := filepath.Join(t.TempDir(), "service-ca.crt")
	probe := &router.Route{TLS: &routecore.TLSConfig{}}
	destCA(t)(probe)
	if err := os.WriteFile(caFile, []byte(probe.TLS.DestinationCACertificate), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newTestRenderer(t, func(c *proxyconfig.Config) {
		c.Threads, c.Ciphers, c.StrictSNI, c.UseProxyProtocol = 2, "old", true, true
		c.EnableCompression, c.SyslogAddress, c.SyslogFormat = true, "127.0.0.1:514", "%ci:%cp [%tr] %ft %b/%s %ST %B %{+Q}r"
		c.StatsPort, c.StatsUsername, c.StatsPassword = 11936, "admin", "secret"
		c.DefaultDestinationCAPath, c.CookieName, c.BindAddress = caFile, "router_cookie", "127.0.0.1"
	})
	all := func(term routecore.TLSTerminationType, allowlist int) func(*router.Route) {
		return withOverrides(everyAnnotation(term, allowlist))
	}
	cert := ownCert(t)
	routes := []*router.Route{
		served("ns", "plain", "www.example.com", all("", 3), headerActions),
		served("ns", "path", "www.example.com", atPath("/api"), withOverrides(routecore.Overrides{DisableCookies: true})),
		served("ns", "exact", "www.example.com", atExactPath("/exact")),
		served("ns", "edge", "edge.example.com", edgeRedirect, all(routecore.TLSTerminationEdge, 100), headerActions),
		served("ns", "edge-cert", "secure.example.com", edgeAllow, cert, all(routecore.TLSTerminationEdge, 0)),
		served("ns", "edge-wild", "wildcard.apps.example.com", wildcardRoute, edgeRedirect, cert),
		served("ns", "reencrypt", "re.example.com", reencrypt, destCA(t), cert, all(routecore.TLSTerminationReencrypt, 2), headerActions),
		served("ns", "reencrypt-default", "re2.example.com", reencrypt,
			withBackends(svcWeight("ns", "web", 30), svcWeight("ns", "canary", 10), svcWeight("ns", "off", 0))),
		served("ns", "pass", "pass.example.com", tlsRoute(routecore.TLSTerminationPassthrough, routecore.InsecureEdgeTerminationPolicyRedirect),
			all(routecore.TLSTerminationPassthrough, 70)),
		served("ns", "pass-wild", "wildcard.tcp.example.com", wildcardRoute, passthrough,
			withBackends(svcWeight("ns", "pass-wild", 1), svcWeight("ns", "off", 0))),
		served("ns", "unserved", "bad.example.com", reencrypt, func(r *router.Route) { r.TLS.DestinationCACertificate = "junk" }),
	}
	var big []string
	for i := range 9 {
		big = append(big, fmt.Sprintf("10.1.0.%d", i+1))
	}
	snap := snapshotOf(routes,
		eps("ns", "plain", "10.0.0.1", "10.0.0.2", "fd00::3"), eps("ns", "path", "10.0.1.1"), eps("ns", "edge", big...),
		eps("ns", "edge-cert", "10.0.3.1"), eps("ns", "reencrypt", "10.0.4.1", "10.0.4.2"), eps("ns", "web", "10.0.5.1", "10.0.5.2"),
		eps("ns", "canary", "10.0.6.1"), eps("ns", "off", "10.0.7.1"), eps("ns", "pass", "10.0.8.1", "10.0.8.2"), eps("ns", "unserved", "10.0.9.1"))
	out := mustRender(t, r, snap)
	haproxyCheck(t, r, out)
}
