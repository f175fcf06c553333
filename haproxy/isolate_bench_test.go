package haproxy

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/router"
	"github.com/routeshift/routeshift/router/routertest"
)

// BenchmarkIsolation: a real HAProxy serves 20,000 routes (the benchmarks'
// mix: plain, edge, edge with its own certificate, reencrypt,
// passthrough), each with one endpoint on a Go backend; one snapshot adds a
// route HAProxy refuses (a weak certificate) and a good one. It measures
// how long the router takes to find the refused route and report it
// ("isolated-ms", the probes included), until HAProxy serves the good
// route ("served-s": the rest loaded; a standby backend serves it before
// the reload) and until HAProxy has reloaded the whole configuration
// ("reloaded-s"). "good-only" adds a good route alone: the same without
// isolation.
func BenchmarkIsolation(b *testing.B) {
	requireHAProxy(b)
	const n = 20000
	for _, bad := range []bool{true, false} {
		name := map[bool]string{true: "refused-route-20000", false: "good-only-20000"}[bad]
		b.Run(name, func(b *testing.B) {
			bench := startIsolationBench(b, n)
			var isolated, served, reloaded time.Duration
			i := 0
			for b.Loop() {
				i++
				t := bench.addRoutes(b, i, bad)
				isolated, served, reloaded = isolated+t.isolated, served+t.served, reloaded+t.reloaded
			}
			if bad {
				b.ReportMetric(float64(isolated.Milliseconds())/float64(i), "isolated-ms")
			}
			b.ReportMetric(served.Seconds()/float64(i), "served-s")
			b.ReportMetric(reloaded.Seconds()/float64(i), "reloaded-s")
		})
	}
}

// isolationBench is a data plane serving a cluster, with its store and
// the reports it made.
type isolationBench struct {
	p       *DataPlane
	store   *router.Store
	feed    *router.Feed
	port    int
	backend string
	ip      string
	bport   int32
	mu      sync.Mutex
	reports map[string]time.Time
}

func startIsolationBench(b *testing.B, n int) *isolationBench {
	ip, port := benchBackend(b, "web", false)
	c := routertest.NewCluster(b, n)
	s := router.NewStore(router.AdmissionConfig{AllowLoopbackEndpoints: true})
	for _, r := range c.Routes {
		s.SetRoute(r)
		s.SetEndpointSlice(sliceFor(r.Namespace, r.Spec.To.Name, ip, port))
	}
	d := settings.Defaults().DataPlane
	d.WorkingDir = trafficWorkDir(b)
	d.BindAddress = "127.0.0.1"
	ports := freePorts(b, 4)
	d.HTTPPort, d.HTTPSPort, d.SNIPort, d.NoSNIPort = ports[0], ports[1], ports[2], ports[3]
	// RELOAD_INTERVAL is at least 1s: a clock a second ahead at each
	// reading never holds a load.
	d.ReloadInterval = time.Second
	p, err := NewDataPlane(d, DataPlaneOptions{Now: racingClock()})
	if err != nil {
		b.Fatal(err)
	}
	bench := &isolationBench{p: p, store: s, feed: &router.Feed{}, port: d.HTTPPort, ip: ip, bport: port, reports: map[string]time.Time{}}
	sub := bench.feed.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- p.Serve(ctx, sub, router.FeedbackFunc(func(r *router.Route, _ string) {
			bench.mu.Lock()
			bench.reports[r.Key()] = time.Now()
			bench.mu.Unlock()
		}))
	}()
	b.Cleanup(func() { cancel(); <-done })
	bench.feed.Publish(s.Build(true))
	for deadline := time.Now().Add(5 * time.Minute); !p.Ready(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("HAProxy not ready")
		}
	}
	return bench
}

// isolationTimes are how long after a change the refused route was
// reported, the good one served, and HAProxy reloaded.
type isolationTimes struct{ isolated, served, reloaded time.Duration }

// addRoutes publishes a good route (and, when bad, a refused one) and
// measures how long until the refused one is reported, the good one
// served and HAProxy reloaded.
func (bench *isolationBench) addRoutes(b *testing.B, i int, bad bool) isolationTimes {
	good := rt("bench", fmt.Sprintf("good-%d", i), fmt.Sprintf("good-%d.bench.example.com", i), 0)
	good.Spec.To.Name = "web"
	bench.store.SetRoute(good)
	bench.store.SetEndpointSlice(sliceFor("bench", "web", bench.ip, bench.bport))
	refused := fmt.Sprintf("bench/weak-%d", i)
	if bad {
		bench.store.SetRoute(rt("bench", fmt.Sprintf("weak-%d", i), fmt.Sprintf("weak-%d.bench.example.com", i), 0, weakEdge(b, "weak.example.com")))
	}
	reloads, _, err := bench.p.process.Reloads()
	if err != nil {
		b.Fatal(err)
	}
	var t isolationTimes
	start := time.Now()
	bench.feed.Publish(bench.store.Build(true))
	client := &http.Client{Timeout: 5 * time.Second}
	for deadline := start.Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("the good route was not served within 5 minutes")
		}
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/", bench.port), nil)
		req.Host = good.Spec.Host
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.served = time.Since(start)
				break
			}
		}
	}
	for deadline := start.Add(5 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("HAProxy did not reload within 5 minutes")
		}
		if n, _, err := bench.p.process.Reloads(); err == nil && n > reloads {
			t.reloaded = time.Since(start)
			break
		}
	}
	if !bad {
		return t
	}
	bench.mu.Lock()
	at, ok := bench.reports[refused]
	bench.mu.Unlock()
	if !ok {
		b.Fatalf("%s was not reported not servable", refused)
	}
	t.isolated = at.Sub(start)
	return t
}
