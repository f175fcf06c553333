package haproxy

import (
	"slices"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// lookup does what the frontends do with the maps of out (see
// RoutingData): exact key, then longest prefix, then both for the wildcard
// key. It returns the map value, or "" for the 503 backend.
func mapLookup(out *runtime.Output, exactMap, prefixMap mapID, host, path string) string {
	parse := func(m mapID) map[string]string {
		entries := map[string]string{}
		for _, line := range strings.Split(string(out.Files[mapFiles[m]].Data), "\n") {
			if k, v, ok := strings.Cut(line, " "); ok {
				entries[k] = v
			}
		}
		return entries
	}
	exact, prefix := parse(exactMap), parse(prefixMap)
	key := strings.ToLower(host) + path
	wkey := key
	if i := strings.IndexAny(key, "./"); i >= 0 {
		wkey = "*" + key[i:]
	}
	for _, k := range []string{key, wkey} {
		if v, ok := exact[k]; ok {
			return v
		}
		best := ""
		for p := range prefix {
			if strings.HasPrefix(k, p) && len(p) > len(best) {
				best = p
			}
		}
		if best != "" {
			return prefix[best]
		}
	}
	return ""
}

func httpLookup(out *runtime.Output, host, path string) string {
	return mapLookup(out, httpExact, httpPrefix, host, path)
}

func httpsLookup(out *runtime.Output, host, path string) string {
	return mapLookup(out, httpsExact, httpsPrefix, host, path)
}

// TestRenderRouteAvailability: which route serves which request path
// (docs/router.md, how paths match), with OpenShift's path semantics.
func TestRenderRouteAvailability(t *testing.T) {
	pathRoute := served("ns", "test", "www.example.com", atPath("/test"))
	hostRoute := served("ns", "host", "www.example.com")
	cases := []struct {
		name   string
		routes []*router.Route
		path   string
		want   string
	}{
		{"a path route serves its path", []*router.Route{pathRoute}, "/test", "be_http:ns:test"},
		{"a path route alone does not serve /", []*router.Route{pathRoute}, "/", ""},
		{"with a host route, the path route serves its path", []*router.Route{pathRoute, hostRoute}, "/test", "be_http:ns:test"},
		{"with a path route, the host route serves /", []*router.Route{pathRoute, hostRoute}, "/", "be_http:ns:host"},
		{"a host route serves every path", []*router.Route{hostRoute}, "/test", "be_http:ns:host"},
		{"a host route serves /", []*router.Route{hostRoute}, "/", "be_http:ns:host"},
		{"below the path", []*router.Route{pathRoute, hostRoute}, "/test/a/b", "be_http:ns:test"},
		{"not a path segment", []*router.Route{pathRoute, hostRoute}, "/testing", "be_http:ns:host"},
		{"not a path segment, no host route", []*router.Route{pathRoute}, "/testing", ""},
		{"most specific path wins", []*router.Route{pathRoute, hostRoute, served("ns", "deep", "www.example.com", atPath("/test/deep"))}, "/test/deep/x", "be_http:ns:deep"},
		{"less specific path for a sibling", []*router.Route{pathRoute, served("ns", "deep", "www.example.com", atPath("/test/deep"))}, "/test/deeper", "be_http:ns:test"},
		{"path with a trailing slash", []*router.Route{served("ns", "slash", "www.example.com", atPath("/test/"))}, "/test/x", "be_http:ns:slash"},
		{"path with a trailing slash does not match without", []*router.Route{served("ns", "slash", "www.example.com", atPath("/test/"))}, "/test", ""},
		{"exact path", []*router.Route{served("ns", "exact", "www.example.com", atExactPath("/test"))}, "/test", "be_http:ns:exact"},
		{"exact path does not match below", []*router.Route{served("ns", "exact", "www.example.com", atExactPath("/test"))}, "/test/x", ""},
		{"exact path wins over a prefix of the same host", []*router.Route{hostRoute, served("ns", "exact", "www.example.com", atExactPath("/test/"))}, "/test/", "be_http:ns:exact"},
		{"path /", []*router.Route{served("ns", "root", "www.example.com", atPath("/"))}, "/anything", "be_http:ns:root"},
		{"other host", []*router.Route{hostRoute}, "/", ""},
		{"wildcard route serves the domain", []*router.Route{served("ns", "wild", "wildcard.example.com", wildcardRoute)}, "/", "be_http:ns:wild"},
		{"exact host wins over the wildcard", []*router.Route{hostRoute, served("ns", "wild", "wildcard.example.com", wildcardRoute)}, "/", "be_http:ns:host"},
		{"the wildcard catches paths the host's routes miss", []*router.Route{pathRoute, served("ns", "wild", "wildcard.example.com", wildcardRoute)}, "/other", "be_http:ns:wild"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mustRender(t, newTestRenderer(t), snapshotOf(c.routes))
			host := "www.example.com"
			if c.name == "other host" {
				host = "other.example.com"
			}
			if got := httpLookup(out, host, c.path); got != c.want {
				t.Errorf("%s%s -> %q, want %q", host, c.path, got, c.want)
			}
		})
	}
	t.Run("wildcard covers one label only", func(t *testing.T) {
		out := mustRender(t, newTestRenderer(t), snapshotOf([]*router.Route{served("ns", "wild", "wildcard.example.com", wildcardRoute)}))
		for host, want := range map[string]string{"a.example.com": "be_http:ns:wild", "a.b.example.com": "", "example.com": ""} {
			if got := httpLookup(out, host, "/"); got != want {
				t.Errorf("%s -> %q, want %q", host, got, want)
			}
		}
	})
}

// TestRenderInsecurePolicies: which routes plain HTTP serves, redirects or
// leaves to the 503 backend.
func TestRenderInsecurePolicies(t *testing.T) {
	cases := []struct {
		name         string
		route        func(*router.Route)
		http, https  string
		sni, crtList bool
	}{
		{"plain", func(*router.Route) {}, "be_http:ns:r", "", false, false},
		{"edge None", tlsRoute(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyNone), "", "be_edge_http:ns:r", false, false},
		{"edge empty", tlsRoute(routecore.TLSTerminationEdge, ""), "", "be_edge_http:ns:r", false, false},
		{"edge Allow", edgeAllow, "be_edge_http:ns:r", "be_edge_http:ns:r", false, false},
		{"edge Redirect", edgeRedirect, redirectValue, "be_edge_http:ns:r", false, false},
		{"reencrypt Redirect", tlsRoute(routecore.TLSTerminationReencrypt, routecore.InsecureEdgeTerminationPolicyRedirect), redirectValue, "be_secure:ns:r", false, false},
		{"reencrypt Allow", tlsRoute(routecore.TLSTerminationReencrypt, routecore.InsecureEdgeTerminationPolicyAllow), "be_secure:ns:r", "be_secure:ns:r", false, false},
		{"reencrypt None", tlsRoute(routecore.TLSTerminationReencrypt, routecore.InsecureEdgeTerminationPolicyNone), "", "be_secure:ns:r", false, false},
		{"reencrypt empty", reencrypt, "", "be_secure:ns:r", false, false},
		{"passthrough", passthrough, "", "", true, false},
		{"passthrough Redirect", tlsRoute(routecore.TLSTerminationPassthrough, routecore.InsecureEdgeTerminationPolicyRedirect), redirectValue, "", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mustRender(t, newTestRenderer(t), snapshotOf([]*router.Route{served("ns", "r", "www.example.com", c.route)}))
			if got := httpLookup(out, "www.example.com", "/x"); got != c.http {
				t.Errorf("http -> %q, want %q", got, c.http)
			}
			if got := httpsLookup(out, "www.example.com", "/x"); got != c.https {
				t.Errorf("https -> %q, want %q", got, c.https)
			}
			if got := len(out.Files[mapFiles[sniPassthrough]].Data) > 0; got != c.sni {
				t.Errorf("SNI map entry %v, want %v", got, c.sni)
			}
		})
	}
}

func TestRenderMapKeyCollisions(t *testing.T) {
	cases := []struct {
		name   string
		routes []*router.Route
		path   string
		// want is the winner; after the backend once the winner is gone.
		want, after string
	}{
		{"/a/ takes the prefix key from /a", []*router.Route{served("ns", "a", "h.example.com", atPath("/a")), served("ns", "a-slash", "h.example.com", atPath("/a/"))},
			"/a/x", "be_http:ns:a-slash", "be_http:ns:a"},
		{"/a keeps its own path", []*router.Route{served("ns", "a", "h.example.com", atPath("/a")), served("ns", "a-slash", "h.example.com", atPath("/a/"))},
			"/a", "be_http:ns:a", ""},
		{"/ wins over no path", []*router.Route{served("ns", "none", "h.example.com", createdAt(1)), served("ns", "root", "h.example.com", atPath("/"), createdAt(2))},
			"/", "be_http:ns:root", "be_http:ns:none"},
		{"the older route wins a tie", []*router.Route{served("ns", "b", "h.example.com", createdAt(1)), served("ns", "a", "h.example.com", createdAt(2))},
			"/", "be_http:ns:b", "be_http:ns:a"},
		{"then the route key", []*router.Route{served("ns", "b", "h.example.com"), served("ns", "a", "h.example.com")},
			"/", "be_http:ns:a", "be_http:ns:b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRenderer(t)
			snap := snapshotOf(c.routes)
			out := mustRender(t, r, snap)
			if got := httpLookup(out, "h.example.com", c.path); got != c.want {
				t.Errorf("%s -> %q, want %q", c.path, got, c.want)
			}
			winner := "ns/" + strings.TrimPrefix(c.want, "be_http:ns:")
			out = mustRender(t, r, nextSnapshot(snap, map[string]*router.Route{winner: nil}, nil))
			if got := httpLookup(out, "h.example.com", c.path); got != c.after {
				t.Errorf("after %s went: %s -> %q, want %q", winner, c.path, got, c.after)
			}
		})
	}
}

func TestRenderCrtList(t *testing.T) {
	r := newTestRenderer(t)
	cert := ownCert(t)
	routes := []*router.Route{
		served("ns", "sub", "www.example.com", atPath("/sub"), edgeRedirect, cert),
		served("ns", "main", "www.example.com", edgeRedirect, cert, createdAt(5)),
		served("ns", "wild", "wildcard.apps.example.com", wildcardRoute, reencrypt, cert),
		served("ns", "nokey", "nokey.example.com", edgeRedirect, func(r *router.Route) { r.TLS.Certificate = "x" }),
	}
	out := mustRender(t, r, snapshotOf(routes))
	want := []string{
		"WORKDIR/certs/ns_main.pem www.example.com",
		"WORKDIR/certs/ns_wild.pem *.apps.example.com",
	}
	if got := fileLines(out, crtListFile, r.cfg.WorkingDir); !slices.Equal(got, want) {
		t.Errorf("crt-list:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, name := range []string{"certs/ns_sub.pem", "certs/ns_main.pem", "certs/ns_wild.pem"} {
		if f, ok := out.Files[name]; !ok || f.Mode != 0o600 {
			t.Errorf("%s: present %v, mode %o", name, ok, f.Mode)
		}
	}
	if _, ok := out.Files["certs/ns_nokey.pem"]; ok {
		t.Error("certificate file without a key")
	}
	haproxyCheck(t, r, out)
}

func TestRenderPassthroughWildcard(t *testing.T) {
	out := mustRender(t, newTestRenderer(t), snapshotOf([]*router.Route{served("ns", "p", "wildcard.apps.example.com", wildcardRoute, passthrough)}))
	if got := string(out.Files[mapFiles[sniPassthrough]].Data); got != "*.apps.example.com be_tcp:ns:p\n" {
		t.Errorf("SNI map: %q", got)
	}
}

// TestRenderUnsafeRouteData: what cannot be a map key is not routed; the
// rest of the configuration is unaffected.
func TestRenderUnsafeRouteData(t *testing.T) {
	cases := []struct {
		name  string
		route *router.Route
		keys  []string // prefix and exact map keys expected
	}{
		{"space in path", served("ns", "r", "h.example.com", atPath("/a b")), nil},
		{"tab in path", served("ns", "r", "h.example.com", atPath("/a\tb")), nil},
		{"line break in path", served("ns", "r", "h.example.com", atPath("/a\nh.example.com/ be_http:ns:other")), nil},
		{"overlong path", served("ns", "r", "h.example.com", atPath("/"+strings.Repeat("a", maxMapKey))), nil},
		{"upper-case host", served("ns", "r", "H.example.com"), nil},
		{"wildcard of a single-label host", served("ns", "r", "localhost", wildcardRoute), nil},
		{"quotes and # are fine in keys", served("ns", "r", "h.example.com", atPath(`/a'b"#c`)), []string{`h.example.com/a'b"#c`, `h.example.com/a'b"#c/`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRenderer(t)
			out := mustRender(t, r, snapshotOf([]*router.Route{c.route}, eps("ns", "r", "10.0.0.1")))
			var keys []string
			for _, m := range []mapID{httpExact, httpPrefix} {
				for _, line := range fileLines(out, mapFiles[m], r.cfg.WorkingDir) {
					k, _, _ := strings.Cut(line, " ")
					keys = append(keys, k)
				}
			}
			if !slices.Equal(keys, c.keys) {
				t.Errorf("keys %q, want %q", keys, c.keys)
			}
			backendText(t, out, "be_http:ns:r")
			haproxyCheck(t, r, out)
		})
	}
}

// TestRenderHTTP2: with ROUTER_DISABLE_HTTP2=false the crt-list entries of
// routes' own certificates offer h2, the default certificate does not, and
// HTTP/2 requests for another host than the SNI name get 421.
func TestRenderHTTP2(t *testing.T) {
	for _, disabled := range []bool{true, false} {
		r := newTestRenderer(t, func(c *proxyconfig.Config) { c.DisableHTTP2 = disabled })
		out := mustRender(t, r, snapshotOf([]*router.Route{served("ns", "main", "www.example.com", edgeRedirect, ownCert(t))}))
		crt := "WORKDIR/certs/ns_main.pem www.example.com"
		misdirected := "http-request return status 421 if { ssl_fc_alpn -i h2 } !{ ssl_fc_sni,lower,strcmp(txn.host) eq 0 }"
		var unwanted []string
		if !disabled {
			crt = "WORKDIR/certs/ns_main.pem [alpn h2,http/1.1] www.example.com"
		} else {
			unwanted = []string{misdirected}
		}
		if got := fileLines(out, crtListFile, r.cfg.WorkingDir); !slices.Equal(got, []string{crt}) {
			t.Errorf("disabled %v: crt-list %q, want %q", disabled, got, crt)
		}
		cfg := string(out.Files[configFile].Data)
		if !disabled {
			assertLines(t, "haproxy.cfg", cfg, r.cfg.WorkingDir, []string{misdirected}, nil)
		}
		assertLines(t, "haproxy.cfg", cfg, r.cfg.WorkingDir, nil, unwanted)
		for _, l := range strings.Split(cfg, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "bind ") && strings.Contains(l, "alpn") {
				t.Errorf("disabled %v: %q: the default certificate would offer h2", disabled, l)
			}
		}
		haproxyCheck(t, r, out)
	}
}

// TestRenderForwardedMap: the forwarded-headers map lists the backends of
// routes whose set-forwarded-headers annotation differs from
// ROUTER_SET_FORWARDED_HEADERS (append here), not those that repeat it,
// nor passthrough routes.
func TestRenderForwardedMap(t *testing.T) {
	policy := func(p string) func(*router.Route) {
		return withOverrides(routecore.Overrides{ForwardedHeaders: routecore.ForwardedHeadersPolicy(p)})
	}
	routes := []*router.Route{
		served("ns", "plain", "plain.example.com"),
		served("ns", "never", "never.example.com", policy("never")),
		served("ns", "same", "same.example.com", policy("append")),
		served("ns", "edge", "edge.example.com", edgeRedirect, policy("replace")),
		served("ns", "tcp", "tcp.example.com", passthrough, policy("never")),
	}
	out := mustRender(t, newTestRenderer(t), snapshotOf(routes))
	want := "be_edge_http:ns:edge replace\nbe_http:ns:never never\n"
	if got := string(out.Files[mapFiles[forwardedPolicy]].Data); got != want {
		t.Errorf("forwarded.map:\n%s\nwant:\n%s", got, want)
	}
}
