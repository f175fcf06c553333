package runtime

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// HAProxy's lifecycle and the commands of its master CLI.

func (p *Process) args() []string {
	args := []string{"-W", "-db", "-S", p.path(p.cfg.MasterSocket)}
	for _, f := range p.configArgs {
		args = append(args, "-f", p.path(f))
	}
	return args
}

// check runs haproxy -c on the files as written.
func (p *Process) check() error { return Check(p.cfg.HAProxy, p.cfg.WorkingDir, p.configArgs) }

func (p *Process) startHAProxy(ctx context.Context) error {
	if err := p.forgetServerState(); err != nil {
		return err
	}
	cmd := exec.Command(p.cfg.HAProxy, p.args()...)
	var out io.Writer = &relay{log: logf.FromContext(ctx).WithName("haproxy"), stopping: p.stopping.Load}
	if p.cfg.Log != nil {
		out = p.cfg.Log
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting HAProxy (%s): %w", p.cfg.HAProxy, err)
	}
	p.state = p.state.ProcessStarted()
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	p.mu.Lock()
	p.cmd, p.exited = cmd, exited
	p.mu.Unlock()
	if err := p.waitForWorker(ctx, -1, 0); err != nil {
		return err
	}
	p.metrics.reloadSeconds.Observe(time.Since(start).Seconds())
	p.lastLoad = p.cfg.Now()
	logf.FromContext(ctx).WithName("haproxy").Info("HAProxy started", "pid", cmd.Process.Pid)
	return nil
}

// errLoadingFailed is the master reporting that it could not load the
// configuration (HAProxy refused it, or could not bind a port): it keeps
// the previous workers serving.
var errLoadingFailed = errors.New("HAProxy could not load the configuration; the previous workers keep serving")

// reload asks the master to load the configuration again: it starts a new
// worker, which takes the listening sockets over; the old worker finishes
// its connections. The reload is logged with its reasons and counted under
// the first one. When the master cannot load the files, the error is
// errLoadingFailed.
func (p *Process) reload(ctx context.Context, reasons []Reason) error {
	before, failed, err := p.Reloads()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		return err
	}
	if err := p.waitForWorker(ctx, before, failed); err != nil {
		return err
	}
	kind := "unknown"
	if len(reasons) > 0 {
		kind = reasons[0].Kind
	}
	p.metrics.reloads.WithLabelValues(kind).Inc()
	p.metrics.reloadSeconds.Observe(time.Since(start).Seconds())
	p.lastLoad = p.cfg.Now()
	logf.FromContext(ctx).WithName("haproxy").Info("HAProxy reloaded", "reasons", reasonStrings(reasons))
	return nil
}

var showProcMaster = regexp.MustCompile(`(?m)^\d+\s+master\s+(\d+) \[failed: (\d+)\]`)

// Reloads returns the reload and failed-reload counts HAProxy's master
// reports.
func (p *Process) Reloads() (reloads, failed int, err error) {
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
// (before -1: any) and a worker runs, or more than failedBefore failed
// reloads in a row (errLoadingFailed). Both counts are read before the
// reload is asked for: a small configuration fails to load in
// milliseconds.
func (p *Process) waitForWorker(ctx context.Context, before, failedBefore int) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.exited:
			return errors.New("HAProxy exited while loading its configuration")
		case <-time.After(10 * time.Millisecond):
		}
		n, failed, err := p.Reloads()
		if err != nil {
			continue
		}
		if before >= 0 && failed > failedBefore {
			return errLoadingFailed
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
	if p.unchecked == nil {
		p.unchecked = map[string]bool{}
	}
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
		p.metrics.runtimeUpdates.Inc()
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
	conn, err := net.DialTimeout("unix", p.path(p.cfg.MasterSocket), 2*time.Second)
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

// Stop stops HAProxy gracefully. SIGUSR1 to the master soft-stops its
// workers: they close their listeners at once (new connections are
// refused) and finish the requests in progress. Connections idle at that
// moment are closed; a kept-alive connection whose response ends later
// is not, and would hold a worker until its keep-alive timeout: once no
// worker has had a request or tunnel in progress for a second
// (quietPeriod), SIGTERM through the master closes what is left. Workers
// still busy after StopTimeout get SIGTERM too; a master that does not
// exit then is killed with its workers.
func (p *Process) Stop(ctx context.Context) {
	p.stopping.Store(true)
	p.setState(p.state.Stopped())
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	log := logf.FromContext(ctx).WithName("haproxy")
	log.Info("stopping HAProxy: its listeners close and the requests in progress finish", "within", p.cfg.StopTimeout.String())
	_ = cmd.Process.Signal(syscall.SIGUSR1)
	end, stream := p.waitSoftStop(exited)
	switch end {
	case softStopped:
		log.Info("HAProxy stopped")
		return
	case softStopIdle:
		log.Info("no request in progress any more: closing the idle connections left")
	case softStopTimedOut:
		log.Info("HAProxy still has requests in progress: closing their connections", "after", p.cfg.StopTimeout.String(),
			"stream", stream)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if !exitsWithin(exited, 10*time.Second) {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}

// softStopEnd is how a soft stop ended.
type softStopEnd int

const (
	softStopped softStopEnd = iota
	softStopIdle
	softStopTimedOut
)

// quietPeriod is how long no worker may have had a stream (a request or a
// tunnel) before the connections left are taken as idle: a connection
// accepted just before the listeners closed has sent its request (or
// finished its TLS handshake) by then.
const quietPeriod = time.Second

// waitSoftStop waits until HAProxy exits, its workers have had no stream
// for quietPeriod, or StopTimeout has passed. It also returns the last
// stream seen in progress (a line of show sess), for the log.
func (p *Process) waitSoftStop(exited <-chan struct{}) (softStopEnd, string) {
	const poll = quietPeriod / 4
	deadline := time.Now().Add(p.cfg.StopTimeout)
	quiet, last := 0, ""
	for time.Now().Before(deadline) {
		if exitsWithin(exited, min(poll, time.Until(deadline))) {
			return softStopped, last
		}
		if stream, err := p.busy(); err != nil || stream != "" {
			quiet, last = 0, stream
		} else if quiet++; time.Duration(quiet)*poll >= quietPeriod {
			return softStopIdle, last
		}
	}
	return softStopTimedOut, last
}

var workerLine = regexp.MustCompile(`(?m)^(\d+)\s+worker\s`)

// busy returns a stream of a worker, current or left by a reload, other
// than a CLI session (fe=GLOBAL, such as this query's own) and a relay's
// (Config.RelayBackends): its line of show sess, "" when there is none.
func (p *Process) busy() (string, error) {
	out, err := p.master("show proc")
	if err != nil {
		return "", err
	}
	for _, m := range workerLine.FindAllStringSubmatch(out, -1) {
		sess, err := p.master("@!" + m[1] + " show sess")
		if err != nil {
			return "", err
		}
		for line := range strings.SplitSeq(sess, "\n") {
			if strings.HasPrefix(line, "0x") && !strings.Contains(line, " fe=GLOBAL ") && !p.relayed(line) {
				return strings.TrimSpace(line), nil
			}
		}
	}
	return "", nil
}

// relayed reports whether a line of show sess is a relay's stream.
func (p *Process) relayed(line string) bool {
	for _, be := range p.cfg.RelayBackends {
		if strings.Contains(line, " be="+be+" ") {
			return true
		}
	}
	return false
}

// exitsWithin waits up to d for exited to close and reports whether it did.
func exitsWithin(exited <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-exited:
		return true
	case <-t.C:
		return false
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
