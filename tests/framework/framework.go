// Package framework starts a real Kubernetes control plane for routeshift's
// integration and end-to-end tests.
//
// The control plane is controller-runtime's envtest running the etcd and
// kube-apiserver binaries that `make tools` builds into the repository's bin/
// directory (ROUTESHIFT_BIN overrides that directory). The Route CRD from
// manifests/crd is installed before the tests run. Tests talk to the API
// server through a controller-runtime client or through the real kubectl
// binary, the way users do.
//
// It imports routecore, certs, internal/freeport and internal/hostaddr; it
// must not import the components it starts (webhook, ingress, router,
// haproxy, internal/cli): it builds and runs the routeshift binary, as a
// cluster does.
//
// The components the framework starts as their service accounts (the
// webhook or manager, routers) run with only the permissions manifests/
// grants; each fails its Stop, and so its test or the package, when its log
// shows the API server refusing that account (see Process.CheckForbidden).
//
// One control plane serves a whole test package:
//
//	func TestMain(m *testing.M) { os.Exit(framework.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		cp := framework.Cluster(t)
//		ns := cp.CreateNamespace(t, "something")
//		...
//	}
package framework

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/routeshift/routeshift/routecore"
)

// modulePathRoot is the module whose go.mod marks the repository root.
const modulePathRoot = "github.com/routeshift/routeshift"

// binDirEnv names the environment variable that overrides the directory
// holding etcd, kube-apiserver and kubectl (default: <repo>/bin).
const binDirEnv = "ROUTESHIFT_BIN"

// requiredBinaries are the programs a control plane needs in the bin directory.
var requiredBinaries = []string{"etcd", "kube-apiserver", "kubectl"}

// ControlPlane is a running etcd + kube-apiserver with the Route CRD installed.
type ControlPlane struct {
	// Config reaches the API server as an admin (system:masters).
	Config *rest.Config
	// Client is a controller-runtime client whose scheme knows client-go's
	// built-in types and Routes.
	Client client.Client
	// Scheme is the scheme of Client.
	Scheme *runtime.Scheme
	// Kubeconfig is the path of a kubeconfig file (mode 0600, removed when
	// the control plane stops) for the same admin user, for kubectl and any
	// other program under test.
	Kubeconfig string
	// RepoRoot is the repository root (the directory holding go.mod).
	RepoRoot string
	// BinDir holds the control-plane binaries and kubectl.
	BinDir string

	// Webhook is the running admission webhook when Options.Webhook is set.
	Webhook *Webhook

	env               *envtest.Environment
	tempDir           string
	controllerManager *Process
	stopOnce          sync.Once
	stopErr           error
}

// Options select what runs beside etcd and kube-apiserver.
type Options struct {
	// ControllerManager runs kube-controller-manager (garbage collection,
	// ClusterRole aggregation, namespace deletion).
	ControllerManager bool
	// Webhook runs `routeshift webhook` from the repository and registers
	// the manifests' webhook configurations with it.
	Webhook bool
	// Controller adds the Ingress-to-Route controller: `routeshift manager`
	// runs instead of `routeshift webhook`.
	Controller bool
	// ControllerArgs are more flags of `routeshift manager` (with
	// Controller), e.g. --adopt-class nginx.
	ControllerArgs []string
	// LogLevel of routeshift (default debug, which logs every decision).
	LogLevel string
}

// The package's control plane, set by Main and handed out by Cluster.
var (
	shared         *ControlPlane
	sharedStartErr error
)

// Main starts the package's control plane, runs the tests and stops the
// control plane; it returns the exit code for os.Exit. Call it from TestMain.
//
// When binaries are missing the tests still run, and Cluster fails them
// (CI=true) or skips them, with a message saying to run `make tools`. Any
// other start failure fails the package without running tests.
func Main(m *testing.M) int {
	return MainWith(m, Options{})
}

// MainWith is Main with more components running; see Options.
func MainWith(m *testing.M, opts Options) int {
	cp, err := start(opts)
	if err != nil {
		var missing *missingBinariesError
		if !errors.As(err, &missing) {
			fmt.Fprintf(os.Stderr, "starting the control plane: %v\n", err)
			return 1
		}
		sharedStartErr = err
		return m.Run()
	}
	shared = cp
	// envtest starts etcd and kube-apiserver in their own process groups,
	// so a Ctrl-C would leave them running: stop them first.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-signals; ok {
			fmt.Fprintln(os.Stderr, "interrupted: stopping the control plane")
			_ = cp.stop()
			os.Exit(1)
		}
	}()
	code := m.Run()
	signal.Stop(signals)
	close(signals)
	if err := cp.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the control plane: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Cluster returns the control plane Main started. If it could not start
// because binaries are missing, Cluster fails the test when CI=true and
// skips it otherwise.
func Cluster(t testing.TB) *ControlPlane {
	t.Helper()
	switch {
	case shared != nil:
		return shared
	case sharedStartErr == nil:
		t.Fatal("no control plane: call framework.Main from TestMain")
	case os.Getenv("CI") == "true":
		t.Fatal(sharedStartErr)
	default:
		t.Skip(sharedStartErr)
	}
	return nil
}

// missingBinariesError reports control-plane binaries that are not built yet.
type missingBinariesError struct {
	// Dir is the directory that was searched.
	Dir string
	// Names are the missing programs.
	Names []string
}

func (e *missingBinariesError) Error() string {
	return fmt.Sprintf("missing %s in %s: run `make tools` in the repository root (or set %s to a directory holding them)",
		strings.Join(e.Names, ", "), e.Dir, binDirEnv)
}

// start starts etcd and kube-apiserver from the bin directory, installs the
// CRDs in manifests/crd and waits until the API server serves them. The caller
// must stop the returned control plane. A *missingBinariesError means the
// binaries have not been built.
func start(opts Options) (*ControlPlane, error) {
	root, err := findRepoRoot()
	if err != nil {
		return nil, err
	}
	binDir := binDirOf(root)
	if err := checkBinaries(binDir); err != nil {
		return nil, err
	}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := routecore.AddToScheme(scheme); err != nil {
		return nil, err
	}

	env := &envtest.Environment{
		BinaryAssetsDirectory: binDir,
		CRDDirectoryPaths:     []string{filepath.Join(root, "manifests", "crd")},
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
		// A cold start of etcd + kube-apiserver on a small machine can
		// exceed envtest's 20 s default.
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// Pin the binaries: KUBEBUILDER_ASSETS or TEST_ASSET_* in the caller's
	// environment would otherwise take precedence over BinaryAssetsDirectory
	// and test a different Kubernetes version.
	env.ControlPlane.GetAPIServer().Path = filepath.Join(binDir, "kube-apiserver")
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(binDir, "etcd")}
	env.ControlPlane.KubectlPath = filepath.Join(binDir, "kubectl")

	cfg, err := env.Start()
	if err != nil {
		// Start may fail after some processes came up; stop what did.
		_ = env.Stop()
		return nil, err
	}
	cp := &ControlPlane{Config: cfg, Scheme: scheme, RepoRoot: root, BinDir: binDir, env: env}
	if err := cp.finishSetup(opts); err != nil {
		_ = cp.stop()
		return nil, err
	}
	return cp, nil
}

func (cp *ControlPlane) finishSetup(opts Options) error {
	c, err := client.New(cp.Config, client.Options{Scheme: cp.Scheme})
	if err != nil {
		return fmt.Errorf("creating client: %w", err)
	}
	cp.Client = c

	cp.tempDir, err = os.MkdirTemp("", "routeshift-test-")
	if err != nil {
		return err
	}
	cp.Kubeconfig = filepath.Join(cp.tempDir, "kubeconfig")
	// envtest.Environment.KubeConfig is the admin user's kubeconfig,
	// with the client certificate and the API server's CA embedded.
	if err := os.WriteFile(cp.Kubeconfig, cp.env.KubeConfig, 0o600); err != nil {
		return fmt.Errorf("writing kubeconfig: %w", err)
	}
	if opts.ControllerManager {
		if err := cp.startControllerManager(); err != nil {
			return err
		}
	}
	if opts.Webhook || opts.Controller {
		if cp.Webhook, err = cp.startWebhook(opts); err != nil {
			return err
		}
	}
	return nil
}

// stop stops kube-apiserver and etcd and removes the kubeconfig and
// kubectl's cache. Only the first call does anything.
func (cp *ControlPlane) stop() error {
	cp.stopOnce.Do(func() {
		if cp.Webhook != nil {
			cp.stopErr = errors.Join(cp.stopErr, cp.Webhook.Stop())
		}
		if cp.controllerManager != nil {
			_ = cp.controllerManager.Stop()
		}
		cp.stopErr = errors.Join(cp.stopErr, cp.env.Stop())
		if cp.tempDir != "" {
			cp.stopErr = errors.Join(cp.stopErr, os.RemoveAll(cp.tempDir))
		}
	})
	return cp.stopErr
}

// Kubectl runs bin/kubectl with the admin kubeconfig and args, and returns
// its output. err is non-nil when kubectl could not run or exited non-zero
// (an *exec.ExitError). It is safe to call from parallel tests.
func (cp *ControlPlane) Kubectl(t testing.TB, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return cp.KubectlStdin(t, "", args...)
}

// KubectlStdin is Kubectl with stdin.
func (cp *ControlPlane) KubectlStdin(t testing.TB, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stdout, stderr, err = cp.kubectlRun(ctx, stdin, args...)
	exit := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		exit = exitErr.ExitCode()
	} else if err != nil {
		exit = -1
	}
	t.Logf("kubectl %s (exit %d)", strings.Join(args, " "), exit)
	return stdout, stderr, err
}

// CreateNamespace creates a namespace with a name generated from prefix and
// deletes it when the test ends. It returns the name.
func (cp *ControlPlane) CreateNamespace(t testing.TB, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := cp.Client.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	t.Cleanup(func() {
		// Without kube-controller-manager's namespace controller the
		// namespace stays Terminating, which is harmless here.
		if err := cp.Client.Delete(context.Background(), ns); err != nil {
			t.Errorf("deleting namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

// findRepoRoot walks up from the working directory to the directory whose
// go.mod declares modulePathRoot.
func findRepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if modulePath(filepath.Join(dir, "go.mod")) == modulePathRoot {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("no go.mod of module %s in %s or above", modulePathRoot, wd)
		}
	}
}

// modulePath returns the module path declared in a go.mod file, or "" when
// the file cannot be read or has no module line.
func modulePath(goMod string) string {
	f, err := os.Open(goMod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`)
		}
	}
	return ""
}

// binDirOf is the directory holding the programs `make tools` builds: the
// environment's ROUTESHIFT_BIN, or root/bin.
func binDirOf(root string) string {
	if dir := os.Getenv(binDirEnv); dir != "" {
		return dir
	}
	return filepath.Join(root, "bin")
}

func checkBinaries(dir string) error {
	var missing []string
	for _, name := range requiredBinaries {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil || info.IsDir() || info.Mode().Perm()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return &missingBinariesError{Dir: dir, Names: missing}
	}
	return nil
}
