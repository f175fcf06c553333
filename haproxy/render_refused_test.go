package haproxy

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// TestRenderRefused: a refused route is rendered closed (its backend has
// no servers and nothing of the route, its paths stay in the maps), with
// no certificate file or crt-list line, and is reported unservable once;
// the route's next value is rendered in full again. Omitted, it leaves the
// configuration altogether.
func TestRenderRefused(t *testing.T) {
	r := newTestRenderer(t)
	refused := newRefusals(nil, "")
	render := func(snap router.Snapshot) *runtime.Output {
		t.Helper()
		out, err := r.Render(snap, Inputs{refused: refused})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	weak := served("ns", "weak", "weak.example.com", withWeakCertificate(t), atPath("/app"))
	good := served("ns", "good", "good.example.com")
	snap := snapshotOf([]*router.Route{weak, good}, eps("ns", "weak", "10.0.0.1"), eps("ns", "good", "10.0.0.2"))
	render(snap)
	if got := r.Unservable(); len(got) != 0 {
		t.Fatalf("unservable before any refusal: %v", got)
	}

	refused.record(refusal{route: weak, message: "HAProxy refuses this route's configuration: unable to load SSL certificate"})
	out := render(snap)
	if text := backendText(t, out, "be_edge_http:ns:weak"); text != "backend be_edge_http:ns:weak from http_route\n  # not served: "+unavailableRefused+"\n" {
		t.Errorf("refused route's backend:\n%s", text)
	}
	if _, ok := out.Files[routeCertFile(weak)]; ok || strings.Contains(string(out.Files[crtListFile].Data), "weak") {
		t.Errorf("the refused route's certificate is still served: files %v, crt-list %q", slices.Sorted(maps.Keys(out.Files)), out.Files[crtListFile].Data)
	}
	if !strings.Contains(string(out.Files[mapFiles[httpsExact]].Data), "weak.example.com/app be_edge_http:ns:weak") {
		t.Errorf("the refused route's path left the maps:\n%s", out.Files[mapFiles[httpsExact]].Data)
	}
	if !strings.Contains(backendText(t, out, "be_http:ns:good"), "server s0 10.0.0.2:8080") {
		t.Error("the other route lost its server")
	}
	want := []Unservable{{Route: weak, Message: "HAProxy refuses this route's configuration: unable to load SSL certificate"}}
	if got := r.Unservable(); !slices.Equal(got, want) {
		t.Errorf("unservable %v, want %v", got, want)
	}

	// Endpoints change: the route stays closed and is not reported again.
	snap = nextSnapshot(snap, nil, map[string]*router.ServiceEndpoints{"ns/weak": eps("ns", "weak", "10.0.0.3")})
	out = render(snap)
	if strings.Contains(backendText(t, out, "be_edge_http:ns:weak"), "server") {
		t.Error("the refused route got servers")
	}
	if got := r.Unservable(); len(got) != 0 {
		t.Errorf("reported again after an endpoint change: %v", got)
	}

	// Omitted: gone from the configuration, reported with the new words.
	refused.record(refusal{route: weak, message: "HAProxy refuses even its closed configuration", omit: true})
	out = render(snap)
	if strings.Contains(string(out.Files[backendFilePath(backendFileOf("ns/weak"))].Data), "ns:weak") || strings.Contains(string(out.Files[mapFiles[httpsExact]].Data), "weak") {
		t.Error("the omitted route is still in the configuration")
	}
	want = []Unservable{{Route: weak, Message: "HAProxy refuses even its closed configuration"}}
	if got := r.Unservable(); !slices.Equal(got, want) {
		t.Errorf("unservable %v, want %v", got, want)
	}

	// The route changes: rendered in full again.
	fixed := served("ns", "weak", "weak.example.com", tlsRoute(routecore.TLSTerminationEdge, ""), ownCert(t), atPath("/app"))
	snap = nextSnapshot(snap, map[string]*router.Route{"ns/weak": fixed}, nil)
	out = render(snap)
	if _, ok := out.Files[routeCertFile(fixed)]; !ok || !strings.Contains(backendText(t, out, "be_edge_http:ns:weak"), "server s0 10.0.0.3:8080") {
		t.Errorf("the changed route is not served in full:\n%s", backendText(t, out, "be_edge_http:ns:weak"))
	}
	if got := r.Unservable(); len(got) != 0 {
		t.Errorf("the changed route is reported unservable: %v", got)
	}
}

// TestRenderUnservable: routes rendered without anything served, because
// they cannot be served safely or because no request can reach them, are
// reported with why, once per value.
func TestRenderUnservable(t *testing.T) {
	r := newTestRenderer(t)
	noAllowed := served("ns", "closed", "closed.example.com", withOverrides(routecore.Overrides{IPAllowlist: []string{"not-an-address"}}))
	noCA := served("ns", "noca", "noca.example.com", tlsRoute(routecore.TLSTerminationReencrypt, ""), func(rt *router.Route) {
		rt.TLS.DestinationCACertificate = "no certificate here"
	})
	lonely := served("ns", "lonely", "localhost", wildcardRoute)
	badCert := served("ns", "badcert", "badcert.example.com", tlsRoute(routecore.TLSTerminationEdge, ""), func(rt *router.Route) {
		rt.TLS.Certificate, rt.TLS.Key = "not a certificate", "not a key"
	})
	noSecret := served("ns", "nosecret", "nosecret.example.com", tlsRoute(routecore.TLSTerminationEdge, ""), func(rt *router.Route) {
		rt.TLS.ExternalCertificate = &routecore.LocalObjectReference{Name: "gone"}
	})
	good := served("ns", "good", "good.example.com")
	snap := snapshotOf([]*router.Route{noAllowed, noCA, lonely, badCert, noSecret, good})
	mustRender(t, r, snap)
	got := map[string]string{}
	for _, u := range r.Unservable() {
		got[u.Route.Key()] = u.Message
	}
	want := map[string]string{
		"ns/closed":   "the router does not serve this route: no valid address in the IP allowlist",
		"ns/noca":     "the router does not serve this route: the destination CA certificate holds no certificate",
		"ns/lonely":   "no request can reach this route: the router has no lookup key for its host and path",
		"ns/badcert":  "the router does not serve this route: its certificate or key holds no PEM certificate or private key",
		"ns/nosecret": "the router does not serve this route: its external certificate Secret is missing or holds no PEM certificate and key",
	}
	if !maps.Equal(got, want) {
		t.Errorf("unservable\n  %v\nwant\n  %v", got, want)
	}
	snap = nextSnapshot(snap, nil, map[string]*router.ServiceEndpoints{"ns/closed": eps("ns", "closed", "10.0.0.1")})
	mustRender(t, r, snap)
	if got := r.Unservable(); len(got) != 0 {
		t.Errorf("reported again after an endpoint change: %v", got)
	}
}

// TestRenderNamed: HAProxy's words name a route by one of its files, its
// backend's name, or a line of its backend in a backend file; words that
// name no route of the rendering name nothing.
func TestRenderNamed(t *testing.T) {
	r := newTestRenderer(t)
	a := served("ns", "a", "a.example.com", tlsRoute(routecore.TLSTerminationEdge, ""), ownCert(t))
	b := served("ns", "b.v2", "b.example.com")
	// Another route in b's backend file, before and after it.
	var others []*router.Route
	for _, name := range []string{"c", "d", "e", "f", "g", "h", "i", "j"} {
		others = append(others, served("ns", name, name+".example.com"))
	}
	snap := snapshotOf(append([]*router.Route{a, b}, others...), eps("ns", "b.v2", "10.0.0.1", "10.0.0.2"))
	out := mustRender(t, r, snap)
	fileIndex := backendFileOf("ns/b.v2")
	text := string(out.Files[backendFilePath(fileIndex)].Data)
	line := strings.Count(text[:strings.Index(text, "backend be_http:ns:b.v2 ")], "\n") + 3 // its second line after the header
	dir := r.cfg.WorkingDir
	tests := []struct {
		alert string
		want  []string
	}{
		{"parsing [" + dir + "/conf/haproxy.cfg:61] : 'crt-list' : unable to load SSL certificate into SSL Context '" + dir + "/certs/ns_a.pem'.", []string{"ns/a"}},
		{"error detected in backend 'be_http:ns:b.v2' while parsing 'http-request replace-path' rule", []string{"ns/b.v2"}},
		{"parsing [" + dir + "/" + backendFilePath(fileIndex) + ":" + strconv.Itoa(line) + "] : unknown keyword 'x' in 'backend' section", []string{"ns/b.v2"}},
		{"parsing [" + dir + "/" + backendFilePath(fileIndex) + ":100000] : unknown keyword 'x' in 'backend' section", nil},
		{"backend 'be_http:ns:gone' has no server available!", nil},
		{"parsing [" + dir + "/conf/haproxy.cfg:3] : unknown keyword 'x' in 'global' section", nil},
	}
	for _, tt := range tests {
		got := slices.Sorted(maps.Keys(r.named([]string{tt.alert})))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q names %v, want %v", tt.alert, got, tt.want)
		}
	}
}
