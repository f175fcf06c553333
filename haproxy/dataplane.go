package haproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/go-logr/logr"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/router"
)

// DataPlane serves a router's snapshots with HAProxy: it renders each
// snapshot and hands the output to the HAProxy process (runtime.Process).
// It is the router's Consumer. Routes HAProxy refuses are found and served
// closed (see refusals), and every route it cannot serve is reported
// to the router (Feedback), so that no route keeps the others from
// loading. When applying a snapshot fails, the latest
// one is applied again after the process's back-off; files the
// configuration depends on beyond the snapshots (DEFAULT_CERTIFICATE_DIR,
// DEFAULT_DESTINATION_CA_PATH) are checked every 10 seconds.
type DataPlane struct {
	cfg      proxyconfig.Config
	renderer *Renderer
	process  *runtime.Process
	// files reads the files the configuration copies; rendered is what
	// the last successful render used (nil before one).
	files    *FileLoader
	rendered *FileContents
	// filePoll is how often the files beyond the snapshots are checked.
	filePoll time.Duration
	// ticks, when set, replaces the RELOAD_INTERVAL ticker (tests).
	ticks <-chan time.Time
	// last is the latest snapshot, applied again after a failure.
	last *router.Snapshot
	// refused are the routes HAProxy refuses, and finds them.
	refused *refusals
	// fb hears of the routes the data plane cannot serve.
	fb router.Feedback
	// notes are what NewDataPlane adjusted, logged when Serve starts.
	notes []string
}

// maxProbed is the most changed routes checked on their own before they
// join the configuration (see isolator); more (a first configuration, a
// large batch) join it unchecked, and are isolated only if HAProxy refuses
// the whole.
const maxProbed = 1000

// DataPlaneOptions are what a DataPlane needs besides its configuration.
type DataPlaneOptions struct {
	// HAProxy is the haproxy binary (default: "haproxy" from $PATH).
	HAProxy string
	// Log receives HAProxy's own output as HAProxy prints it (default:
	// the log of Serve's context, each line at the level it deserves; see
	// runtime.Config.Log).
	Log io.Writer
	// Metrics records loads and their reasons (nil: not recorded).
	Metrics *runtime.Metrics
	// Now is the process's clock (nil: time.Now).
	Now func() time.Time
}

// NewDataPlane checks cfg (see NewRenderer) and returns a data plane.
//
// It raises the process's open-file limit to its hard limit, which HAProxy
// inherits, and lowers ROUTER_MAX_CONNECTIONS to what fits in it (Serve
// logs that), rather than let HAProxy run out of file descriptors.
func NewDataPlane(cfg proxyconfig.Config, opts DataPlaneOptions) (*DataPlane, error) {
	var notes []string
	limit, err := runtime.RaiseFileLimit()
	if err != nil {
		notes = append(notes, err.Error())
	}
	if fit := runtime.FittingMaxConn(cfg.MaxConnections, limit); limit > 0 && fit < cfg.MaxConnections {
		notes = append(notes, fmt.Sprintf("ROUTER_MAX_CONNECTIONS=%d needs more open files than the limit of %d (2 per connection, "+
			"and some for health checks and sockets): HAProxy runs with maxconn %d; raise the hard limit (ulimit -Hn, "+
			"LimitNOFILE, the container runtime's nofile) to allow more", cfg.MaxConnections, limit, fit))
		cfg.MaxConnections = fit
	}
	renderer, err := NewRenderer(cfg)
	if err != nil {
		return nil, err
	}
	process := runtime.New(runtime.Config{WorkingDir: renderer.cfg.WorkingDir, MasterSocket: masterSocket, Dirs: workingDirs, ServerStateFile: serverStateFile,
		ReloadInterval: cfg.ReloadInterval, HAProxy: opts.HAProxy, Log: opts.Log, Now: opts.Now, StopTimeout: cfg.HardStopAfter,
		RelayBackends: []string{sniRelay, noSNIRelay}}, opts.Metrics)
	haproxy := opts.HAProxy
	if haproxy == "" {
		haproxy = "haproxy"
	}
	files := NewFileLoader(renderer.cfg)
	return &DataPlane{cfg: renderer.cfg, renderer: renderer, process: process, filePoll: 10 * time.Second, notes: notes, files: files,
		refused: newRefusals(newIsolator(renderer.cfg, haproxy, renderer.defaultCert.pem, files), renderer.cfg.WorkingDir)}, nil
}

// Ready reports whether HAProxy serves a complete configuration.
func (d *DataPlane) Ready() bool { return d.process.Ready() }

// StopTimeout is how long stopping HAProxy may take: the requests in
// progress get ROUTER_HARD_STOP_AFTER to finish (runtime's default when
// it is empty).
func (d *DataPlane) StopTimeout() time.Duration { return d.process.StopTimeout() }

// Stats returns the CSV of HAProxy's `show stat`, for the exporter.
func (d *DataPlane) Stats(ctx context.Context) (string, error) { return d.process.Stats(ctx) }

// Serve serves the snapshots of sub until ctx ends, then stops HAProxy
// gracefully: it finishes the requests in progress within StopTimeout.
// Routes it cannot serve are reported to fb.
func (d *DataPlane) Serve(ctx context.Context, sub *router.Subscription, fb router.Feedback) error {
	d.fb = fb
	for _, n := range d.notes {
		logf.FromContext(ctx).WithName("haproxy").Info(n)
	}
	if err := d.process.Prepare(); err != nil {
		return err
	}
	defer d.process.Stop(ctx)
	l := d.newLoop(ctx)
	defer l.stop()
	if d.cfg.ClientAuthOn() {
		d.files.crls.log = l.log
		go d.files.crls.run(ctx)
	}
	snapshots := forward(ctx, sub)
	for {
		select {
		case <-ctx.Done():
			return nil
		case snap, ok := <-snapshots:
			if !ok {
				return nil
			}
			l.serveOrRetry(snap, "applying the configuration")
		case <-l.ticks:
			err := d.process.Tick(ctx)
			d.noteLoaded()
			if err != nil && !l.isolate(err) {
				l.failed(err, "loading the configuration")
			}
		case <-l.retry.C:
			if _, failing := d.process.RetryIn(); failing && d.last != nil {
				l.log.Info("applying the latest configuration again after a failure")
				l.serveOrRetry(*d.last, "applying the configuration again")
			}
		case <-l.files:
			if d.last != nil && d.rendered != nil && d.files.Changed(*d.rendered) {
				l.log.Info("the default certificate or destination CA changed: loading it")
				l.serveOrRetry(*d.last, "applying the configuration")
			}
		case <-d.process.Exited():
			if d.process.Stopping() {
				return nil
			}
			l.restart()
		}
	}
}

// loop is what Serve waits on besides snapshots: the RELOAD_INTERVAL
// ticks, the retry after a failure and the checks of files.
type loop struct {
	ctx   context.Context
	d     *DataPlane
	log   logr.Logger
	ticks <-chan time.Time
	files <-chan time.Time
	retry *time.Timer
	stops []func()
}

func (d *DataPlane) newLoop(ctx context.Context) *loop {
	l := &loop{ctx: ctx, d: d, log: logf.FromContext(ctx).WithName("haproxy"), ticks: d.ticks, retry: time.NewTimer(time.Hour)}
	l.retry.Stop() // it runs while the latest snapshot fails to apply
	l.stops = append(l.stops, func() { l.retry.Stop() })
	if l.ticks == nil {
		tick := time.NewTicker(tickPeriod(d.cfg.ReloadInterval))
		l.ticks, l.stops = tick.C, append(l.stops, tick.Stop)
	}
	if d.files.Watches() {
		t := time.NewTicker(d.filePoll)
		l.files, l.stops = t.C, append(l.stops, t.Stop)
	}
	return l
}

// tickPeriod is how often a held configuration is looked at: a tenth of
// RELOAD_INTERVAL, at least 50ms and at most the interval, so that it
// loads at most that long after the interval has passed. Ticking once per
// interval would hold a change made just after a load for nearly two
// intervals.
func tickPeriod(interval time.Duration) time.Duration {
	const least = 50 * time.Millisecond
	if interval <= least {
		return least
	}
	return max(interval/10, least)
}

func (l *loop) stop() {
	for _, f := range l.stops {
		f()
	}
}

// serveOrRetry serves snap and, after a failure, isolates the routes to
// blame or sets the retry off.
func (l *loop) serveOrRetry(snap router.Snapshot, what string) {
	before := l.d.process.State().Failures
	if err := l.d.serveSnapshot(l.ctx, snap); err != nil {
		if !l.isolate(err) {
			l.failed(err, what)
		}
		return
	}
	if before > 0 {
		l.log.Info("the configuration applies again", "after", before)
	}
	l.retry.Stop()
}

// isolate handles HAProxy refusing the whole configuration: when routes
// it has not loaded yet are to blame, they are refused and the latest
// snapshot is applied again at once, without them. It reports whether it
// did so.
func (l *loop) isolate(err error) bool {
	if l.d.last == nil {
		return false
	}
	var certificate *runtime.CertificateRefusedError
	if errors.As(err, &certificate) {
		return l.refuseCertificate(certificate)
	}
	var refused *runtime.RefusedError
	if !errors.As(err, &refused) {
		return false
	}
	found, ferr := l.d.refused.blame(refused, l.d.renderer.Fresh(), l.d.renderer.named, l.d.last.Services)
	if ferr != nil {
		l.log.Error(ferr, "finding the routes HAProxy refuses")
	}
	if found == 0 {
		return false
	}
	l.log.Info("HAProxy refuses the configuration of routes it has not loaded yet; loading the others without them", "routes", found)
	l.serveOrRetry(*l.d.last, "applying the configuration without the routes HAProxy refuses")
	return true
}

// refuseCertificate handles HAProxy refusing a route's certificate through
// the runtime API, as it handles a route it refuses in a configuration:
// the route is rendered closed and reported with HAProxy's words, and the
// latest snapshot is applied again at once, without it.
func (l *loop) refuseCertificate(refused *runtime.CertificateRefusedError) bool {
	rt := l.d.renderer.routeOfCertificate(refused.File)
	if rt == nil {
		return false
	}
	l.d.refused.certificate(rt, refused.Message)
	l.log.Info("HAProxy refuses a route's new certificate; serving the others without the route", "route", rt.Key())
	l.serveOrRetry(*l.d.last, "applying the configuration without the route whose certificate HAProxy refuses")
	return true
}

// failed logs a failure and sets the retry off after the process's
// back-off.
func (l *loop) failed(err error, what string) {
	delay, _ := l.d.process.RetryIn()
	l.retry.Reset(delay)
	l.log.Error(err, what, "retryIn", delay.String(), "consecutiveFailures", l.d.process.State().Failures)
}

// restart starts HAProxy again after it died.
func (l *loop) restart() {
	l.log.Info("HAProxy exited; starting it again with the last good configuration")
	if err := l.d.process.Restart(l.ctx); err != nil {
		l.log.Error(err, "restarting HAProxy")
		time.Sleep(time.Second)
	}
}

// forward delivers the snapshots of sub on a channel until ctx ends.
func forward(ctx context.Context, sub *router.Subscription) <-chan router.Snapshot {
	out := make(chan router.Snapshot)
	go func() {
		defer close(out)
		for {
			s, ok := sub.Next(ctx)
			if !ok {
				return
			}
			select {
			case out <- s:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// serveSnapshot renders a snapshot and hands the output to the process. Routes
// whose value changed are checked with HAProxy first (probe), unless they
// are many: those it refuses are rendered closed.
func (d *DataPlane) serveSnapshot(ctx context.Context, snap router.Snapshot) error {
	d.last = &snap
	d.refused.forget(snap)
	files, err := d.files.Load()
	var out *runtime.Output
	if err == nil {
		d.probe(ctx, snap)
		out, err = d.renderer.Render(snap, Inputs{Files: files, refused: d.refused})
	}
	if err != nil {
		d.process.RenderFailed()
		return fmt.Errorf("rendering (the running configuration keeps serving): %w", err)
	}
	d.rendered = &files
	d.report(ctx)
	err = d.process.Apply(ctx, out, snap.Synced)
	d.noteLoaded()
	return err
}

// probe checks the routes of snap the renderer has not rendered yet with
// HAProxy, on their own, and refuses those HAProxy refuses. The first
// configuration is checked whole instead.
func (d *DataPlane) probe(ctx context.Context, snap router.Snapshot) {
	if !d.renderer.rendered {
		return
	}
	// A change of certificates alone is checked by the runtime API.
	suspects := slices.DeleteFunc(d.renderer.Unrendered(snap), d.renderer.certificateOnly)
	if len(suspects) == 0 || len(suspects) > maxProbed {
		return
	}
	if err := d.refused.checkChanged(suspects, snap.Services); err != nil {
		logf.FromContext(ctx).WithName("haproxy").Error(err, "checking changed routes with HAProxy; the whole configuration is checked instead")
	}
}

// report tells the router about the routes rendered unservable.
func (d *DataPlane) report(ctx context.Context) {
	for _, u := range d.renderer.Unservable() {
		logf.FromContext(ctx).WithName("haproxy").Info("not serving a route", "route", u.Route.Key(), "reason", u.Message)
		if d.fb != nil {
			d.fb.NotServable(u.Route, u.Message)
		}
	}
}

// noteLoaded tells the renderer when HAProxy runs its latest rendering.
func (d *DataPlane) noteLoaded() {
	if s := d.process.State(); s.Disk == runtime.DiskLoaded && s.Failures == 0 {
		d.renderer.Loaded()
	}
}
