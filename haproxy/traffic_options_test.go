package haproxy

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
)

// Real traffic for the route options that change what clients and
// endpoints see beyond routing: HSTS, cookie attributes and names, header
// actions, per-endpoint connection caps, health checks, long allowlists
// and balance algorithms.

// statRows is HAProxy's statistics of one backend (`show stat`), by row
// name (server names and BACKEND), each by column name.
func (r *trafficRouter) statRows(backend string) (map[string]map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	csv, err := r.p.Stats(ctx)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if !strings.HasPrefix(lines[0], "# ") {
		return nil, fmt.Errorf("show stat: no header line: %q", lines[0])
	}
	header := strings.Split(strings.TrimPrefix(lines[0], "# "), ",")
	rows := map[string]map[string]string{}
	for _, line := range lines[1:] {
		f := strings.Split(line, ",")
		if len(f) < 2 || f[0] != backend {
			continue
		}
		row := map[string]string{}
		for i, name := range header {
			if i < len(f) && name != "" {
				row[name] = f[i]
			}
		}
		rows[f[1]] = row
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("show stat has no rows of backend %s", backend)
	}
	return rows, nil
}

// serverAt is the statistics row of the server of backend whose address is
// b's.
func serverAt(rows map[string]map[string]string, b *goBackend) (map[string]string, error) {
	addr := net.JoinHostPort(b.ip, strconv.Itoa(int(b.port)))
	for name, row := range rows {
		if name != "BACKEND" && row["addr"] == addr {
			return row, nil
		}
	}
	return nil, fmt.Errorf("no server with address %s", addr)
}

func statInt(row map[string]string, column string) int {
	n, _ := strconv.Atoi(row[column])
	return n
}

// TestTrafficHSTS: haproxy.router.openshift.io/hsts_header puts the value,
// as given, in Strict-Transport-Security on responses of edge and
// reencrypt routes over TLS, never over plain HTTP (RFC 6797 §7.2: an
// edge route with insecure policy Allow) and never on routes without TLS.
func TestTrafficHSTS(t *testing.T) {
	const edgeValue, reencryptValue = "max-age=31536000;includeSubDomains;preload", "max-age=600"
	r := newTrafficRouter(t)
	r.endpoints("ns", "web", newBackend(t, "web", nil, nil))
	backendCA := newCA(t, "backend CA")
	r.endpoints("ns", "secure", newBackend(t, "secure", nil, tlsServerConfig(t, issue(t, backendCA, "127.0.0.1"))))
	edge, reencrypt := routecore.TLSTerminationEdge, routecore.TLSTerminationReencrypt
	r.route(rt("ns", "edge", "edge.example.com", 1, toService("web"),
		terminated(edge, routecore.InsecureEdgeTerminationPolicyAllow, nil, nil), annotated(routecore.AnnHSTSHeader, edgeValue)))
	r.route(rt("ns", "reencrypt", "reencrypt.example.com", 2, toService("secure"),
		terminated(reencrypt, "", nil, nil), destinationCA(backendCA), annotated(routecore.AnnHSTSHeader, reencryptValue)))
	r.route(rt("ns", "plain", "plain.example.com", 3, toService("web"), annotated(routecore.AnnHSTSHeader, "max-age=1")))
	r.route(rt("ns", "edge-without", "without.example.com", 4, toService("web"), terminated(edge, "", nil, nil)))
	r.start()

	https := r.client(clientOptions{})
	for _, c := range []struct {
		url, backend, want string
	}{
		{"https://edge.example.com/", "web", edgeValue},
		{"https://reencrypt.example.com/", "secure", reencryptValue},
		{"http://edge.example.com/", "web", ""},
		{"http://plain.example.com/", "web", ""},
		{"https://without.example.com/", "web", ""},
	} {
		x := fetch(https, c.url)
		wantServed(t, c.url, x, c.backend)
		if got := x.header.Values("Strict-Transport-Security"); c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || got[0] != c.want) {
			t.Errorf("%s: Strict-Transport-Security %q, want %q", c.url, got, c.want)
		}
	}
}

// setCookie is the cookie name of x's Set-Cookie headers, with the raw
// header it came from.
func setCookie(x reply, name string) (*http.Cookie, string) {
	for _, raw := range x.header.Values("Set-Cookie") {
		if cs := (&http.Response{Header: http.Header{"Set-Cookie": {raw}}}).Cookies(); len(cs) == 1 && cs[0].Name == name {
			return cs[0], raw
		}
	}
	return nil, ""
}

// TestTrafficCookieSettings: ROUTER_COOKIE_NAME names every route's sticky
// cookie (router.openshift.io/cookie_name still wins), the cookie keeps a
// client on its endpoint, and router.openshift.io/cookie-same-site sets
// SameSite on the secure cookies of TLS routes (default None); routes
// reachable over plain HTTP get neither Secure nor SameSite.
func TestTrafficCookieSettings(t *testing.T) {
	const shared = "router_cookie"
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.CookieName = shared })
	r.endpoints("ns", "app", newBackend(t, "endpoint-1", nil, nil), newBackend(t, "endpoint-2", nil, nil))
	roundrobin := annotated(routecore.AnnBalance, "roundrobin")
	edge := routecore.TLSTerminationEdge
	sameSite := func(v string) func(*routecore.Route) { return annotated(routecore.AnnCookieSameSite, v) }
	r.route(rt("ns", "plain", "plain.example.com", 1, toService("app"), roundrobin))
	r.route(rt("ns", "named", "named.example.com", 2, toService("app"), roundrobin, annotated(routecore.AnnCookieName, "mine")))
	r.route(rt("ns", "default", "default.example.com", 3, toService("app"), roundrobin, terminated(edge, routecore.InsecureEdgeTerminationPolicyRedirect, nil, nil)))
	r.route(rt("ns", "lax", "lax.example.com", 4, toService("app"), roundrobin, terminated(edge, "", nil, nil), sameSite("Lax")))
	r.route(rt("ns", "strict", "strict.example.com", 5, toService("app"), roundrobin, terminated(edge, routecore.InsecureEdgeTerminationPolicyRedirect, nil, nil), sameSite("Strict")))
	r.route(rt("ns", "allow", "allow.example.com", 6, toService("app"), roundrobin, terminated(edge, routecore.InsecureEdgeTerminationPolicyAllow, nil, nil), sameSite("Strict")))
	r.start()

	for _, c := range []struct {
		url, name string
		secure    bool
		sameSite  http.SameSite
	}{
		{"http://plain.example.com/", shared, false, 0},
		{"http://named.example.com/", "mine", false, 0},
		{"https://default.example.com/", shared, true, http.SameSiteNoneMode},
		{"https://lax.example.com/", shared, true, http.SameSiteLaxMode},
		{"https://strict.example.com/", shared, true, http.SameSiteStrictMode},
		{"https://allow.example.com/", shared, false, 0},
		{"http://allow.example.com/", shared, false, 0},
	} {
		t.Run(strings.TrimSuffix(strings.ReplaceAll(c.url, "://", "_"), "/"), func(t *testing.T) {
			client := r.client(clientOptions{})
			x := fetch(client, c.url)
			if x.err != nil || x.code != http.StatusOK {
				t.Fatalf("%s: %v", c.url, x)
			}
			cookie, raw := setCookie(x, c.name)
			if cookie == nil || cookie.Value == "" {
				t.Fatalf("%s sets no cookie %s: Set-Cookie %q", c.url, c.name, x.header.Values("Set-Cookie"))
			}
			if cookie.Secure != c.secure || cookie.SameSite != c.sameSite || !cookie.HttpOnly {
				t.Errorf("%s: Set-Cookie %q: Secure %v SameSite %v HttpOnly %v, want Secure %v SameSite %v HttpOnly",
					c.url, raw, cookie.Secure, cookie.SameSite, cookie.HttpOnly, c.secure, c.sameSite)
			}
			if c.name != shared {
				if other, raw := setCookie(x, shared); other != nil {
					t.Errorf("%s: also sets %q", c.url, raw)
				}
			}
			endpoint := x.header.Get("X-Backend")
			for i := range 10 {
				if y := fetch(client, c.url, "Cookie", c.name+"="+cookie.Value); !y.served(endpoint) {
					t.Fatalf("request %d with the cookie of %s: %v from %q", i+1, endpoint, y, y.header.Get("X-Backend"))
				}
			}
		})
	}
}

// TestTrafficHeaderActions: spec.httpHeaders.actions: request headers set
// (replacing the client's, with %% and %[req.hdr()] expanded) and deleted
// as the endpoint sees them; response headers set (replacing the
// endpoint's, with %[res.hdr()]) and deleted as the client sees them; on
// an edge route over TLS and on a plain route.
func TestTrafficHeaderActions(t *testing.T) {
	set := func(name, value string) routecore.RouteHTTPHeader {
		return routecore.RouteHTTPHeader{Name: name, Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Set, Set: &routecore.RouteSetHTTPHeader{Value: value}}}
	}
	del := func(name string) routecore.RouteHTTPHeader {
		return routecore.RouteHTTPHeader{Name: name, Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Delete}}
	}
	actions := func(r *routecore.Route) {
		r.Spec.HTTPHeaders = &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{
			Request: []routecore.RouteHTTPHeader{set("X-Static", "it's 100%% static"), set("X-Host-Copy", "%[req.hdr(host),lower]"), del("X-Remove-Me")},
			Response: []routecore.RouteHTTPHeader{set("X-Frame-Options", "DENY"), set("X-Echo", "echo %[res.hdr(X-From-Backend)]"),
				del("X-Internal")},
		}}
	}
	r := newTrafficRouter(t)
	r.endpoints("ns", "web", newBackend(t, "web", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("X-Internal", "secret")
		w.Header().Set("X-From-Backend", "backend-value")
		w.Header().Set("X-Frame-Options", "SAMEORIGIN")
		for _, h := range []string{"X-Static", "X-Host-Copy", "X-Remove-Me", "X-Untouched"} {
			fmt.Fprintf(w, "%s=%q\n", h, req.Header.Values(h))
		}
	}, nil))
	r.route(rt("ns", "edge", "edge.example.com", 1, toService("web"), terminated(routecore.TLSTerminationEdge, "", nil, nil), actions))
	r.route(rt("ns", "plain", "plain.example.com", 2, toService("web"), actions))
	r.route(rt("ns", "untouched", "untouched.example.com", 3, toService("web")))
	r.start()

	client := r.client(clientOptions{})
	sent := []string{"X-Static", "from the client", "X-Remove-Me", "please", "X-Untouched", "kept"}
	// The hosts in upper case show the lower converter at work.
	for _, c := range []struct{ url, host string }{{"https://EDGE.example.com/", "edge.example.com"}, {"http://Plain.Example.com/", "plain.example.com"}} {
		x := fetch(client, c.url, sent...)
		wantServed(t, c.url, x, "web")
		want := fmt.Sprintf("X-Static=[\"it's 100%% static\"]\nX-Host-Copy=[%q]\nX-Remove-Me=[]\nX-Untouched=[\"kept\"]\n", c.host)
		if x.body != want {
			t.Errorf("%s: the endpoint saw\n%s\nwant\n%s", c.url, x.body, want)
		}
		for name, want := range map[string][]string{"X-Frame-Options": {"DENY"}, "X-Echo": {"echo backend-value"}, "X-Internal": nil, "X-From-Backend": {"backend-value"}} {
			if got := x.header.Values(name); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s: the client saw %s %q, want %q", c.url, name, got, want)
			}
		}
	}
	// A route without actions passes the headers through.
	x := fetch(client, "http://untouched.example.com/", sent...)
	if want := "X-Static=[\"from the client\"]\nX-Host-Copy=[]\nX-Remove-Me=[\"please\"]\nX-Untouched=[\"kept\"]\n"; x.body != want ||
		x.header.Get("X-Internal") != "secret" || x.header.Get("X-Frame-Options") != "SAMEORIGIN" {
		t.Errorf("route without actions: the endpoint saw\n%s\nthe client saw %v", x.body, x.header)
	}
}

// TestTrafficPodConcurrentConnections: with
// haproxy.router.openshift.io/pod-concurrent-connections 2 and two
// endpoints, eight concurrent clients get two requests in flight on each
// endpoint while HAProxy queues the other four; every request is answered
// once the endpoints let theirs go, and no endpoint ever held more than 2.
func TestTrafficPodConcurrentConnections(t *testing.T) {
	const perEndpoint, endpoints, clients = 2, 2, 8
	type gauge struct {
		mu       sync.Mutex
		cur, max int
	}
	release := make(chan struct{})
	held := func(g *gauge) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) {
			g.mu.Lock()
			g.cur++
			g.max = max(g.max, g.cur)
			g.mu.Unlock()
			defer func() {
				g.mu.Lock()
				g.cur--
				g.mu.Unlock()
			}()
			select {
			case <-release:
			case <-req.Context().Done():
			}
			fmt.Fprint(w, "done")
		}
	}
	// Queued requests wait at most "timeout queue", which is the connect
	// timeout: longer than the test.
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.ConnectTimeout = 2 * time.Minute })
	g1, g2 := &gauge{}, &gauge{}
	r.endpoints("ns", "capped", newBackend(t, "endpoint-1", held(g1), nil), newBackend(t, "endpoint-2", held(g2), nil))
	r.route(rt("ns", "capped", "capped.example.com", 1, toService("capped"),
		annotated(routecore.AnnPodConcurrentConnections, strconv.Itoa(perEndpoint))))
	r.start()

	replies := make(chan reply, clients)
	for range clients {
		go func() {
			replies <- fetch(r.client(clientOptions{timeout: 2 * time.Minute}), "http://capped.example.com/")
		}()
	}
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	inFlight := func() (int, int) {
		g1.mu.Lock()
		defer g1.mu.Unlock()
		g2.mu.Lock()
		defer g2.mu.Unlock()
		return g1.cur, g2.cur
	}
	eventually(t, 30*time.Second, "two requests in flight per endpoint and the rest queued", func() error {
		c1, c2 := inFlight()
		rows, err := r.statRows("be_http:ns:capped")
		if err != nil {
			return err
		}
		queued := 0
		for _, row := range rows {
			queued += statInt(row, "qcur")
		}
		if c1 != perEndpoint || c2 != perEndpoint || queued != clients-perEndpoint*endpoints {
			return fmt.Errorf("in flight %d and %d, %d queued (rows %v)", c1, c2, queued, rows)
		}
		return nil
	})
	close(release)
	released = true
	for range clients {
		select {
		case x := <-replies:
			if x.err != nil || x.code != http.StatusOK || x.body != "done" {
				t.Errorf("a capped request: %v", x)
			}
		case <-time.After(time.Minute):
			t.Fatal("the queued requests were not answered")
		}
	}
	for i, g := range []*gauge{g1, g2} {
		g.mu.Lock()
		if g.max != perEndpoint {
			t.Errorf("endpoint-%d held up to %d requests at once, want %d", i+1, g.max, perEndpoint)
		}
		g.mu.Unlock()
	}
}

// TestTrafficHealthCheckInterval: two endpoints, one stops listening. With
// router.openshift.io/haproxy.health.check.interval 300ms HAProxy marks it
// DOWN after a few checks (ROUTER_BACKEND_CHECK_INTERVAL is an hour here:
// without the annotation that would not happen during the test), after
// which every request is served by the other endpoint and the router no
// longer even tries the dead one. (HAProxy 2.6 does not report a server's
// check interval through its runtime API, so the interval shows by what
// the checks do.)
//
// The router has no other checked route: HAProxy spreads the first checks
// of all servers over the shortest interval of at least 1s, which an
// hourly route would stretch to an hour.
func TestTrafficHealthCheckInterval(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.BackendCheckInterval = time.Hour })
	alive, dying := newBackend(t, "alive", nil, nil), newBackend(t, "dying", nil, nil)
	r.endpoints("ns", "pair", alive, dying)
	r.route(rt("ns", "checked", "checked.example.com", 1, toService("pair"), annotated(routecore.AnnBalance, "roundrobin"),
		annotated(routecore.AnnHealthCheckInterval, "300ms")))
	r.start()
	seen := map[string]bool{}
	for range 4 {
		x := r.get("checked.example.com", "/")
		seen[x.header.Get("X-Backend")] = true
	}
	if !seen["alive"] || !seen["dying"] {
		t.Fatalf("before the failure, requests reached %v, want both endpoints", seen)
	}

	dying.stop()
	var before map[string]string
	eventually(t, 30*time.Second, "the stopped endpoint is DOWN in be_http:ns:checked", func() error {
		rows, err := r.statRows("be_http:ns:checked")
		if err != nil {
			return err
		}
		if before, err = serverAt(rows, dying); err != nil {
			return err
		}
		if before["status"] != "DOWN" {
			return fmt.Errorf("status %q, last check %q", before["status"], before["check_status"])
		}
		return nil
	})
	for i := range 20 {
		if x := r.get("checked.example.com", "/"); !x.served("alive") {
			t.Fatalf("request %d after the endpoint went DOWN: %v", i+1, x)
		}
	}
	rows, err := r.statRows("be_http:ns:checked")
	if err != nil {
		t.Fatal(err)
	}
	after, err := serverAt(rows, dying)
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"lbtot", "econ", "wretr"} {
		if statInt(after, col) != statInt(before, col) {
			t.Errorf("the DOWN endpoint's %s went from %s to %s: the router still sent it requests", col, before[col], after[col])
		}
	}
}

// TestTrafficLargeIPAllowlist: an allowlist longer than HAProxy takes on
// one line is written to a file, which still admits the listed source
// addresses and networks and refuses the others.
func TestTrafficLargeIPAllowlist(t *testing.T) {
	var list []string
	for i := range 80 {
		list = append(list, fmt.Sprintf("10.%d.0.0/16", i))
	}
	list = slices.Insert(list, 40, "127.0.0.1", "127.0.0.4/30")
	if len(list) <= maxInlineAllowList {
		t.Fatalf("%d entries fit on the acl line: make the list longer", len(list))
	}
	r := newTrafficRouter(t)
	b := newBackend(t, "private", nil, nil)
	r.endpoints("ns", "private", b)
	r.route(rt("ns", "big", "big.example.com", 1, toService("private"), annotated(routecore.AnnIPAllowlist, strings.Join(list, " "))))
	r.start()
	file := filepath.Join(r.cfg.WorkingDir, "allowlists", "ns_big.txt")
	if data, err := os.ReadFile(file); err != nil || len(strings.Fields(string(data))) != len(list) {
		t.Fatalf("the allowlist file %s: %v, %d entries; want %d", file, err, len(strings.Fields(string(data))), len(list))
	}
	for _, c := range []struct {
		source   string
		admitted bool
	}{{"127.0.0.1", true}, {"127.0.0.5", true}, {"127.0.0.2", false}, {"127.0.0.8", false}} {
		before := b.hits.Load()
		x := fetch(r.client(clientOptions{source: net.ParseIP(c.source)}), "http://big.example.com/")
		switch {
		case c.admitted:
			wantServed(t, "from "+c.source, x, "private")
		case x.err == nil && x.code < 400:
			t.Errorf("from %s: %v, want the request dropped", c.source, x)
		case b.hits.Load() != before:
			t.Errorf("a request from %s reached the backend", c.source)
		}
	}
}

// TestTrafficBalanceAlgorithms: under a router whose default is roundrobin,
// the balance annotation "source" keeps one client address on one
// endpoint over many new connections (and spreads different addresses),
// and "leastconn" sends new requests away from an endpoint busy with a
// long request.
func TestTrafficBalanceAlgorithms(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.LoadBalanceAlgorithm = "roundrobin" })
	release := make(chan struct{})
	defer close(release)
	holding := make(chan string, 4)
	holder := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) {
			if req.URL.Path == "/hold" {
				holding <- name
				select {
				case <-release:
				case <-req.Context().Done():
				}
			}
			fmt.Fprint(w, name)
		}
	}
	var three []*goBackend
	for i := range 3 {
		three = append(three, newBackend(t, fmt.Sprintf("source-%d", i+1), nil, nil))
	}
	r.endpoints("ns", "three", three...)
	least := map[string]*goBackend{"least-1": newBackend(t, "least-1", holder("least-1"), nil), "least-2": newBackend(t, "least-2", holder("least-2"), nil)}
	r.endpoints("ns", "two", least["least-1"], least["least-2"])
	r.route(rt("ns", "source", "source.example.com", 1, toService("three"), annotated(routecore.AnnBalance, "source")))
	r.route(rt("ns", "leastconn", "leastconn.example.com", 2, toService("two"), annotated(routecore.AnnBalance, "leastconn")))
	r.start()

	t.Run("source_keeps_a_client_on_one_endpoint", func(t *testing.T) {
		byClient := map[string]string{}
		for i := 1; i <= 12; i++ {
			source := fmt.Sprintf("127.0.0.%d", i)
			client := r.client(clientOptions{source: net.ParseIP(source)})
			for j := range 8 {
				x := fetch(client, "http://source.example.com/")
				if x.err != nil || x.code != http.StatusOK {
					t.Fatalf("from %s: %v", source, x)
				}
				endpoint := x.header.Get("X-Backend")
				if first, ok := byClient[source]; ok && first != endpoint {
					t.Fatalf("from %s, connection %d went to %s after %s", source, j+1, endpoint, first)
				}
				byClient[source] = endpoint
			}
		}
		spread := map[string]bool{}
		for _, e := range byClient {
			spread[e] = true
		}
		if len(spread) < 2 {
			t.Errorf("12 client addresses all went to %v: not balanced by source", spread)
		}
	})
	t.Run("leastconn_avoids_the_busy_endpoint", func(t *testing.T) {
		hold := make(chan reply, 1)
		go func() {
			hold <- fetch(r.client(clientOptions{timeout: time.Minute}), "http://leastconn.example.com/hold")
		}()
		var busy string
		select {
		case busy = <-holding:
		case x := <-hold:
			t.Fatalf("the long request was answered: %v", x)
		case <-time.After(30 * time.Second):
			t.Fatal("the long request did not reach an endpoint")
		}
		idle := least["least-1"]
		if busy == "least-1" {
			idle = least["least-2"]
		}
		for i := range 10 {
			// HAProxy counts a request against its server until the
			// stream ends, which can be just after the client has the
			// response: wait for the idle endpoint to count none, else
			// the two tie and leastconn may pick either.
			eventually(t, 10*time.Second, "the idle endpoint serves no request", func() error {
				rows, err := r.statRows("be_http:ns:leastconn")
				if err != nil {
					return err
				}
				row, err := serverAt(rows, idle)
				if err != nil {
					return err
				}
				if n := statInt(row, "scur"); n != 0 {
					return fmt.Errorf("scur %d", n)
				}
				return nil
			})
			x := r.get("leastconn.example.com", "/")
			if x.err != nil || x.code != http.StatusOK || x.body == busy {
				t.Errorf("request %d while %s holds a long request: %v, want the other endpoint", i+1, busy, x)
			}
		}
	})
}
