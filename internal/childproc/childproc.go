// Package childproc runs a program as a child process that must not
// outlive its parent: etcd, kube-apiserver, kube-controller-manager and
// cert-manager for `routeshift local`, and the programs the tests start.
//
// A child runs in a process group of its own, so that a Ctrl-C in the
// terminal reaches the parent alone, which then stops its children in
// order. The group lives as long as its leader: when the leader exits, for
// whatever reason, whatever is left of its group is killed.
//
// A child gets SIGKILL when its parent dies without stopping it (a test
// binary killed by its timeout, `routeshift local` killed by SIGKILL).
// The kernel sends that signal when the thread that started the child
// ends, not when the parent process does, and the Go runtime ends threads
// of its own accord (the thread of a goroutine that exits while locked to
// it). So every child is started from a goroutine of its own that locks
// its thread and keeps it until the child has been reaped: one OS thread
// per running child. The signal reaches the leader only; the rest of its
// group outlives a dead parent unless the leader takes it along.
//
// It imports nothing of routeshift's, so that `routeshift local`
// (internal/controlplane, internal/cli) and tests/framework can use it;
// it must not import them.
package childproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// DefaultTail is how much of a child's output its errors quote when
// Options.Tail is 0.
const DefaultTail = 2 << 10

// waitDelay bounds how long reaping a child waits, after the child has
// exited, for its output to end: a descendant that left the group may
// hold the output open.
const waitDelay = 10 * time.Second

// ErrKilled is wrapped by the error of a Stop that had to kill the group.
var ErrKilled = errors.New("killed")

// Options describe how Start runs a command.
type Options struct {
	// Name names the process in errors; the base name of the command's
	// Path when empty.
	Name string
	// Log receives the standard output and standard error; nil discards
	// them.
	Log io.Writer
	// Tail is how many of the last bytes of the output are kept for
	// errors: DefaultTail when 0, none when negative.
	Tail int
}

// Process is a running (or ended) child.
type Process struct {
	name string
	cmd  *exec.Cmd
	tail *tail
	pid  int

	done chan struct{}
	err  error // the exit error, set before done is closed

	// mu guards exited: once the leader has exited its process ID stays
	// reserved only until it is reaped, so the group is not signalled
	// any more.
	mu     sync.Mutex
	exited bool
}

// Start starts cmd, as exec.Command made it, with its Env and Dir as the
// caller wants them, and returns once it runs. Start sets the command's
// Stdout, Stderr and WaitDelay; it adds Setpgid and Pdeathsig (SIGKILL)
// to the SysProcAttr the caller set, if any.
func Start(cmd *exec.Cmd, opts Options) (*Process, error) {
	name := opts.Name
	if name == "" {
		name = filepath.Base(cmd.Path)
	}
	p := &Process{name: name, cmd: cmd, done: make(chan struct{})}
	var out io.Writer = io.Discard
	if opts.Log != nil {
		out = opts.Log
	}
	size := opts.Tail
	if size == 0 {
		size = DefaultTail
	}
	if size > 0 {
		p.tail = &tail{max: size}
		out = io.MultiWriter(p.tail, out)
	}
	p.cmd.Stdout, p.cmd.Stderr = nil, nil
	if out != io.Discard {
		p.cmd.Stdout, p.cmd.Stderr = out, out
	}
	p.cmd.WaitDelay = waitDelay
	if p.cmd.SysProcAttr == nil {
		p.cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	p.cmd.SysProcAttr.Setpgid, p.cmd.SysProcAttr.Pgid = true, 0
	p.cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started := make(chan error, 1)
	go p.run(started)
	if err := <-started; err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	return p, nil
}

// run starts the child on a thread locked until the child is reaped (see
// the package documentation), kills what is left of the group when the
// leader exits, and reaps the leader. It never unlocks the thread: the
// runtime ends a thread whose goroutine exits locked to it, which is
// harmless once the child has been reaped.
func (p *Process) run(started chan<- error) {
	runtime.LockOSThread()
	if err := p.cmd.Start(); err != nil {
		started <- err
		return
	}
	p.pid = p.cmd.Process.Pid
	started <- nil
	// The leader stays a zombie until it is reaped below, so its process
	// ID still names its group here.
	if waitExitedNoReap(p.pid) == nil {
		p.mu.Lock()
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		p.exited = true
		p.mu.Unlock()
	}
	p.err = p.cmd.Wait()
	p.mu.Lock()
	p.exited = true
	p.mu.Unlock()
	close(p.done)
}

// waitExitedNoReap waits until the process pid has exited, leaving it
// unreaped.
func waitExitedNoReap(pid int) error {
	const pPID = 1 // waitid's P_PID
	var info [128]byte
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|0x1000000 /* WNOWAIT */, 0, 0)
		switch errno {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		default:
			return errno
		}
	}
}

// signalGroup sends sig to the process group, unless the leader has exited.
func (p *Process) signalGroup(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.exited {
		_ = syscall.Kill(-p.pid, sig)
	}
}

// Name is the name errors give the process.
func (p *Process) Name() string { return p.name }

// Pid is the process ID of the group's leader, which is also the group's.
func (p *Process) Pid() int { return p.pid }

// Done is closed when the process has ended and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has ended, and its exit error (nil
// for exit status 0).
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Tail is the end of the output, as much as Options.Tail keeps.
func (p *Process) Tail() string {
	if p.tail == nil {
		return ""
	}
	return p.tail.String()
}

// Signal sends sig to the process alone, not its group.
func (p *Process) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Kill kills the process group at once, without waiting.
func (p *Process) Kill() { p.signalGroup(syscall.SIGKILL) }

// Stop sends SIGTERM to the process group, waits up to timeout for the
// leader to exit, then kills the group, and returns once the leader has
// been reaped. It returns the exit error of a process that ended within
// timeout or before Stop (nil for exit status 0; an *exec.ExitError
// otherwise, also for a death by the SIGTERM), and an error wrapping
// ErrKilled when it had to kill.
func (p *Process) Stop(timeout time.Duration) error {
	if exited, err := p.Exited(); exited {
		return err
	}
	p.signalGroup(syscall.SIGTERM)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.done:
		return p.err
	case <-t.C:
		p.signalGroup(syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("%s did not stop within %s of SIGTERM: %w", p.name, timeout, ErrKilled)
	}
}

// WaitHealthy polls url with client (http.DefaultClient when nil) every
// 100 ms until it answers 200. It fails at once when the process exits,
// when ctx ends, and when timeout has passed; the errors of an exit and of
// the timeout name the process, the URL and the last error, and quote the
// end of the output.
func (p *Process) WaitHealthy(ctx context.Context, client *http.Client, url string, timeout time.Duration) error {
	if client == nil {
		client = http.DefaultClient
	}
	wait, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		err := get(wait, client, url)
		if err == nil {
			return nil
		}
		// A request the timeout cut short says less than the one before.
		if last == nil || wait.Err() == nil {
			last = err
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited with %v before %s answered 200 (last error: %v)%s", p.name, exitStatus(p.err), url, last, p.quoteTail())
		default:
		}
		if ctx.Err() != nil {
			return fmt.Errorf("waiting for %s to answer on %s: %w", p.name, url, ctx.Err())
		}
		if wait.Err() != nil {
			return fmt.Errorf("%s not ready after %s: %s: %w%s", p.name, timeout, url, last, p.quoteTail())
		}
		select {
		case <-tick.C:
		case <-p.done:
		case <-wait.Done():
		}
	}
}

func get(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}

// exitStatus describes an exit error, "exit status 0" for none.
func exitStatus(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// quoteTail is the end of the output for an error message, "" when none
// was kept or there was none.
func (p *Process) quoteTail() string {
	out := strings.TrimRight(p.Tail(), "\n")
	if out == "" {
		return ""
	}
	return fmt.Sprintf("; %s's output ends:\n%s", p.name, out)
}

// tail keeps the last max bytes written to it, from the start of a line
// when one starts within them.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool // bytes before buf were dropped
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	if t.cut {
		if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
			s = s[i+1:]
		}
		s = "(…)\n" + s
	}
	return s
}
