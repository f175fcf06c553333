package haproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/certs"
)

var (
	reloadSeconds = prometheus.NewSummary(prometheus.SummaryOpts{
		Name: "template_router_reload_seconds",
		Help: "Measures the time spent reloading the router in seconds.",
	})
	writeConfigSeconds = prometheus.NewSummary(prometheus.SummaryOpts{
		Name: "template_router_write_config_seconds",
		Help: "Measures the time spent writing out the router configuration to disk in seconds.",
	})
	reloadFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "routeshift_router_reload_failures_total",
		Help: "Configurations that could not be rendered or loaded, retries included (the previous one kept serving).",
	})
	reloadsTotal = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "routeshift_router_reloads_total",
		Help: "HAProxy reloads.",
	})
	runtimeUpdates = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "routeshift_router_runtime_updates_total",
		Help: "Server changes applied through HAProxy's runtime API, without a reload.",
	})
	runtimeFailures = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "routeshift_router_runtime_update_failures_total",
		Help: "Runtime API updates HAProxy refused; the router reloaded instead.",
	})
	haproxyRestarts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "routeshift_router_haproxy_restarts_total",
		Help: "Times HAProxy died and was started again.",
	})
)

func init() {
	Registry.MustRegister(reloadSeconds, writeConfigSeconds, reloadFailures, reloadsTotal, runtimeUpdates, runtimeFailures, haproxyRestarts)
}

// Process runs HAProxy in master-worker mode as a child process and keeps
// it serving the latest snapshot: configuration files are written
// atomically; changes that only move servers within their slots go through
// the runtime API; other changes reload HAProxy hitlessly (the master hands
// the listening sockets to the new worker), at most once per
// RELOAD_INTERVAL after the first; a configuration HAProxy refuses never
// replaces the one serving, and the latest snapshot is applied again after a
// backoff (retryDelay) until it loads; HAProxy dying is noticed and it is
// restarted.
type Process struct {
	cfg       DataPlaneConfig
	renderer  *Renderer
	snapshots *Subscription
	// HAProxy is the haproxy binary (default: "haproxy" from $PATH).
	HAProxy string
	// Log receives HAProxy's own output (default: standard error).
	Log io.Writer
	// filePoll is how often files the configuration depends on beyond the
	// snapshots (Renderer.WatchesFiles) are checked for changes.
	filePoll time.Duration

	mu         sync.Mutex
	cmd        *exec.Cmd
	exited     chan struct{}
	lastGood   map[string]File // files of the configuration HAProxy runs
	unchecked  map[string]bool // its enabled slots without health checks
	configArgs []string
	ready      atomic.Bool
	lastLoad   time.Time
	stopping   atomic.Bool
	last       *Snapshot // the latest snapshot applied
	pending    *Output   // rendered, not yet loaded (waiting for RELOAD_INTERVAL)
	pendingOK  bool      // pending holds a synced snapshot
	failing    bool      // the last load failed: the files on disk are lastGood
	// stale is set when applying or loading the latest snapshot failed:
	// it is applied again after retryDelay, without waiting for a change.
	stale bool
	// failures counts the consecutive failures, for the retry's backoff.
	failures int
}

// maxRetryDelay caps the backoff between attempts to apply a snapshot
// that failed (unless RELOAD_INTERVAL is longer).
const maxRetryDelay = 2 * time.Minute

// retryDelay is how long the router waits before applying the latest
// snapshot again after the n-th consecutive failure: RELOAD_INTERVAL,
// doubled with each further failure, at most maxRetryDelay.
func retryDelay(interval time.Duration, n int) time.Duration {
	limit := max(maxRetryDelay, interval)
	d := interval
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// NewProcess returns a Process that renders with renderer and serves the
// snapshots of sub.
func NewProcess(cfg DataPlaneConfig, renderer *Renderer, sub *Subscription) *Process {
	return &Process{cfg: cfg, renderer: renderer, snapshots: sub, HAProxy: "haproxy", filePoll: 10 * time.Second}
}

// Ready reports whether HAProxy serves a complete configuration.
func (p *Process) Ready() bool { return p.ready.Load() }

// NeedLeaderElection is false: every replica serves.
func (p *Process) NeedLeaderElection() bool { return false }

func (p *Process) path(rel string) string { return filepath.Join(p.cfg.WorkingDir, rel) }

// Start serves until ctx ends, then stops HAProxy gracefully.
func (p *Process) Start(ctx context.Context) error {
	log := logf.FromContext(ctx).WithName("haproxy")
	for _, dir := range []string{"conf/backends", "conf/maps", "certs", "cacerts", "allowlists", "run"} {
		if err := os.MkdirAll(p.path(dir), 0o700); err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
	}
	defer p.stop()
	tick := time.NewTicker(p.cfg.ReloadInterval)
	defer tick.Stop()
	var files <-chan time.Time
	if p.renderer.WatchesFiles() {
		t := time.NewTicker(p.filePoll)
		defer t.Stop()
		files = t.C
	}
	snapshots := make(chan Snapshot)
	go func() {
		defer close(snapshots)
		for {
			s, ok := p.snapshots.Next(ctx)
			if !ok {
				return
			}
			select {
			case snapshots <- s:
			case <-ctx.Done():
				return
			}
		}
	}()
	// retry fires while the latest snapshot is stale (see settle).
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	settle := func(err error, what string, applied bool) {
		switch {
		case err != nil:
			p.stale = true
			p.failures++
			delay := retryDelay(p.cfg.ReloadInterval, p.failures)
			retry.Reset(delay)
			log.Error(err, what, "retryIn", delay.String(), "consecutiveFailures", p.failures)
		case applied:
			if p.stale {
				log.Info("the configuration applies again", "after", p.failures)
			}
			p.stale, p.failures = false, 0
			retry.Stop()
		}
	}
	for {
		var exited chan struct{}
		p.mu.Lock()
		exited = p.exited
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil
		case snap, ok := <-snapshots:
			if !ok {
				return nil
			}
			if !snap.Synced && p.cfg.BindPortsAfterSync {
				continue
			}
			settle(p.apply(ctx, snap), "applying the configuration", true)
		case <-tick.C:
			settle(p.flush(ctx, false), "loading the configuration", false)
		case <-retry.C:
			if p.stale && p.last != nil {
				log.Info("applying the latest configuration again after a failure")
				settle(p.apply(ctx, *p.last), "applying the configuration again", true)
			}
		case <-files:
			if p.last != nil && p.renderer.FilesChanged() {
				log.Info("the default certificate or destination CA changed: loading it")
				settle(p.apply(ctx, *p.last), "applying the configuration", true)
			}
		case <-exited:
			if p.stopping.Load() {
				return nil
			}
			haproxyRestarts.Inc()
			log.Info("HAProxy exited; starting it again with the last good configuration")
			p.ready.Store(false)
			if err := p.startHAProxy(ctx); err != nil {
				log.Error(err, "restarting HAProxy")
				time.Sleep(time.Second)
			} else if err := p.disableHealthChecks(); err != nil {
				log.Error(err, "turning off health checks of lone endpoints")
				p.ready.Store(true)
			} else {
				p.ready.Store(true)
			}
		}
	}
}

// apply renders a snapshot and either updates servers at runtime or
// schedules a reload.
func (p *Process) apply(ctx context.Context, snap Snapshot) error {
	p.last = &snap
	out, err := p.renderer.Render(snap)
	if err != nil {
		reloadFailures.Inc()
		return fmt.Errorf("rendering (the running configuration keeps serving): %w", err)
	}
	p.configArgs = out.ConfigArgs
	if p.failing {
		// After a refused configuration the disk holds lastGood, not what
		// the renderer rendered last: write whatever differs from it.
		out.Changed, out.Removed, out.Reload = diffFiles(p.lastGood, out.Files), removedFiles(p.lastGood, out.Files), true
	}
	if p.pending != nil {
		out.Reload = out.Reload || p.pending.Reload
		out.Changed = mergeSorted(p.pending.Changed, out.Changed)
		out.Removed = mergeSorted(p.pending.Removed, out.Removed)
	}
	start := time.Now()
	if err := p.writeFiles(out); err != nil {
		// Some files may be new, some old: the next attempt writes every
		// file that differs from the configuration HAProxy runs.
		p.failing = true
		return err
	}
	writeConfigSeconds.Observe(time.Since(start).Seconds())
	switch {
	case p.cmd == nil:
		p.pending, p.pendingOK = out, snap.Synced
		return p.flush(ctx, true)
	case !out.Reload && p.pending == nil && !p.failing:
		p.commit(out.Files, nil)
		err := p.updateServers(out.Servers)
		if err == nil {
			if snap.Synced {
				p.ready.Store(true)
			}
			return nil
		}
		// The files on disk are right; HAProxy is not: load them.
		runtimeFailures.Inc()
		p.pending, p.pendingOK = &Output{Files: out.Files, Reload: true, ConfigArgs: out.ConfigArgs}, snap.Synced
		if ferr := p.flush(ctx, true); ferr != nil {
			return fmt.Errorf("runtime API: %w; reloading instead: %w", err, ferr)
		}
		return fmt.Errorf("runtime API (reloaded instead): %w", err)
	}
	p.pending, p.pendingOK = out, snap.Synced
	// The first complete model is not held back by RELOAD_INTERVAL behind
	// the empty one that bound the ports: until it loads, every request
	// gets a 503 and the router is not ready.
	return p.flush(ctx, snap.Synced && !p.ready.Load())
}

// diffFiles returns the paths whose content in next differs from have.
func diffFiles(have, next map[string]File) []string {
	var out []string
	for path, f := range next {
		if old, ok := have[path]; !ok || old.Mode != f.Mode || !bytes.Equal(old.Data, f.Data) {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

func removedFiles(have, next map[string]File) []string {
	var out []string
	for path := range have {
		if _, ok := next[path]; !ok {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

func mergeSorted(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// flush loads the pending configuration if RELOAD_INTERVAL has passed
// since the last load (or now is true).
func (p *Process) flush(ctx context.Context, now bool) error {
	if p.pending == nil {
		return nil
	}
	if !now && time.Since(p.lastLoad) < p.cfg.ReloadInterval {
		return nil
	}
	out, synced := p.pending, p.pendingOK
	p.pending = nil
	if err := p.check(); err != nil {
		reloadFailures.Inc()
		p.failing = true
		p.restore(out)
		return fmt.Errorf("HAProxy refuses the new configuration (the previous one keeps serving): %w", err)
	}
	p.failing = false
	// The pending output is the renderer's latest rendering.
	p.commit(out.Files, p.renderer.Unchecked())
	var err error
	if p.cmd == nil {
		err = p.startHAProxy(ctx)
	} else {
		err = p.reload(ctx)
	}
	if err != nil {
		// HAProxy may run an older configuration than the files on disk:
		// the next attempt reloads them.
		reloadFailures.Inc()
		p.failing = true
		return err
	}
	err = p.disableHealthChecks()
	if err == nil && synced {
		p.ready.Store(true)
	}
	return err
}

// writeFiles writes the changed files atomically and removes the removed
// ones. Keys and anything holding them get their mode from the renderer
// (0600).
func (p *Process) writeFiles(out *Output) error {
	for _, rel := range out.Changed {
		f := out.Files[rel]
		if err := os.MkdirAll(filepath.Dir(p.path(rel)), 0o700); err != nil {
			return err
		}
		if err := certs.WriteFileAtomic(p.path(rel), f.Data, f.Mode); err != nil {
			return fmt.Errorf("writing %s: %w", rel, err)
		}
	}
	for _, rel := range out.Removed {
		if err := os.Remove(p.path(rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// restore puts the last good files back after a refused configuration, so
// that a restart of HAProxy loads what it ran.
func (p *Process) restore(out *Output) {
	for _, rel := range append(slices.Clone(out.Changed), out.Removed...) {
		if f, ok := p.lastGood[rel]; ok {
			_ = certs.WriteFileAtomic(p.path(rel), f.Data, f.Mode)
		} else {
			_ = os.Remove(p.path(rel))
		}
	}
}

// commit records the configuration HAProxy runs from now on: its files and,
// when it is loaded anew, its unchecked slots (nil: unchanged, as runtime
// updates keep them).
func (p *Process) commit(files map[string]File, unchecked []string) {
	p.lastGood = files
	if unchecked != nil || p.unchecked == nil {
		p.unchecked = make(map[string]bool, len(unchecked))
		for _, s := range unchecked {
			p.unchecked[s] = true
		}
	}
}

func (p *Process) args() []string {
	args := []string{"-W", "-db", "-S", p.path("run/master.sock")}
	for _, f := range p.configArgs {
		args = append(args, "-f", p.path(f))
	}
	return args
}

// check runs haproxy -c on the files as written (without -q, which would
// hide why HAProxy refuses a configuration).
func (p *Process) check() error {
	args := []string{"-c"}
	for _, f := range p.configArgs {
		args = append(args, "-f", p.path(f))
	}
	out, err := exec.Command(p.HAProxy, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (p *Process) startHAProxy(ctx context.Context) error {
	cmd := exec.Command(p.HAProxy, p.args()...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if p.Log != nil {
		cmd.Stdout, cmd.Stderr = p.Log, p.Log
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting HAProxy (%s): %w", p.HAProxy, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	p.mu.Lock()
	p.cmd, p.exited = cmd, exited
	p.mu.Unlock()
	if err := p.waitForWorker(ctx, -1); err != nil {
		return err
	}
	reloadSeconds.Observe(time.Since(start).Seconds())
	p.lastLoad = time.Now()
	logf.FromContext(ctx).WithName("haproxy").Info("HAProxy started", "pid", cmd.Process.Pid)
	return nil
}

// reload asks the master to load the configuration again: it starts a new
// worker, which takes the listening sockets over; the old worker finishes
// its connections.
func (p *Process) reload(ctx context.Context) error {
	before, _, err := p.reloads()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		return err
	}
	if err := p.waitForWorker(ctx, before); err != nil {
		return err
	}
	reloadsTotal.Inc()
	reloadSeconds.Observe(time.Since(start).Seconds())
	p.lastLoad = time.Now()
	return nil
}

var showProcMaster = regexp.MustCompile(`(?m)^\d+\s+master\s+(\d+) \[failed: (\d+)\]`)

// reloads returns the master's reload and failed-reload counts.
func (p *Process) reloads() (int, int, error) {
	out, err := p.master("show proc")
	if err != nil {
		return 0, 0, err
	}
	m := showProcMaster.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("unexpected show proc output: %q", out)
	}
	n, _ := strconv.Atoi(m[1])
	f, _ := strconv.Atoi(m[2])
	return n, f, nil
}

// waitForWorker waits until the master reports more than before reloads
// (before -1: any) and a worker runs.
func (p *Process) waitForWorker(ctx context.Context, before int) error {
	deadline := time.Now().Add(60 * time.Second)
	_, failedBefore, _ := p.reloads()
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.exited:
			return errors.New("HAProxy exited while loading its configuration")
		case <-time.After(10 * time.Millisecond):
		}
		n, failed, err := p.reloads()
		if err != nil {
			continue
		}
		if before >= 0 && failed > failedBefore {
			return errors.New("HAProxy could not load the configuration; the previous workers keep serving")
		}
		if n > before {
			if out, err := p.master("show proc"); err == nil && strings.Contains(out, "worker") {
				return nil
			}
		}
	}
	return errors.New("HAProxy did not report a new worker within 60s")
}

// updateServers sets servers through the runtime API of the current worker.
func (p *Process) updateServers(updates []ServerUpdate) error {
	var errs []error
	for _, u := range updates {
		if name := u.Backend + "/" + u.Server; u.Enabled && !u.Checked {
			p.unchecked[name] = true
		} else {
			delete(p.unchecked, name)
		}
		for _, cmd := range serverCommands(u) {
			out, err := p.master("@1 " + cmd)
			if err == nil && !runtimeOK(out) {
				err = errors.New(strings.TrimSpace(out))
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", cmd, err))
			}
		}
		runtimeUpdates.Inc()
	}
	return errors.Join(errs...)
}

// runtimeOK reports whether the runtime API's answer to a server command
// means success: nothing, or a report of what changed (or needed no
// change).
func runtimeOK(answer string) bool {
	answer = strings.TrimSpace(answer)
	for _, ok := range []string{"changed from", "no need to change", "New server registered"} {
		if strings.Contains(answer, ok) {
			return true
		}
	}
	return answer == ""
}

// serverCommands are the runtime API commands that put a server slot in
// the wanted state.
func serverCommands(u ServerUpdate) []string {
	name := u.Backend + "/" + u.Server
	if u.Add {
		// Added servers start in maintenance, without health checks.
		add := fmt.Sprintf("add server %s %s weight %d", name, net.JoinHostPort(u.Address, strconv.Itoa(int(u.Port))), u.Weight)
		cmds := []string{strings.TrimSpace(add + " " + u.Options)}
		if u.CookieKey != "" {
			cmds = append(cmds, fmt.Sprintf("set dynamic-cookie-key backend %s %s", u.Backend, u.CookieKey))
		}
		if !u.Enabled {
			return cmds
		}
		if u.Checked {
			cmds = append(cmds, "enable health "+name)
		}
		return append(cmds, "set server "+name+" state ready")
	}
	if !u.Enabled {
		return []string{"set server " + name + " state maint"}
	}
	cmds := []string{
		fmt.Sprintf("set server %s addr %s port %d", name, u.Address, u.Port),
		fmt.Sprintf("set server %s weight %d", name, u.Weight),
	}
	if u.Checked {
		cmds = append(cmds, "enable health "+name)
	} else {
		cmds = append(cmds, uncheckCommands(name)...)
	}
	return append(cmds, "set server "+name+" state ready")
}

// uncheckCommands stop a server's health checks and, as a check may have
// marked it down already, mark it up.
func uncheckCommands(name string) []string {
	return []string{"disable health " + name, "set server " + name + " health up"}
}

// disableHealthChecks turns health checks off, through the runtime API, on
// the slots of the configuration just loaded that have them configured but
// must run without (ServerData.Checked), several commands per master CLI
// line. A check that fails before then marks the server down for that
// moment only.
func (p *Process) disableHealthChecks() error {
	const maxLine = 8 << 10 // well inside HAProxy's tune.bufsize
	names := slices.Sorted(maps.Keys(p.unchecked))
	var errs []error
	for len(names) > 0 {
		var line strings.Builder
		for len(names) > 0 && line.Len() < maxLine {
			if line.Len() > 0 {
				line.WriteString("; ")
			}
			for i, cmd := range uncheckCommands(names[0]) {
				if i > 0 {
					line.WriteString("; ")
				}
				line.WriteString("@1 " + cmd)
			}
			names = names[1:]
		}
		out, err := p.master(line.String())
		if err == nil && strings.TrimSpace(out) != "" {
			err = errors.New(strings.TrimSpace(out))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("disabling health checks: %w", err))
		}
	}
	return errors.Join(errs...)
}

// master sends one command to HAProxy's master CLI and returns its answer.
func (p *Process) master(cmd string) (string, error) {
	conn, err := net.DialTimeout("unix", p.path("run/master.sock"), 2*time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(cmd + "\n")); err != nil {
		return "", err
	}
	// Closing our side tells the master the session is over: it answers
	// and closes its side.
	if uc, ok := conn.(*net.UnixConn); ok {
		_ = uc.CloseWrite()
	}
	var b strings.Builder
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		b.WriteString(sc.Text())
		b.WriteByte('\n')
	}
	return b.String(), sc.Err()
}

// stop stops HAProxy: SIGUSR1 lets workers finish their connections; after
// 10 s it is killed.
func (p *Process) stop() {
	p.stopping.Store(true)
	p.ready.Store(false)
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGUSR1)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}

// Stats returns the CSV of `show stat` from the current worker, for the
// exporter.
func (p *Process) Stats(ctx context.Context) (string, error) {
	type result struct {
		out string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		out, err := p.master("@1 show stat")
		ch <- result{out, err}
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case r := <-ch:
		return r.out, r.err
	}
}
