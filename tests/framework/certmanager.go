package framework

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CertManagerVersion is the cert-manager release whose CRDs and controllers
// `make tools` builds (tests/tools/certmanager/go.mod pins the same).
const CertManagerVersion = "v1.21.2"

// The programs `make tools` builds from tests/tools/certmanager.
const (
	certManagerController = "cert-manager-controller"
	certManagerCAInjector = "cert-manager-cainjector"
	// CertManagerACMESolver is the binary of cert-manager's HTTP-01 solver
	// Pods (image quay.io/jetstack/cert-manager-acmesolver); it takes the
	// Pod's arguments --listen-port, --domain, --token and --key.
	CertManagerACMESolver = "cert-manager-acmesolver"
)

// CertManager is cert-manager running against a control plane: its CRDs,
// its controller (Issuers, Certificates, CertificateRequests with the CA,
// self-signed and ACME issuers, ACME Orders and Challenges, the
// certificate-shim for Ingresses) and its CA injector, both built from
// cert-manager's own packages by `make tools` and run as processes with the
// admin kubeconfig (cert-manager's own RBAC is not what these tests check).
type CertManager struct {
	// Controller and CAInjector are the two processes.
	Controller, CAInjector *Process
	// ClusterResourceNamespace holds the Secrets ClusterIssuers refer to.
	ClusterResourceNamespace string
	// MetricsPort serves the controller's Prometheus metrics on 127.0.0.1.
	MetricsPort int
}

// CertManagerOptions configure StartCertManager.
type CertManagerOptions struct {
	// ClusterResourceNamespace is created when missing (default
	// "cert-manager").
	ClusterResourceNamespace string
	// ControllerArgs are added to the controller's flags, which carry
	// cert-manager's names: --acme-http01-solver-nameservers=<Pebble.DNSServer>
	// makes the HTTP-01 self check resolve names as pebble does, --v=4 logs
	// every decision.
	ControllerArgs []string
	// ControllerEnv is added to the controller's environment. The HTTP-01
	// self check always fetches http://<domain>/.well-known/... on port 80
	// through http.ProxyFromEnvironment, so HTTP_PROXY=http://127.0.0.1:<port>
	// sends it to a router listening on that loopback port instead.
	ControllerEnv []string
	// CAInjectorArgs are added to the CA injector's flags.
	CAInjectorArgs []string
}

// running guards against two cert-managers on one control plane: both would
// act on every Certificate.
var running sync.Map // *ControlPlane -> struct{}

// StartCertManager installs cert-manager's CRDs on cp, starts its controller
// and CA injector, waits until both have synced their caches, and stops them
// when t ends (failing t unless they exit cleanly). Only one may run per
// control plane at a time. Without the binaries it fails t under CI=true and
// skips it otherwise.
func StartCertManager(t testing.TB, cp *ControlPlane, opts CertManagerOptions) *CertManager {
	t.Helper()
	cp.InstallCertManagerCRDs(t)
	RequireTools(t, cp.BinDir, certManagerController, certManagerCAInjector)
	if _, loaded := running.LoadOrStore(cp, struct{}{}); loaded {
		t.Fatal("cert-manager is already running on this control plane: start it once per test (or once per package) and share it")
	}
	t.Cleanup(func() { running.Delete(cp) })
	cm := &CertManager{ClusterResourceNamespace: opts.ClusterResourceNamespace}
	if cm.ClusterResourceNamespace == "" {
		cm.ClusterResourceNamespace = "cert-manager"
	}
	if err := cp.ensureNamespace(cm.ClusterResourceNamespace); err != nil {
		t.Fatal(err)
	}
	var err error
	if cm.Controller, err = cm.startController(t, cp, opts); err != nil {
		t.Fatal(err)
	}
	if cm.CAInjector, err = startCAInjector(t, cp, opts); err != nil {
		t.Fatal(err)
	}
	return cm
}

// certManagerCRDs is the directory `make tools` copies cert-manager's CRDs
// into, and a file only a complete copy has.
const (
	certManagerCRDs    = "cert-manager-crds-" + CertManagerVersion
	certManagerLastCRD = "acme.cert-manager.io_orders.yaml"
)

// InstallCertManagerCRDs applies cert-manager's CRDs from the bin directory
// (server-side: they exceed client-side apply's annotation) and waits until
// the API server serves them. Without them it fails t under CI=true and
// skips it otherwise.
func (cp *ControlPlane) InstallCertManagerCRDs(t testing.TB) {
	t.Helper()
	RequireTools(t, cp.BinDir, filepath.Join(certManagerCRDs, certManagerLastCRD))
	dir := cp.certManagerCRDDir(t)
	if out, err := cp.kubectl("apply", "--server-side", "--force-conflicts", "-f", dir); err != nil {
		t.Fatalf("installing cert-manager's CRDs from %s: %v\n%s", dir, err, out)
	}
	// kubectl wait fails at once, instead of waiting, while a new CRD has no
	// status.conditions yet: retry it until the deadline.
	EventuallyWithin(t, 2*time.Minute, "cert-manager's CRDs established", func() error {
		if out, err := cp.kubectl("wait", "--for=condition=Established", "--timeout=10s", "-f", dir); err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	})
}

// DeleteCertManagerCRDs deletes cert-manager's CRDs (and so every object
// of their kinds) from the API server.
func (cp *ControlPlane) DeleteCertManagerCRDs(t testing.TB) {
	t.Helper()
	if out, err := cp.kubectl("delete", "--ignore-not-found", "-f", cp.certManagerCRDDir(t)); err != nil {
		t.Logf("deleting cert-manager's CRDs: %v\n%s", err, out)
	}
}

// certManagerCRDDir is the directory of cert-manager's CRDs: bin/ holds a
// symbolic link to it, which kubectl would read as a file.
func (cp *ControlPlane) certManagerCRDDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(filepath.Join(cp.BinDir, certManagerCRDs))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func (cp *ControlPlane) ensureNamespace(name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := cp.Client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}

func (cm *CertManager) startController(t testing.TB, cp *ControlPlane, opts CertManagerOptions) (*Process, error) {
	healthz, err := FreePort()
	if err != nil {
		return nil, err
	}
	if cm.MetricsPort, err = FreePort(); err != nil {
		return nil, err
	}
	args := append([]string{
		"--kubeconfig=" + cp.Kubeconfig,
		"--leader-elect=false",
		"--cluster-resource-namespace=" + cm.ClusterResourceNamespace,
		"--healthz-listen-address=127.0.0.1:" + strconv.Itoa(healthz),
		"--metrics-listen-address=127.0.0.1:" + strconv.Itoa(cm.MetricsPort),
		"--v=2",
	}, opts.ControllerArgs...)
	return startReady(t, certManagerController, filepath.Join(cp.BinDir, certManagerController), args, opts.ControllerEnv, healthz)
}

func startCAInjector(t testing.TB, cp *ControlPlane, opts CertManagerOptions) (*Process, error) {
	healthz, err := FreePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--kubeconfig=" + cp.Kubeconfig,
		"--leader-elect=false",
		"--healthz-listen-address=127.0.0.1:" + strconv.Itoa(healthz),
		"--metrics-listen-address=0",
		"--v=2",
	}, opts.CAInjectorArgs...)
	return startReady(t, certManagerCAInjector, filepath.Join(cp.BinDir, certManagerCAInjector), args, nil, healthz)
}

// startReady starts a program with env added to the test's environment,
// waits until http://127.0.0.1:healthz/readyz answers 200, and stops it
// when t ends, logging its output when t failed.
func startReady(t testing.TB, name, path string, args, env []string, healthz int) (*Process, error) {
	p, err := startProcessEnv(name, path, env, args...)
	if err != nil {
		return nil, err
	}
	stopAtCleanup(t, p, false)
	// A cold start on a loaded 2-core machine lists every watched type first.
	url := fmt.Sprintf("http://127.0.0.1:%d/readyz", healthz)
	return p, WaitHTTP(context.Background(), url, 2*time.Minute, p)
}

// tailSize is how much of a process's output failure messages quote.
const tailSize = 64 << 10

// tail is the last tailSize bytes of a process's output, for failure
// messages.
func tail(out string) string {
	if len(out) > tailSize {
		return "(…)" + out[len(out)-tailSize:]
	}
	return out
}

// RequireTools fails t under CI=true, and skips it otherwise, unless every
// name exists in binDir: the programs (and cert-manager's CRD directory)
// `make tools` builds.
func RequireTools(t testing.TB, binDir string, names ...string) {
	t.Helper()
	var missing []string
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(binDir, name)); errors.Is(err, os.ErrNotExist) {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return
	}
	err := &missingBinariesError{Dir: binDir, Names: missing}
	if os.Getenv("CI") == "true" {
		t.Fatal(err)
	}
	t.Skip(err)
}
