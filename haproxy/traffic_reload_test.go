package haproxy

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/routeshift/routeshift/haproxy/exporter"
	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
)

// Reliability with real traffic: hitless reloads under load, HAProxy
// killed and restarted, endpoint changes without reloads, configurations
// HAProxy refuses, and the metrics of a running HAProxy.

// waitReloads polls until HAProxy's master reports at least n reloads.
func (r *trafficRouter) waitReloads(n int) int {
	r.t.Helper()
	var got int
	poll(r.t, 30*time.Second, 5*time.Millisecond, fmt.Sprintf("%d reloads", n), func() error {
		var err error
		if got, _, err = r.p.process.Reloads(); err != nil {
			return err
		}
		if got < n {
			return fmt.Errorf("%d reloads", got)
		}
		return nil
	})
	return got
}

// wantHealthChecks waits until the enabled servers of backend have the
// statuses want (HAProxy's CSV: "no check" for servers without health
// checks; "UP" for checked ones), in slot order.
func (r *trafficRouter) wantHealthChecks(backend string, want ...string) {
	r.t.Helper()
	eventually(r.t, 10*time.Second, fmt.Sprintf("%s servers %q", backend, want), func() error {
		rows, err := r.serverRows()
		if err != nil {
			return err
		}
		var got []string
		for _, row := range rows {
			if row.backend == backend {
				got = append(got, row.status)
			}
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("statuses %q", got)
		}
		return nil
	})
}

// scaleTo makes bs the endpoints of service ns/svc and waits until
// requests for host reach exactly them, then checks that they keep doing
// so.
func (r *trafficRouter) scaleTo(t *testing.T, host, svc string, bs ...*goBackend) {
	t.Helper()
	var want []string
	for _, b := range bs {
		want = append(want, b.name)
	}
	slices.Sort(want)
	r.endpoints("ns", svc, bs...)
	r.publish()
	reached := func() []string { return r.reachedBackends(host, 4*len(bs)) }
	eventually(t, 30*time.Second, fmt.Sprintf("traffic reaches exactly %v", want), func() error {
		if got := reached(); !slices.Equal(got, want) {
			return fmt.Errorf("reached %v", got)
		}
		return nil
	})
	if got := reached(); !slices.Equal(got, want) {
		t.Errorf("after the change settled, traffic reached %v, want %v", got, want)
	}
}

// TestTrafficReliability shares one router between its subtests: hitless
// reloads under load, HAProxy killed, endpoints scaled without reloads.
func TestTrafficReliability(t *testing.T) {
	r := newTrafficRouter(t)
	// RELOAD_INTERVAL is at least 1s; a clock a second ahead at each
	// reading lets the test force 100 reloads quickly.
	r.now = racingClock()
	stable1, stable2 := newBackend(t, "stable", nil, nil), newBackend(t, "stable", nil, nil)
	churn := newBackend(t, "churn", nil, nil)
	pod1, pod2, pod3 := newBackend(t, "pod-1", nil, nil), newBackend(t, "pod-2", nil, nil), newBackend(t, "pod-3", nil, nil)
	r.endpoints("ns", "stable", stable1, stable2)
	r.endpoints("ns", "churn", churn)
	r.route(rt("ns", "stable", "stable.example.com", 1, toService("stable")))
	r.route(rt("ns", "churn", "churn.example.com", 2, toService("churn"), withPath("/v0")))
	r.route(rt("ns", "stable-tls", "stable-tls.example.com", 5, toService("stable"), terminated(routecore.TLSTerminationEdge, "", nil, nil)))
	r.start()

	// Clients on kept-alive connections, clients that close each
	// connection, and clients on kept-alive TLS connections: none may see
	// a failed request while HAProxy reloads (see startLoad: they never
	// retry).
	t.Run("100_reloads_under_load_fail_no_request", func(t *testing.T) {
		const reloads = 100
		base := r.reloads()
		metricBase := r.counterValue(t, "routeshift_router_reloads_total")
		load := startLoad(r, loadTarget{keepAlive, "stable.example.com", "stable"}, loadTarget{keepAlive, "stable.example.com", "stable"},
			loadTarget{connectionClose, "stable.example.com", "stable"}, loadTarget{tlsKeepAlive, "stable-tls.example.com", "stable"})
		start := time.Now()
		for i := 1; i <= reloads; i++ {
			switch i % 3 {
			case 0:
				r.route(rt("ns", "churn", "churn.example.com", 2, toService("churn"), withPath(fmt.Sprintf("/v%d", i))))
			case 1:
				r.route(rt("ns", fmt.Sprintf("extra-%d", i), fmt.Sprintf("extra-%d.example.com", i), 3, toService("churn")))
			case 2:
				r.deleteRoute("ns", fmt.Sprintf("extra-%d", i-1))
			}
			r.publish()
			r.waitReloads(base + i)
		}
		took := time.Since(start)
		counts, errs := load.finish()
		t.Logf("%d reloads in %v under load: %v", reloads, took.Round(time.Millisecond), counts)
		if failed := counts.failed(); failed > 0 {
			t.Errorf("%d of %d requests failed during reloads (%v); first ones:\n  %s", failed, failed+counts.served(), counts, strings.Join(errs, "\n  "))
		}
		for _, c := range []loadClient{keepAlive, connectionClose, tlsKeepAlive} {
			if counts[c][0] < reloads {
				t.Errorf("%s: only %d requests were served: the client did not run through the reloads", c, counts[c][0])
			}
		}
		if n := r.reloads() - base; n < reloads {
			t.Errorf("the master reports %d reloads, want at least %d", n, reloads)
		}
		// The process counts a reload once it has seen the new worker,
		// which may be just after the master reports it.
		eventually(t, 10*time.Second, "routeshift_router_reloads_total counts the reloads", func() error {
			if n := r.counterValue(t, "routeshift_router_reloads_total") - metricBase; n < reloads {
				return fmt.Errorf("grew by %v, want at least %d", n, reloads)
			}
			return nil
		})
		// The last configuration is the one serving.
		wantServed(t, "churn.example.com/v99", r.get("churn.example.com", "/v99"), "churn")
		wantNotServed(t, "churn.example.com/v96", r.get("churn.example.com", "/v96"))
		wantNotServed(t, "extra-97.example.com (deleted)", r.get("extra-97.example.com", "/"))
		wantServed(t, "extra-100.example.com", r.get("extra-100.example.com", "/"), "churn")
	})

	t.Run("endpoint_scale_2_3_2_1_2_reaches_exactly_the_endpoints_without_reload", func(t *testing.T) {
		r.endpoints("ns", "scaled", pod1, pod2)
		r.route(rt("ns", "scaled", "scaled.example.com", 4, toService("scaled"), annotated(routecore.AnnBalance, "roundrobin")))
		r.publish()
		r.servedBy("scaled.example.com", "/", "pod-1")
		base := r.reloads()
		updates := r.counterValue(t, "routeshift_router_runtime_updates_total")
		r.scaleTo(t, "scaled.example.com", "scaled", pod1, pod2, pod3)
		r.scaleTo(t, "scaled.example.com", "scaled", pod2, pod3)
		r.wantHealthChecks("be_http:ns:scaled", "UP", "UP")
		// A lone endpoint runs without health checks, as in OpenShift's
		// router: the runtime API turns them off and on.
		r.scaleTo(t, "scaled.example.com", "scaled", pod3)
		r.wantHealthChecks("be_http:ns:scaled", "no check")
		r.scaleTo(t, "scaled.example.com", "scaled", pod1, pod3)
		r.wantHealthChecks("be_http:ns:scaled", "UP", "UP")
		r.scaleTo(t, "scaled.example.com", "scaled", pod3)
		r.wantHealthChecks("be_http:ns:scaled", "no check")
		if n := r.reloads() - base; n != 0 {
			t.Errorf("scaling endpoints 2 -> 3 -> 2 -> 1 -> 2 -> 1 reloaded HAProxy %d times, want 0", n)
		}
		if r.counterValue(t, "routeshift_router_runtime_updates_total") == updates {
			t.Error("no endpoint change went through the runtime API")
		}
	})

	t.Run("HAProxy_worker_killed_serves_again_within_10s", func(t *testing.T) {
		workers := childPids(t, r.masterPid())
		if len(workers) == 0 {
			t.Fatal("no HAProxy worker")
		}
		for _, pid := range workers {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
		killed := time.Now()
		eventually(t, 10*time.Second, "served again after SIGKILL of the HAProxy worker", func() error {
			if x := r.get("stable.example.com", "/"); !x.served("stable") {
				return errors.New(x.String())
			}
			if _, _, err := r.p.process.Reloads(); err != nil {
				return fmt.Errorf("the master does not answer: %w", err)
			}
			return nil
		})
		t.Logf("served again %v after the worker was killed", time.Since(killed).Round(time.Millisecond))
		wantServed(t, "churn.example.com/v99 after the worker was killed", r.get("churn.example.com", "/v99"), "churn")
	})

	t.Run("HAProxy_killed_serves_again_within_10s", func(t *testing.T) {
		restarts := r.counterValue(t, "routeshift_router_haproxy_restarts_total")
		pid := r.masterPid()
		if pid == 0 {
			t.Fatal("no HAProxy master")
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		eventually(t, 10*time.Second, "served again after SIGKILL of the HAProxy master", func() error {
			if p := r.masterPid(); p == pid || p == 0 {
				return errors.New("HAProxy has not been started again")
			}
			if x := r.get("stable.example.com", "/"); !x.served("stable") {
				return errors.New(x.String())
			}
			if _, _, err := r.p.process.Reloads(); err != nil {
				return fmt.Errorf("the new master does not answer: %w", err)
			}
			return nil
		})
		t.Logf("served again %v after the kill (new master %d)", time.Since(killed).Round(time.Millisecond), r.masterPid())
		if r.counterValue(t, "routeshift_router_haproxy_restarts_total") <= restarts {
			t.Error("routeshift_router_haproxy_restarts_total did not grow")
		}
		// The restarted HAProxy runs the last configuration.
		wantServed(t, "churn.example.com/v99 after the restart", r.get("churn.example.com", "/v99"), "churn")
		wantServed(t, "scaled.example.com after the restart", r.get("scaled.example.com", "/"), "pod-3")
		r.wantHealthChecks("be_http:ns:scaled", "no check")
	})
}

// TestTrafficRefusedConfiguration: a TEMPLATE_FILE that renders a
// directive HAProxy refuses for one route, whatever the route holds: the
// route is refused before it reaches the configuration HAProxy loads, and,
// as HAProxy refuses its closed rendering too, left out of it; it is
// reported not servable with HAProxy's words. The other routes keep
// serving, routes added afterwards load, and once the route is gone
// nothing of it is left.
func TestTrafficRefusedConfiguration(t *testing.T) {
	// The built-in backend template, with a line HAProxy refuses for the
	// route ns/broken.
	const backendHead = "backend {{.Name}} from {{.Defaults}}"
	builtin, err := builtinTemplates.ReadFile("templates/backend.tmpl")
	if err != nil || !strings.Contains(string(builtin), backendHead) {
		t.Fatalf("the built-in backend template has changed: update this test (%v)", err)
	}
	custom := strings.Replace(string(builtin), backendHead,
		backendHead+"\n{{- if eq .Route \"ns/broken\"}}\n  this-is-not-a-directive\n{{- end}}", 1)
	template := writeTempFile(t, "template.cfg", custom)
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.TemplateFile = template })
	web := newBackend(t, "web", nil, nil)
	r.endpoints("ns", "web", web)
	r.route(rt("ns", "good", "good.example.com", 1, toService("web")))
	r.start()
	wantServed(t, "good.example.com", r.get("good.example.com", "/"), "web")

	failures := r.counterValue(t, "routeshift_router_reload_failures_total")
	load := startLoad(r, loadTarget{keepAlive, "good.example.com", "web"}, loadTarget{connectionClose, "good.example.com", "web"})
	r.route(rt("ns", "broken", "broken.example.com", 2, toService("web")))
	r.route(rt("ns", "later", "later.example.com", 3, toService("web")))
	r.publish()
	r.waitNotServable("ns", "broken", "unknown keyword 'this-is-not-a-directive'")
	r.servedBy("later.example.com", "/", "web")
	r.wantReloadLogged(t, runtime.Reason{Kind: runtime.ReasonNotLoaded})
	wantNotServed(t, "broken.example.com", r.get("broken.example.com", "/"))
	if counts, errs := load.finish(); counts.failed() > 0 {
		t.Errorf("requests to the good route failed meanwhile (%v): %q", counts, errs)
	}
	// The closed rendering reached the configuration HAProxy loads whole,
	// which it refused once.
	if got := r.counterValue(t, "routeshift_router_reload_failures_total"); got != failures+1 {
		t.Errorf("%v configurations were refused, want 1", got-failures)
	}
	if !r.p.Ready() {
		t.Error("the process is not ready any more")
	}

	// Remove the route and add another: the next configuration loads.
	r.deleteRoute("ns", "broken")
	r.route(rt("ns", "last", "last.example.com", 4, toService("web")))
	r.publish()
	r.servedBy("last.example.com", "/", "web")
	wantServed(t, "good.example.com after recovery", r.get("good.example.com", "/"), "web")
}

// TestTrafficMetrics: after a reload, DataPlane.Stats returns HAProxy's CSV,
// and the exporter over it counts the connections of the public frontend.
func TestTrafficMetrics(t *testing.T) {
	r := newTrafficRouter(t)
	web := newBackend(t, "web", nil, nil)
	r.endpoints("ns", "web", web)
	r.route(rt("ns", "first", "first.example.com", 1, toService("web")))
	r.start()
	reloads := r.reloads()
	r.route(rt("ns", "second", "second.example.com", 2, toService("web")))
	r.publish()
	r.servedBy("second.example.com", "/", "web")
	r.waitReloads(reloads + 1)
	const requests = 5
	for range requests {
		wantServed(t, "first.example.com", r.get("first.example.com", "/"), "web")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	csv, err := r.p.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(csv, "# pxname,svname,") || !strings.Contains(csv, "\npublic,FRONTEND,") || !strings.Contains(csv, "\nbe_http:ns:second,") {
		t.Fatalf("Stats: not the CSV of the running configuration:\n%s", csv)
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(exporter.New(exporter.Options{ServerThreshold: 500, ScrapeInterval: 5 * time.Second, Timeout: 5 * time.Second}, r.p.Stats))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, mf := range mfs {
		if mf.GetName() != "haproxy_frontend_connections_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "frontend" && l.GetValue() == "public" {
					found = true
					if v := m.GetCounter().GetValue(); v < requests {
						t.Errorf("haproxy_frontend_connections_total{frontend=\"public\"} = %v, want at least %d", v, requests)
					}
				}
			}
		}
	}
	if !found {
		t.Error("no haproxy_frontend_connections_total{frontend=\"public\"}")
	}
}

// TestTrafficAddServerEveryBalance: with every balance algorithm, a service
// that grows gets its new server through the runtime API (HAProxy refuses
// to add servers to backends with map-based hashing), without a reload.
func TestTrafficAddServerEveryBalance(t *testing.T) {
	r := newTrafficRouter(t)
	first := newBackend(t, "first", nil, nil)
	algorithms := []string{"roundrobin", "leastconn", "source", "random"}
	for i, a := range algorithms {
		r.endpoints("ns", a, first)
		r.route(rt("ns", a, a+".example.com", i, toService(a), annotated(routecore.AnnBalance, a)))
	}
	r.start()
	base, failures := r.reloads(), r.counterValue(t, "routeshift_router_runtime_update_failures_total")
	second := newBackend(t, "second", nil, nil)
	for _, a := range algorithms {
		r.endpoints("ns", a, first, second)
	}
	r.publish()
	for _, a := range algorithms {
		if a != "source" { // one client address always hashes to one server
			r.servedBy(a+".example.com", "/", "second")
		}
	}
	if n := r.reloads() - base; n != 0 {
		t.Errorf("adding servers reloaded HAProxy %d times, want 0", n)
	}
	if n := r.counterValue(t, "routeshift_router_runtime_update_failures_total") - failures; n != 0 {
		t.Errorf("%v runtime API updates failed", n)
	}
}

// fakeClock is the clock a data plane measures RELOAD_INTERVAL with, moved
// by the test: with it and ticks the test sends, when a configuration
// loads depends only on what the test does.
type fakeClock struct{ offset atomic.Int64 }

func (c *fakeClock) now() time.Time          { return time.Unix(1e9, 0).Add(time.Duration(c.offset.Load())) }
func (c *fakeClock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// racingClock reads the real time plus one second more at each reading,
// so that RELOAD_INTERVAL (1s in these tests) has always passed since the
// last load.
func racingClock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return time.Now().Add(time.Duration(n.Add(1)) * time.Second) }
}

// withFakeClock makes r measure RELOAD_INTERVAL with a fakeClock and tick
// only when tick is called.
func (r *trafficRouter) withFakeClock() *fakeClock {
	c := &fakeClock{}
	r.now, r.ticks = c.now, make(chan time.Time)
	return c
}

// tick delivers a tick of RELOAD_INTERVAL and returns once the data plane
// has handled it (it takes the second tick only after handling the first).
func (r *trafficRouter) tick() {
	for range 2 {
		r.ticks <- r.now()
	}
}

// TestTrafficReloadInterval: RELOAD_INTERVAL coalesces reloads. A route
// change after an idle interval is loaded at once, without waiting for a
// tick; the changes that follow within the interval are each applied
// (rendered and written) on their own but wait, unserved, through ticks
// before the interval has passed; the first tick after it loads them all
// with a single reload. The interval is measured on a clock the test moves.
func TestTrafficReloadInterval(t *testing.T) {
	const interval = time.Minute
	// Without standby backends, which would serve the new routes before
	// the reload (TestTrafficStandbyBackends).
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.ReloadInterval, d.StandbyBackends = interval, 0 })
	clock := r.withFakeClock()
	web := newBackend(t, "web", nil, nil)
	r.endpoints("ns", "web", web)
	r.route(rt("ns", "base", "base.example.com", 1, toService("web")))
	r.start()
	wantServed(t, "base.example.com", r.get("base.example.com", "/"), "web")
	base := r.reloads()
	metricBase := r.counterValue(t, "routeshift_router_reloads_total")

	// The interval has passed since the initial load: the next change is
	// loaded as it is applied. No tick comes, so nothing else could load
	// it.
	clock.advance(interval)
	r.route(rt("ns", "first", "first.example.com", 2, toService("web")))
	r.publish()
	r.servedBy("first.example.com", "/", "web")
	if n := r.reloads(); n != base+1 {
		t.Fatalf("the first change took %d reloads, want 1", n-base)
	}

	// Changes in quick succession, each seen by the data plane on its own
	// (the feed would merge snapshots published faster than it takes
	// them).
	hosts := []string{"batch-1.example.com", "batch-2.example.com", "batch-3.example.com", "batch-4.example.com"}
	applied := r.summaryCount(t, "template_router_write_config_seconds")
	for i, h := range hosts {
		r.route(rt("ns", fmt.Sprintf("batch-%d", i+1), h, 3+i, toService("web")))
		r.publish()
		applied++
		poll(t, 10*time.Second, 2*time.Millisecond, h+" applied by the data plane", func() error {
			if n := r.summaryCount(t, "template_router_write_config_seconds"); n < applied {
				return fmt.Errorf("%d configurations written, want %d", n, applied)
			}
			return nil
		})
	}
	// Ticks within the interval after the first change's reload load
	// nothing, up to its last nanosecond.
	r.tick()
	clock.advance(interval - time.Nanosecond)
	r.tick()
	if n := r.reloads(); n != base+1 {
		t.Errorf("HAProxy reloaded %d times within the interval after the first change's reload, want 0", n-base-1)
	}
	for _, h := range hosts {
		wantNotServed(t, h+" within the interval after the previous reload", r.get(h, "/"))
	}

	// The first tick once the interval has passed loads the whole batch
	// with one reload.
	clock.advance(time.Nanosecond)
	r.tick()
	if n := r.waitReloads(base + 2); n != base+2 {
		t.Errorf("the master reports %d reloads after the first change's, want 1", n-base-1)
	}
	for _, h := range hosts {
		r.servedBy(h, "/", "web")
	}
	wantServed(t, "first.example.com after the batch", r.get("first.example.com", "/"), "web")
	if n := r.reloads(); n != base+2 {
		t.Errorf("the batch of %d changes took %d reloads, want 1", len(hosts), n-base-1)
	}
	eventually(t, 10*time.Second, "routeshift_router_reloads_total counts the 2 reloads", func() error {
		if n := r.counterValue(t, "routeshift_router_reloads_total") - metricBase; n != 2 {
			return fmt.Errorf("grew by %v, want 2", n)
		}
		return nil
	})
}

// childPids are the processes whose parent is pid.
func childPids(t *testing.T, pid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, not ')'.
		fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			out = append(out, child)
		}
	}
	return out
}

// TestTrafficEndpointReplacedDuringARequest: an endpoint replaced by
// another while a request to it is in progress. HAProxy keeps the
// connection that request used, and reuses it for its server slot
// whatever address the slot has then; so the newcomer gets another slot,
// and every later request, on the same kept-alive client connection too,
// reaches the new endpoint, without a reload.
func TestTrafficEndpointReplacedDuringARequest(t *testing.T) {
	r := newTrafficRouter(t)
	started, release := make(chan struct{}, 1), make(chan struct{})
	old := newBackend(t, "old", func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/slow" {
			started <- struct{}{}
			<-release
		}
		fmt.Fprint(w, "old")
	}, nil)
	replacement := newBackend(t, "new", nil, nil)
	r.endpoints("ns", "web", old)
	r.route(rt("ns", "web", "web.example.com", 1, toService("web")))
	r.start()
	client := r.client(clientOptions{keepAlive: true})
	for range 3 {
		wantServed(t, "web.example.com before the change", fetch(client, "http://web.example.com/"), "old")
	}
	reloads := r.reloads()

	slow := make(chan reply, 1)
	go func() { slow <- fetch(client, "http://web.example.com/slow") }()
	<-started
	r.endpoints("ns", "web", replacement)
	r.publish()
	r.servedBy("web.example.com", "/", "new")
	close(release)
	wantServed(t, "the request in progress during the change", <-slow, "old")

	for i := range 5 {
		wantServed(t, fmt.Sprintf("request %d on the kept-alive connection after the change", i+1),
			fetch(client, "http://web.example.com/"), "new")
	}
	if n := r.reloads(); n != reloads {
		t.Errorf("the endpoint change took %d reloads, want 0", n-reloads)
	}
}
