package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

var backendAdded = Reason{Kind: "backend added", Subject: "be"}

// TestProcessLoads: the first configuration starts HAProxy at once; the
// first complete one is loaded at once too; later ones are written and
// held until RELOAD_INTERVAL has passed since the last load (Tick), with
// the reasons of everything held in between; HAProxy serves each loaded
// configuration and not a held one.
func TestProcessLoads(t *testing.T) {
	h := newHarness(t)
	a, c := endpoint(t, "a"), endpoint(t, "c")
	srv := func(port int) string { return "server s0 127.0.0.1:" + itoa(port) }

	if h.p.PID() != 0 || h.p.Exited() != nil {
		t.Fatal("a Process that never started reports a master")
	}
	if err := h.p.Tick(h.ctx); err != nil {
		t.Fatalf("Tick with nothing held: %v", err)
	}

	// The first configuration, not complete: HAProxy starts, not ready.
	h.apply(output(h.config("", "", backend(srv(a))), Reason{Kind: "first configuration"}), false)
	h.wantState(State{Started: true, Disk: DiskLoaded})
	h.serves("/", "a")
	if h.p.PID() == 0 {
		t.Fatal("no PID after HAProxy started")
	}
	if got := h.file("run/server-state"); got != emptyServerState {
		t.Errorf("server state after a start %q, want %q", got, emptyServerState)
	}

	// The first complete one: loaded at once, though the interval has not
	// passed; the slot keeps its state across the reload.
	which := "  http-request return status 200 content-type text/plain string B if { path /which }"
	cfgB := output(h.config("", which, backend(srv(a))), backendAdded)
	cfgB.Slots = func() map[string]string { return map[string]string{"be/s0": "127.0.0.1 " + itoa(a)} }
	h.apply(cfgB, true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
	h.serves("/which", "B")
	h.answers("/", 200, "a")
	if n, failed, err := h.p.Reloads(); err != nil || n != 1 || failed != 0 {
		t.Errorf("Reloads() = %d, %d, %v; want 1 reload, none failed", n, failed, err)
	}
	if got := counter(h.metrics.reloads.WithLabelValues("backend added")); got != 1 {
		t.Errorf("reloads{reason=backend added} = %v, want 1", got)
	}
	if st := h.file("run/server-state"); !strings.Contains(st, "be 1 s0 127.0.0.1") {
		t.Errorf("the server state saved before the reload lacks be/s0 at its address:\n%s", st)
	}

	// A change within the interval is written and held.
	h.apply(output(h.config("", "", backend(srv(c))), backendAdded), true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskHeld, HeldComplete: true})
	if !strings.Contains(h.file("haproxy.cfg"), srv(c)) {
		t.Error("the held configuration is not on disk")
	}
	h.answers("/", 200, "a")
	if !h.logs.contains("held until RELOAD_INTERVAL") {
		t.Error("holding a reload is not logged")
	}
	// Another one while held: both reasons go with the reload.
	settings := Reason{Kind: "backend settings changed", Subject: "be"}
	h.apply(output(h.config("", "  http-response set-header X-Held yes", backend(srv(c))), settings), true)
	if got := h.p.held.Reasons; len(got) != 2 || got[0] != backendAdded || got[1] != settings {
		t.Errorf("held reasons %v, want %v then %v", got, backendAdded, settings)
	}
	h.clock.Advance(testInterval - 1)
	if err := h.p.Tick(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.wantState(State{Started: true, Ready: true, Disk: DiskHeld, HeldComplete: true})
	h.answers("/", 200, "a")

	// Once the interval has passed, Tick loads it.
	h.clock.Advance(1)
	if err := h.p.Tick(h.ctx); err != nil {
		t.Fatalf("Tick: %v", err)
	}
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
	h.serves("/", "c")
	if got := counter(h.metrics.reloads.WithLabelValues("backend added")); got != 2 {
		t.Errorf("reloads{reason=backend added} = %v, want 2 (counted under the first reason)", got)
	}
	if !h.logs.contains("HAProxy reloaded") || !h.logs.contains("be: backend settings changed") {
		t.Errorf("the reload is not logged with its reasons:\n%s", h.logs)
	}
	if err := h.p.Tick(h.ctx); err != nil {
		t.Fatalf("Tick with nothing held: %v", err)
	}
	if _, ok := h.p.RetryIn(); ok {
		t.Error("RetryIn after successes")
	}

	// HAProxy's statistics name the backend's slot.
	stats, err := h.p.Stats(h.ctx)
	if err != nil || !strings.Contains(stats, "\nbe,s0,") {
		t.Errorf("Stats: %v\n%s", err, stats)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// anyContains reports whether one of lines contains s.
func anyContains(lines []string, s string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, s) })
}

// TestProcessRefused: a configuration HAProxy refuses never replaces the
// one serving: the last good files are written back, haproxy -c says why,
// and attempts back off until a good configuration loads in full.
func TestProcessRefused(t *testing.T) {
	h := newHarness(t)
	a, b := endpoint(t, "a"), endpoint(t, "b")
	bad := func(cfg string) string { return cfg + "  this-is-not-a-directive\n" }

	// Refused before HAProxy ever ran: nothing starts, nothing is left.
	first := output(bad(h.config("", "", backend("server s0 127.0.0.1:"+itoa(a)))), Reason{Kind: "first configuration"})
	err := h.p.Apply(h.ctx, first, true)
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "HAProxy refuses the new configuration") ||
		!strings.Contains(refused.Words, "this-is-not-a-directive") {
		t.Fatalf("Apply of a bad first configuration: %v", err)
	}
	h.wantState(State{Disk: DiskUnknown, Failures: 1})
	if h.p.PID() != 0 {
		t.Error("HAProxy started with a refused configuration")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "haproxy.cfg")); !os.IsNotExist(err) {
		t.Errorf("the refused first configuration stays on disk (%v)", err)
	}
	if d, ok := h.p.RetryIn(); !ok || d != testInterval {
		t.Errorf("RetryIn = %v, %v; want %v", d, ok, testInterval)
	}

	good := h.config("", "", backend("server s0 127.0.0.1:"+itoa(a)))
	h.apply(output(good, Reason{Kind: "first configuration"}), true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
	h.serves("/", "a")

	// A reload HAProxy refuses: the previous workers keep serving, and
	// the files are put back as HAProxy runs them.
	h.clock.Advance(testInterval)
	extra := Output{Files: map[string]File{"haproxy.cfg": {Data: []byte(bad(h.config("", "", backend("server s0 127.0.0.1:"+itoa(b))))), Mode: 0o644},
		"maps/new.map": {Data: []byte("/x be\n"), Mode: 0o644}},
		Changed: []string{"haproxy.cfg", "maps/new.map"}, Reasons: []Reason{backendAdded}, ConfigArgs: []string{"haproxy.cfg"}}
	err = h.p.Apply(h.ctx, &extra, true)
	if !errors.As(err, &refused) || !anyContains(refused.Alerts(), "unknown keyword 'this-is-not-a-directive'") {
		t.Fatalf("Apply of a bad reload: %v", err)
	}
	h.wantState(State{Started: true, Ready: true, Disk: DiskUnknown, Failures: 1})
	if got := h.file("haproxy.cfg"); got != good {
		t.Errorf("haproxy.cfg after the refusal:\n%s\nwant the last good one", got)
	}
	if got := h.file("maps/new.map"); got != "" {
		t.Errorf("a file of the refused configuration stays: %q", got)
	}
	h.answers("/", 200, "a")
	if n, failed, _ := h.p.Reloads(); failed != 1 {
		t.Errorf("the master reports %d reloads, %d failed; want 1 failed", n, failed)
	}
	if got := counter(h.metrics.reloadFailures); got != 2 {
		t.Errorf("reload failures %v, want 2", got)
	}

	// Attempts back off: each failure doubles the wait.
	h.clock.Advance(testInterval)
	if err := h.p.Apply(h.ctx, &extra, true); !errors.As(err, &refused) {
		t.Fatalf("Apply of the bad reload again: %v", err)
	}
	h.p.RenderFailed()
	h.wantState(State{Started: true, Ready: true, Disk: DiskUnknown, Failures: 3})
	if d, ok := h.p.RetryIn(); !ok || d != 4*testInterval {
		t.Errorf("RetryIn after 3 failures = %v, %v; want %v", d, ok, 4*testInterval)
	}

	// A good configuration after failures is written in full against the
	// last good files and reloaded, for the reason that the previous one
	// was not loaded (the interval has passed since the last load: the
	// refused reloads do not count).
	next := output(h.config("", "", backend("server s0 127.0.0.1:"+itoa(b))))
	next.Changed = nil // the renderer's diff is against the refused one
	h.apply(next, true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
	h.serves("/", "b")
	if got := counter(h.metrics.reloads.WithLabelValues(ReasonNotLoaded)); got != 1 {
		t.Errorf("reloads{reason=%q} = %v, want 1", ReasonNotLoaded, got)
	}
}

// counter is the value of a counter.
func counter(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// TestProcessCheckCannotRun: when haproxy -c cannot run at all (no such
// binary), nothing is called refused; the attempt fails, counts, and is
// retried after the interval.
func TestProcessCheckCannotRun(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.HAProxy = filepath.Join(t.TempDir(), "no-haproxy") })
	a := endpoint(t, "a")
	err := h.p.Apply(h.ctx, output(h.config("", "", backend("server s0 127.0.0.1:"+itoa(a))), Reason{Kind: "first configuration"}), true)
	var refused *RefusedError
	if err == nil || errors.As(err, &refused) || strings.Contains(err.Error(), "refuses") ||
		!strings.Contains(err.Error(), "checking the first configuration before starting HAProxy") || !strings.Contains(err.Error(), "no-haproxy") {
		t.Fatalf("Apply without a haproxy binary: %v", err)
	}
	if h.p.PID() != 0 || h.p.State().Started {
		t.Error("HAProxy counted as started")
	}
	if d, ok := h.p.RetryIn(); !ok || d != testInterval {
		t.Errorf("RetryIn = %v, %v; want %v", d, ok, testInterval)
	}
	if got := counter(h.metrics.reloadFailures); got != 1 {
		t.Errorf("reload failures %v, want 1", got)
	}
}
