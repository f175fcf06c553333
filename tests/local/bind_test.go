package local

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestLocalHAProxyCannotBind: a port another program takes after routeshift
// local checked it (here: while the control plane starts) stops the run
// with HAProxy's own error, naming the flag, instead of a router that never
// gets ready; nothing routeshift local started outlives it.
func TestLocalHAProxyCannotBind(t *testing.T) {
	binDir(t)
	bin, err := framework.BuildRouteshift(t)
	if err != nil {
		t.Fatal(err)
	}
	httpPort, _ := framework.FreePort()
	httpsPort, _ := framework.FreePort()
	run := start(t, bin, t.TempDir(), "--http-port", strconv.Itoa(httpPort), "--https-port", strconv.Itoa(httpsPort))

	var started []int
	timeout := time.After(5 * time.Minute)
	for done := false; !done; {
		select {
		case line, ok := <-run.lines:
			if !ok {
				done = true
				break
			}
			run.out.WriteString(line + "\n")
			switch {
			case strings.HasPrefix(line, "==> starting etcd"):
				l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(httpPort)))
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
			case strings.HasPrefix(line, "==> starting the router"):
				started = descendants(run.cmd.Process.Pid)
			}
		case <-timeout:
			_ = run.cmd.Process.Kill()
			t.Fatalf("routeshift local still runs after 5 minutes:\n%s", run.out)
		}
	}
	err = <-run.done
	if exit := (*exec.ExitError)(nil); !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	out := run.out.String()
	want := fmt.Sprintf("HAProxy cannot listen on port %d (--http-port): Binding [", httpPort)
	wantAlert := fmt.Sprintf("cannot bind socket (Address already in use) for [127.0.0.1:%d]: another program took the port after routeshift local checked it; stop it, or choose another port with --http-port", httpPort)
	if !strings.Contains(out, want) || !strings.Contains(out, wantAlert) || strings.Contains(out, "routeshift local is ready.") {
		t.Errorf("output:\n%s\nwant an error with %q and %q, and no ready line", out, want, wantAlert)
	}
	if len(started) < 3 {
		t.Errorf("expected etcd, kube-apiserver and kube-controller-manager below routeshift local when the router started; found pids %v", started)
	}
	for _, pid := range started {
		if alive(pid) {
			t.Errorf("process %d outlived routeshift local", pid)
		}
	}
}
