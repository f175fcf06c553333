package haproxy

import (
	"strings"
	"testing"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// TestCanaryRendered: what the canary annotations print into a route's
// backend (the exact acl, set-var and use-server lines), that HAProxy
// accepts them, and that routes without a usable canary print nothing of
// it.
func TestCanaryRendered(t *testing.T) {
	r := newTestRenderer(t)
	three := withBackends(svcWeight("ns", "stable", 100), svcWeight("ns", "canary", 0), svcWeight("ns", "other", 0))
	routes := []*router.Route{
		served("ns", "both", "both.example.com", three, withOverrides(routecore.Overrides{CanaryBackend: "canary",
			CanaryByHeader: "X-Canary", CanaryByCookie: "canary_c"})),
		served("ns", "value", "value.example.com", three, tlsRoute(routecore.TLSTerminationEdge, ""), withOverrides(routecore.Overrides{CanaryBackend: "canary",
			CanaryByHeader: "X-Group", CanaryByHeaderValue: "beta 'testers' #1 %[x]"})),
		served("ns", "pattern", "pattern.example.com", three, withOverrides(routecore.Overrides{CanaryBackend: "canary",
			CanaryByHeader: "X-Group", CanaryByHeaderPattern: `^(?i)(beta|staff)-\d+ 'x'$`})),
		served("ns", "allzero", "allzero.example.com", withBackends(svcWeight("ns", "stable", 0), svcWeight("ns", "canary", 0), svcWeight("ns", "other", 0)),
			withOverrides(routecore.Overrides{CanaryBackend: "canary", CanaryByCookie: "c"})),
		served("ns", "plain", "plain.example.com", three),
		served("ns", "alone", "alone.example.com", three, withOverrides(routecore.Overrides{CanaryBackend: "canary"})),
		served("ns", "stranger", "stranger.example.com", three, withOverrides(routecore.Overrides{CanaryBackend: "beta", CanaryByHeader: "X-Canary"})),
		served("ns", "to", "to.example.com", three, withOverrides(routecore.Overrides{CanaryBackend: "stable", CanaryByHeader: "X-Canary"})),
		served("ns", "nobackend", "nobackend.example.com", three, withOverrides(routecore.Overrides{CanaryByHeader: "X-Canary"})),
		served("ns", "exclusive", "exclusive.example.com", three, withOverrides(routecore.Overrides{CanaryBackend: "canary",
			CanaryByHeader: "X-Canary", CanaryByHeaderValue: "a", CanaryByHeaderPattern: "b"})),
	}
	out := mustRender(t, r, snapshotOf(routes, eps("ns", "stable", "10.0.0.1", "10.0.0.2"), eps("ns", "canary", "10.0.1.1", "10.0.1.2"),
		eps("ns", "other", "10.0.2.1")))
	haproxyCheck(t, r, out)

	useServers := "" +
		"  use-server s2 if { var(txn.canary) -m str want } { var(txn.canary_pick) -m int 0 }\n" +
		"  use-server s3 if { var(txn.canary) -m str want } { var(txn.canary_pick) -m int 1 }\n" +
		"  use-server s2 if { var(txn.canary) -m str want }\n" +
		"  use-server s3 if { var(txn.canary) -m str want }\n" +
		"  use-server s0 if { var(txn.canary) -m str never } { var(txn.canary_pick) -m int 0 }\n" +
		"  use-server s1 if { var(txn.canary) -m str never } { var(txn.canary_pick) -m int 1 }\n" +
		"  use-server s0 if { var(txn.canary) -m str never }\n" +
		"  use-server s1 if { var(txn.canary) -m str never }\n"
	picks := "" +
		"  http-request set-var(txn.canary_pick) rand(2) if { var(txn.canary) -m str want }\n" +
		"  http-request set-var(txn.canary_pick) rand(2) if { var(txn.canary) -m str never }\n"
	want := map[string][]string{
		"be_http:ns:both": {"" +
			"  acl canary_header_want req.fhdr(X-Canary) -m str 'always'\n" +
			"  acl canary_header_never req.fhdr(X-Canary) -m str 'never'\n" +
			"  acl canary_cookie_want req.cook(canary_c) -m str 'always'\n" +
			"  acl canary_cookie_never req.cook(canary_c) -m str 'never'\n" +
			"  http-request set-var(txn.canary) str(want) if canary_header_want || !canary_header_never canary_cookie_want\n" +
			"  http-request set-var(txn.canary) str(never) if canary_header_never || !canary_header_want canary_cookie_never\n" + picks,
			useServers},
		"be_edge_http:ns:value": {"" +
			"  acl canary_header_want req.fhdr(X-Group) -m str 'beta '\\''testers'\\'' #1 %[x]'\n" +
			"  acl canary_header_never req.fhdr(X-Group) -m str 'never'\n" +
			"  http-request set-var(txn.canary) str(want) if canary_header_want\n" +
			"  http-request set-var(txn.canary) str(never) if canary_header_never\n" + picks,
			useServers},
		"be_http:ns:pattern": {"  acl canary_header_want req.fhdr(X-Group) -m reg '^(?i)(beta|staff)-\\d+ '\\''x'\\''$'\n", useServers},
		// No service has a weight: never chooses among all the others.
		"be_http:ns:allzero": {"  http-request set-var(txn.canary_pick) rand(3) if { var(txn.canary) -m str never }\n",
			"  use-server s4 if { var(txn.canary) -m str never } { var(txn.canary_pick) -m int 2 }\n"},
		// Exclusive value and pattern: the header is left out.
		"be_http:ns:exclusive": {},
	}
	for name, lines := range want {
		text := backendText(t, out, name)
		for _, l := range lines {
			if !strings.Contains(text, l) {
				t.Errorf("%s lacks\n%s\nin\n%s", name, l, text)
			}
		}
	}
	for _, name := range []string{"plain", "alone", "stranger", "to", "nobackend", "exclusive"} {
		if text := backendText(t, out, "be_http:ns:"+name); strings.Contains(text, "canary") {
			t.Errorf("%s renders a canary:\n%s", name, text)
		}
	}
}
