package haproxy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// standbyBase is a first snapshot the standby cases add routes to: a
// plain route of www.example.com, older than every route added.
func standbyBase() router.Snapshot {
	return snapshotOf([]*router.Route{served("ns", "www", "www.example.com")}, eps("ns", "www", "10.0.0.1"))
}

func TestRenderStandbyRoutes(t *testing.T) {
	p := func(m mapID) string { return mapFiles[m] }
	cases := []struct {
		name  string
		route *router.Route
		ips   []string
		other []string // endpoints of service ns/other
		kind  string   // "" when no standby backend may serve the route
		maps  []string
	}{
		{name: "plain", route: served("ns", "new", "new.example.com", createdAt(1)), ips: []string{"10.1.0.1"},
			kind: "http", maps: []string{p(httpPrefix) + " new.example.com/ be_http:ns:new"}},
		{name: "plain, three endpoints and a path", route: served("ns", "new", "www.example.com", atPath("/api"), createdAt(1)),
			ips: []string{"10.1.0.1", "10.1.0.2", "10.1.0.3"}, kind: "http",
			maps: []string{p(httpExact) + " www.example.com/api be_http:ns:new", p(httpPrefix) + " www.example.com/api/ be_http:ns:new"}},
		{name: "edge with the default certificate, redirect", route: served("ns", "new", "new.example.com", createdAt(1),
			tlsRoute(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect)), ips: []string{"10.1.0.1"},
			kind: "http-secure", maps: []string{p(httpPrefix) + " new.example.com/ @redirect-https", p(httpsPrefix) + " new.example.com/ be_edge_http:ns:new"}},
		{name: "edge allowing plain HTTP (no secure cookie)", route: served("ns", "new", "new.example.com", createdAt(1),
			tlsRoute(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyAllow)), ips: []string{"10.1.0.1"},
			kind: "http", maps: []string{p(httpPrefix) + " new.example.com/ be_edge_http:ns:new", p(httpsPrefix) + " new.example.com/ be_edge_http:ns:new"}},
		{name: "passthrough", route: served("ns", "new", "new.example.com", createdAt(1),
			tlsRoute(routecore.TLSTerminationPassthrough, "")), ips: []string{"10.1.0.1"},
			kind: "tcp", maps: []string{p(sniPassthrough) + " new.example.com be_tcp:ns:new"}},
		{name: "wildcard", route: served("ns", "new", "wild.apps.example.com", wildcardRoute, createdAt(1)), ips: []string{"10.1.0.1"},
			kind: "http", maps: []string{p(httpPrefix) + " *.apps.example.com/ be_http:ns:new"}},
		{name: "without endpoints", route: served("ns", "new", "new.example.com", createdAt(1)),
			kind: "http", maps: []string{p(httpPrefix) + " new.example.com/ be_http:ns:new"}},
		{name: "reencrypt (CA file)", route: served("ns", "new", "new.example.com", createdAt(1),
			tlsRoute(routecore.TLSTerminationReencrypt, ""), destCA(t)), ips: []string{"10.1.0.1"}},
		{name: "edge with its own certificate", route: served("ns", "new", "new.example.com", createdAt(1),
			tlsRoute(routecore.TLSTerminationEdge, ""), ownCert(t)), ips: []string{"10.1.0.1"}},
		{name: "a timeout annotation", route: served("ns", "new", "new.example.com", createdAt(1),
			withOverrides(routecore.Overrides{Timeout: time.Minute})), ips: []string{"10.1.0.1"}},
		{name: "its own forwarded-headers policy", route: served("ns", "new", "new.example.com", createdAt(1),
			withOverrides(routecore.Overrides{ForwardedHeaders: "never"})), ips: []string{"10.1.0.1"}},
		{name: "its own cookie name", route: served("ns", "new", "new.example.com", createdAt(1),
			withOverrides(routecore.Overrides{CookieName: "mine"})), ips: []string{"10.1.0.1"}},
		{name: "two services with endpoints (balance roundrobin)", route: served("ns", "new", "new.example.com", createdAt(1),
			withBackends(svcWeight("ns", "new", 1), svcWeight("ns", "other", 1))), ips: []string{"10.1.0.1"}, other: []string{"10.2.0.1"}},
		{name: "a key an older route has", route: served("ns", "new", "www.example.com", createdAt(1)), ips: []string{"10.1.0.1"}},
		{name: "a map key the command line cannot carry", route: served("ns", "new", "new.example.com", atPath("/a;b"), createdAt(1)),
			ips: []string{"10.1.0.1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRenderer(t)
			snap := standbyBase()
			mustRender(t, r, snap)
			snap = nextSnapshot(snap, map[string]*router.Route{c.route.Key(): c.route},
				map[string]*router.ServiceEndpoints{"ns/new": eps("ns", "new", c.ips...), "ns/other": eps("ns", "other", c.other...)})
			out := mustRender(t, r, snap)
			if !out.Reload() {
				t.Fatalf("a new route must reload: reasons %v", out.Reasons)
			}
			if c.kind == "" {
				if len(out.Standby) != 0 {
					t.Fatalf("standby %+v, want none", out.Standby)
				}
				return
			}
			if len(out.Standby) != 1 {
				t.Fatalf("standby %+v, want one route", out.Standby)
			}
			sr := out.Standby[0]
			if sr.Route != "ns/new" || sr.Kind != c.kind || sr.Backend != backendName(c.route) {
				t.Errorf("standby route %s kind %s backend %s, want ns/new %s %s", sr.Route, sr.Kind, sr.Backend, c.kind, backendName(c.route))
			}
			var maps []string
			for _, e := range sr.Maps {
				maps = append(maps, strings.TrimPrefix(e.Map, r.cfg.WorkingDir+"/")+" "+e.Key+" "+e.Value)
			}
			slices.Sort(maps)
			if !slices.Equal(maps, c.maps) {
				t.Errorf("maps:\n%s\nwant:\n%s", strings.Join(maps, "\n"), strings.Join(c.maps, "\n"))
			}
			checkStandbyServers(t, sr.Servers, c.ips)
		})
	}
}

// checkStandbyServers checks that the servers fill a standby backend's one
// slot with the first endpoint and add the others.
func checkStandbyServers(t *testing.T, servers []runtime.ServerUpdate, ips []string) {
	t.Helper()
	if len(servers) != len(ips) {
		t.Fatalf("%d server updates %+v, want %d", len(servers), servers, len(ips))
	}
	for i, u := range servers {
		if u.Server != fmt.Sprintf("s%d", i) || u.Address != ips[i] || u.Port != 8080 || !u.Enabled || u.Add != (i > 0) ||
			u.Checked != (len(ips) > 1) {
			t.Errorf("server update %d: %+v, want %s:8080 enabled, added %v, checked %v", i, u, ips[i], i > 0, len(ips) > 1)
		}
		if u.Add && u.Options != "check inter 5000ms" {
			t.Errorf("added server %s: options %q, want the standby slots' (check inter 5000ms)", u.Server, u.Options)
		}
	}
}

func TestRenderStandbyOnlyNewRoutes(t *testing.T) {
	r := newTestRenderer(t)
	snap := standbyBase()
	if out := mustRender(t, r, snap); len(out.Standby) != 0 {
		t.Errorf("first configuration: standby %+v, want none", out.Standby)
	}
	changed := served("ns", "www", "www.example.com", atPath("/v2"))
	snap = nextSnapshot(snap, map[string]*router.Route{"ns/www": changed}, nil)
	if out := mustRender(t, r, snap); !out.Reload() || len(out.Standby) != 0 {
		t.Errorf("a changed route: reload %v, standby %+v, want a reload and none", out.Reload(), out.Standby)
	}
}

func TestRenderStandbyBackends(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*proxyconfig.Config)
		want int // standby backends of each kind
	}{
		{"default", func(*proxyconfig.Config) {}, 10},
		{"three", func(c *proxyconfig.Config) { c.StandbyBackends = 3 }, 3},
		{"none", func(c *proxyconfig.Config) { c.StandbyBackends = 0 }, 0},
		{"ROUTER_COOKIE_NAME", func(c *proxyconfig.Config) { c.StandbyBackends, c.CookieName = 1, "sticky" }, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRenderer(t, c.mod)
			snap := standbyBase()
			mustRender(t, r, snap)
			snap = nextSnapshot(snap, map[string]*router.Route{"ns/new": served("ns", "new", "new.example.com", createdAt(1))}, nil)
			out := mustRender(t, r, snap)
			text := string(out.Files[standbyFile].Data)
			for _, kind := range []string{"http", "http-secure", "tcp"} {
				if got := len(out.StandbyBackends[kind]); got != c.want {
					t.Errorf("%d standby backends of kind %s, want %d", got, kind, c.want)
				}
				if got := strings.Count(text, "backend be_standby:"+kind+":"); got != c.want {
					t.Errorf("%s declares %d standby backends of kind %s, want %d:\n%s", standbyFile, got, kind, c.want, text)
				}
			}
			if (len(out.Standby) == 1) != (c.want > 0) {
				t.Errorf("standby %+v with %d standby backends", out.Standby, c.want)
			}
			if c.want > 0 && !strings.Contains(text, "backend be_standby:http-secure:0 from http_route\n  cookie ") ||
				strings.Count(text, " secure attr SameSite=None") != c.want {
				t.Errorf("%s: every http-secure standby backend has a secure cookie, no other has:\n%s", standbyFile, text)
			}
			if c.name == "ROUTER_COOKIE_NAME" && strings.Count(text, "cookie sticky insert") != 2 {
				t.Errorf("with ROUTER_COOKIE_NAME, standby backends use that cookie name:\n%s", text)
			}
		})
	}
}
