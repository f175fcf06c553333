package haproxy

import (
	"fmt"
	"slices"
	"testing"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// TestWWWEntries: a route serving its other host has the other host's keys
// in the maps its own host is in (and its certificate in the crt-list),
// pointing at its own backend; without the other host, the entries are
// the route's own alone.
func TestWWWEntries(t *testing.T) {
	lines := func(rt *router.Route, cert string) []string {
		var out []string
		for _, e := range routeEntries(rt, cert, "") {
			out = append(out, fmt.Sprintf("%s %s %s", mapFiles[e.m], e.key, e.value))
		}
		slices.Sort(out)
		return out
	}
	base := func(host, other, path string, tls *routecore.TLSConfig) *router.Route {
		return &router.Route{Namespace: "ns", Name: "r", Host: host, WWWRedirectHost: other, Path: path, TLS: tls}
	}
	edge := &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}
	cases := []struct {
		name string
		rt   *router.Route
		cert string
		want []string
	}{
		{"plain", base("example.com", "www.example.com", "", nil), "", []string{
			mapFiles[httpPrefix] + " example.com/ be_http:ns:r",
			mapFiles[httpPrefix] + " www.example.com/ be_http:ns:r"}},
		{"path", base("example.com", "www.example.com", "/api", nil), "", []string{
			mapFiles[httpExact] + " example.com/api be_http:ns:r",
			mapFiles[httpExact] + " www.example.com/api be_http:ns:r",
			mapFiles[httpPrefix] + " example.com/api/ be_http:ns:r",
			mapFiles[httpPrefix] + " www.example.com/api/ be_http:ns:r"}},
		{"edge with a certificate", base("www.example.com", "example.com", "", edge), "/c/ns:r.pem", []string{
			mapFiles[crtList] + " example.com /c/ns:r.pem",
			mapFiles[crtList] + " www.example.com /c/ns:r.pem",
			mapFiles[httpsPrefix] + " example.com/ be_edge_http:ns:r",
			mapFiles[httpsPrefix] + " www.example.com/ be_edge_http:ns:r"}},
		{"without the other host", base("example.com", "", "", nil), "", []string{
			mapFiles[httpPrefix] + " example.com/ be_http:ns:r"}},
	}
	for _, c := range cases {
		if got := lines(c.rt, c.cert); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestWWWRedirectRule: the backend's redirect, quoted, with the route's
// redirect-code or 308; nothing for routes without the other host.
func TestWWWRedirectRule(t *testing.T) {
	cases := []struct {
		name string
		rt   router.Route
		want *WWWRedirectData
	}{
		{"default code", router.Route{Host: "example.com", WWWRedirectHost: "www.example.com"},
			&WWWRedirectData{From: "'www.example.com'", Location: "'%[ssl_fc,iif(https,http)]://example.com%[pathq]'", Code: 308}},
		{"redirect-code", router.Route{Host: "www.example.com", WWWRedirectHost: "example.com", Overrides: routecore.Overrides{RedirectCode: 302}},
			&WWWRedirectData{From: "'example.com'", Location: "'%[ssl_fc,iif(https,http)]://www.example.com%[pathq]'", Code: 302}},
		{"not held", router.Route{Host: "example.com", Overrides: routecore.Overrides{WWWRedirect: true}}, nil},
	}
	for _, c := range cases {
		var d BackendData
		if !wwwRedirect(&c.rt, &d) {
			t.Errorf("%s: refused", c.name)
		}
		if fmt.Sprint(d.WWWRedirect) != fmt.Sprint(c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, d.WWWRedirect, c.want)
		}
	}
}
