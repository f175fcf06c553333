package controlplane

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// repoRoot is the directory of go.mod above the package.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
	}
	t.Fatal("no go.mod above the package")
	return ""
}

// binDir is where `make tools` put etcd, kube-apiserver and kubectl
// ($ROUTESHIFT_BIN overrides it). Without them the test fails under
// CI=true and is skipped otherwise.
func binDir(t *testing.T) string {
	dir := os.Getenv("ROUTESHIFT_BIN")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "bin")
	}
	for _, b := range []string{"etcd", "kube-apiserver", "kubectl"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s: run make tools", err)
			}
			t.Skipf("%s: run make tools", err)
		}
	}
	return dir
}

// routeCRD is the repository's Route CRD.
func routeCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "manifests", "crd", "route.openshift.io_routes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

// TestStartStop: the real etcd and kube-apiserver start; kubectl with the
// kubeconfig is an admin and finds the CRD served; the keys are readable
// by this user alone; Stop ends both processes; a second start on the same
// data directory finds what the first stored, with new certificates.
func TestStartStop(t *testing.T) {
	bin, data := binDir(t), t.TempDir()
	var log bytes.Buffer
	opts := Options{BinDir: bin, DataDir: data, Log: &log, CRDs: []*apiextensionsv1.CustomResourceDefinition{routeCRD(t)},
		StartTimeout: 2 * time.Minute, StopTimeout: 30 * time.Second}
	ctx := context.Background()
	first := start(t, ctx, opts, &log)
	c, err := newClient(first.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}); err != nil {
		t.Fatal(err)
	}
	kubectl(t, bin, data, first, "get", "routes.route.openshift.io", "-A")
	if out := kubectl(t, bin, data, first, "auth", "can-i", "*", "*"); out != "yes\n" {
		t.Errorf("kubectl auth can-i '*' '*' = %q, want yes: the kubeconfig's user is not an admin", out)
	}
	checkModes(t, filepath.Join(data, "pki"))
	stopped(t, first)

	second := start(t, ctx, opts, &log)
	defer stopped(t, second)
	if bytes.Equal(first.Config.CAData, second.Config.CAData) {
		t.Error("the second start reused the first one's CA: certificates are made anew at every start")
	}
	c, err = newClient(second.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: "kept"}, &corev1.Namespace{}); err != nil {
		t.Errorf("the namespace the first run made: %v", err)
	}
}

func start(t *testing.T, ctx context.Context, opts Options, log *bytes.Buffer) *ControlPlane {
	t.Helper()
	cp, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return cp
}

// kubectl runs the real kubectl with cp's kubeconfig and returns its output.
func kubectl(t *testing.T, bin, dir string, cp *ControlPlane, args ...string) string {
	t.Helper()
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, cp.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "kubectl"), append([]string{"--kubeconfig", path, "--cache-dir", t.TempDir()}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || args[0] != "auth" {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
		}
	}
	return out.String()
}

// checkModes: the certificate directory is the user's alone, and so is
// every file in it.
func checkModes(t *testing.T, dir string) {
	t.Helper()
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("%s has mode %o, want 700", dir, st.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %o, want 600", e.Name(), info.Mode().Perm())
		}
	}
	if len(entries) == 0 {
		t.Errorf("%s is empty", dir)
	}
}

// stopped stops cp and checks that both processes are gone.
func stopped(t *testing.T, cp *ControlPlane) {
	t.Helper()
	pids := []int{cp.apiServer.Pid(), cp.etcd.Pid()}
	if err := cp.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("process %d still runs after Stop", pid)
		}
	}
}

// TestBinaryLinksNoEnvtest: the routeshift binary does not link
// controller-runtime's envtest, which makes /tmp/kubebuilder-envtest when
// it is loaded and so panics on a read-only root filesystem.
func TestBinaryLinksNoEnvtest(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	if !strings.Contains(string(out), "sigs.k8s.io/controller-runtime/pkg/client\n") {
		t.Fatalf("go list -deps . lists no controller-runtime client: the check reads the wrong package\n%s", out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "envtest") || strings.Contains(pkg, "controller-runtime/pkg/internal/testing") {
			t.Errorf("the routeshift binary links %s", pkg)
		}
	}
}
