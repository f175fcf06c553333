package framework

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/routeshift/routeshift/internal/childproc"
	"github.com/routeshift/routeshift/internal/freeport"
)

// Process is a program the tests started: kube-controller-manager, or
// routeshift itself. Its output is kept for failure messages and for
// CheckForbidden.
type Process struct {
	name string
	// user is the user the process reaches the API server as when its
	// --kubeconfig impersonates one (see KubeconfigAs); "" otherwise.
	user string
	proc *childproc.Process
	out  *syncBuffer
}

// syncBuffer is a bytes.Buffer safe for the process's two output streams.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startProcess runs path with args and returns once it has started. A
// process whose --kubeconfig impersonates a user is checked by Stop for
// requests the API server refused that user.
func startProcess(name, path string, args ...string) (*Process, error) {
	return startProcessEnv(name, path, nil, args...)
}

// startProcessEnv is startProcess with env added to the test's environment.
// The process runs in a group of its own and is killed when the test
// binary dies (see childproc).
func startProcessEnv(name, path string, env []string, args ...string) (*Process, error) {
	user, err := impersonatedUser(args)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	cmd := exec.Command(path, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	return startCommand(name, user, cmd)
}

// startCommand starts cmd as the process name, which runs as user.
func startCommand(name, user string, cmd *exec.Cmd) (*Process, error) {
	p := &Process{name: name, user: user, out: &syncBuffer{}}
	var err error
	// Errors quote as much of the output as tail does; Output has all of it.
	if p.proc, err = childproc.Start(cmd, childproc.Options{Name: name, Log: p.out, Tail: tailSize}); err != nil {
		return nil, err
	}
	return p, nil
}

// Output is everything the process printed so far.
func (p *Process) Output() string { return p.out.String() }

// Exited reports whether the process has ended, and how.
func (p *Process) Exited() (bool, error) { return p.proc.Exited() }

// Signal sends sig to the process.
func (p *Process) Signal(sig os.Signal) error { return p.proc.Signal(sig) }

// Done is closed when the process has ended.
func (p *Process) Done() <-chan struct{} { return p.proc.Done() }

// Kill kills the process's group at once, as SIGKILL ends a container.
func (p *Process) Kill() { p.proc.Kill() }

// Stop sends SIGTERM to the process group, waits up to 20 s for a graceful
// exit, then kills the group. It returns the exit error of a graceful stop
// (nil for exit status 0), joined with CheckForbidden's error: a component
// the API server refused in its normal work lacks a permission the
// manifests must grant.
func (p *Process) Stop() error {
	return errors.Join(p.proc.Stop(20*time.Second), p.CheckForbidden())
}

// CheckForbidden returns an error listing the lines of the process's output
// in which the API server refused a request of the process's own user, or
// nil when there are none or the process does not impersonate a user.
//
// A refusal is recognised by the API server's authorization message, which
// names the user it refused: `... is forbidden: User "<user>" cannot list
// resource ...` (and `cannot get path` for non-resource URLs), as client-go
// and controller-runtime log it, possibly with its quotes escaped; and by
// client-go's message for a 403 without a status. Refusals the component
// reports about other users (an admission denial of a Route, the router's
// /metrics answering 403, a webhook's permission check of the requester)
// name someone else or no user and do not count.
func (p *Process) CheckForbidden() error {
	if p.user == "" {
		return nil
	}
	lines := ForbiddenLines(p.Output(), p.user)
	if len(lines) == 0 {
		return nil
	}
	const shown = 10
	total := len(lines)
	if total > shown {
		lines = append(lines[:shown], fmt.Sprintf("(and %d more)", total-shown))
	}
	return fmt.Errorf("%s, running as %s, was refused by the API server: the manifests' RBAC for it lacks a permission its work needs; log lines reporting it (%d):\n%s",
		p.name, p.user, total, strings.Join(lines, "\n"))
}

// ForbiddenLines returns the lines of output that report a request of user
// refused by the API server's authorization (see CheckForbidden).
func ForbiddenLines(output, user string) []string {
	refused := regexp.MustCompile(`User (\\)*"` + regexp.QuoteMeta(user) + `(\\)*" cannot |the server does not allow access to the requested resource`)
	var lines []string
	for line := range strings.Lines(output) {
		if refused.MatchString(line) {
			lines = append(lines, strings.TrimRight(line, "\n"))
		}
	}
	return lines
}

// impersonatedUser returns the user the kubeconfig named by args'
// --kubeconfig impersonates, or "" when there is none.
func impersonatedUser(args []string) (string, error) {
	for i, a := range args {
		path, ok := strings.CutPrefix(a, "--kubeconfig=")
		if a == "--kubeconfig" && i+1 < len(args) {
			path, ok = args[i+1], true
		}
		if !ok {
			continue
		}
		cfg, err := clientcmd.LoadFromFile(path)
		if err != nil {
			return "", err
		}
		if ctx, found := cfg.Contexts[cfg.CurrentContext]; found {
			if auth, found := cfg.AuthInfos[ctx.AuthInfo]; found {
				return auth.Impersonate, nil
			}
		}
		return "", nil
	}
	return "", nil
}

// startControllerManager runs kube-controller-manager with the controllers
// the tests rely on: garbage collection of owned objects, ClusterRole
// aggregation (the custom-host role joins edit and admin) and namespace
// deletion.
func (cp *ControlPlane) startControllerManager() error {
	p, err := startProcess("kube-controller-manager", filepath.Join(cp.BinDir, "kube-controller-manager"),
		"--kubeconfig", cp.Kubeconfig,
		"--secure-port=0",
		"--leader-elect=false",
		"--use-service-account-credentials=false",
		"--controllers=garbage-collector-controller,clusterrole-aggregation-controller,namespace-controller",
	)
	if err != nil {
		return err
	}
	cp.controllerManager = p
	return nil
}

// routeshiftBinary builds bin/routeshift from the repository once per test
// binary, so tests run the program users run.
var (
	buildOnce    sync.Once
	builtBinary  string
	buildFailure error
)

// Routeshift returns the path of a routeshift binary built from the
// repository for this test run.
func (cp *ControlPlane) Routeshift() (string, error) {
	return buildRouteshift(cp.tempDir, cp.RepoRoot)
}

// BuildRouteshift builds routeshift from the repository into a temporary
// directory of t, for tests without a control plane of their own. Each
// call builds its own binary (Go's build cache makes the second one a
// link): a binary shared between tests would vanish with the temporary
// directory of the test that built it.
func BuildRouteshift(t testing.TB) (string, error) {
	root, err := findRepoRoot()
	if err != nil {
		return "", err
	}
	return goBuildRouteshift(t.TempDir(), root)
}

// buildRouteshift builds routeshift once per test binary into dir, which
// must live as long as the process (the control plane's directory).
func buildRouteshift(dir, repoRoot string) (string, error) {
	buildOnce.Do(func() { builtBinary, buildFailure = goBuildRouteshift(dir, repoRoot) })
	return builtBinary, buildFailure
}

func goBuildRouteshift(dir, repoRoot string) (string, error) {
	out := filepath.Join(dir, "routeshift")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = repoRoot
	if output, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building routeshift: %v\n%s", err, output)
	}
	return out, nil
}

// kubectlRun runs bin/kubectl as the admin with stdin and returns its
// standard output and standard error apart. Every kubectl helper runs it.
func (cp *ControlPlane) kubectlRun(ctx context.Context, stdin string, args ...string) (stdout, stderr string, err error) {
	// A discovery cache of its own: ~/.kube/cache is keyed by host:port,
	// and a port reused from an earlier run would bring stale API groups.
	flags := []string{"--kubeconfig", cp.Kubeconfig, "--cache-dir", filepath.Join(cp.tempDir, "kubectl-cache")}
	cmd := exec.CommandContext(ctx, filepath.Join(cp.BinDir, "kubectl"), append(flags, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// kubectl runs bin/kubectl as the admin, for setup outside a test, and
// returns its output and error output together.
func (cp *ControlPlane) kubectl(args ...string) (string, error) {
	out, errOut, err := cp.kubectlRun(context.Background(), "", args...)
	return out + errOut, err
}

// kubectlStdin is kubectl with stdin, returning standard output alone;
// standard error goes into err.
func (cp *ControlPlane) kubectlStdin(stdin string, args ...string) (string, error) {
	out, errOut, err := cp.kubectlRun(context.Background(), stdin, args...)
	if err != nil {
		err = fmt.Errorf("%w: %s", err, strings.TrimSpace(errOut))
	}
	return out, err
}

// KubeconfigAs writes a kubeconfig that reaches the API server as the admin
// impersonating user and groups, so that a program under test has exactly
// that user's permissions.
func (cp *ControlPlane) KubeconfigAs(user string, groups ...string) (string, error) {
	cfg, err := clientcmd.Load(cp.env.KubeConfig)
	if err != nil {
		return "", err
	}
	for _, auth := range cfg.AuthInfos {
		auth.Impersonate, auth.ImpersonateGroups = user, groups
	}
	path := filepath.Join(cp.tempDir, "kubeconfig-"+strings.NewReplacer(":", "-", "/", "-").Replace(user))
	return path, clientcmd.WriteToFile(*cfg, path)
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) { return freeport.Get() }

// WaitHTTP polls url until it answers 200 or timeout passes; p, when not
// nil, is watched for an early exit.
func WaitHTTP(ctx context.Context, url string, timeout time.Duration, p *Process) error {
	return waitHTTPClient(ctx, http.DefaultClient, url, timeout, p)
}

// waitHTTPClient is WaitHTTP with client making the requests.
func waitHTTPClient(ctx context.Context, client *http.Client, url string, timeout time.Duration, p *Process) error {
	if p != nil {
		return p.proc.WaitHealthy(ctx, client, url, timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = errors.New(resp.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready after %s: %v", url, timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Eventually retries check every 100 ms until it returns nil, and fails
// the test with what and check's last error after 30 s.
func Eventually(t testing.TB, what string, check func() error) {
	t.Helper()
	EventuallyWithin(t, 30*time.Second, what, check)
}

// EventuallyWithin is Eventually with a deadline of timeout.
func EventuallyWithin(t testing.TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %v: %v", what, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
