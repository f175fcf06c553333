package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/internal/hostaddr"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// The router's stop, as a rolling update makes it: the kubelet runs the
// container's preStop hook (the shipped router has none, and
// checkEmulated refuses any), sends SIGTERM, and sends SIGKILL when
// terminationGracePeriodSeconds have passed. Clients stand for a load
// balancer: they send requests, over kept-alive connections and new ones,
// until they see the router's readiness fail, and then a few more each,
// as a load balancer notices late. None of their requests may fail.

const (
	drainHost = "drain.example.test"
	// drainClients is how many clients of each kind send requests.
	drainClients = 4
	// requestsAfterUnready is how many requests each client still sends
	// once it has seen readiness fail.
	requestsAfterUnready = 20
	// softStopWithoutHardStop is how long the router gives the requests in
	// progress when ROUTER_HARD_STOP_AFTER is empty (docs/operations.md).
	softStopWithoutHardStop = 30 * time.Second
)

// checkDrain stops the router as the kubelet would while clients send it
// requests, and checks that it drains: no request fails; readiness
// answers 503 before the HTTP listener closes; a response still streaming
// when HAProxy stops is sent to its end; the router exits by itself within
// terminationGracePeriodSeconds, which covers ROUTER_DRAIN_SECONDS and the
// time the requests in progress are given. It stops the router: it is the
// last check of an installation.
func (inst *installation) checkDrain(t *testing.T) {
	router := inst.router(t)
	grace := checkGracePeriod(t, router)
	ns := inst.cp.CreateNamespace(t, "drain")
	backend := newStreamingBackend(t)
	inst.serveDrainRoute(t, ns, backend)
	base := fmt.Sprintf("http://%s:%d", drainHost, router.Ports["http"])
	ready, err := probeURL(router.Workload.container().ReadinessProbe, router.Ports)
	if err != nil {
		t.Fatal(err)
	}

	var order sequence
	unready := order.watch(func() bool { return probeStatus(ready) == http.StatusServiceUnavailable })
	closed := order.watch(func() bool { return refused(router.Ports["http"]) })
	load := startLoad(base, unready, closed)
	stream := startStream(base, backend)

	terminated := time.Now()
	if err := router.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	results := load.wait()
	<-closed.done
	close(backend.release)
	streamed := <-stream
	exited := waitExit(router.Process, terminated.Add(grace))

	if results.failed > 0 {
		t.Errorf("%d of %d requests failed while the router stopped, first: %v", results.failed, results.total(), results.first)
	}
	if results.afterUnready < 2*drainClients*requestsAfterUnready {
		t.Errorf("%d requests were served after readiness failed, want %d", results.afterUnready, 2*drainClients*requestsAfterUnready)
	}
	switch {
	case unready.seq == 0:
		t.Error("/healthz/ready never answered 503 after SIGTERM")
	case closed.seq == 0:
		t.Error("the HTTP listener never closed after SIGTERM")
	case closed.seq < unready.seq:
		t.Error("the HTTP listener closed before /healthz/ready answered 503")
	}
	if streamed != nil {
		t.Errorf("the response streaming when HAProxy stopped: %v", streamed)
	}
	if err := inst.admitted(ns, "drain", routerEnv(router)["ROUTER_SERVICE_NAME"]); err != nil {
		t.Errorf("after the router stopped: %v; a stopping router must leave route status as it is", err)
	}
	if !exited {
		t.Errorf("the router did not exit within terminationGracePeriodSeconds (%v) of SIGTERM: killed\n%s", grace, router.Output())
	} else if done, err := router.Exited(); done && err != nil {
		t.Errorf("the router exited with %v after SIGTERM\n%s", err, router.Output())
	}
}

// checkGracePeriod checks that the pod's terminationGracePeriodSeconds
// covers the router's drain and the time it then gives the requests in
// progress, and returns it.
func checkGracePeriod(t *testing.T, router *runningPod) time.Duration {
	spec := router.Workload.Template.Spec
	env := routerEnv(router)
	drain, err := strconv.Atoi(env["ROUTER_DRAIN_SECONDS"])
	if err != nil {
		t.Fatalf("ROUTER_DRAIN_SECONDS %q: %v (the manifests list every router setting)", env["ROUTER_DRAIN_SECONDS"], err)
	}
	softStop := softStopWithoutHardStop
	if v := env["ROUTER_HARD_STOP_AFTER"]; v != "" {
		if softStop, err = routecore.ParseTimeUnit(v); err != nil {
			t.Fatalf("ROUTER_HARD_STOP_AFTER %q: %v", v, err)
		}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		t.Fatal("the router's pod sets no terminationGracePeriodSeconds: the kubelet's 30 s cut its drain short")
	}
	grace := time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
	if need := time.Duration(drain)*time.Second + softStop; grace <= need {
		t.Errorf("terminationGracePeriodSeconds %v does not cover ROUTER_DRAIN_SECONDS (%ds) and the %v the requests in progress get",
			grace, drain, softStop)
	}
	return grace
}

// routerEnv is the router container's environment as the manifest gives it.
func routerEnv(router *runningPod) map[string]string {
	env := map[string]string{}
	for _, e := range router.Workload.container().Env {
		env[e.Name] = e.Value
	}
	return env
}

// serveDrainRoute makes a Route for drainHost to backend and waits until
// the router serves it.
func (inst *installation) serveDrainRoute(t *testing.T, ns string, b *streamingBackend) {
	ctx := context.Background()
	route := &routecore.Route{ObjectMeta: metav1.ObjectMeta{Name: "drain", Namespace: ns}, Spec: routecore.RouteSpec{
		Host: drainHost, To: routecore.RouteTargetReference{Kind: "Service", Name: "web"}}}
	for _, obj := range []client.Object{webService(ns), webEndpoints(ns, b.ip, b.port), route} {
		if err := inst.cp.Client.Create(ctx, obj); err != nil {
			t.Fatalf("creating %T %s: %v", obj, obj.GetName(), err)
		}
	}
	url := fmt.Sprintf("http://%s:%d/", drainHost, inst.router(t).Ports["http"])
	framework.EventuallyWithin(t, 2*time.Minute, "the router serves "+url, func() error {
		return expectBody(&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}, url, "drain backend")
	})
	framework.EventuallyWithin(t, 2*time.Minute, "the router admits Route drain in its status", func() error {
		return inst.admitted(ns, "drain", routerEnv(inst.router(t))["ROUTER_SERVICE_NAME"])
	})
}

// admitted checks that the router's entry in the status of Route ns/name
// admits it.
func (inst *installation) admitted(ns, name, router string) error {
	route := &routecore.Route{}
	if err := inst.cp.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, route); err != nil {
		return err
	}
	for _, in := range route.Status.Ingress {
		for _, c := range in.Conditions {
			if in.RouterName == router && c.Type == routecore.RouteAdmitted && c.Status == "True" {
				return nil
			}
		}
	}
	return fmt.Errorf("route %s/%s status %+v has no admitting entry of router %s", ns, name, route.Status.Ingress, router)
}

// streamingBackend answers "drain backend", and /stream with a response
// it streams a line at a time until release is closed, then "done".
type streamingBackend struct {
	ip      string
	port    int32
	started chan struct{}
	release chan struct{}
}

func newStreamingBackend(t *testing.T) *streamingBackend {
	ip, err := hostaddr.IPv4()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	b := &streamingBackend{ip: ip, port: int32(l.Addr().(*net.TCPAddr).Port), started: make(chan struct{}, 1), release: make(chan struct{})}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(b.serve)}
	go func() { _ = srv.Serve(hostaddr.LocalOnly(l)) }()
	t.Cleanup(func() { _ = srv.Close() })
	return b
}

func (b *streamingBackend) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/stream" {
		fmt.Fprint(w, "drain backend")
		return
	}
	// A line a second keeps HAProxy's client and server timeouts, which
	// count idle time, from ending the response.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	select {
	case b.started <- struct{}{}:
	default:
	}
	for {
		select {
		case <-b.release:
			fmt.Fprint(w, "done")
			return
		case <-req.Context().Done():
			return
		case <-tick.C:
			fmt.Fprintln(w, "streaming")
			w.(http.Flusher).Flush()
		}
	}
}

// startStream starts a request for /stream and waits until the backend
// streams it (or it fails); the channel receives nil once the whole
// response arrived.
func startStream(base string, b *streamingBackend) <-chan error {
	out := make(chan error, 1)
	go func() {
		resp, err := loopbackClient(true).Get(base + "/stream")
		if err != nil {
			out <- err
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		switch {
		case err != nil:
			out <- fmt.Errorf("reading the body: %w", err)
		case resp.StatusCode != http.StatusOK || !strings.HasSuffix(string(body), "done"):
			out <- fmt.Errorf("%s, body ending %q, want 200 ending in \"done\"", resp.Status, tail(string(body)))
		default:
			out <- nil
		}
	}()
	select {
	case <-b.started:
	case err := <-out:
		out <- err
	}
	return out
}

func tail(s string) string {
	if len(s) > 40 {
		return "…" + s[len(s)-40:]
	}
	return s
}

// loopbackClient sends requests for any host to 127.0.0.1, where the
// router's ports are, over kept-alive connections or a new one each.
func loopbackClient(keepAlive bool) *http.Client {
	return &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{
		DisableKeepAlives: !keepAlive,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			_, port, _ := net.SplitHostPort(addr)
			return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
		},
	}}
}

// load is the clients' requests while the router stops.
type load struct {
	wg      sync.WaitGroup
	mu      sync.Mutex
	results loadResults
}

type loadResults struct {
	ok, failed, afterUnready int
	first                    error
}

func (r loadResults) total() int { return r.ok + r.failed }

// startLoad starts drainClients clients over kept-alive connections and as
// many over new connections; each sends requests until it has sent
// requestsAfterUnready since unready happened, or closed happened first.
func startLoad(base string, unready, closed *event) *load {
	l := &load{}
	for i := range 2 * drainClients {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.client(loopbackClient(i%2 == 0), base, unready, closed)
		}()
	}
	return l
}

func (l *load) client(c *http.Client, base string, unready, closed *event) {
	for after := 0; after < requestsAfterUnready; {
		select {
		case <-unready.done:
			after++
		case <-closed.done:
			return
		default:
		}
		err := getBody(c, base+"/", "drain backend")
		l.mu.Lock()
		if err != nil {
			l.results.failed++
			if l.results.first == nil {
				l.results.first = err
			}
		} else {
			l.results.ok++
			if after > 0 {
				l.results.afterUnready++
			}
		}
		l.mu.Unlock()
	}
}

// getBody GETs url with c and wants 200 and body.
func getBody(c *http.Client, url, body string) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || string(got) != body {
		return fmt.Errorf("%s: %s %q, want 200 %q", url, resp.Status, got, body)
	}
	return nil
}

func (l *load) wait() loadResults {
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.results
}

// sequence numbers the events the test observes, in the order they
// happen.
type sequence struct{ n atomic.Int64 }

// event is something that happens once: done is closed then, and seq is
// its place in the sequence.
type event struct {
	done chan struct{}
	seq  int64
}

// watch polls happened until it reports true and records that as an
// event. Polling gives up after five minutes: done is closed then with
// seq 0.
func (s *sequence) watch(happened func() bool) *event {
	e := &event{done: make(chan struct{})}
	go func() {
		defer close(e.done)
		for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if happened() {
				e.seq = s.n.Add(1)
				return
			}
		}
	}()
	return e
}

// probeStatus is the status code of a GET of url, 0 when it fails.
func probeStatus(url string) int {
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// refused reports whether a connection to port on 127.0.0.1 is refused.
func refused(port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 5*time.Second)
	if err != nil {
		return errors.Is(err, syscall.ECONNREFUSED)
	}
	c.Close()
	return false
}

// waitExit waits for p to exit until deadline, then kills it as the
// kubelet would, and reports whether it exited by itself.
func waitExit(p *framework.Process, deadline time.Time) bool {
	select {
	case <-p.Done():
		return true
	case <-time.After(time.Until(deadline)):
		p.Kill()
		<-p.Done()
		return false
	}
}
