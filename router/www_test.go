package router

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/routecore"
)

// wwwRedirect sets routeshift.io/www-redirect: "true".
func wwwRedirect(r *routecore.Route) {
	if r.Annotations == nil {
		r.Annotations = map[string]string{}
	}
	r.Annotations[routecore.AnnWWWRedirect] = "true"
}

// redirects renders what a snapshot serves for other hosts and what the
// admitted routes say: "ns/name serves OTHER" for each route that serves
// its other host, "ns/name: MESSAGE" for each admitted route with a
// message, sorted.
func redirects(s Snapshot) []string {
	var out []string
	for k, r := range s.Routes.All() {
		if r.WWWRedirectHost != "" {
			out = append(out, k+" serves "+r.WWWRedirectHost)
		}
	}
	for k, d := range s.Decisions.All() {
		if d.Verdict == Admitted && d.Message != "" {
			out = append(out, k+": "+d.Message)
		}
	}
	slices.Sort(out)
	return out
}

func expectRedirects(t *testing.T, s Snapshot, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := redirects(s); !slices.Equal(got, want) {
		t.Errorf("redirects:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// note is the Admitted message of a route whose claim of other does not
// hold.
func note(other, why string) string {
	return fmt.Sprintf("%s: %s is not redirected to this route: %s", routecore.AnnWWWRedirect, other, why)
}

// TestWWWRedirectClaims: the claim of the other host, judged on one Build
// of the routes given.
func TestWWWRedirectClaims(t *testing.T) {
	named := note("www.example.com", "a route has www.example.com as its host")
	tests := []struct {
		name     string
		cfg      AdmissionConfig
		routes   []*routecore.Route
		verdicts []string
		want     []string
	}{
		{name: "claimed when free",
			routes:   []*routecore.Route{rt("ns", "r", "example.com", 1, wwwRedirect)},
			verdicts: []string{"ns/r admitted"}, want: []string{"ns/r serves www.example.com"}},
		{name: "the reverse: www. host claims the host without it",
			routes:   []*routecore.Route{rt("ns", "r", "www.example.com", 1, wwwRedirect)},
			verdicts: []string{"ns/r admitted"}, want: []string{"ns/r serves example.com"}},
		{name: "edge and reencrypt routes claim it too",
			routes: []*routecore.Route{rt("ns", "e", "a.example.com", 1, wwwRedirect, withTLS(routecore.TLSTerminationEdge)),
				rt("ns", "re", "b.example.com", 1, wwwRedirect, withTLS(routecore.TLSTerminationReencrypt))},
			verdicts: []string{"ns/e admitted", "ns/re admitted"}, want: []string{"ns/e serves www.a.example.com", "ns/re serves www.b.example.com"}},
		{name: "without the annotation nothing is claimed",
			routes:   []*routecore.Route{rt("ns", "r", "example.com", 1)},
			verdicts: []string{"ns/r admitted"}},
		{name: "false claims nothing",
			routes: []*routecore.Route{rt("ns", "r", "example.com", 1, func(r *routecore.Route) {
				r.Annotations = map[string]string{routecore.AnnWWWRedirect: "false"}
			})},
			verdicts: []string{"ns/r admitted"}},
		{name: "passthrough routes claim nothing",
			routes:   []*routecore.Route{rt("ns", "r", "example.com", 1, wwwRedirect, withTLS(routecore.TLSTerminationPassthrough))},
			verdicts: []string{"ns/r admitted"}},
		{name: "wildcard routes claim nothing",
			cfg:      AdmissionConfig{AllowWildcardRoutes: true},
			routes:   []*routecore.Route{rt("ns", "r", "w.example.com", 1, wwwRedirect, wildcard)},
			verdicts: []string{"ns/r admitted"}},
		{name: "a single-label other host is not claimed",
			routes:   []*routecore.Route{rt("ns", "r", "www.com", 1, wwwRedirect)},
			verdicts: []string{"ns/r admitted"}},
		{name: "yields to an older route naming the host",
			routes:   []*routecore.Route{rt("ns", "www", "www.example.com", 1), rt("ns", "r", "example.com", 2, wwwRedirect)},
			verdicts: []string{"ns/r admitted", "ns/www admitted"}, want: []string{"ns/r: " + named}},
		{name: "yields to a newer route naming the host",
			routes:   []*routecore.Route{rt("ns", "r", "example.com", 1, wwwRedirect), rt("ns", "www", "www.example.com", 2)},
			verdicts: []string{"ns/r admitted", "ns/www admitted"}, want: []string{"ns/r: " + named}},
		{name: "yields to a newer route of another namespace naming the host",
			routes:   []*routecore.Route{rt("nsa", "r", "example.com", 1, wwwRedirect), rt("nsb", "www", "www.example.com", 2)},
			verdicts: []string{"nsa/r admitted", "nsb/www admitted"}, want: []string{"nsa/r: " + named}},
		{name: "yields to a route naming the host on another path",
			routes:   []*routecore.Route{rt("ns", "r", "example.com", 1, wwwRedirect), rt("ns", "www", "www.example.com", 2, withPath("/shop"))},
			verdicts: []string{"ns/r admitted", "ns/www admitted"}, want: []string{"ns/r: " + named}},
		{name: "yields to a route naming the host that lost its own claim",
			routes: []*routecore.Route{rt("nsa", "r", "example.com", 1, wwwRedirect), rt("nsb", "www", "www.example.com", 2),
				rt("nsc", "www2", "www.example.com", 3)},
			verdicts: []string{"nsa/r admitted", "nsb/www admitted",
				"nsc/www2 rejected HostAlreadyClaimed: a route in another namespace holds www.example.com and is older than www2"},
			want: []string{"nsa/r: " + named}},
		{name: "two redirect claims of another namespace: the oldest wins",
			routes: []*routecore.Route{rt("nsb", "new", "www.www.example.com", 2, wwwRedirect, withTLS(routecore.TLSTerminationEdge)),
				rt("nsa", "old", "example.com", 1, wwwRedirect, withPath("/a"))},
			verdicts: []string{"nsa/old admitted", "nsb/new admitted"},
			want: []string{"nsa/old serves www.example.com",
				"nsb/new: " + note("www.example.com", "an older route in another namespace redirects www.example.com")}},
		{name: "two redirect claims of one namespace on one path: the oldest wins",
			routes: []*routecore.Route{rt("ns", "new", "www.www.example.com", 2, wwwRedirect, withTLS(routecore.TLSTerminationEdge)),
				rt("ns", "old", "example.com", 1, wwwRedirect)},
			verdicts: []string{"ns/old admitted", "ns/new admitted"},
			want: []string{"ns/old serves www.example.com",
				"ns/new: " + note("www.example.com", "route old already redirects www.example.com and is older")}},
		{name: "two redirect claims of one namespace on two paths both hold",
			routes:   []*routecore.Route{rt("ns", "a", "example.com", 1, wwwRedirect, withPath("/a")), rt("ns", "b", "www.www.example.com", 2, wwwRedirect, withPath("/b"))},
			verdicts: []string{"ns/a admitted", "ns/b admitted"}, want: []string{"ns/a serves www.example.com", "ns/b serves www.example.com"}},
		{name: "with the ownership check off, other namespaces on other paths both hold",
			cfg:      AdmissionConfig{DisableNamespaceOwnershipCheck: true},
			routes:   []*routecore.Route{rt("nsa", "a", "example.com", 1, wwwRedirect, withPath("/a")), rt("nsb", "b", "www.www.example.com", 2, wwwRedirect, withPath("/b"))},
			verdicts: []string{"nsa/a admitted", "nsb/b admitted"}, want: []string{"nsa/a serves www.example.com", "nsb/b serves www.example.com"}},
		{name: "a route that lost its own host claims nothing",
			routes: []*routecore.Route{rt("nsa", "holder", "example.com", 1), rt("nsb", "r", "example.com", 2, wwwRedirect)},
			verdicts: []string{"nsa/holder admitted",
				"nsb/r rejected HostAlreadyClaimed: a route in another namespace holds example.com and is older than r"}},
		{name: "denied domain: not claimed, the route admitted",
			cfg:      AdmissionConfig{DeniedDomains: ParseDomainList("www.example.com")},
			routes:   []*routecore.Route{rt("ns", "r", "example.com", 1, wwwRedirect)},
			verdicts: []string{"ns/r admitted"}, want: []string{"ns/r: " + note("www.example.com", "www.example.com is in the list of denied domains")}},
		{name: "outside the allowed domains: not claimed",
			cfg:      AdmissionConfig{AllowedDomains: ParseDomainList("www.example.com")},
			routes:   []*routecore.Route{rt("ns", "r", "www.example.com", 1, wwwRedirect)},
			verdicts: []string{"ns/r admitted"}, want: []string{"ns/r: " + note("example.com", "example.com is not in the allowed list of domains")}},
		{name: "a wildcard route of another namespace holds the domain",
			cfg: AdmissionConfig{AllowWildcardRoutes: true},
			routes: []*routecore.Route{rt("nsw", "w", "any.shop.example.com", 2, wildcard),
				rt("ns", "r", "shop.example.com", 1, wwwRedirect)},
			verdicts: []string{"ns/r admitted", "nsw/w admitted"},
			want:     []string{"ns/r: " + note("www.shop.example.com", "a route in another namespace holds host www.shop.example.com")}},
		{name: "a wildcard route of the same namespace leaves it",
			cfg: AdmissionConfig{AllowWildcardRoutes: true},
			routes: []*routecore.Route{rt("ns", "w", "any.shop.example.com", 2, wildcard),
				rt("ns", "r", "shop.example.com", 1, wwwRedirect)},
			verdicts: []string{"ns/r admitted", "ns/w admitted"}, want: []string{"ns/r serves www.shop.example.com"}},
		{name: "a wildcard route of another namespace, ownership check off, leaves it",
			cfg: AdmissionConfig{AllowWildcardRoutes: true, DisableNamespaceOwnershipCheck: true},
			routes: []*routecore.Route{rt("nsw", "w", "any.shop.example.com", 2, wildcard),
				rt("ns", "r", "shop.example.com", 1, wwwRedirect)},
			verdicts: []string{"ns/r admitted", "nsw/w admitted"}, want: []string{"ns/r serves www.shop.example.com"}},
		{name: "a wildcard route whose own host is the other host",
			cfg: AdmissionConfig{AllowWildcardRoutes: true},
			routes: []*routecore.Route{rt("ns", "w", "www.shop.example.com", 2, wildcard),
				rt("ns", "r", "shop.example.com", 1, wwwRedirect)},
			verdicts: []string{"ns/r admitted", "ns/w admitted"},
			want:     []string{"ns/r: " + note("www.shop.example.com", "a route has www.shop.example.com as its host")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := store(tt.cfg, tt.routes...).Build(true)
			expect(t, snap, tt.verdicts...)
			expectRedirects(t, snap, tt.want...)
		})
	}
}

// TestWWWRedirectChanges: the claim is judged again when what it depends
// on changes, and a route that keeps its judgement keeps the value served.
func TestWWWRedirectChanges(t *testing.T) {
	cfg := AdmissionConfig{AllowWildcardRoutes: true}
	named := note("www.example.com", "a route has www.example.com as its host")
	t.Run("a route naming the host comes and goes", func(t *testing.T) {
		s := store(cfg, rt("ns", "r", "example.com", 1, wwwRedirect))
		expectRedirects(t, s.Build(true), "ns/r serves www.example.com")
		s.SetRoute(rt("nsb", "www", "www.example.com", 2))
		snap := s.Build(true)
		expect(t, snap, "ns/r admitted", "nsb/www admitted")
		expectRedirects(t, snap, "ns/r: "+named)
		s.DeleteRoute("nsb", "www")
		expectRedirects(t, s.Build(true), "ns/r serves www.example.com")
	})
	t.Run("the older claim deleted, the next one holds", func(t *testing.T) {
		s := store(cfg, rt("nsa", "old", "example.com", 1, wwwRedirect), rt("nsb", "new", "www.www.example.com", 2, wwwRedirect))
		expectRedirects(t, s.Build(true), "nsa/old serves www.example.com",
			"nsb/new: "+note("www.example.com", "an older route in another namespace redirects www.example.com"))
		s.DeleteRoute("nsa", "old")
		snap := s.Build(true)
		expect(t, snap, "nsb/new admitted")
		expectRedirects(t, snap, "nsb/new serves www.example.com")
	})
	t.Run("the annotation removed, then added again", func(t *testing.T) {
		s := store(cfg, rt("ns", "r", "example.com", 1, wwwRedirect))
		s.Build(true)
		s.SetRoute(rt("ns", "r", "example.com", 1, func(r *routecore.Route) { r.ResourceVersion = "2" }))
		expectRedirects(t, s.Build(true))
		s.SetRoute(rt("ns", "r", "example.com", 1, wwwRedirect, func(r *routecore.Route) { r.ResourceVersion = "3" }))
		expectRedirects(t, s.Build(true), "ns/r serves www.example.com")
	})
	t.Run("a wildcard route of another namespace wins and loses the domain", func(t *testing.T) {
		s := store(cfg, rt("ns", "r", "shop.example.com", 1, wwwRedirect))
		expectRedirects(t, s.Build(true), "ns/r serves www.shop.example.com")
		s.SetRoute(rt("nsw", "w", "any.shop.example.com", 2, wildcard))
		expectRedirects(t, s.Build(true), "ns/r: "+note("www.shop.example.com", "a route in another namespace holds host www.shop.example.com"))
		s.DeleteRoute("nsw", "w")
		expectRedirects(t, s.Build(true), "ns/r serves www.shop.example.com")
	})
	t.Run("the route loses its own host and gets it back", func(t *testing.T) {
		s := store(cfg, rt("nsb", "r", "example.com", 2, wwwRedirect))
		s.Build(true)
		s.SetRoute(rt("nsa", "holder", "example.com", 1))
		expectRedirects(t, s.Build(true))
		s.DeleteRoute("nsa", "holder")
		expectRedirects(t, s.Build(true), "nsb/r serves www.example.com")
	})
	t.Run("a new object that serves the same keeps the value served", func(t *testing.T) {
		r := rt("ns", "r", "example.com", 1, wwwRedirect)
		s := store(cfg, r)
		before, _ := s.Build(true).Routes.Get("ns/r")
		again := r.DeepCopy()
		again.ResourceVersion = "7"
		s.SetRoute(again)
		snap := s.Build(true)
		after, _ := snap.Routes.Get("ns/r")
		if after != before || snap.Changed.Routes["ns/r"] {
			t.Errorf("a new object of the same route changed what is served: %p -> %p, changed %v", before, after, snap.Changed.Routes)
		}
	})
}
