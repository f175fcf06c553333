package router

import (
	"fmt"
	"runtime"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router/routertest"
)

// benchCluster is routertest's cluster of n routes.
func newBenchCluster(tb testing.TB, n int) routertest.Cluster { return routertest.NewCluster(tb, n) }

// load puts the cluster into a store with certificate checks on.
func load(c routertest.Cluster) *Store { return loadWith(c, AdmissionConfig{ExtendedValidation: true}) }

// loadWith puts the cluster and extra routes into a store judging with cfg.
func loadWith(c routertest.Cluster, cfg AdmissionConfig, extra ...*routecore.Route) *Store {
	s := NewStore(cfg)
	c.LoadInto(s, extra...)
	return s
}

// BenchmarkStore measures admission and the model at 20,000 routes: the full
// build (with its memory per route, not counting the Route and
// EndpointSlice objects, which the informer caches hold anyway), and then
// one route changed and one EndpointSlice changed; and one route changed
// when wildcard routes share the routes' domain, with the namespace
// ownership check on (the wildcard routes lose to the older hosts of other
// namespaces) and off (they are admitted next to them).
func BenchmarkStore(b *testing.B) {
	const n = 20000
	c := newBenchCluster(b, n)
	b.Run("full-build-20000", func(b *testing.B) {
		var before, after runtime.MemStats
		for b.Loop() {
			runtime.GC()
			runtime.ReadMemStats(&before)
			s := load(c)
			snap := s.Build(true)
			if snap.Routes.Len() != n {
				b.Fatalf("%d routes served, want %d", snap.Routes.Len(), n)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "model-B/route")
			runtime.KeepAlive(s)
		}
	})
	s := load(c)
	s.Build(true)
	changes := &routertest.RouteChanges{Route: c.Routes[n/2]}
	b.Run("one-route-changed", func(b *testing.B) {
		for b.Loop() {
			s.SetRoute(changes.Next())
			if snap := s.Build(true); len(snap.Changed.Routes) != 1 {
				b.Fatalf("changed %v", snap.Changed.Routes)
			}
		}
	})
	for _, mode := range []struct {
		name     string
		cfg      AdmissionConfig
		wildcard Verdict // what the wildcard routes get
	}{
		{"one-route-changed-with-wildcards-20000", AdmissionConfig{ExtendedValidation: true, AllowWildcardRoutes: true}, Rejected},
		{"one-route-changed-with-wildcards-no-ownership-20000",
			AdmissionConfig{ExtendedValidation: true, AllowWildcardRoutes: true, DisableNamespaceOwnershipCheck: true}, Admitted},
	} {
		var wildcards []*routecore.Route
		for i := range 3 {
			ns := fmt.Sprintf("ns%d", i)
			wildcards = append(wildcards, rt(ns, fmt.Sprintf("wild%d", i), fmt.Sprintf("wild%d-%s.apps.example.com", i, ns), n+i,
				wildcard, withPath(fmt.Sprintf("/w%d", i))))
		}
		ws := loadWith(c, mode.cfg, wildcards...)
		snap := ws.Build(true)
		for _, w := range wildcards {
			if d, _ := snap.Decisions.Get(key(w.Namespace, w.Name)); d.Verdict != mode.wildcard {
				b.Fatalf("%s: %+v, want %v", w.Name, d, mode.wildcard)
			}
		}
		wchanges := &routertest.RouteChanges{Route: c.Routes[n/2]}
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				ws.SetRoute(wchanges.Next())
				if snap := ws.Build(true); len(snap.Changed.Routes) != 1 {
					b.Fatalf("changed %v", snap.Changed.Routes)
				}
			}
		})
	}
	b.Run("one-endpointslice-changed", func(b *testing.B) {
		es := c.Slices[n/3].DeepCopy()
		for b.Loop() {
			es = es.DeepCopy()
			es.Endpoints = append(es.Endpoints[:1:1], discoveryv1.Endpoint{Addresses: []string{"10.200.0.9"}})
			s.SetEndpointSlice(es)
			if snap := s.Build(true); len(snap.Changed.Services) != 1 {
				b.Fatalf("changed %v", snap.Changed.Services)
			}
		}
	})
}
