package haproxy

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// incrementalSnapshot is n routes of the benchmark's mix (plain, edge with
// the default certificate, edge with its own, reencrypt, passthrough),
// each with its own service of two endpoints.
func incrementalSnapshot(t *testing.T, n int) router.Snapshot {
	var routes []*router.Route
	var services []*router.ServiceEndpoints
	for i := range n {
		ns, name := fmt.Sprintf("ns%d", i%50), fmt.Sprintf("r%d", i)
		var mods []func(*router.Route)
		switch i % 10 {
		case 4, 5, 6:
			mods = append(mods, edgeRedirect)
		case 7:
			mods = append(mods, edgeRedirect, ownCert(t))
		case 8:
			mods = append(mods, reencrypt, destCA(t))
		case 9:
			mods = append(mods, passthrough)
		}
		routes = append(routes, served(ns, name, name+"-"+ns+".apps.example.com", mods...))
		services = append(services, eps(ns, name, fmt.Sprintf("10.%d.%d.1", i/256, i%256), fmt.Sprintf("10.%d.%d.2", i/256, i%256)))
	}
	return snapshotOf(routes, services...)
}

func TestRenderIncrementalRouteChange(t *testing.T) {
	r := newTestRenderer(t)
	snap := incrementalSnapshot(t, 1000)
	first := mustRender(t, r, snap)
	if !first.Reload() || len(first.Changed) != len(first.Files) || len(first.Removed) != 0 {
		t.Fatalf("first render: reload %v, %d changed of %d files, removed %v", first.Reload(), len(first.Changed), len(first.Files), first.Removed)
	}

	// Route ns7/r507 (edge, own certificate, redirect) gets a path, a
	// timeout and another certificate.
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	old, _ := snap.Routes.Get("ns7/r507")
	changed := *old
	tls := *old.TLS
	tls.Certificate, tls.Key = string(p.Other.CertPEM), string(p.Other.KeyPEM)
	changed.TLS, changed.Path = &tls, "/v1"
	changed.Overrides.Timeout = time.Minute
	snap = nextSnapshot(snap, map[string]*router.Route{"ns7/r507": &changed}, nil)
	out := mustRender(t, r, snap)
	want := []string{"certs/ns7_r507.pem", backendFilePath(backendFileOf("ns7/r507")),
		mapFiles[httpExact], mapFiles[httpPrefix], mapFiles[httpsExact], mapFiles[httpsPrefix]}
	slices.Sort(want)
	if !slices.Equal(out.Changed, want) || !out.Reload() || len(out.Removed) != 0 || out.Servers != nil {
		t.Errorf("changed %v, want %v; reload %v, removed %v, servers %v", out.Changed, want, out.Reload(), out.Removed, out.Servers)
	}
	if len(out.Files) != len(first.Files) {
		t.Errorf("%d files, want %d", len(out.Files), len(first.Files))
	}
	for path, f := range first.Files {
		if !slices.Contains(want, path) && string(out.Files[path].Data) != string(f.Data) {
			t.Errorf("%s changed but is not in Changed", path)
		}
	}

	// The route goes.
	snap = nextSnapshot(snap, map[string]*router.Route{"ns7/r507": nil}, nil)
	out = mustRender(t, r, snap)
	if !slices.Equal(out.Removed, []string{"certs/ns7_r507.pem"}) || !out.Reload() {
		t.Errorf("removed %v, reload %v", out.Removed, out.Reload())
	}
	if want := []string{mapFiles[httpExact], mapFiles[httpPrefix], mapFiles[httpsExact], mapFiles[httpsPrefix], backendFilePath(backendFileOf("ns7/r507")), crtListFile}; !sameSet(out.Changed, want) {
		t.Errorf("changed %v, want %v", out.Changed, want)
	}

	// A change of the route that changes nothing rendered.
	plain, _ := snap.Routes.Get("ns0/r0")
	same := *plain
	same.Backends = []router.Backend{{Service: plain.Backends[0].Service, Weight: 42}}
	out = mustRender(t, r, nextSnapshot(snap, map[string]*router.Route{"ns0/r0": &same}, nil))
	if len(out.Changed) != 0 || out.Reload() {
		t.Errorf("nothing rendered changed: changed %v, reload %v", out.Changed, out.Reload())
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestRenderIncrementalEndpoints(t *testing.T) {
	r := newTestRenderer(t)
	snap := incrementalSnapshot(t, 1000)
	mustRender(t, r, snap)
	file := backendFilePath(backendFileOf("ns3/r3"))
	cases := []struct {
		name    string
		ips     []string
		reload  bool
		servers []runtime.ServerUpdate
	}{
		// A slot whose endpoint leaves stays disabled for this change: the
		// newcomer takes a new slot (HAProxy would reuse a connection to
		// the old address that was busy during the change).
		{"an endpoint replaced", []string{"10.0.3.1", "10.7.7.7"}, false,
			[]runtime.ServerUpdate{
				{Backend: "be_http:ns3:r3", Server: "s1", Address: placeholderAddress, Port: placeholderPort, Weight: 1},
				{Backend: "be_http:ns3:r3", Server: "s2", Address: "10.7.7.7", Port: 8080, Weight: 1, Enabled: true, Checked: true,
					Add: true, Options: "check inter 5000ms", CookieKey: dynamicCookieKey}}},
		// Slots free before the change are filled first; beyond them a
		// service grows by servers the runtime API adds, with the options
		// default-server gives the others.
		{"scaled up: a free slot, then servers added", []string{"10.0.3.1", "10.7.7.7", "10.7.7.8", "10.7.7.9"}, false,
			[]runtime.ServerUpdate{
				{Backend: "be_http:ns3:r3", Server: "s1", Address: "10.7.7.8", Port: 8080, Weight: 1, Enabled: true, Checked: true},
				{Backend: "be_http:ns3:r3", Server: "s3", Address: "10.7.7.9", Port: 8080, Weight: 1, Enabled: true, Checked: true,
					Add: true, Options: "check inter 5000ms", CookieKey: dynamicCookieKey}}},
		{"scaled down: the others stay in their slots", []string{"10.7.7.7", "10.7.7.9"}, false,
			[]runtime.ServerUpdate{
				{Backend: "be_http:ns3:r3", Server: "s0", Address: placeholderAddress, Port: placeholderPort, Weight: 1},
				{Backend: "be_http:ns3:r3", Server: "s1", Address: placeholderAddress, Port: placeholderPort, Weight: 1}}},
		{"all replaced: free slots first, the replaced ones stay disabled", []string{"10.7.7.1", "10.7.7.2", "10.7.7.3", "10.7.7.4", "10.7.7.5"}, false,
			[]runtime.ServerUpdate{
				{Backend: "be_http:ns3:r3", Server: "s0", Address: "10.7.7.1", Port: 8080, Weight: 1, Enabled: true, Checked: true},
				{Backend: "be_http:ns3:r3", Server: "s1", Address: "10.7.7.2", Port: 8080, Weight: 1, Enabled: true, Checked: true},
				{Backend: "be_http:ns3:r3", Server: "s2", Address: placeholderAddress, Port: placeholderPort, Weight: 1},
				{Backend: "be_http:ns3:r3", Server: "s3", Address: placeholderAddress, Port: placeholderPort, Weight: 1},
				{Backend: "be_http:ns3:r3", Server: "s4", Address: "10.7.7.3", Port: 8080, Weight: 1, Enabled: true, Checked: true,
					Add: true, Options: "check inter 5000ms", CookieKey: dynamicCookieKey},
				{Backend: "be_http:ns3:r3", Server: "s5", Address: "10.7.7.4", Port: 8080, Weight: 1, Enabled: true, Checked: true,
					Add: true, Options: "check inter 5000ms", CookieKey: dynamicCookieKey},
				{Backend: "be_http:ns3:r3", Server: "s6", Address: "10.7.7.5", Port: 8080, Weight: 1, Enabled: true, Checked: true,
					Add: true, Options: "check inter 5000ms", CookieKey: dynamicCookieKey}}},
		{"scaled down in the larger slot count", []string{"10.7.7.1", "10.7.7.2"}, false,
			[]runtime.ServerUpdate{
				{Backend: "be_http:ns3:r3", Server: "s4", Address: placeholderAddress, Port: placeholderPort, Weight: 1},
				{Backend: "be_http:ns3:r3", Server: "s5", Address: placeholderAddress, Port: placeholderPort, Weight: 1},
				{Backend: "be_http:ns3:r3", Server: "s6", Address: placeholderAddress, Port: placeholderPort, Weight: 1}}},
		// OpenShift's router health-checks no lone endpoint: the runtime
		// API turns its checks off, without a reload.
		{"down to one endpoint", []string{"10.7.7.1"}, false,
			[]runtime.ServerUpdate{
				{Backend: "be_http:ns3:r3", Server: "s0", Address: "10.7.7.1", Port: 8080, Weight: 1, Enabled: true},
				{Backend: "be_http:ns3:r3", Server: "s1", Address: placeholderAddress, Port: placeholderPort, Weight: 1}}},
		{"up to two again: checks on", []string{"10.7.7.1", "10.7.7.2"}, false,
			[]runtime.ServerUpdate{
				{Backend: "be_http:ns3:r3", Server: "s0", Address: "10.7.7.1", Port: 8080, Weight: 1, Enabled: true, Checked: true},
				{Backend: "be_http:ns3:r3", Server: "s1", Address: "10.7.7.2", Port: 8080, Weight: 1, Enabled: true, Checked: true}}},
	}
	for _, c := range cases {
		snap = nextSnapshot(snap, nil, map[string]*router.ServiceEndpoints{"ns3/r3": eps("ns3", "r3", c.ips...)})
		out := mustRender(t, r, snap)
		if out.Reload() != c.reload || !slices.Equal(out.Servers, c.servers) || !slices.Equal(out.Changed, []string{file}) {
			t.Errorf("%s: reload %v, servers %+v, changed %v; want reload %v, servers %+v, changed [%s]",
				c.name, out.Reload(), out.Servers, out.Changed, c.reload, c.servers, file)
		}
		lone := slices.Contains(r.Unchecked(), "be_http:ns3:r3/s0")
		if lone != (len(c.ips) == 1) {
			t.Errorf("%s: Unchecked() holds be_http:ns3:r3/s0: %v, want %v", c.name, lone, len(c.ips) == 1)
		}
	}
}

// TestRenderIncrementalWeights: with two services, endpoint counts change
// the weights of the other service's servers too, through the runtime API.
func TestRenderIncrementalWeights(t *testing.T) {
	r := newTestRenderer(t)
	rt := served("ns", "r", "www.example.com", withBackends(svcWeight("ns", "a", 100), svcWeight("ns", "b", 100)))
	snap := snapshotOf([]*router.Route{rt}, eps("ns", "a", "10.0.0.1", "10.0.0.2"), eps("ns", "b", "10.0.1.1", "10.0.1.2"))
	mustRender(t, r, snap)
	snap = nextSnapshot(snap, nil, map[string]*router.ServiceEndpoints{"ns/b": eps("ns", "b", "10.0.1.1", "10.0.1.2", "10.0.1.3", "10.0.1.4")})
	out := mustRender(t, r, snap)
	// a: 50 per endpoint -> 256; b: 25 per endpoint -> 128.
	added := func(u runtime.ServerUpdate) runtime.ServerUpdate {
		u.Add, u.Options, u.CookieKey = true, "check inter 5000ms", dynamicCookieKey
		return u
	}
	want := []runtime.ServerUpdate{
		{Backend: "be_http:ns:r", Server: "s2", Address: "10.0.1.1", Port: 8080, Weight: 128, Enabled: true, Checked: true},
		{Backend: "be_http:ns:r", Server: "s3", Address: "10.0.1.2", Port: 8080, Weight: 128, Enabled: true, Checked: true},
		added(runtime.ServerUpdate{Backend: "be_http:ns:r", Server: "s4", Address: "10.0.1.3", Port: 8080, Weight: 128, Enabled: true, Checked: true}),
		added(runtime.ServerUpdate{Backend: "be_http:ns:r", Server: "s5", Address: "10.0.1.4", Port: 8080, Weight: 128, Enabled: true, Checked: true}),
	}
	if out.Reload() || !slices.Equal(out.Servers, want) {
		t.Errorf("reload %v, servers %+v, want %+v", out.Reload(), out.Servers, want)
	}
	// A weight change in the route (b: 200 over 4 endpoints, as much as
	// a's 100 over 2): runtime updates as well.
	heavier := served("ns", "r", "www.example.com", withBackends(svcWeight("ns", "a", 100), svcWeight("ns", "b", 200)))
	out = mustRender(t, r, nextSnapshot(snap, map[string]*router.Route{"ns/r": heavier}, nil))
	for i := range want {
		want[i].Weight = 256
		want[i].Add, want[i].Options, want[i].CookieKey = false, "", ""
	}
	if out.Reload() || !slices.Equal(out.Servers, want) {
		t.Errorf("reload %v, servers %+v, want %+v", out.Reload(), out.Servers, want)
	}
}

// TestRenderSkippedSnapshots: when the renderer misses snapshots (a failed
// Render, or a caller that coalesces), the changes of every snapshot in
// between still show.
func TestRenderSkippedSnapshots(t *testing.T) {
	r := newTestRenderer(t)
	snap := snapshotOf([]*router.Route{served("ns", "a", "a.example.com"), served("ns", "b", "b.example.com")})
	mustRender(t, r, snap)
	skipped := nextSnapshot(snap, map[string]*router.Route{"ns/a": served("ns", "a", "a.example.com", atPath("/x"))}, nil)
	latest := nextSnapshot(skipped, map[string]*router.Route{"ns/b": nil, "ns/c": served("ns", "c", "c.example.com")},
		map[string]*router.ServiceEndpoints{"ns/c": eps("ns", "c", "10.0.0.1")})
	out := mustRender(t, r, latest)
	for host, want := range map[string]string{"a.example.com/x": "be_http:ns:a", "a.example.com/": "", "b.example.com/": "", "c.example.com/": "be_http:ns:c"} {
		h, p, _ := cutHost(host)
		if got := httpLookup(out, h, p); got != want {
			t.Errorf("%s -> %q, want %q", host, got, want)
		}
	}
	if _, ok := r.routes["ns/b"]; ok {
		t.Error("ns/b is still rendered")
	}
}

func cutHost(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '/' {
			return s[:i], s[i:], true
		}
	}
	return s, "/", false
}

// TestRenderDoesNotModifySnapshot: rendering leaves the snapshot's values
// as they were.
func TestRenderDoesNotModifySnapshot(t *testing.T) {
	rt := served("ns", "r", "www.example.com", edgeRedirect, ownCert(t), withOverrides(routecore.Overrides{IPAllowlist: []string{"10.0.0.1"}}))
	before := *rt
	tls := *rt.TLS
	svc := eps("ns", "r", "10.0.0.2", "10.0.0.1")
	mustRender(t, newTestRenderer(t, func(c *proxyconfig.Config) { c.BackendProcessEndpoints = "shuffle" }), snapshotOf([]*router.Route{rt}, svc))
	if rt.TLS != before.TLS || *rt.TLS != tls || rt.Path != before.Path || svc.Endpoints[0].IP != "10.0.0.2" || rt.Overrides.IPAllowlist[0] != "10.0.0.1" {
		t.Error("the snapshot was modified")
	}
}

// TestRenderAddedServerOptions: the options of a server added at runtime
// are what the built-in template prints for the slots HAProxy loads (its
// default-server line and the server line's verifyhost), so that a server
// added now and the same server after a reload behave alike.
func TestRenderAddedServerOptions(t *testing.T) {
	r := newTestRenderer(t)
	route := served("ns", "r", "re.example.com", reencrypt, destCA(t), withBackends(svcWeight("ns", "web", 100)),
		withOverrides(routecore.Overrides{PodConcurrentConnections: 10}))
	snap := snapshotOf([]*router.Route{route}, eps("ns", "web", "10.0.0.1"))
	mustRender(t, r, snap)
	snap = nextSnapshot(snap, nil, map[string]*router.ServiceEndpoints{"ns/web": eps("ns", "web", "10.0.0.1", "10.0.0.2")})
	out := mustRender(t, r, snap)
	if out.Reload() || len(out.Servers) == 0 || !out.Servers[len(out.Servers)-1].Add {
		t.Fatalf("growing: reload %v, servers %+v; want a server added", out.Reload(), out.Servers)
	}
	added := out.Servers[len(out.Servers)-1]
	var defaults, want string
	for _, line := range strings.Split(backendText(t, out, "be_secure:ns:r"), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "default-server "); ok {
			defaults = rest
		}
		if strings.HasPrefix(line, "server "+added.Server+" ") {
			want = defaults
			if _, host, ok := strings.Cut(line, " verifyhost "); ok {
				want += " verifyhost " + host
			}
		}
	}
	if !strings.Contains(want, "ssl verify required ca-file") || !strings.Contains(want, "maxconn 10") || added.Options != want {
		t.Errorf("added server options %q, want the template's %q", added.Options, want)
	}
}

// sliceEndpoints is service ns/svc as the router's Store merges it from one
// EndpointSlice holding ips, in that order, on port 8080.
func sliceEndpoints(ns, svc string, ips ...string) *router.ServiceEndpoints {
	es := sliceFor(ns, svc, ips[0], 8080)
	for _, ip := range ips[1:] {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: es.Endpoints[0].Conditions})
	}
	return router.ServiceEndpointsFromSlices(types.NamespacedName{Namespace: ns, Name: svc}, []*discoveryv1.EndpointSlice{es}, false)
}

// endpointList is "ip:port" of each endpoint of s, in order.
func endpointList(s *router.ServiceEndpoints) []string {
	var out []string
	for _, e := range s.Endpoints {
		out = append(out, net.JoinHostPort(e.IP, strconv.Itoa(int(e.Port))))
	}
	return out
}

// serverOrder is the endpoint of each server line of a backend, in slot
// order.
func serverOrder(t *testing.T, out *runtime.Output, backend string) []string {
	t.Helper()
	var servers []string
	for _, line := range strings.Split(backendText(t, out, backend), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "server" {
			servers = append(servers, f[2])
		}
	}
	return servers
}

func ipRange(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

// TestRenderShuffleEndpoints: ROUTER_BACKEND_PROCESS_ENDPOINTS=shuffle puts
// endpoints that have no server slot yet in random order; endpoints that
// have a slot keep it in every render. Without it, new endpoints take the
// free slots in the service's canonical order (as merged from the
// EndpointSlices).
func TestRenderShuffleEndpoints(t *testing.T) {
	// 20 endpoints listed in reverse in the slice: canonical order is the
	// merged, sorted order, not the slice's.
	reversed := ipRange("10.0.0.", 1, 20)
	slices.Reverse(reversed)
	first := sliceEndpoints("ns", "web", reversed...)
	canonical := endpointList(first)
	if len(canonical) != 20 || !slices.IsSortedFunc(first.Endpoints, func(a, b router.Endpoint) int { return strings.Compare(a.IP, b.IP) }) {
		t.Fatalf("merged endpoints %v: want 20, sorted by address", canonical)
	}
	grown := sliceEndpoints("ns", "web", append(ipRange("10.0.0.", 1, 20), ipRange("10.0.1.", 1, 10)...)...)
	added := slices.DeleteFunc(endpointList(grown), func(s string) bool { return slices.Contains(canonical, s) })
	// Five endpoints go and five others come.
	replaced := sliceEndpoints("ns", "web", append(ipRange("10.0.0.", 6, 20), append(ipRange("10.0.1.", 1, 10), ipRange("10.0.2.", 1, 5)...)...)...)
	gone, came := ipRange("10.0.0.", 1, 5), ipRange("10.0.2.", 1, 5)
	for i := range gone {
		gone[i] += ":8080"
		came[i] += ":8080"
	}

	// run renders the three services in turn with a new renderer and
	// checks what does not depend on the shuffle; it returns the server
	// order of the first render and the slots the grown service added.
	run := func(t *testing.T, shuffle bool) (firstOrder, addedOrder []string) {
		t.Helper()
		r := newTestRenderer(t, func(c *proxyconfig.Config) {
			if shuffle {
				c.BackendProcessEndpoints = "shuffle"
			}
		})
		snap := snapshotOf([]*router.Route{served("ns", "r", "www.example.com", withBackends(svcWeight("ns", "web", 100)))}, first)
		order := serverOrder(t, mustRender(t, r, snap), "be_http:ns:r")
		if !sameSet(order, canonical) || len(order) != len(canonical) {
			t.Fatalf("servers %v, want a permutation of %v", order, canonical)
		}
		// The same endpoints again (a new object): nothing moves.
		snap = nextSnapshot(snap, nil, map[string]*router.ServiceEndpoints{"ns/web": sliceEndpoints("ns", "web", ipRange("10.0.0.", 1, 20)...)})
		if again := serverOrder(t, mustRender(t, r, snap), "be_http:ns:r"); !slices.Equal(again, order) {
			t.Errorf("same endpoints rendered again: servers %v, were %v", again, order)
		}
		// Ten more: the twenty keep their slots, the ten take new ones.
		snap = nextSnapshot(snap, nil, map[string]*router.ServiceEndpoints{"ns/web": grown})
		more := serverOrder(t, mustRender(t, r, snap), "be_http:ns:r")
		if len(more) != 30 || !slices.Equal(more[:20], order) || !sameSet(more[20:], added) {
			t.Fatalf("grown: servers %v; want %v then a permutation of %v", more, order, added)
		}
		// Five replaced: the others stay, the freed slots stay disabled for
		// this change and the newcomers take new slots.
		snap = nextSnapshot(snap, nil, map[string]*router.ServiceEndpoints{"ns/web": replaced})
		last := serverOrder(t, mustRender(t, r, snap), "be_http:ns:r")
		if len(last) != 35 {
			t.Fatalf("replaced: servers %v, want 35 slots", last)
		}
		free := fmt.Sprintf("%s:%d", placeholderAddress, placeholderPort)
		for i, ep := range more {
			switch {
			case slices.Contains(gone, ep) && last[i] != free:
				t.Errorf("replaced: slot s%d holds %s, want it free (it held %s)", i, last[i], ep)
			case !slices.Contains(gone, ep) && last[i] != ep:
				t.Errorf("replaced: slot s%d holds %s, held %s before", i, last[i], ep)
			}
		}
		if !sameSet(last[30:], came) {
			t.Errorf("replaced: servers %v; the new slots hold %v, want a permutation of %v", last, last[30:], came)
		}
		return order, more[20:]
	}

	t.Run("in order without shuffle", func(t *testing.T) {
		order, more := run(t, false)
		if !slices.Equal(order, canonical) || !slices.Equal(more, added) {
			t.Errorf("servers %v then %v, want %v then %v", order, more, canonical, added)
		}
	})
	t.Run("shuffled", func(t *testing.T) {
		// Each render keeps the canonical order with probability 1/20!
		// (first) and 1/10! (added): five tries make a false failure
		// practically impossible.
		firstShuffled, addedShuffled := false, false
		for range 5 {
			order, more := run(t, true)
			firstShuffled = firstShuffled || !slices.Equal(order, canonical)
			addedShuffled = addedShuffled || !slices.Equal(more, added)
		}
		if !firstShuffled {
			t.Error("the first render's servers were in canonical order in every try")
		}
		if !addedShuffled {
			t.Error("added endpoints took their slots in canonical order in every try")
		}
	})
}
