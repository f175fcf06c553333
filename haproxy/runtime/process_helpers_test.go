package runtime

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// The tests of Process run the real HAProxy on loopback: each harness has
// its own working directory, a frontend on a free port and plain HTTP
// servers (httptest) as the endpoints its server slots point at.

// testInterval is the RELOAD_INTERVAL of the tests; the injected clock,
// not the wall clock, makes it pass.
const testInterval = 10 * time.Second

// needHAProxy returns the haproxy binary; without one the test is skipped,
// or fails when CI=true.
func needHAProxy(t *testing.T) string {
	t.Helper()
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("HAProxy not found; install it (apt-get install -y haproxy)")
		}
		t.Skip("HAProxy not found; install it (apt-get install -y haproxy)")
	}
	return haproxy
}

// fakeClock is the Process's clock: it moves only when the test says.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// syncBuffer collects HAProxy's output from the goroutines that copy it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// logLines collects what the Process logs through its context.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.lines = append(l.lines, prefix+" "+args)
	}, funcr.Options{Verbosity: 1})
}

func (l *logLines) contains(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// harness is one Process under test and what it serves.
type harness struct {
	t       *testing.T
	dir     string
	port    int // the frontend's
	clock   *fakeClock
	haproxy *syncBuffer // HAProxy's own output
	logs    *logLines
	ctx     context.Context
	metrics *Metrics
	p       *Process
}

type harnessOption func(*Config)

func newHarness(t *testing.T, opts ...harnessOption) *harness {
	t.Helper()
	haproxy := needHAProxy(t)
	h := &harness{t: t, dir: t.TempDir(), port: freePort(t), clock: &fakeClock{now: time.Unix(1_700_000_000, 0)},
		haproxy: &syncBuffer{}, logs: &logLines{}}
	h.ctx = logf.IntoContext(context.Background(), h.logs.logger())
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	h.metrics = m
	cfg := Config{WorkingDir: h.dir, MasterSocket: "run/master.sock", Dirs: []string{"run", "maps", "certs"},
		ReloadInterval: testInterval, HAProxy: haproxy, Log: h.haproxy, Now: h.clock.Now, StopTimeout: 5 * time.Second,
		ServerStateFile: "run/server-state"}
	for _, o := range opts {
		o(&cfg)
	}
	h.p = New(cfg, m)
	if err := h.p.Prepare(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.stop)
	return h
}

// stop stops HAProxy and makes sure none of its processes is left.
func (h *harness) stop() {
	pid, exited := h.p.PID(), h.p.Exited()
	h.p.Stop(h.ctx)
	if pid != 0 && !closed(exited) {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-exited
	}
	if h.t.Failed() {
		h.t.Logf("HAProxy said:\n%s\nthe Process logged:\n%s", h.haproxy, h.logs)
	}
}

// kill kills HAProxy's master and workers (its process group) and waits
// until the Process notices.
func (h *harness) kill() {
	h.t.Helper()
	pid, exited := h.p.PID(), h.p.Exited()
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		h.t.Fatal(err)
	}
	if !exitsWithin(exited, 10*time.Second) {
		h.t.Fatal("HAProxy did not exit after SIGKILL")
	}
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// endpoint is an HTTP server answering every request with its name; it
// returns its port.
func endpoint(t *testing.T, name string) int {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, name)
	}))
	t.Cleanup(s.Close)
	return s.Listener.Addr().(*net.TCPAddr).Port
}

// config is a haproxy.cfg with a frontend on the harness's port, whose
// frontend lines are frontend (besides the bind), and body after it.
func (h *harness) config(bind, frontend, body string) string {
	if bind == "" {
		bind = fmt.Sprintf("127.0.0.1:%d", h.port)
	}
	return fmt.Sprintf(`global
  stats socket %[1]s/run/haproxy.sock mode 600 level admin expose-fd listeners
  server-state-file %[1]s/run/server-state

defaults common
  mode http
  load-server-state-from-file global
  timeout connect 2s
  timeout client 10s
  timeout server 10s
  timeout http-keep-alive 10s

frontend public from common
  bind %[2]s
%[3]s
  default_backend be

%[4]s`, h.dir, bind, frontend, body)
}

// backend is backend "be" with the server lines given.
func backend(servers ...string) string {
	return "backend be from common\n  " + strings.Join(servers, "\n  ") + "\n"
}

// output is a configuration of haproxy.cfg alone, all of it changed.
func output(cfg string, reasons ...Reason) *Output {
	return &Output{Files: map[string]File{"haproxy.cfg": {Data: []byte(cfg), Mode: 0o644}}, Changed: []string{"haproxy.cfg"},
		Reasons: reasons, ConfigArgs: []string{"haproxy.cfg"}, ServerStateFile: "run/server-state"}
}

// get requests path from HAProxy's frontend on a new connection and
// returns the status and body.
func (h *harness) get(path string) (int, string, error) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d%s", h.port, path))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// serves waits until HAProxy answers path with 200 and body (a worker left
// by a reload may answer a connection or two it accepted before).
func (h *harness) serves(path, body string) {
	h.t.Helper()
	var status int
	var got string
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if status, got, err = h.get(path); err == nil && status == 200 && got == body {
			return
		}
	}
	h.t.Fatalf("GET %s: %d %q (%v), want 200 %q", path, status, got, err, body)
}

// answers asserts what HAProxy answers now, without waiting.
func (h *harness) answers(path string, status int, body string) {
	h.t.Helper()
	gotStatus, got, err := h.get(path)
	if err != nil || gotStatus != status || (body != "" && got != body) {
		h.t.Fatalf("GET %s: %d %q (%v), want %d %q", path, gotStatus, got, err, status, body)
	}
}

// file returns a file of the working directory, "" when it is missing.
func (h *harness) file(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, rel))
	if err != nil && !os.IsNotExist(err) {
		h.t.Fatal(err)
	}
	return string(b)
}

// apply applies out and fails the test on an error.
func (h *harness) apply(out *Output, complete bool) {
	h.t.Helper()
	if err := h.p.Apply(h.ctx, out, complete); err != nil {
		h.t.Fatalf("Apply: %v", err)
	}
}

// wantState compares the Process's state.
func (h *harness) wantState(want State) {
	h.t.Helper()
	if got := h.p.State(); got != want {
		h.t.Fatalf("state %+v, want %+v", got, want)
	}
	if h.p.Ready() != want.Ready {
		h.t.Fatalf("Ready() = %v, state says %v", h.p.Ready(), want.Ready)
	}
}
