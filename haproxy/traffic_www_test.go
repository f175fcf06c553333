package haproxy

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/routecore"
)

// TestTrafficWWW: routeshift.io/www-redirect through a real HAProxy: the
// other host (www. added or removed) is redirected to the route's own
// host with 308 or the route's redirect-code, keeping scheme, path and
// query; an edge route serves its certificate for the other host and
// redirects HTTPS to HTTPS; a route naming the other host itself takes it,
// and the redirect route's own host is served as before.
func TestTrafficWWW(t *testing.T) {
	r := newTrafficRouter(t)
	for _, name := range []string{"web", "taken"} {
		r.endpoints("ns", name, newBackend(t, name, func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set("X-Host", req.Host)
			w.Write([]byte(name))
		}, nil))
	}
	ca := newCA(t, "www-ca")
	leaf := issue(t, ca, "secure.example.com", "www.secure.example.com")
	www := annotated(routecore.AnnWWWRedirect, "true")
	route := func(name, host string, age int, mods ...func(*routecore.Route)) {
		r.route(rt("ns", name, host, age, append([]func(*routecore.Route){toService("web")}, mods...)...))
	}
	route("apex", "example.com", 1, www)
	route("prefixed", "www.shop.example.com", 1, www)
	route("moved", "moved.example.com", 1, annotated(routecore.AnnWWWRedirect, "true", routecore.AnnRedirectCode, "301"))
	route("path", "docs.example.com", 1, www, func(r *routecore.Route) { r.Spec.Path = "/api" })
	route("secure", "secure.example.com", 1, www, terminated(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyAllow, leaf, ca))
	route("redirect", "taken.example.com", 1, www)
	r.route(rt("ns", "owner", "www.taken.example.com", 2, toService("taken")))
	route("plain", "plain.example.com", 1)
	r.start()
	c := r.client(clientOptions{})

	t.Run("redirects", func(t *testing.T) {
		cases := []struct {
			url, location string
			code          int
		}{
			{"http://www.example.com/path?q", "http://example.com/path?q", 308},
			{"http://www.example.com/", "http://example.com/", 308},
			{"http://WWW.Example.com./a/b?x=1&y=2", "http://example.com/a/b?x=1&y=2", 308},
			{"http://shop.example.com/cart?id=7", "http://www.shop.example.com/cart?id=7", 308},
			{"http://www.moved.example.com/x", "http://moved.example.com/x", 301},
			{"http://www.docs.example.com/api/v1?k", "http://docs.example.com/api/v1?k", 308},
			{"http://www.secure.example.com/pay?x=1", "http://secure.example.com/pay?x=1", 308},
			{"https://www.secure.example.com/pay?x=1", "https://secure.example.com/pay?x=1", 308},
		}
		for _, tc := range cases {
			got := fetch(c, tc.url)
			if got.err != nil || got.code != tc.code || got.header.Get("Location") != tc.location {
				t.Errorf("%s: %v Location %q, want %d %q", tc.url, got, got.header.Get("Location"), tc.code, tc.location)
			}
		}
	})

	t.Run("served", func(t *testing.T) {
		cases := []struct{ url, backend, host string }{
			{"http://example.com/path?q", "web", "example.com"},
			{"http://www.shop.example.com/", "web", "www.shop.example.com"},
			{"https://secure.example.com/", "web", "secure.example.com"},
			// The route naming the other host takes it: no redirect.
			{"http://www.taken.example.com/x", "taken", "www.taken.example.com"},
			{"http://taken.example.com/x", "web", "taken.example.com"},
			{"http://plain.example.com/", "web", "plain.example.com"},
		}
		for _, tc := range cases {
			got := fetch(c, tc.url)
			if !got.served(tc.backend) || got.header.Get("X-Host") != tc.host || got.header.Get("Location") != "" {
				t.Errorf("%s: %v (host %q), want served by %s for %s", tc.url, got, got.header.Get("X-Host"), tc.backend, tc.host)
			}
		}
	})

	t.Run("not routed", func(t *testing.T) {
		// Outside the route's path, and for a route without the
		// annotation, the other host is nobody's.
		for _, url := range []string{"http://www.docs.example.com/other", "http://www.plain.example.com/"} {
			if got := fetch(c, url); got.err != nil || got.code != http.StatusServiceUnavailable && got.code != http.StatusNotFound || got.header.Get("Location") != "" {
				t.Errorf("%s: %v, want no route", url, got)
			}
		}
	})

	t.Run("the route's certificate for the other host", func(t *testing.T) {
		verified := r.client(clientOptions{roots: pool(ca)})
		got := fetch(verified, "https://www.secure.example.com/pay")
		if got.err != nil || got.code != 308 || got.tls == nil || !strings.Contains(strings.Join(got.tls.PeerCertificates[0].DNSNames, " "), "www.secure.example.com") {
			t.Errorf("https://www.secure.example.com/pay with the route's CA: %v", got)
		}
	})

	t.Run("the route naming the other host goes: the redirect takes it", func(t *testing.T) {
		r.deleteRoute("ns", "owner")
		r.publish()
		eventually(t, 30*time.Second, "www.taken.example.com redirected", func() error {
			got := fetch(c, "http://www.taken.example.com/x?y")
			if got.code != 308 || got.header.Get("Location") != "http://taken.example.com/x?y" {
				return fmt.Errorf("%v Location %q", got, got.header.Get("Location"))
			}
			return nil
		})
	})
}
