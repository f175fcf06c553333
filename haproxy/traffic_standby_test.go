package haproxy

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
)

// TestTrafficStandbyBackends: while a reload is held (RELOAD_INTERVAL, on
// a clock the test moves), new routes of the standby kinds are served at
// once from standby backends, without a reload: plain HTTP with two
// endpoints (the standby backend's slot and a server added), edge with
// the default certificate and its redirect, passthrough. A route with an
// annotation, and a route beyond the free standby backends of its kind,
// wait for the reload, which serves every route from its own backend and
// frees the standby backends for the next new route.
func TestTrafficStandbyBackends(t *testing.T) {
	const interval = time.Minute
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.ReloadInterval, d.StandbyBackends = interval, 2 })
	clock := r.withFakeClock()
	web, api1, api2 := newBackend(t, "web", nil, nil), newBackend(t, "api-1", nil, nil), newBackend(t, "api-2", nil, nil)
	pod := newBackend(t, "pod", nil, tlsServerConfig(t, issue(t, newCA(t, "pod CA"), "pass.example.com")))
	r.endpoints("ns", "web", web)
	r.endpoints("ns", "api", api1, api2)
	r.endpoints("ns", "pod", pod)
	r.route(rt("ns", "base", "base.example.com", 1, toService("web")))
	r.start()
	base := r.reloads()
	standbyBase := r.counterValue(t, "routeshift_router_standby_routes_total")

	edge := terminated(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect, nil, nil)
	r.route(rt("ns", "api", "api.example.com", 2, toService("api")))
	r.route(rt("ns", "edge", "edge.example.com", 3, toService("web"), edge))
	r.route(rt("ns", "pass", "pass.example.com", 4, toService("pod"), terminated(routecore.TLSTerminationPassthrough, "", nil, nil)))
	r.route(rt("ns", "plain", "plain.example.com", 5, toService("web")))
	r.route(rt("ns", "annotated", "annotated.example.com", 6, toService("web"), annotated("haproxy.router.openshift.io/timeout", "30s")))
	r.route(rt("ns", "third", "third.example.com", 7, toService("web"))) // the third plain route of two standby backends
	r.publish()

	https := r.client(clientOptions{})
	r.servedBy("plain.example.com", "/", "web")
	if got := r.reachedBackends("api.example.com", 16); !slices.Equal(got, []string{"api-1", "api-2"}) {
		t.Errorf("api.example.com reached %v, want both endpoints", got)
	}
	wantServed(t, "https://edge.example.com/", fetch(https, "https://edge.example.com/"), "web")
	if x := r.get("edge.example.com", "/p"); x.code != http.StatusFound || x.header.Get("Location") != "https://edge.example.com/p" {
		t.Errorf("http://edge.example.com/p: %v, Location %q, want a redirect to https", x, x.header.Get("Location"))
	}
	wantServed(t, "https://pass.example.com/ (passthrough)", fetch(https, "https://pass.example.com/"), "pod")
	wantNotServed(t, "a route with an annotation before the reload", r.get("annotated.example.com", "/"))
	served := 0
	for _, h := range []string{"api.example.com", "plain.example.com", "third.example.com"} {
		if r.get(h, "/").code == http.StatusOK {
			served++
		}
	}
	if served != 2 {
		t.Errorf("%d of 3 new plain routes served before the reload, want the 2 the standby backends serve", served)
	}
	if n := r.reloads(); n != base {
		t.Fatalf("HAProxy reloaded %d times, want none: the reload is held", n-base)
	}
	if n := r.counterValue(t, "routeshift_router_standby_routes_total") - standbyBase; n != 4 {
		t.Errorf("routeshift_router_standby_routes_total grew by %v, want 4", n)
	}
	if got := r.standbyServers(); len(got) != 5 {
		t.Errorf("enabled servers in standby backends: %v, want 5 (api's two, edge, pass, one plain route)", got)
	}

	// The reload serves every route from its own backend.
	clock.advance(interval)
	r.tick()
	r.waitReloads(base + 1)
	for _, h := range []string{"plain.example.com", "third.example.com", "annotated.example.com", "base.example.com"} {
		wantServed(t, h+" after the reload", r.get(h, "/"), "web")
	}
	if got := r.reachedBackends("api.example.com", 16); !slices.Equal(got, []string{"api-1", "api-2"}) {
		t.Errorf("api.example.com reached %v after the reload, want both endpoints", got)
	}
	wantServed(t, "https://edge.example.com/ after the reload", fetch(https, "https://edge.example.com/"), "web")
	wantServed(t, "https://pass.example.com/ after the reload", fetch(https, "https://pass.example.com/"), "pod")
	if got := r.standbyServers(); len(got) != 0 {
		t.Errorf("enabled servers in standby backends after the reload: %v, want none", got)
	}

	// Every standby backend is free again: the next new route is served
	// at once, while the next reload is held.
	r.route(rt("ns", "later", "later.example.com", 8, toService("web")))
	r.publish()
	r.servedBy("later.example.com", "/", "web")
	if n := r.reloads(); n != base+1 {
		t.Errorf("HAProxy reloaded %d times after the first reload, want none", n-base-1)
	}
}

// reachedBackends are the backends that answered n requests for host,
// each on its own connection (a failed request counts as what it got),
// sorted.
func (r *trafficRouter) reachedBackends(host string, n int) []string {
	r.t.Helper()
	seen := map[string]bool{}
	for range n {
		x := r.get(host, "/")
		if x.err != nil || x.code != http.StatusOK {
			seen[x.String()] = true
			continue
		}
		seen[x.header.Get("X-Backend")] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// serverRow is one server of HAProxy's statistics that is not in
// maintenance.
type serverRow struct{ backend, server, status string }

// serverRows are the servers of HAProxy's statistics that are not in
// maintenance, in HAProxy's order.
func (r *trafficRouter) serverRows() ([]serverRow, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	csv, err := r.p.Stats(ctx)
	if err != nil {
		return nil, err
	}
	var out []serverRow
	for line := range strings.SplitSeq(csv, "\n") {
		f := strings.Split(line, ",")
		if len(f) > 17 && f[1] != "BACKEND" && f[1] != "FRONTEND" && f[17] != "MAINT" {
			out = append(out, serverRow{backend: f[0], server: f[1], status: f[17]})
		}
	}
	return out, nil
}

// standbyServers are the servers of standby backends that are not in
// maintenance ("backend/server"), waiting for HAProxy's statistics while
// its master reloads and does not answer.
func (r *trafficRouter) standbyServers() []string {
	r.t.Helper()
	var rows []serverRow
	eventually(r.t, 30*time.Second, "HAProxy's statistics", func() error {
		var err error
		rows, err = r.serverRows()
		return err
	})
	var out []string
	for _, row := range rows {
		if strings.HasPrefix(row.backend, "be_standby:") {
			out = append(out, row.backend+"/"+row.server)
		}
	}
	return out
}

// waitOwnBackends waits until no standby backend serves a route: HAProxy
// has loaded the configuration of every route served so far.
func (r *trafficRouter) waitOwnBackends() {
	r.t.Helper()
	eventually(r.t, 30*time.Second, "every route served from its own backend", func() error {
		if got := r.standbyServers(); len(got) > 0 {
			return fmt.Errorf("standby backends serve %v", got)
		}
		return nil
	})
}
