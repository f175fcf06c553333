package router

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestClearRouteStatus: after a router stops for good, `routeshift
// clear-route-status --router NAME` removes its entries and only its
// entries; --dry-run changes nothing; naming a router that still runs
// warns that it will write its entries again.
func TestClearRouteStatus(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "clear")
	gone := cp.StartRouter(t, "gone")
	cp.StartRouter(t, "stays")
	create(t, cp, route(ns, "a", "a.example.com", nil), route(ns, "b", "b.example.com", nil))
	waitStatus(t, cp, ns, "a", "gone: True", "stays: True")
	waitStatus(t, cp, ns, "b", "gone: True", "stays: True")
	if err := gone.Stop(); err != nil {
		t.Fatal(err)
	}

	bin, err := cp.Routeshift()
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"clear-route-status", "--kubeconfig", cp.Kubeconfig}, args...)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("clear-route-status %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}

	out, errOut := run("--router", "gone", "-n", ns, "--dry-run")
	want := "route " + ns + "/a: would remove the entry of router gone\nroute " + ns + "/b: would remove the entry of router gone\n"
	if out != want || !strings.Contains(errOut, "2 routes would be cleared of router gone (dry run: nothing changed)") {
		t.Errorf("dry run printed\n%s%s\nwant\n%s", out, errOut, want)
	}
	waitStatus(t, cp, ns, "a", "gone: True", "stays: True")

	out, errOut = run("--router", "gone", "-n", ns)
	if out != strings.ReplaceAll(want, "would remove", "removed") || !strings.Contains(errOut, "2 routes cleared of router gone") {
		t.Errorf("clear printed\n%s%s", out, errOut)
	}
	if strings.Contains(errOut, "still runs") {
		t.Errorf("warned about a stopped router:\n%s", errOut)
	}
	for _, name := range []string{"a", "b"} {
		r := waitStatus(t, cp, ns, name, "stays: True")
		if !slices.ContainsFunc(r.Status.Ingress, func(in routecore.RouteIngress) bool { return in.Host == name+".example.com" }) {
			t.Errorf("route %s lost the entry of router stays: %+v", name, r.Status.Ingress)
		}
	}

	// The router that still runs: a warning, and nothing to do for a
	// router that has no entries.
	_, errOut = run("--router", "stays", "-n", ns, "--dry-run", "a")
	if !strings.Contains(errOut, "warning: router stays still runs") {
		t.Errorf("no warning about the running router:\n%s", errOut)
	}
	if _, errOut = run("--router", "gone", "-n", ns); !strings.Contains(errOut, "0 routes cleared of router gone") {
		t.Errorf("second clear printed:\n%s", errOut)
	}
}
