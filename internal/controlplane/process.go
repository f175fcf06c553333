package controlplane

import (
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/routeshift/routeshift/internal/childproc"
)

// startProcess starts etcd or kube-apiserver from binDir with its output
// in log (see childproc: a process group of its own, killed when
// routeshift dies).
func startProcess(binDir, name string, args []string, log io.Writer) (*childproc.Process, error) {
	return childproc.Start(exec.Command(filepath.Join(binDir, name), args...), childproc.Options{Log: log})
}

// stop stops p: SIGTERM, then SIGKILL to its group after timeout. Any
// exit within timeout is a clean stop; the error says the process had to
// be killed.
func stop(p *childproc.Process, timeout time.Duration) error {
	if err := p.Stop(timeout); errors.Is(err, childproc.ErrKilled) {
		return err
	}
	return nil
}
