// Package local tests `routeshift local` the way a newcomer uses it: start
// it, run the commands it prints, stop it with Ctrl-C, start it again.
package local

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/routeshift/routeshift/tests/framework"
)

// localRun is a running `routeshift local`.
type localRun struct {
	cmd   *exec.Cmd
	lines chan string
	out   *strings.Builder
	done  chan error
}

func start(t *testing.T, bin, dataDir string, args ...string) *localRun {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"local", "--data-dir", dataDir}, args...)...)
	cmd.Env = append(os.Environ(), "ROUTESHIFT_BIN="+filepath.Dir(binDir(t)))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &localRun{cmd: cmd, lines: make(chan string, 1000), out: &strings.Builder{}, done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
		r.done <- cmd.Wait()
	}()
	return r
}

// untilReady reads output until the ready line and returns what follows
// it up to "Press Ctrl-C".
func (r *localRun) untilReady(t *testing.T) []string {
	t.Helper()
	timeout := time.After(5 * time.Minute)
	ready := false
	var after []string
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				t.Fatalf("routeshift local exited before it was ready:\n%s", r.out)
			}
			r.out.WriteString(line + "\n")
			switch {
			case line == "routeshift local is ready.":
				ready = true
			case ready && strings.HasPrefix(line, "Press Ctrl-C"):
				return after
			case ready && strings.HasPrefix(line, "  "):
				after = append(after, strings.TrimSpace(line))
			}
		case <-timeout:
			t.Fatalf("routeshift local not ready after 5 minutes:\n%s", r.out)
		}
	}
}

// descendants lists the process tree under pid.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 {
			ppid, _ := strconv.Atoi(fields[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			out = append(out, c)
			walk(c)
		}
	}
	walk(pid)
	return out
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

func binDir(t *testing.T) string {
	t.Helper()
	wd, _ := os.Getwd()
	for dir := wd; dir != "/"; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "bin", "kube-apiserver")); err == nil {
			return filepath.Join(dir, "bin", "kube-apiserver")
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("bin/kube-apiserver not found: run make tools")
	}
	t.Skip("bin/kube-apiserver not found: run make tools")
	return ""
}

func sh(t *testing.T, env []string, line string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestLocal: the newcomer's path through `routeshift local`.
func TestLocal(t *testing.T) {
	binDir(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is needed to run the printed commands: apt-get install -y curl")
	}
	bin, err := framework.BuildRouteshift(t)
	if err != nil {
		t.Fatal(err)
	}
	// A data directory of another version, which --clean replaces.
	dataDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dataDir, "VERSION"), []byte("routeshift-local/0 etcd/3.5 kubernetes/1.30\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dataDir, "etcd"), 0o700); err != nil {
		t.Fatal(err)
	}
	httpPort, _ := framework.FreePort()
	httpsPort, _ := framework.FreePort()
	ports := []string{"--http-port", fmt.Sprint(httpPort), "--https-port", fmt.Sprint(httpsPort)}

	run := start(t, bin, dataDir, append([]string{"--clean"}, ports...)...)
	commands := run.untilReady(t)
	schemaServed(t, dataDir)
	var env []string
	results := map[string]string{}
	for _, line := range commands {
		if strings.HasPrefix(line, "export ") {
			env = append(env, strings.TrimPrefix(line, "export "))
			continue
		}
		if strings.HasPrefix(line, "data and logs:") {
			continue
		}
		out, err := sh(t, env, line)
		results[line] = out
		t.Logf("$ %s\n%s(err: %v)", line, out, err)
	}
	check := func(prefix, want string) {
		t.Helper()
		for line, out := range results {
			if strings.Contains(line, prefix) {
				if !strings.Contains(out, want) {
					t.Errorf("%s\nprinted %q, want it to contain %q", line, out, want)
				}
				return
			}
		}
		t.Errorf("no printed command contains %q; printed:\n%s", prefix, strings.Join(commands, "\n"))
	}
	check("get routes -A", "demo.routeshift.localhost")
	check("get routes -A", "True")
	check(fmt.Sprintf("curl http://demo.routeshift.localhost:%d/", httpPort), "Hello from the routeshift demo: demo.routeshift.localhost")
	check(fmt.Sprintf("curl -k https://hello.routeshift.localhost:%d/", httpsPort), "Hello from the routeshift demo: hello.routeshift.localhost")
	// The edge Route redirects plain HTTP to the local HTTPS port, and the
	// redirect works.
	if out, err := sh(t, env, fmt.Sprintf("curl -sSkL http://hello.routeshift.localhost:%d/redirected", httpPort)); err != nil ||
		!strings.Contains(out, fmt.Sprintf("Hello from the routeshift demo: hello.routeshift.localhost:%d/redirected", httpsPort)) {
		t.Errorf("following the redirect of http://hello.routeshift.localhost:%d/: %v\n%s", httpPort, err, out)
	}
	check("apply -f -", `The Route "too-heavy" is invalid: spec.to.weight: Invalid value: 300: weight must be an integer between 0 and 256`)

	// A new Ingress of one's own is served within seconds.
	ingress := `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"mine","namespace":"demo"},"spec":{"rules":[{"host":"mine.routeshift.localhost","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"demo","port":{"name":"http"}}}}]}}]}}`
	kubectl := filepath.Join(filepath.Dir(binDir(t)), "kubectl")
	if out, err := sh(t, env, fmt.Sprintf("echo '%s' | %s apply -f -", ingress, kubectl)); err != nil {
		t.Fatalf("applying an Ingress: %v\n%s", err, out)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, _ := sh(t, env, fmt.Sprintf("curl -s http://mine.routeshift.localhost:%d/hello", httpPort))
		if strings.Contains(out, "Hello from the routeshift demo: mine.routeshift.localhost") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new Ingress's host is not served after 60s: %q", out)
		}
		time.Sleep(500 * time.Millisecond)
	}

	// Ctrl-C stops every process it started.
	run.interrupt(t, 1)

	// A second start reuses the data directory: the Ingress made above is
	// still there and served.
	again := start(t, bin, dataDir, ports...)
	again.untilReady(t)
	out, err := sh(t, env, fmt.Sprintf("curl -s http://mine.routeshift.localhost:%d/", httpPort))
	if err != nil || !strings.Contains(out, "mine.routeshift.localhost") {
		t.Errorf("after a restart the Ingress from the first run is not served: %q %v", out, err)
	}
	// An impatient second Ctrl-C during the shutdown leaves nothing behind
	// either.
	again.interrupt(t, 2)
}

// schemaServed checks, right after the ready line, that the API server
// publishes the Route's OpenAPI schema and that kubectl apply with strict
// validation (which reads it) creates a Route: the first kubectl apply of a
// newcomer must not fail with "failed to download openapi".
func schemaServed(t *testing.T, dataDir string) {
	t.Helper()
	kubectl := func(stdin string, args ...string) (string, error) {
		flags := []string{"--kubeconfig", filepath.Join(dataDir, "kubeconfig"), "--cache-dir", t.TempDir()}
		cmd := exec.Command(filepath.Join(filepath.Dir(binDir(t)), "kubectl"), append(flags, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, path := range []string{"/openapi/v3/apis/route.openshift.io/v1", "/openapi/v2"} {
		if out, err := kubectl("", "get", "--raw", path); err != nil || !strings.Contains(out, `"io.openshift.route.v1.Route"`) {
			t.Errorf("kubectl get --raw %s: %v; the Route's schema io.openshift.route.v1.Route is not in it (%d bytes)", path, err, len(out))
		}
	}
	route := `{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"first-apply","namespace":"demo"},"spec":{"host":"first.routeshift.localhost","to":{"name":"demo"}}}`
	if out, err := kubectl(route, "apply", "--validate=strict", "-f", "-"); err != nil || !strings.Contains(out, "route.route.openshift.io/first-apply ") {
		t.Errorf("kubectl apply --validate=strict of a Route right after ready: %v\n%s", err, out)
	}
}

// interrupt sends SIGINT times times (as Ctrl-C pressed again during the
// shutdown), then checks that routeshift local exits with status 0 and
// that none of the processes it started outlives it.
func (r *localRun) interrupt(t *testing.T, times int) {
	t.Helper()
	started := descendants(r.cmd.Process.Pid)
	if len(started) < 4 {
		t.Errorf("expected etcd, kube-apiserver, kube-controller-manager and HAProxy below routeshift local; found pids %v", started)
	}
	for i := range times {
		if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if i < times-1 {
			time.Sleep(200 * time.Millisecond)
		}
	}
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("routeshift local exited with %v after %d SIGINT", err, times)
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("routeshift local did not stop within 90s of SIGINT")
	}
	for _, pid := range started {
		if alive(pid) {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			t.Errorf("process %d (%s) outlived routeshift local", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
}
