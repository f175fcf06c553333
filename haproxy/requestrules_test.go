package haproxy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// TestRequestRulesRendered: what each of routeshift's request annotations
// prints into the route's backend, and that HAProxy accepts all of them
// together, with lists long enough to go to files.
func TestRequestRulesRendered(t *testing.T) {
	r := newTestRenderer(t, func(c *proxyconfig.Config) { c.MaxBodySize = 16 << 10 })
	var many []string
	for i := range 100 {
		many = append(many, fmt.Sprintf("10.8.%d.0/24", i))
	}
	all := routecore.Overrides{MaxBodySize: routecore.BodySize{Set: true, Bytes: 1 << 10}, IPDenylist: []string{"10.0.0.1", "2001:db8::/32"},
		IPAllowlist: []string{"10.0.0.0/8"}, RedirectCode: 307, AppRoot: "/app", RedirectTo: "https://new.example.org/v2$request_uri",
		RateLimit: true, ConcurrentTCP: 5, RateTCP: 10, RateHTTP: 20, RateLimitStatus: 429, RateLimitExempt: []string{"10.1.0.0/16"}}
	long := routecore.Overrides{IPDenylist: many, RateLimit: true, RateHTTP: 5, RateLimitExempt: many,
		MaxBodySize: routecore.BodySize{Set: true, Bytes: 1 << 20}}
	routes := []*router.Route{
		served("ns", "all", "all.example.com", withOverrides(all), tlsRoute(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect)),
		served("ns", "long", "long.example.com", withOverrides(long)),
		served("ns", "plain", "plain.example.com"),
		served("ns", "lifted", "lifted.example.com", withOverrides(routecore.Overrides{MaxBodySize: routecore.BodySize{Set: true}})),
		served("ns", "closing", "closing.example.com", withOverrides(routecore.Overrides{RateLimit: true, RateHTTP: 5})),
		served("ns", "pass", "pass.example.com", tlsRoute(routecore.TLSTerminationPassthrough, routecore.InsecureEdgeTerminationPolicyRedirect),
			withOverrides(all)),
	}
	out := mustRender(t, r, snapshotOf(routes, eps("ns", "all", "10.0.0.9"), eps("ns", "long", "10.0.0.8"), eps("ns", "plain", "10.0.0.7")))
	haproxyCheck(t, r, out)

	want := map[string][]string{
		"be_edge_http:ns:all": {
			"  acl denylist src 10.0.0.1 2001:db8::/32\n  http-request deny deny_status 403 if denylist",
			"  acl ratelimit_exempt src 10.1.0.0/16\n  tcp-request content track-sc2 src if !ratelimit_exempt",
			"  http-request deny deny_status 429 hdr Retry-After 1 if { src_conn_cur gt 5 }",
			"  http-request deny deny_status 429 hdr Retry-After 3 if { src_conn_rate gt 10 }",
			"  http-request deny deny_status 429 hdr Retry-After 10 if { src_http_req_rate gt 20 }",
			"  http-request deny deny_status 413 if { req.hdr_val(content-length) gt 1024 }\n  option http-buffer-request\n  http-request deny deny_status 413 if { req.body_size gt 1024 }",
			"  http-request redirect location https://%[var(txn.host)]%[pathq] code 307 if !{ ssl_fc }\n" +
				"  http-request redirect location '/app' code 302 if { path / }\n" +
				"  http-request redirect prefix 'https://new.example.org/v2' code 307",
		},
		"be_http:ns:long": {
			"  acl denylist src -f " + r.abs(ipListFile(routes[1], "deny")),
			"  acl ratelimit_exempt src -f " + r.abs(ipListFile(routes[1], "exempt")),
			"  http-request deny deny_status 413 if { req.hdr_val(content-length) gt 1048576 }",
		},
		"be_http:ns:plain":   {"  http-request deny deny_status 413 if { req.hdr_val(content-length) gt 16384 }\n  option http-buffer-request"},
		"be_http:ns:closing": {"  tcp-request content reject if { src_http_req_rate ge 5 }"},
	}
	for name, lines := range want {
		text := backendText(t, out, name)
		for _, l := range lines {
			if !strings.Contains(text, l+"\n") {
				t.Errorf("%s lacks\n%s\nin\n%s", name, l, text)
			}
		}
	}
	// Above the buffer, only the Content-Length is checked.
	if text := backendText(t, out, "be_http:ns:long"); strings.Contains(text, "http-buffer-request") {
		t.Errorf("a limit above the buffer waits for the body:\n%s", text)
	}
	if text := backendText(t, out, "be_http:ns:lifted"); strings.Contains(text, "413") {
		t.Errorf("max-body-size 0 does not lift the router's limit:\n%s", text)
	}
	if text := backendText(t, out, "be_tcp:ns:pass"); strings.Contains(text, "http-request") || strings.Contains(text, "denylist") {
		t.Errorf("a passthrough route got HTTP rules:\n%s", text)
	}
	for _, kind := range []string{"deny", "exempt"} {
		f, ok := out.Files[ipListFile(routes[1], kind)]
		if !ok || strings.Count(string(f.Data), "\n") != 100 || !strings.HasPrefix(string(f.Data), "10.8.0.0/24\n") {
			t.Errorf("%s list file: %q", kind, f.Data)
		}
	}
	// An edge route with the default code keeps the frontend's redirect;
	// with its own code, the HTTP map sends it to its backend.
	maps := string(out.Files[mapFiles[httpPrefix]].Data)
	if !strings.Contains(maps, "all.example.com/ be_edge_http:ns:all\n") {
		t.Errorf("the HTTP map does not send the route with its own redirect code to its backend:\n%s", maps)
	}
}

// TestDenyListFailsClosed: a deny list entry the router cannot read (a
// Route that bypassed the webhook) serves the route to nobody.
func TestDenyListFailsClosed(t *testing.T) {
	r := newTestRenderer(t)
	out := mustRender(t, r, snapshotOf([]*router.Route{served("ns", "web", "web.example.com",
		withOverrides(routecore.Overrides{IPDenylist: []string{"10.0.0.1", "not-an-address"}}))}, eps("ns", "web", "10.0.0.9")))
	text := backendText(t, out, "be_http:ns:web")
	if !strings.Contains(text, "# not served: an IP denylist entry cannot be read") || strings.Contains(text, "server ") {
		t.Errorf("backend:\n%s", text)
	}
}
