package haproxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/router"
	"github.com/routeshift/routeshift/router/routertest"
)

// BenchmarkWriteOneRouteChange measures what the router does on disk when
// one route of 20,000 changes: render and write the changed files
// atomically (the reload itself is HAProxy's time).
func BenchmarkWriteOneRouteChange(b *testing.B) {
	const n = 20000
	c := routertest.NewCluster(b, n)
	s := loadBench(c)
	d := settings.Defaults().DataPlane
	d.WorkingDir = b.TempDir()
	renderer, err := NewRenderer(d)
	if err != nil {
		b.Fatal(err)
	}
	out, err := renderer.Render(s.Build(true), Inputs{})
	if err != nil {
		b.Fatal(err)
	}
	if err := runtime.WriteFiles(d.WorkingDir, out); err != nil {
		b.Fatal(err)
	}
	changes := &routertest.RouteChanges{Route: c.Routes[n/2]}
	for b.Loop() {
		s.SetRoute(changes.Next())
		out, err := renderer.Render(s.Build(true), Inputs{})
		if err != nil {
			b.Fatal(err)
		}
		if err := runtime.WriteFiles(d.WorkingDir, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkThroughput compares request throughput through HAProxy with 10
// routes and with 10,000 routes, each request to a random route's host:
// the lookup (exact host, then longest path) must not depend on the number
// of routes. Routes point at 4 Go backends on loopback.
//
// Both HAProxies run side by side and are measured in alternating rounds
// (throughputRounds of throughputRound each, the order rotating from round
// to round), so the machine's drift hits both sizes alike; the figures are
// medians of the rounds, and the ratio is the median of the per-round
// ratios.
//
// "routing" runs with backends that close every connection, so both sizes
// pay the same per-request connection cost and the ratio isolates routing.
// It also sends requests to only 10 of the 10,000 hosts ("lookup-10000/10"):
// the same lookup in the large maps, without spreading requests over 10,000
// backends' state, which separates the lookup from the memory footprint.
// It reports the HAProxy worker's resident memory per route as well
// ("haproxy-KiB/route": the difference between the two HAProxies over the
// 9,990 routes between them).
// "keepalive" lets HAProxy keep backend connections: with 10 routes they
// are reused, with 10,000 routes (10,000 servers) random hosts rarely find
// an idle one, which no routing design changes.
func BenchmarkThroughput(b *testing.B) {
	for _, variant := range []struct {
		name      string
		keepAlive bool
	}{{"routing", false}, {"keepalive", true}} {
		b.Run(variant.name, func(b *testing.B) {
			var backends []router.Endpoint
			for i := range 4 {
				ip, port := benchBackend(b, fmt.Sprint("backend", i), variant.keepAlive)
				backends = append(backends, router.Endpoint{IP: ip, Port: port})
			}
			small := serveBenchRoutes(b, 10, backends)
			large := serveBenchRoutes(b, 10000, backends)
			few := &benchRoutes{port: large.port, hosts: large.hosts[:10]}
			subjects := []*benchRoutes{small, large}
			if !variant.keepAlive {
				subjects = append(subjects, few)
			}
			var smallRates, largeRates, ratios, lookupRatios []float64
			for round := range throughputRounds {
				// Each round starts with another subject, so that none is
				// always measured first or last.
				rates := map[*benchRoutes]float64{}
				for i := range subjects {
					sub := subjects[(round+i)%len(subjects)]
					rates[sub] = sub.throughput(b, throughputRound)
				}
				sr, lr := rates[small], rates[large]
				smallRates, largeRates, ratios = append(smallRates, sr), append(largeRates, lr), append(ratios, lr/sr)
				if fr, ok := rates[few]; ok {
					lookupRatios = append(lookupRatios, fr/sr)
				}
			}
			if !variant.keepAlive {
				b.ReportMetric((workerRSS(b, large.workDir)-workerRSS(b, small.workDir))/9990, "haproxy-KiB/route")
			}
			b.Logf("per-round ratios 10,000/10: %.3f", ratios)
			b.ReportMetric(median(smallRates), "req/s-10-routes")
			b.ReportMetric(median(largeRates), "req/s-10000-routes")
			b.ReportMetric(median(ratios), "10000/10")
			if len(lookupRatios) > 0 {
				b.Logf("per-round ratios 10,000 routes (10 hosts used)/10: %.3f", lookupRatios)
				b.ReportMetric(median(lookupRatios), "lookup-10000/10")
			}
		})
	}
}

// Many short rounds rather than a few long ones: the machine's speed
// drifts over seconds, and a ratio of two measurements taken back to back
// cancels that drift.
const (
	throughputRounds = 25
	throughputRound  = 500 * time.Millisecond
)

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func benchBackend(b *testing.B, name string, keepAlive bool) (string, int32) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, name) })}
	srv.SetKeepAlivesEnabled(keepAlive)
	go srv.Serve(l)
	b.Cleanup(func() { srv.Close() })
	return "127.0.0.1", int32(l.Addr().(*net.TCPAddr).Port)
}

// benchRoutes is a running HAProxy serving hosts on port.
type benchRoutes struct {
	port    int
	hosts   []string
	workDir string
	// user and password, when set, are sent with every request.
	user, password string
}

// workerRSS is the resident memory, in KiB, of the HAProxy worker running
// from workDir (the largest of its processes: the master holds little).
func workerRSS(b *testing.B, workDir string) float64 {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	largest := 0.0
	for _, p := range procs {
		cmd, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(cmd, []byte(workDir+"/")) || !bytes.HasPrefix(cmd, []byte("haproxy")) {
			continue
		}
		status, err := os.ReadFile(filepath.Join(filepath.Dir(p), "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kib, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
				largest = max(largest, kib)
			}
		}
	}
	if largest == 0 {
		b.Fatalf("no HAProxy process runs from %s", workDir)
	}
	return largest
}

// serveBenchRoutes starts HAProxy serving n routes spread over backends; it
// stops with the benchmark.
func serveBenchRoutes(b *testing.B, n int, backends []router.Endpoint) *benchRoutes {
	s := router.NewStore(router.AdmissionConfig{AllowLoopbackEndpoints: true})
	hosts := make([]string, n)
	for i := range n {
		ns := fmt.Sprintf("ns%d", i%50)
		hosts[i] = fmt.Sprintf("r%d.bench.example.com", i)
		r := rt(ns, fmt.Sprintf("r%d", i), hosts[i], i)
		r.Spec.To.Name = r.Name
		s.SetRoute(r)
		e := backends[i%len(backends)]
		s.SetEndpointSlice(sliceFor(ns, r.Name, e.IP, e.Port))
	}
	d, _, _ := serveBenchStore(b, s)
	return &benchRoutes{port: d.HTTPPort, hosts: hosts, workDir: d.WorkingDir}
}

// serveBenchStore starts a DataPlane on free loopback ports, publishes
// what s holds and waits until HAProxy serves it; it stops with the
// benchmark. Further snapshots go through the returned feed.
func serveBenchStore(b *testing.B, s *router.Store) (proxyconfig.Config, *DataPlane, *router.Feed) {
	d := settings.Defaults().DataPlane
	d.WorkingDir = b.TempDir()
	d.BindAddress = "127.0.0.1"
	ports := freePorts(b, 4)
	d.HTTPPort, d.HTTPSPort, d.SNIPort, d.NoSNIPort = ports[0], ports[1], ports[2], ports[3]
	p, err := NewDataPlane(d, DataPlaneOptions{})
	if err != nil {
		b.Fatal(err)
	}
	feed := &router.Feed{}
	sub := feed.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.Serve(ctx, sub, router.FeedbackFunc(func(*router.Route, string) {})) }()
	b.Cleanup(func() { cancel(); <-done })
	feed.Publish(s.Build(true))
	for deadline := time.Now().Add(2 * time.Minute); !p.Ready(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("HAProxy not ready")
		}
	}
	return p.cfg, p, feed
}

// throughput measures successful requests per second for duration from 8
// keep-alive clients picking random hosts; any failed request fails the
// benchmark.
func (br *benchRoutes) throughput(b *testing.B, duration time.Duration) float64 {
	var ok, failed atomic.Int64
	stop := time.Now().Add(duration)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			transport := &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}
			defer transport.CloseIdleConnections()
			client := &http.Client{Transport: transport}
			url := fmt.Sprintf("http://127.0.0.1:%d/", br.port)
			for time.Now().Before(stop) {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Host = br.hosts[rand.IntN(len(br.hosts))]
				if br.user != "" {
					req.SetBasicAuth(br.user, br.password)
				}
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					ok.Add(1)
				} else {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		b.Errorf("%d routes: %d failed requests", len(br.hosts), failed.Load())
	}
	return float64(ok.Load()) / duration.Seconds()
}
