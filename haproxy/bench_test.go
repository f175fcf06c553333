package haproxy

import (
	"fmt"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
)

// benchCluster is the mix: per 10 routes 4 plain HTTP, 3 edge with
// the default certificate, 1 edge with its own certificate, 1 reencrypt and
// 1 passthrough; 50 namespaces; every route its own service with an
// EndpointSlice of 2 endpoints.
type benchCluster struct {
	routes []*routecore.Route
	slices []*discoveryv1.EndpointSlice
}

func newBenchCluster(tb testing.TB, n int) benchCluster {
	p, err := fixtures.Certificates()
	if err != nil {
		tb.Fatal(err)
	}
	var c benchCluster
	ready, tcp := true, corev1.ProtocolTCP
	port, portName := int32(8080), "http"
	for i := range n {
		ns := fmt.Sprintf("ns%d", i%50)
		r := rt(ns, fmt.Sprintf("r%d", i), fmt.Sprintf("r%d-%s.apps.example.com", i, ns), i)
		r.Spec.To.Name = r.Name
		switch i % 10 {
		case 4, 5, 6:
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyRedirect}
		case 7:
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: string(p.Leaf.CertPEM), Key: string(p.Leaf.KeyPEM)}
		case 8:
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationReencrypt, DestinationCACertificate: string(p.CA.CertPEM)}
		case 9:
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough}
		}
		c.routes = append(c.routes, r)
		c.slices = append(c.slices, &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: r.Name + "-abcde", Labels: map[string]string{discoveryv1.LabelServiceName: r.Name}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{
				{Addresses: []string{fmt.Sprintf("10.%d.%d.1", i/256%256, i%256)}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
				{Addresses: []string{fmt.Sprintf("10.%d.%d.2", i/256%256, i%256)}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
			},
			Ports: []discoveryv1.EndpointPort{{Name: &portName, Port: &port, Protocol: &tcp}},
		})
	}
	return c
}

// routeChanges are successive versions of one route, each with a new
// resource version and another path. Benchmarks keep it outside b.Run, as
// -count runs a sub-benchmark again on the same store: a counter restarting
// from 0 would re-apply versions the store already has.
type routeChanges struct {
	route *routecore.Route
	n     int
}

func (rc *routeChanges) next() *routecore.Route {
	rc.n++
	rc.route = rc.route.DeepCopy()
	rc.route.ResourceVersion = fmt.Sprint("bench-", rc.n)
	rc.route.Spec.Path = fmt.Sprintf("/v%d", rc.n%2)
	return rc.route
}

func (c benchCluster) load() *Store {
	return c.loadWith(AdmissionConfig{ExtendedValidation: true})
}

// loadWith puts the cluster and extra routes into a store judging with cfg.
func (c benchCluster) loadWith(cfg AdmissionConfig, extra ...*routecore.Route) *Store {
	s := NewStore(cfg)
	for _, r := range append(c.routes, extra...) {
		s.SetRoute(r)
	}
	for _, es := range c.slices {
		s.SetEndpointSlice(es)
	}
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
			s := c.load()
			snap := s.Commit(true)
			if snap.Routes.Len() != n {
				b.Fatalf("%d routes served, want %d", snap.Routes.Len(), n)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "model-B/route")
			runtime.KeepAlive(s)
		}
	})
	s := c.load()
	s.Commit(true)
	changes := &routeChanges{route: c.routes[n/2]}
	b.Run("one-route-changed", func(b *testing.B) {
		for b.Loop() {
			s.SetRoute(changes.next())
			if snap := s.Commit(true); len(snap.Changed.Routes) != 1 {
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
		ws := c.loadWith(mode.cfg, wildcards...)
		snap := ws.Commit(true)
		for _, w := range wildcards {
			if d, _ := snap.Decisions.Get(key(w.Namespace, w.Name)); d.Verdict != mode.wildcard {
				b.Fatalf("%s: %+v, want %v", w.Name, d, mode.wildcard)
			}
		}
		wchanges := &routeChanges{route: c.routes[n/2]}
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				ws.SetRoute(wchanges.next())
				if snap := ws.Commit(true); len(snap.Changed.Routes) != 1 {
					b.Fatalf("changed %v", snap.Changed.Routes)
				}
			}
		})
	}
	b.Run("one-endpointslice-changed", func(b *testing.B) {
		es := c.slices[n/3].DeepCopy()
		for b.Loop() {
			es = es.DeepCopy()
			es.Endpoints = append(es.Endpoints[:1:1], discoveryv1.Endpoint{Addresses: []string{"10.200.0.9"}})
			s.SetEndpointSlice(es)
			if snap := s.Commit(true); len(snap.Changed.Services) != 1 {
				b.Fatalf("changed %v", snap.Changed.Services)
			}
		}
	})
}
