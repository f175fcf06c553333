package haproxy

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/routeshift/routeshift/routecore"
)

// Traffic tests: every routing feature and route annotation is checked
// with real requests through a real HAProxy run by Process, to Go backends
// on loopback. A test fails when the feature is wrong, not merely when the
// configuration looks different. (TLS features: traffic_tls_test.go;
// reloads, restarts and metrics: traffic_reload_test.go.)

// notAvailable is the body of the router's own 503.
const notAvailable = "Application is not available"

// wantNotServed fails unless x is the router's own 503.
func wantNotServed(t *testing.T, what string, x reply) {
	t.Helper()
	if x.err != nil || x.code != http.StatusServiceUnavailable || !strings.Contains(x.body, notAvailable) || x.header.Get("X-Backend") != "" {
		t.Errorf("%s: %v, want the router's 503 %q", what, x, notAvailable)
	}
}

// wantServed fails unless x is backend name's 200.
func wantServed(t *testing.T, what string, x reply, name string) {
	t.Helper()
	if !x.served(name) {
		t.Errorf("%s: %v (backend %q), want 200 from backend %q", what, x, x.header.Get("X-Backend"), name)
	}
}

// TestTrafficPathTable: how paths match (docs/router.md), with real
// requests: for each set of routes for
// www.example.com, whether a request is served, and by which route's
// backend. "www.example.com" as a request is the path "/".
func TestTrafficPathTable(t *testing.T) {
	test := newBackend(t, "test-backend", nil, nil)
	root := newBackend(t, "root-backend", nil, nil)
	routeTest := func() *routecore.Route {
		return rt("ns", "with-path", "www.example.com", 1, withPath("/test"), toService("test-svc"))
	}
	routeRoot := func() *routecore.Route { return rt("ns", "whole-host", "www.example.com", 2, toService("root-svc")) }
	sets := map[string][]func() *routecore.Route{
		"www.example.com/test":                     {routeTest},
		"www.example.com/test and www.example.com": {routeTest, routeRoot},
		"www.example.com":                          {routeRoot},
	}
	routers := map[string]*trafficRouter{}
	for name, set := range sets {
		r := newTrafficRouter(t)
		for _, f := range set {
			r.route(f())
		}
		r.endpoints("ns", "test-svc", test)
		r.endpoints("ns", "root-svc", root)
		routers[name] = r.start()
	}
	rows := []struct {
		id, routes, request, path string
		servedBy                  string // "" = not accessible
	}{
		{"a path route serves its path", "www.example.com/test", "www.example.com/test", "/test", "test-backend"},
		{"a path route alone does not serve /", "www.example.com/test", "www.example.com", "/", ""},
		{"with a host route, the path route serves its path", "www.example.com/test and www.example.com", "www.example.com/test", "/test", "test-backend"},
		{"with a path route, the host route serves /", "www.example.com/test and www.example.com", "www.example.com", "/", "root-backend"},
		{"a host route serves every path", "www.example.com", "www.example.com/test", "/test", "root-backend"},
		{"a host route serves /", "www.example.com", "www.example.com", "/", "root-backend"},
	}
	for _, row := range rows {
		accessible := "not_accessible"
		if row.servedBy != "" {
			accessible = "accessible_via_" + row.servedBy
		}
		t.Run(row.id+"_"+accessible, func(t *testing.T) {
			x := routers[row.routes].get("www.example.com", row.path)
			what := fmt.Sprintf("%s: routes %s, request %s", row.id, row.routes, row.request)
			if row.servedBy == "" {
				wantNotServed(t, what, x)
			} else {
				wantServed(t, what, x, row.servedBy)
			}
		})
	}
	t.Run("path_prefix_matches_whole_segments", func(t *testing.T) {
		only, both := routers["www.example.com/test"], routers["www.example.com/test and www.example.com"]
		wantNotServed(t, "/testing with route /test only", only.get("www.example.com", "/testing"))
		wantServed(t, "/testing with routes /test and the host", both.get("www.example.com", "/testing"), "root-backend")
		wantServed(t, "/test/ with route /test", only.get("www.example.com", "/test/"), "test-backend")
		wantServed(t, "/test/deeper/path with route /test", only.get("www.example.com", "/test/deeper/path"), "test-backend")
		wantServed(t, "/test?query with route /test", only.get("www.example.com", "/test?x=/testing"), "test-backend")
		wantServed(t, "host in upper case with a port", fetch(only.client(clientOptions{}), "http://WWW.Example.COM:80/test"), "test-backend")
	})
}

// TestTrafficPathSpecificity: the longest matching path wins, whatever the
// order the routes were created in, and an Exact-path route
// (routeshift.io/path-type: Exact) matches only its own path.
func TestTrafficPathSpecificity(t *testing.T) {
	r := newTrafficRouter(t)
	backends := map[string]*goBackend{}
	for _, name := range []string{"a", "ab", "abc", "root", "exact"} {
		backends[name] = newBackend(t, name, nil, nil)
		r.endpoints("ns", name, backends[name])
	}
	// Created longest first, so that age does not explain the outcome.
	r.route(rt("ns", "abc", "longest.example.com", 1, withPath("/a/b/c"), toService("abc")))
	r.route(rt("ns", "ab", "longest.example.com", 2, withPath("/a/b"), toService("ab")))
	r.route(rt("ns", "a", "longest.example.com", 3, withPath("/a"), toService("a")))
	r.route(rt("ns", "root", "longest.example.com", 4, toService("root")))
	exact := annotated(routecore.AnnPathType, "Exact")
	r.route(rt("ns", "exact", "exact.example.com", 5, withPath("/exact"), toService("exact"), exact))
	r.route(rt("ns", "exact-root", "exact.example.com", 6, toService("root")))
	r.route(rt("ns", "exact-only", "exact-only.example.com", 7, withPath("/exact"), toService("exact"), exact))
	r.start()

	t.Run("longest_path_wins", func(t *testing.T) {
		for path, want := range map[string]string{
			"/a/b/c/d": "abc", "/a/b/c": "abc", "/a/b/x": "ab", "/a/b": "ab", "/a/bc": "a", "/a/x": "a", "/a": "a",
			"/ab": "root", "/": "root", "/b": "root",
		} {
			wantServed(t, "longest.example.com"+path, r.get("longest.example.com", path), want)
		}
	})
	t.Run("exact_path_matches_only_its_path", func(t *testing.T) {
		wantServed(t, "exact.example.com/exact", r.get("exact.example.com", "/exact"), "exact")
		wantServed(t, "exact.example.com/exact?q=1", r.get("exact.example.com", "/exact?q=1"), "exact")
		for _, path := range []string{"/exact/", "/exact/sub", "/exactly", "/"} {
			wantServed(t, "exact.example.com"+path, r.get("exact.example.com", path), "root")
			wantNotServed(t, "exact-only.example.com"+path, r.get("exact-only.example.com", path))
		}
		wantServed(t, "exact-only.example.com/exact", r.get("exact-only.example.com", "/exact"), "exact")
	})
}

// TestTrafficWeights: spec.to weight 20 and two alternate backends of
// weight 10 (roundrobin) split
// requests 1/2, 1/4, 1/4; all weights 0 -> 503.
func TestTrafficWeights(t *testing.T) {
	r := newTrafficRouter(t)
	a, b, c := newBackend(t, "service-name", nil, nil), newBackend(t, "service-name2", nil, nil), newBackend(t, "service-name3", nil, nil)
	r.endpoints("ns", "service-name", a)
	r.endpoints("ns", "service-name2", b)
	r.endpoints("ns", "service-name3", c)
	roundrobin := annotated(routecore.AnnBalance, "roundrobin")
	r.route(rt("ns", "route-alternate-service", "weights.example.com", 1, toService("service-name"),
		weighted(20, "service-name2", 10, "service-name3", 10), roundrobin))
	r.route(rt("ns", "all-zero", "zero.example.com", 2, toService("service-name"),
		weighted(0, "service-name2", 0, "service-name3", 0), roundrobin))
	r.start()

	t.Run("20_10_10_split_one_half_one_quarter_one_quarter", func(t *testing.T) {
		const n = 400
		counts := map[string]int{}
		c := r.client(clientOptions{keepAlive: true})
		for range n {
			x := fetch(c, "http://weights.example.com/")
			if x.err != nil || x.code != 200 {
				t.Fatalf("request failed: %v", x)
			}
			counts[x.header.Get("X-Backend")]++
		}
		t.Logf("%d requests: %v", n, counts)
		for name, want := range map[string]float64{"service-name": 0.5, "service-name2": 0.25, "service-name3": 0.25} {
			if got := float64(counts[name]) / n; got < want-0.10 || got > want+0.10 {
				t.Errorf("%s got %.1f%% of the requests, want %.0f%% ± 10 points", name, got*100, want*100)
			}
		}
		if len(counts) != 3 {
			t.Errorf("backends reached: %v, want exactly the three services", counts)
		}
	})
	t.Run("all_weights_zero_503", func(t *testing.T) {
		before := a.hits.Load() + b.hits.Load() + c.hits.Load()
		for range 5 {
			x := r.get("zero.example.com", "/")
			if x.err != nil || x.code != http.StatusServiceUnavailable {
				t.Errorf("all weights 0: %v, want 503", x)
			}
		}
		if after := a.hits.Load() + b.hits.Load() + c.hits.Load(); after != before {
			t.Errorf("%d requests reached a backend of weight 0", after-before)
		}
	})
}

// TestTrafficStickyCookie: the sticky-session cookie keeps a client on one
// endpoint under roundrobin; router.openshift.io/cookie_name names it;
// haproxy.router.openshift.io/disable_cookies turns it off.
func TestTrafficStickyCookie(t *testing.T) {
	r := newTrafficRouter(t)
	one, two := newBackend(t, "endpoint-1", nil, nil), newBackend(t, "endpoint-2", nil, nil)
	r.endpoints("ns", "app", one, two)
	roundrobin := annotated(routecore.AnnBalance, "roundrobin")
	r.route(rt("ns", "sticky", "sticky.example.com", 1, toService("app"), roundrobin))
	r.route(rt("ns", "named", "named.example.com", 2, toService("app"), roundrobin, annotated(routecore.AnnCookieName, "my_session-1")))
	r.route(rt("ns", "nocookie", "nocookie.example.com", 3, toService("app"), roundrobin, annotated(routecore.AnnDisableCookies, "true")))
	r.start()

	// The default cookie name is OpenShift's: the MD5 of " NS:NAME".
	sum := md5.Sum([]byte(" ns:sticky"))
	defaultName := hex.EncodeToString(sum[:])

	sticks := func(t *testing.T, host, cookieName string) {
		c := r.client(clientOptions{})
		first := fetch(c, "http://"+host+"/")
		if first.err != nil || first.code != 200 {
			t.Fatalf("first request: %v", first)
		}
		var cookie *http.Cookie
		for _, ck := range (&http.Response{Header: first.header}).Cookies() {
			if ck.Name == cookieName {
				cookie = ck
			}
		}
		if cookie == nil || cookie.Value == "" {
			t.Fatalf("first response sets no cookie %s: Set-Cookie %q", cookieName, first.header.Values("Set-Cookie"))
		}
		endpoint := first.header.Get("X-Backend")
		for i := range 20 {
			x := fetch(c, "http://"+host+"/", "Cookie", cookie.Name+"="+cookie.Value)
			if !x.served(endpoint) {
				t.Fatalf("request %d with the cookie of %s: %v from %q", i+1, endpoint, x, x.header.Get("X-Backend"))
			}
		}
		seen := map[string]bool{}
		for range 10 {
			x := fetch(c, "http://"+host+"/")
			if x.err != nil || x.code != 200 {
				t.Fatalf("request without cookie: %v", x)
			}
			seen[x.header.Get("X-Backend")] = true
		}
		if !seen["endpoint-1"] || !seen["endpoint-2"] {
			t.Errorf("without the cookie, requests reached %v, want both endpoints", seen)
		}
	}
	t.Run("cookie_keeps_client_on_one_endpoint", func(t *testing.T) { sticks(t, "sticky.example.com", defaultName) })
	t.Run("cookie_name_annotation", func(t *testing.T) { sticks(t, "named.example.com", "my_session-1") })
	t.Run("disable_cookies", func(t *testing.T) {
		seen := map[string]bool{}
		for range 6 {
			x := r.get("nocookie.example.com", "/")
			if x.err != nil || x.code != 200 {
				t.Fatalf("request: %v", x)
			}
			if sc := x.header.Values("Set-Cookie"); len(sc) > 0 {
				t.Errorf("disable_cookies: Set-Cookie %q", sc)
			}
			seen[x.header.Get("X-Backend")] = true
		}
		if len(seen) != 2 {
			t.Errorf("requests reached %v, want both endpoints", seen)
		}
	})
	// A third endpoint is added through the runtime API (no reload); it
	// gets its own cookie, which keeps a client on it.
	t.Run("endpoint_added_at_runtime_has_its_cookie", func(t *testing.T) {
		base := r.reloads()
		three := newBackend(t, "endpoint-3", nil, nil)
		r.endpoints("ns", "app", one, two, three)
		r.publish()
		r.servedBy("sticky.example.com", "/", "endpoint-3")
		if n := r.reloads() - base; n != 0 {
			t.Errorf("adding an endpoint reloaded HAProxy %d times, want 0", n)
		}
		values := map[string]string{} // endpoint -> cookie value
		c := r.client(clientOptions{})
		for range 30 {
			x := fetch(c, "http://sticky.example.com/")
			for _, ck := range (&http.Response{Header: x.header}).Cookies() {
				if ck.Name == defaultName && ck.Value != "" {
					values[x.header.Get("X-Backend")] = ck.Value
				}
			}
		}
		v := values["endpoint-3"]
		if v == "" || v == values["endpoint-1"] || v == values["endpoint-2"] {
			t.Fatalf("cookie values by endpoint %v: want endpoint-3 to have its own", values)
		}
		for i := range 10 {
			if x := fetch(c, "http://sticky.example.com/", "Cookie", defaultName+"="+v); !x.served("endpoint-3") {
				t.Fatalf("request %d with endpoint-3's cookie: %v from %q", i+1, x, x.header.Get("X-Backend"))
			}
		}
	})
}

// TestTrafficIPAllowlist: ip_allowlist (and its older name ip_whitelist)
// admits listed source addresses and drops the others.
func TestTrafficIPAllowlist(t *testing.T) {
	r := newTrafficRouter(t)
	b := newBackend(t, "private", nil, nil)
	r.endpoints("ns", "private", b)
	r.route(rt("ns", "allowlist", "allowlist.example.com", 1, toService("private"), annotated(routecore.AnnIPAllowlist, "127.0.0.1")))
	r.route(rt("ns", "whitelist", "whitelist.example.com", 2, toService("private"), annotated(routecore.AnnIPWhitelist, "10.0.0.0/8 127.0.0.1")))
	r.start()
	for _, host := range []string{"allowlist.example.com", "whitelist.example.com"} {
		t.Run(strings.Split(host, ".")[0], func(t *testing.T) {
			admitted := fetch(r.client(clientOptions{source: net.IPv4(127, 0, 0, 1)}), "http://"+host+"/")
			wantServed(t, "from 127.0.0.1", admitted, "private")
			before := b.hits.Load()
			refused := fetch(r.client(clientOptions{source: net.IPv4(127, 0, 0, 2)}), "http://"+host+"/")
			if refused.err == nil && refused.code < 400 {
				t.Errorf("from 127.0.0.2: %v, want the request dropped", refused)
			}
			if b.hits.Load() != before {
				t.Error("a request from 127.0.0.2 reached the backend")
			}
		})
	}
}

// TestTrafficRateLimits: with rate-limit-connections, rate-http 5 lets 5
// requests of a source through within the window and refuses the next
// ones, rate-tcp 3 likewise 3 connections; concurrent-tcp 2 refuses a
// third concurrent connection.
func TestTrafficRateLimits(t *testing.T) {
	r := newTrafficRouter(t)
	fast := newBackend(t, "fast", nil, nil)
	release := make(chan struct{})
	arrived := make(chan struct{}, 10)
	held := newBackend(t, "held", func(w http.ResponseWriter, req *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-req.Context().Done():
		}
		fmt.Fprint(w, "held")
	}, nil)
	tcp := newBackend(t, "tcp", nil, nil)
	r.endpoints("ns", "fast", fast)
	r.endpoints("ns", "held", held)
	r.endpoints("ns", "tcp", tcp)
	on := annotated(routecore.AnnRateLimit, "true")
	r.route(rt("ns", "rate-http", "rate-http.example.com", 1, toService("fast"), on, annotated(routecore.AnnRateLimitRateHTTP, "5")))
	r.route(rt("ns", "concurrent", "concurrent.example.com", 2, toService("held"), on, annotated(routecore.AnnRateLimitConcurrentTCP, "2")))
	r.route(rt("ns", "rate-tcp", "rate-tcp.example.com", 3, toService("tcp"), on, annotated(routecore.AnnRateLimitRateTCP, "3")))
	r.start()

	// limited sends n requests, each on a new connection, and checks that
	// exactly the first allowed ones reach backend b.
	limited := func(t *testing.T, host string, b *goBackend, n, allowed int) {
		c := r.client(clientOptions{})
		var results []string
		for i := range n {
			x := fetch(c, "http://"+host+"/")
			results = append(results, x.String())
			if served := x.served(b.name); served != (i < allowed) {
				t.Errorf("request %d: %v (served %v), want served %v", i+1, x, served, i < allowed)
			}
		}
		if got := b.hits.Load(); got != int64(allowed) {
			t.Errorf("%d requests reached the backend, want %d: %q", got, allowed, results)
		}
	}

	t.Run("rate_http_5_refuses_the_6th_request", func(t *testing.T) { limited(t, "rate-http.example.com", fast, 10, 5) })
	t.Run("rate_tcp_3_refuses_the_4th_connection", func(t *testing.T) { limited(t, "rate-tcp.example.com", tcp, 6, 3) })
	t.Run("concurrent_tcp_2_refuses_a_3rd_connection", func(t *testing.T) {
		replies := make(chan reply, 2)
		for range 2 {
			go func() { replies <- fetch(r.client(clientOptions{}), "http://concurrent.example.com/") }()
		}
		for range 2 {
			select {
			case <-arrived:
			case x := <-replies:
				close(release)
				t.Fatalf("one of the first two concurrent connections was answered before the backend released it: %v", x)
			case <-time.After(15 * time.Second):
				close(release)
				t.Fatal("the first two concurrent requests did not reach the backend")
			}
		}
		third := fetch(r.client(clientOptions{timeout: 5 * time.Second}), "http://concurrent.example.com/")
		close(release)
		if third.err == nil && third.code < 400 {
			t.Errorf("third concurrent connection: %v, want it refused", third)
		}
		for range 2 {
			if x := <-replies; !x.served("held") {
				t.Errorf("one of the two allowed connections: %v", x)
			}
		}
		if n := held.hits.Load(); n != 2 {
			t.Errorf("%d requests reached the backend, want 2", n)
		}
	})
}

// TestTrafficTimeout: haproxy.router.openshift.io/timeout cuts a slow
// backend: the client gets a 504 and the backend sees HAProxy give up on
// its request before it answers; without it the default server timeout
// (30s) lets a slow answer through.
func TestTrafficTimeout(t *testing.T) {
	slow := func(d time.Duration, cut chan<- bool) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) {
			select {
			case <-time.After(d):
				fmt.Fprint(w, "slow")
				cut <- false
			case <-req.Context().Done():
				cut <- true
			}
		}
	}
	cut3s, cut2s := make(chan bool, 1), make(chan bool, 1)
	r := newTrafficRouter(t)
	r.endpoints("ns", "slow3s", newBackend(t, "slow3s", slow(3*time.Second, cut3s), nil))
	r.endpoints("ns", "slow2s", newBackend(t, "slow2s", slow(2*time.Second, cut2s), nil))
	r.route(rt("ns", "cut", "cut.example.com", 1, toService("slow3s"), annotated(routecore.AnnTimeout, "1s")))
	r.route(rt("ns", "patient", "patient.example.com", 2, toService("slow2s")))
	r.start()

	var wg sync.WaitGroup
	wg.Go(func() {
		t.Run("timeout_1s_cuts_a_3s_backend_with_504", func(t *testing.T) {
			if x := r.get("cut.example.com", "/"); x.err != nil || x.code != http.StatusGatewayTimeout {
				t.Errorf("%v, want 504", x)
			}
			if !<-cut3s {
				t.Error("the backend answered: HAProxy did not give up on it")
			}
		})
	})
	wg.Go(func() {
		t.Run("default_timeout_lets_a_2s_backend_answer", func(t *testing.T) {
			if x := r.get("patient.example.com", "/"); !x.served("slow2s") || x.body != "slow" {
				t.Errorf("%v, want 200 slow", x)
			}
			if <-cut2s {
				t.Error("HAProxy gave up on the backend")
			}
		})
	})
	wg.Wait()
}

// TestTrafficUnknownHost: a host no route claims gets the router's 503 on
// plain HTTP (the HTTPS side is in TestTrafficTLS).
func TestTrafficUnknownHost(t *testing.T) {
	r := newTrafficRouter(t)
	r.endpoints("ns", "svc", newBackend(t, "known", nil, nil))
	r.route(rt("ns", "known", "known.example.com", 1))
	r.start()
	wantServed(t, "known host", r.get("known.example.com", "/"), "known")
	wantNotServed(t, "unknown host", r.get("unknown.example.com", "/"))
	wantNotServed(t, "a subdomain of a known host", r.get("sub.known.example.com", "/"))
	if x := fetch(r.client(clientOptions{}), "http://127.0.0.1/"); x.err != nil || x.code != http.StatusServiceUnavailable {
		t.Errorf("request without a route's host: %v, want 503", x)
	}
}

// TestTrafficWildcardRoutes: with wildcard routes allowed, a route with
// wildcardPolicy Subdomain and host wildcard.example.test serves every host
// of one more label in example.test (as OpenShift's [^\.]*\. pattern),
// its own host included; routes of exact hosts in the domain take their
// host (and only the paths they route); deeper subdomains, the domain
// itself and other domains are not served. A wildcard route with a path
// serves that path on every host of its domain.
func TestTrafficWildcardRoutes(t *testing.T) {
	r := newTrafficRouter(t).allowWildcardRoutes()
	for _, name := range []string{"wild", "exact", "only", "api"} {
		r.endpoints("ns", name, newBackend(t, name, nil, nil))
	}
	r.endpoints("other", "intruder", newBackend(t, "intruder", nil, nil))
	r.route(rt("ns", "wild", "wildcard.example.test", 1, toService("wild"), wildcard))
	r.route(rt("ns", "exact", "exact.example.test", 2, toService("exact")))
	r.route(rt("ns", "only", "only.example.test", 3, toService("only"), withPath("/only")))
	r.route(rt("ns", "api", "api.paths.test", 4, toService("api"), withPath("/api"), wildcard))
	// A younger route of another namespace under the wildcard route's
	// domain loses the claim: its host is the wildcard route's.
	r.route(rt("other", "intruder", "intruder.example.test", 5, toService("intruder")))
	r.start()

	for _, c := range []struct {
		host, path string
		servedBy   string // "" = the router's 503
	}{
		{"anything.example.test", "/", "wild"},
		{"anything.example.test", "/some/path?q=1", "wild"},
		{"wildcard.example.test", "/", "wild"},
		{"Mixed-Case.Example.TEST", "/", "wild"},
		{"with-port.example.test:8080", "/", "wild"},
		{"trailing-dot.example.test.", "/", "wild"},
		{"exact.example.test", "/", "exact"},
		{"exact.example.test", "/deeper/path", "exact"},
		{"only.example.test", "/only", "only"},
		{"only.example.test", "/only/x", "only"},
		{"only.example.test", "/other", "wild"},
		{"intruder.example.test", "/", "wild"},
		{"a.b.example.test", "/", ""},
		{"example.test", "/", ""},
		{"anything.example.org", "/", ""},
		{"anything.example.test.org", "/", ""},
		{"x.paths.test", "/api", "api"},
		{"api.paths.test", "/api/v1", "api"},
		{"x.paths.test", "/", ""},
		{"x.paths.test", "/apix", ""},
		{"a.b.paths.test", "/api", ""},
	} {
		what := "http://" + c.host + c.path
		x := fetch(r.client(clientOptions{}), what)
		if c.servedBy == "" {
			wantNotServed(t, what, x)
		} else {
			wantServed(t, what, x, c.servedBy)
		}
	}
}
