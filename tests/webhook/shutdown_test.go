package webhook

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/routeshift/routeshift/tests/framework"
)

// The lines routeshift logs when its shutdown delay starts and ends.
const (
	delayStarted = "stopping: /readyz fails and the webhooks are served for --shutdown-delay"
	delayOver    = "--shutdown-delay has passed: shutting down"
	delayCut     = "signalled again: shutting down without waiting for the rest of --shutdown-delay"
)

// TestShutdownDelay: after SIGTERM with a --shutdown-delay, `routeshift
// webhook` and `routeshift manager` fail /readyz and still admit Route
// writes through the API server, on the connection the API server kept
// and on new ones; a second SIGTERM then stops the process at once, with
// exit status 0, and the manager hands its leader Lease over. The delay is
// an hour, so that nothing here depends on how fast the machine is.
func TestShutdownDelay(t *testing.T) {
	for _, c := range []struct {
		command string
		// shared: the package's control plane, whose webhook the other
		// tests need back; else one of the test's own.
		shared bool
	}{
		{command: "webhook", shared: true},
		{command: "manager", shared: false},
	} {
		t.Run(c.command, func(t *testing.T) {
			var cp *framework.ControlPlane
			if c.shared {
				cp = framework.Cluster(t)
			} else {
				cp = framework.NewCluster(t, framework.Options{Webhook: true, Controller: true})
			}
			p := startWithDelay(t, cp, "1h", c.shared)
			ns := cp.CreateNamespace(t, "shutdown")
			// A write before the signal leaves the API server a connection
			// to the webhook to reuse.
			admitted(t, cp, ns, "before")
			if c.command == "manager" {
				framework.Eventually(t, "the manager leads", func() error {
					holder, err := leaseHolder(cp)
					if err == nil && holder == "" {
						err = fmt.Errorf("the Lease %s has no holder", leaderLease)
					}
					return err
				})
			}

			if err := p.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			waitLogged(t, p, delayStarted)
			url := fmt.Sprintf("http://127.0.0.1:%d/readyz", cp.Webhook.ProbePort)
			if code := status(t, url); code == http.StatusOK {
				t.Errorf("/readyz after SIGTERM: %d, want it to fail while the process stops", code)
			}
			// The first answer after the signal closes the connection the
			// API server kept, so the later calls come on new ones.
			for _, name := range []string{"after-1", "after-2", "after-3"} {
				admitted(t, cp, ns, name)
			}
			if exited, err := p.Exited(); exited {
				t.Fatalf("exited (%v) before the delay was over:\n%s", err, p.Output())
			}

			if err := p.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			waitExit(t, p)
			checkLogOrder(t, p.Output(), delayStarted, delayCut)
			if strings.Contains(p.Output(), delayOver) {
				t.Errorf("the log says the delay passed, but a second signal cut it short:\n%s", p.Output())
			}
			if c.command == "manager" {
				if holder, err := leaseHolder(cp); err != nil || holder != "" {
					t.Errorf("the Lease %s is still held by %q (%v) after the manager stopped: it must release it", leaderLease, holder, err)
				}
			}
		})
	}
}

// TestShutdownDelayPasses: once --shutdown-delay has passed after SIGTERM,
// the webhook shuts down by itself with exit status 0, and its log says
// so after saying that the delay started.
func TestShutdownDelayPasses(t *testing.T) {
	cp := framework.Cluster(t)
	p := startWithDelay(t, cp, "1s", true)
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, p)
	checkLogOrder(t, p.Output(), delayStarted, delayOver)
}

// startWithDelay restarts the control plane's webhook with
// --shutdown-delay=delay and returns its process; the test's end kills
// that process if it still runs and, with restart, starts the webhook as
// it was.
func startWithDelay(t *testing.T, cp *framework.ControlPlane, delay string, restart bool) *framework.Process {
	t.Helper()
	if err := cp.Webhook.Stop(); err != nil {
		t.Fatalf("stopping the webhook: %v\n%s", err, cp.Webhook.Output())
	}
	p, err := cp.Webhook.StartWith("--shutdown-delay=" + delay)
	t.Cleanup(func() {
		if p != nil {
			p.Kill()
			<-p.Done()
		}
		if !restart {
			return
		}
		if err := cp.Webhook.Start(); err != nil {
			t.Fatalf("restarting the webhook: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// admitted creates a hostless Route through kubectl and fails t unless
// the webhook admitted it with a generated host.
func admitted(t *testing.T, cp *framework.ControlPlane, ns, name string) {
	t.Helper()
	out, errOut, ok := apply(t, cp, routeYAML(name, ns, "spec:\n  to: {name: web}\n"), "-o", "jsonpath={.spec.host}")
	if want := name + "-" + ns + ".router.default.svc.cluster.local"; !ok || out != want {
		t.Errorf("creating Route %s: ok=%v stdout=%q stderr=%q, want it admitted with host %q", name, ok, out, errOut, want)
	}
}

// waitLogged waits until the process has logged a line containing msg.
func waitLogged(t *testing.T, p *framework.Process, msg string) {
	t.Helper()
	framework.Eventually(t, "the log says "+msg, func() error {
		if exited, err := p.Exited(); exited {
			return fmt.Errorf("exited (%v):\n%s", err, p.Output())
		}
		if !strings.Contains(p.Output(), msg) {
			return fmt.Errorf("not logged yet:\n%s", p.Output())
		}
		return nil
	})
}

// waitExit waits for the process to exit and fails t unless its exit
// status is 0.
func waitExit(t *testing.T, p *framework.Process) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(2 * time.Minute):
		t.Fatalf("still running 2 minutes after it was told to stop:\n%s", p.Output())
	}
	if _, err := p.Exited(); err != nil {
		t.Errorf("exited with %v, want exit status 0:\n%s", err, p.Output())
	}
}

// checkLogOrder fails t unless output has a line with each of msgs, in
// that order.
func checkLogOrder(t *testing.T, output string, msgs ...string) {
	t.Helper()
	at := -1
	for k, msg := range msgs {
		i := strings.Index(output, msg)
		switch {
		case i < 0:
			t.Errorf("the log lacks %q:\n%s", msg, output)
			return
		case i < at:
			t.Errorf("the log has %q before %q:\n%s", msg, msgs[k-1], output)
			return
		}
		at = i
	}
}

// status is the status code of a GET of url.
func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// leaderLease is the manager's leader election Lease (--leader-election-namespace routeshift).
const leaderLease = "routeshift/routeshift-ingress-to-route"

// leaseHolder is the holder of leaderLease, "" when there is none.
func leaseHolder(cp *framework.ControlPlane) (string, error) {
	var lease coordinationv1.Lease
	if err := cp.Client.Get(context.Background(), key("routeshift", "routeshift-ingress-to-route"), &lease); err != nil {
		return "", err
	}
	if lease.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *lease.Spec.HolderIdentity, nil
}
