package haproxy

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/router"
	"github.com/routeshift/routeshift/router/routertest"
)

// BenchmarkRender measures the renderer on the mix (routertest.NewCluster:
// per 10 routes 4 plain, 3 edge with the default certificate, 1 edge with
// its own, 1 reencrypt, 1 passthrough; 50 namespaces; 2 endpoints each):
// a full render of 10,000 routes, with the configuration's size per route;
// then, at 20,000 routes, Render after one route changed and after one
// service's endpoints changed.
func BenchmarkRender(b *testing.B) {
	b.Run("full-10000", func(b *testing.B) {
		const n = 10000
		snap := loadBench(routertest.NewCluster(b, n)).Build(true)
		var out *runtime.Output
		for b.Loop() {
			r := newTestRenderer(b)
			out = mustRender(b, r, snap)
		}
		b.ReportMetric(float64(confBytes(out))/n, "conf-B/route")
	})
	const n = 20000
	c := routertest.NewCluster(b, n)
	s := loadBench(c)
	snap := s.Build(true)
	r := newTestRenderer(b)
	mustRender(b, r, snap)
	// -count runs each sub-benchmark again on the same store and renderer,
	// so the objects and counters carry on from one run to the next: each
	// iteration must really change something.
	changes := &routertest.RouteChanges{Route: c.Routes[n/2+7]} // an edge route with its own certificate
	es := c.Slices[n/3]
	i := 0
	b.Run("one-route-changed-20000", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			s.SetRoute(changes.Next())
			snap = s.Build(true)
			b.StartTimer()
			out := mustRender(b, r, snap)
			if !out.Reload() || len(out.Changed) == 0 || len(out.Changed) > 5 {
				b.Fatalf("reload %v, changed %v", out.Reload(), out.Changed)
			}
		}
	})
	b.Run("one-service-scaled-20000", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			i++
			es = es.DeepCopy()
			es.Endpoints = append(es.Endpoints[:1:1], discoveryv1.Endpoint{Addresses: []string{fmt.Sprintf("10.200.%d.%d", i/250%250, 1+i%250)}})
			s.SetEndpointSlice(es)
			snap = s.Build(true)
			b.StartTimer()
			out := mustRender(b, r, snap)
			// The slot the replaced endpoint leaves is disabled; the
			// newcomer takes another: two server updates (the first time,
			// one of them adds the slot).
			if out.Reload() || len(out.Servers) != 2 {
				b.Fatalf("reload %v, servers %v", out.Reload(), out.Servers)
			}
		}
	})
}

// confBytes is the size of everything under conf/.
func confBytes(out *runtime.Output) int {
	total := 0
	for path, f := range out.Files {
		if strings.HasPrefix(path, "conf/") {
			total += len(f.Data)
		}
	}
	return total
}

// TestRenderConfigSizePerRoute holds the configuration of the benchmark's
// mix to at most 600 bytes per route (conf/ only: certificates are not
// configuration). It logs the time taken but asserts nothing about it.
func TestRenderConfigSizePerRoute(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("renders 2,000 routes")
	}
	const n = 2000
	snap := loadBench(routertest.NewCluster(t, n)).Build(true)
	start := time.Now()
	out := mustRender(t, newTestRenderer(t), snap)
	perRoute := confBytes(out) / n
	t.Logf("full render of %d routes: %v, %d bytes of conf/ per route", n, time.Since(start), perRoute)
	if perRoute > 600 {
		t.Errorf("%d bytes of configuration per route, want at most 600", perRoute)
	}
}

// loadBench puts c into a store with certificate checks on.
func loadBench(c routertest.Cluster) *router.Store {
	s := router.NewStore(router.AdmissionConfig{ExtendedValidation: true})
	c.LoadInto(s)
	return s
}
