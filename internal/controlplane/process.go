package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// process is etcd or kube-apiserver, running in a process group of its
// own: a Ctrl-C in the terminal reaches routeshift alone, which stops them
// in order.
type process struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func startProcess(binDir, name string, args []string, log io.Writer) (*process, error) {
	p := &process{name: name, done: make(chan struct{})}
	p.cmd = exec.Command(filepath.Join(binDir, name), args...)
	p.cmd.Stdout, p.cmd.Stderr = log, log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// waitHealthy polls url with client until it answers 200, the process
// exits, ctx ends or timeout passes.
func (p *process) waitHealthy(ctx context.Context, client *http.Client, url string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		last = get(ctx, client, url)
		if last == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%v) before it was ready; its output is in the log", p.name, p.err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %s: %w", p.name, timeout, url, last)
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
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}

// stop sends SIGTERM and waits up to timeout, then kills the process
// group. An exit caused by the SIGTERM is a clean stop.
func (p *process) stop(timeout time.Duration) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		return fmt.Errorf("%s did not stop within %s of SIGTERM; killed", p.name, timeout)
	}
}
