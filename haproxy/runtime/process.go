package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// Config is where and how HAProxy runs.
type Config struct {
	// WorkingDir holds the configuration files and the sockets.
	WorkingDir string
	// MasterSocket is the master CLI's socket, relative to WorkingDir.
	MasterSocket string
	// Dirs are created in WorkingDir before anything is written.
	Dirs []string
	// ReloadInterval is the least time between two loads, but for the
	// first complete configuration (RELOAD_INTERVAL).
	ReloadInterval time.Duration
	// HAProxy is the haproxy binary (default: "haproxy" from $PATH).
	HAProxy string
	// Log receives HAProxy's own output as HAProxy prints it. Without one,
	// each line goes into the log of the context HAProxy is started with,
	// judged (see Message.Judge): what HAProxy prints at every reload and
	// stop at debug level, its warnings at info level with severity
	// WARNING, its alerts at error level.
	Log io.Writer
	// Now is the clock RELOAD_INTERVAL is measured with (default:
	// time.Now).
	Now func() time.Time
	// StopTimeout is how long Stop lets HAProxy finish the requests in
	// progress before it closes their connections (default:
	// DefaultStopTimeout).
	StopTimeout time.Duration
	// ServerStateFile is where the servers' state is saved before each
	// reload, relative to WorkingDir (the configuration's server-state-file);
	// empty for none.
	ServerStateFile string
	// RelayBackends are backends that only hand connections from one of
	// HAProxy's frontends to another (TLS from the TCP frontend to the
	// frontend that terminates it): their streams carry no request of
	// their own, and an idle kept-alive TLS connection keeps one, so Stop
	// does not wait for them.
	RelayBackends []string
}

// DefaultStopTimeout is how long a stopping HAProxy may finish its
// requests when nothing else is said: the 30 s OpenShift's router waits.
const DefaultStopTimeout = 30 * time.Second

// Process runs HAProxy in master-worker mode as a child process and keeps
// it serving the latest configuration it was given: files are written
// atomically; changes that only move servers within their slots or change
// certificates go through the runtime API; other changes reload HAProxy hitlessly (the master hands
// the listening sockets to the new worker), at most once per
// RELOAD_INTERVAL after the first; a configuration HAProxy refuses never
// replaces the one serving; HAProxy dying is noticed (Exited) and it is
// restarted with the last good files.
//
// What it decides with is its State; one goroutine calls its methods,
// except Ready, Reloads, PID and Stats, which are safe anywhere.
type Process struct {
	cfg     Config
	metrics *Metrics

	mu     sync.Mutex // guards cmd and exited
	cmd    *exec.Cmd
	exited chan struct{}

	state State
	// ready mirrors state.Ready for readers on other goroutines.
	ready    atomic.Bool
	stopping atomic.Bool
	// held is the configuration written but not loaded (state.Disk is
	// DiskHeld).
	held       *Output
	lastGood   map[string]File // files of the configuration HAProxy runs
	unchecked  map[string]bool // its enabled slots without health checks
	configArgs []string
	lastLoad   time.Time
	// standby are the standby backends of the configuration HAProxy runs.
	standby standbyPool
}

// New returns a Process that records its metrics in m.
func New(cfg Config, m *Metrics) *Process {
	if cfg.HAProxy == "" {
		cfg.HAProxy = "haproxy"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StopTimeout <= 0 {
		cfg.StopTimeout = DefaultStopTimeout
	}
	if m == nil {
		m, _ = NewMetrics(nil)
	}
	return &Process{cfg: cfg, metrics: m}
}

// Ready reports whether HAProxy serves a complete configuration.
func (p *Process) Ready() bool { return p.ready.Load() }

// State returns the Process's state.
func (p *Process) State() State { return p.state }

func (p *Process) setState(s State) {
	p.state = s
	p.ready.Store(s.Ready)
}

// RetryIn is how long to wait before applying the latest configuration
// again, and false when the last attempt did not fail.
func (p *Process) RetryIn() (time.Duration, bool) {
	if p.state.Failures == 0 {
		return 0, false
	}
	return RetryDelay(p.cfg.ReloadInterval, p.state.Failures), true
}

func (p *Process) path(rel string) string { return filepath.Join(p.cfg.WorkingDir, rel) }

// Prepare creates the working directories.
func (p *Process) Prepare() error {
	for _, dir := range p.cfg.Dirs {
		if err := os.MkdirAll(p.path(dir), 0o700); err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
	}
	return nil
}

// RenderFailed counts a configuration that could not be rendered: the
// running one keeps serving, and the latest input is to be applied again
// after RetryIn.
func (p *Process) RenderFailed() {
	p.metrics.reloadFailures.Inc()
	p.setState(p.state.Failed())
}

// Apply writes out and makes HAProxy serve it: through the runtime API
// when only server slots and certificates changed, else by loading it, at once or when
// RELOAD_INTERVAL has passed (Tick). complete says whether it holds the
// whole cluster (a synced snapshot): HAProxy is ready once it serves a
// complete configuration.
func (p *Process) Apply(ctx context.Context, out *Output, complete bool) error {
	err := p.writeAndServe(ctx, out, complete)
	if err != nil {
		p.setState(p.state.Failed())
	} else {
		p.setState(p.state.Applied())
	}
	return err
}

// writeAndServe writes out and has HAProxy serve it, through the runtime
// API or by a load; Apply records the outcome in the state.
func (p *Process) writeAndServe(ctx context.Context, out *Output, complete bool) error {
	p.configArgs = out.ConfigArgs
	out = p.merge(out)
	start := time.Now()
	if err := p.writeFiles(out); err != nil {
		// Some files may be new, some old: the next attempt writes every
		// file that differs from the configuration HAProxy runs.
		p.held = nil
		p.setState(p.state.WriteFailed())
		return err
	}
	p.metrics.writeConfigSeconds.Observe(time.Since(start).Seconds())
	state, step := p.state.Written(out.Reload(), complete)
	p.setState(state)
	if step != StepRuntimeAPI {
		p.serveStandby(ctx, out.Standby)
		p.held = out
		if step == StepLoadWhenDue && !p.intervalPassed() {
			logf.FromContext(ctx).WithName("haproxy").V(1).Info("a reload is due; held until RELOAD_INTERVAL has passed since the last one",
				"reasons", len(out.Reasons))
		}
		return p.load(ctx, step)
	}
	// Certificates first: a failure there leaves them to the reload.
	reason, certificates := ReasonCertificateRefused, out.Certificates
	err := p.updateCertificates(out.Certificates, out.Files)
	if refused := (*CertificateRefusedError)(nil); errors.As(err, &refused) {
		// A reload would refuse the files too: put the last good ones
		// back, so that a restart loads what HAProxy runs; the next
		// configuration, without the certificate, is loaded in full.
		p.restore(out)
		p.metrics.runtimeFailures.Inc()
		p.setState(p.state.CertificateRefused())
		return err
	}
	p.recordLoaded(out.Files)
	if err == nil {
		reason, certificates = ReasonRuntimeAPIRefused, nil
		err = p.updateServers(out.Servers)
	}
	if err == nil {
		p.setState(p.state.RuntimeUpdated(complete))
		logf.FromContext(ctx).WithName("haproxy").V(1).Info("applied through the runtime API",
			"servers", len(out.Servers), "certificates", len(out.Certificates))
		return nil
	}
	// The files on disk are right; HAProxy is not: load them.
	p.metrics.runtimeFailures.Inc()
	p.held = &Output{Files: out.Files, Reasons: []Reason{{Kind: reason}}, ConfigArgs: out.ConfigArgs, ServerStateFile: out.ServerStateFile,
		Unchecked: out.Unchecked, Slots: out.Slots, Certificates: certificates, StandbyBackends: out.StandbyBackends}
	state, step = p.state.RuntimeRefused(complete)
	p.setState(state)
	if ferr := p.load(ctx, step); ferr != nil {
		return fmt.Errorf("runtime API: %w; reloading instead: %w", err, ferr)
	}
	return fmt.Errorf("runtime API (reloaded instead): %w", err)
}

// merge returns what must be written and loaded for out: after a failure,
// every file that differs from the last good configuration; while a
// configuration is held, out with the held one's changes and reasons.
func (p *Process) merge(out *Output) *Output {
	switch p.state.Disk {
	case DiskUnknown:
		merged := *out
		merged.Changed, merged.Removed = diffFiles(p.lastGood, out.Files), removedFiles(p.lastGood, out.Files)
		merged.Reasons = mergeReasons([]Reason{{Kind: ReasonNotLoaded}}, out.Reasons)
		return &merged
	case DiskHeld:
		merged := *out
		merged.Changed = mergeSorted(p.held.Changed, out.Changed)
		merged.Removed = mergeSorted(p.held.Removed, out.Removed)
		merged.Reasons = mergeReasons(p.held.Reasons, out.Reasons)
		merged.Certificates = slices.Concat(p.held.Certificates, out.Certificates)
		return &merged
	}
	return out
}

// intervalPassed reports whether RELOAD_INTERVAL has passed since the
// last load: the one rule for when a held configuration may load.
func (p *Process) intervalPassed() bool {
	return p.cfg.Now().Sub(p.lastLoad) >= p.cfg.ReloadInterval
}

// Tick loads the held configuration if RELOAD_INTERVAL has passed since
// the last load. A failure counts like one of Apply.
func (p *Process) Tick(ctx context.Context) error {
	if p.state.Due(p.intervalPassed()) == StepNone {
		return nil
	}
	err := p.load(ctx, StepLoadNow)
	if err != nil {
		p.setState(p.state.Failed())
	}
	return err
}

// load starts or reloads HAProxy with the held configuration, now or
// (StepLoadWhenDue) if RELOAD_INTERVAL has passed since the last load. A
// first configuration is checked with haproxy -c before HAProxy starts (a
// master that cannot load its first configuration exits). A reload is not
// checked first: the master parses the files once, and when it cannot load
// them it keeps the previous workers serving; only then does haproxy -c
// say why, so that a refusal costs one more parse and a load none.
func (p *Process) load(ctx context.Context, step Step) error {
	if p.held == nil || step == StepLoadWhenDue && !p.intervalPassed() {
		return nil
	}
	out := p.held
	p.held = nil
	var err error
	if !p.state.Started {
		var refused *RefusedError
		if cerr := p.check(); errors.As(cerr, &refused) {
			return p.refused(out, cerr)
		} else if cerr != nil {
			// haproxy -c could not run: nothing was refused, and the
			// next attempt writes every file again.
			p.metrics.reloadFailures.Inc()
			return fmt.Errorf("checking the first configuration before starting HAProxy: %w", cerr)
		}
		err = p.startHAProxy(ctx)
	} else {
		p.saveServerState(ctx, out.slots())
		switch err = p.reload(ctx, out.Reasons); {
		case err == nil:
			p.metrics.certificateUpdates.WithLabelValues(CertificateUpdateReload).Add(float64(certificateLoads(out.Certificates)))
		case errors.Is(err, errLoadingFailed):
			var refused *RefusedError
			if cerr := p.check(); errors.As(cerr, &refused) {
				return p.refused(out, cerr)
			} else if cerr != nil {
				err = fmt.Errorf("%w (and haproxy -c could not say why: %w)", err, cerr)
			}
		}
	}
	p.recordLoaded(out.Files)
	p.loadedUnchecked(out.unchecked())
	if err != nil {
		// HAProxy may run an older configuration than the files on disk:
		// the next attempt reloads them, and no standby backend is used
		// until then.
		p.standby.reset(nil)
		p.metrics.reloadFailures.Inc()
		p.setState(p.state.LoadFailed())
		return err
	}
	p.standby.reset(out.StandbyBackends)
	err = p.disableHealthChecks()
	p.setState(p.state.Loaded(err == nil))
	return err
}

// refused records that HAProxy refused the configuration out (err says
// why) and puts the files it changed back as HAProxy last loaded them.
func (p *Process) refused(out *Output, err error) error {
	p.metrics.reloadFailures.Inc()
	p.setState(p.state.Refused())
	p.restore(out)
	return fmt.Errorf("HAProxy refuses the new configuration (the previous one keeps serving): %w", err)
}

// Exited is closed when the HAProxy master started last exits (nil before
// it starts).
func (p *Process) Exited() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited
}

// StopTimeout is how long Stop may wait for HAProxy to finish its
// requests before it closes their connections.
func (p *Process) StopTimeout() time.Duration { return p.cfg.StopTimeout }

// Stopping reports whether Stop was called.
func (p *Process) Stopping() bool { return p.stopping.Load() }

// Restart starts HAProxy again after it exited, with the files on disk.
// It fails only when HAProxy does not start.
func (p *Process) Restart(ctx context.Context) error {
	p.metrics.restarts.Inc()
	p.setState(p.state.Exited())
	if err := p.startHAProxy(ctx); err != nil {
		return err
	}
	p.standby.reset(p.standby.loaded)
	if err := p.disableHealthChecks(); err != nil {
		logf.FromContext(ctx).WithName("haproxy").Error(err, "turning off health checks of lone endpoints")
	}
	p.setState(p.state.Restarted())
	return nil
}

// PID is the process id of the HAProxy master, 0 when none was started.
func (p *Process) PID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}
