package install

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/routeshift/routeshift/tests/framework"
)

// variant is one way to install routeshift: its objects, rendered.
type variant struct {
	Name   string
	Render func() ([]*unstructured.Unstructured, error)
}

func kustomizeVariant(overlay string) variant {
	return variant{Name: "kustomize/" + overlay, Render: func() ([]*unstructured.Unstructured, error) {
		return renderKustomization(filepath.Join(repoRoot(), "manifests", "overlays", overlay))
	}}
}

func chartVariant(name string, values map[string]any) variant {
	return variant{Name: "helm/" + name, Render: func() ([]*unstructured.Unstructured, error) {
		return renderChart(filepath.Join(repoRoot(), "charts", "routeshift"), "routeshift", "routeshift", values)
	}}
}

// TestInstall installs each variant on a control plane of its own and
// checks that it works: every container starts as the kubelet would run
// it and answers its probes, the webhook defaults and refuses Routes, the
// controller makes a Route of an Ingress, and the router serves Routes
// over HTTP and HTTPS. A variant with cert-manager objects runs the real
// cert-manager (controller and CA injector), which issues the webhook's
// serving certificate and puts its CA into the webhook configurations.
func TestInstall(t *testing.T) {
	variants := []variant{
		kustomizeVariant("self-signed"),
		kustomizeVariant("cert-manager"),
		kustomizeVariant("host-network"),
		chartVariant("default", chartValues["default"]),
		chartVariant("cert-manager", chartValues["cert-manager"]),
		chartVariant("host-network+extras", chartValues["host-network+extras"]),
	}
	for _, v := range variants {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			inst := installVariant(t, v)
			t.Run("probes", inst.checkProbes)
			if inst.certManager {
				t.Run("cert-manager", inst.checkCertManager)
			}
			t.Run("admission", inst.checkAdmission)
			t.Run("ingress-and-traffic", inst.checkIngressAndTraffic)
			t.Run("metrics", inst.checkMetrics)
			t.Run("drain", inst.checkDrain) // stops the router: last
		})
	}
}

// installation is a variant installed on its control plane, its pods
// running.
type installation struct {
	cp   *framework.ControlPlane
	objs []*unstructured.Unstructured
	// pods by workload name.
	pods map[string]*runningPod
	// certManager is whether the install uses cert-manager (which then
	// runs beside it).
	certManager bool
}

// runningPod is a workload's container running as its pod would.
type runningPod struct {
	*framework.Process
	Workload *workload
	Ports    movedPorts
}

// installVariant renders v, makes the substitutions of substitute.go,
// applies the objects and starts every workload's container; it returns
// once each is ready.
func installVariant(t *testing.T, v variant) *installation {
	objs, err := v.Render()
	if err != nil {
		t.Fatal(err)
	}
	workloads, ports, err := substitute(objs)
	if err != nil {
		t.Fatal(err)
	}
	cp := framework.NewCluster(t, framework.Options{})
	inst := &installation{cp: cp, objs: objs, pods: map[string]*runningPod{}, certManager: usesCertManager(objs)}
	if inst.certManager {
		framework.StartCertManager(t, cp, framework.CertManagerOptions{})
	}
	if usesPromOperator(objs) {
		installPromOperatorCRDs(t, cp)
	}
	inst.apply(t)
	img, binary := imageAndBinary(t)
	for _, w := range workloads {
		inst.pods[w.Name] = inst.start(t, w, ports[w.Name], img, binary)
	}
	for _, p := range inst.pods {
		inst.waitReady(t, p)
	}
	if inst.certManager {
		inst.waitCABundles(t)
	}
	return inst
}

// substitute makes the substitutions of substitute.go on objs and returns
// the workloads (as changed) and where their ports went.
func substitute(objs []*unstructured.Unstructured) ([]*workload, map[string]movedPorts, error) {
	if err := webhookCertificateIP(objs); err != nil {
		return nil, nil, err
	}
	var workloads []*workload
	ports := map[string]movedPorts{}
	for _, o := range objs {
		if !workloadKinds[o.GetKind()] {
			continue
		}
		w, err := readWorkload(o, func(tmpl *corev1.PodTemplateSpec) error {
			if len(tmpl.Spec.Containers) != 1 {
				return fmt.Errorf("want one container")
			}
			var err error
			ports[o.GetName()], err = movePorts(&tmpl.Spec.Containers[0])
			return err
		})
		if err != nil {
			return nil, nil, err
		}
		workloads = append(workloads, w)
	}
	if len(workloads) == 0 {
		return nil, nil, fmt.Errorf("no Deployment or DaemonSet among the rendered objects")
	}
	return workloads, ports, webhookURLs(objs, ports)
}

// apply creates the objects as the admin with kubectl's server-side
// apply: the Namespace first (a chart installs into an existing one). It
// takes over the Route CRD, which the framework installs from
// manifests/crd before any test runs.
func (inst *installation) apply(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "routeshift"}}
	if err := inst.cp.Client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	data, err := encodeObjects(inst.objs)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "install.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := inst.cp.Kubectl(t, "apply", "--server-side", "--force-conflicts", "--field-manager=routeshift-install-test", "-f", file); err != nil {
		t.Fatalf("applying the install: %v\n%s\n%s", err, out, errOut)
	}
}

// start runs the workload's container as its first pod.
func (inst *installation) start(t *testing.T, w *workload, ports movedPorts, img image, binary string) *runningPod {
	p, err := newPod(w)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Spec.Containers[0]
	uid, gid, groups, err := identity(p, img)
	if err != nil {
		t.Fatal(err)
	}
	dir := privateDir(t)
	root, err := newRootfs(dir, binary, img)
	if err != nil {
		t.Fatal(err)
	}
	vm := &volumeMaker{Client: kubernetes.NewForConfigOrDie(inst.cp.Config), CA: inst.cp.Config.CAData, Dir: filepath.Join(dir, "volumes")}
	mounts, err := vm.volumeMounts(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mounts {
		if err := root.mountPoint(m.Target); err != nil {
			t.Fatal(err)
		}
	}
	host, port := apiServer(t, inst.cp)
	env, err := containerEnv(p, host, port)
	if err != nil {
		t.Fatal(err)
	}
	cmd := root.command(process{Argv: argv(c, img), Env: env, UID: uid, GID: gid, Groups: groups,
		Bounding: boundingSet(c), NoNewPrivs: noNewPrivs(c), ReadOnly: readOnlyRoot(c), Hostname: p.Name, Mounts: mounts})
	user := fmt.Sprintf("system:serviceaccount:%s:%s", p.Namespace, p.Spec.ServiceAccountName)
	proc, err := framework.StartCommand(w.Name, user, cmd)
	if err != nil {
		t.Fatal(err)
	}
	// Stopped as the kubelet stops it, within the pod's grace period: the
	// manager's --shutdown-delay and graceful shutdown together may take
	// longer than Process.Stop's 20 s.
	t.Cleanup(func() {
		if err := stopPod(proc, p.Spec); err != nil {
			t.Errorf("%s did not stop cleanly: %v\n%s", w, err, proc.Output())
		}
	})
	return &runningPod{Process: proc, Workload: w, Ports: ports}
}

// privateDir is a temporary directory only root may enter: it holds the
// volumes' host side, which must not be readable through it.
func privateDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// apiServer is the test apiserver's host and port.
func apiServer(t *testing.T, cp *framework.ControlPlane) (string, string) {
	hostPort := strings.TrimPrefix(cp.Config.Host, "https://")
	i := strings.LastIndex(hostPort, ":")
	if i < 0 {
		t.Fatalf("API server address %q has no port", cp.Config.Host)
	}
	return hostPort[:i], hostPort[i+1:]
}

// waitReady polls the pod's readiness probe, as the kubelet would, until
// it answers 200.
func (inst *installation) waitReady(t *testing.T, p *runningPod) {
	c := p.Workload.container()
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil {
		t.Fatalf("%s: the container has no HTTP readiness probe", p.Workload)
	}
	url, err := probeURL(c.ReadinessProbe, p.Ports)
	if err != nil {
		t.Fatal(err)
	}
	if err := framework.WaitHTTP(context.Background(), url, 2*time.Minute, p.Process); err != nil {
		t.Fatalf("%s never became ready: %v\n%s", p.Workload, err, p.Output())
	}
}

// probeURL is where the kubelet sends an HTTP probe (the pod's address is
// 127.0.0.1 here; its port is the moved one).
func probeURL(probe *corev1.Probe, ports movedPorts) (string, error) {
	get := probe.HTTPGet
	port, ok := ports[get.Port.String()]
	if !ok {
		return "", fmt.Errorf("probe port %s is not a named container port", get.Port.String())
	}
	scheme := strings.ToLower(string(get.Scheme))
	if scheme == "" {
		scheme = "http"
	}
	return fmt.Sprintf("%s://127.0.0.1:%d%s", scheme, port, get.Path), nil
}

// checkProbes: both probes of every container answer 200 at the
// manifests' paths and ports.
func (inst *installation) checkProbes(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(inst.pods)) {
		p := inst.pods[name]
		c := p.Workload.container()
		for kind, probe := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
			if probe == nil || probe.HTTPGet == nil {
				t.Errorf("%s: no HTTP %s probe", name, kind)
				continue
			}
			url, err := probeURL(probe, p.Ports)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.Get(url)
			if err != nil {
				t.Errorf("%s %s probe %s: %v", name, kind, url, err)
				continue
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s %s probe %s: %s, want 200 OK", name, kind, url, resp.Status)
			}
		}
	}
}

// imageAndBinary reads the Dockerfile and builds routeshift as it does
// (static, trimmed), once per test binary.
func imageAndBinary(t *testing.T) (image, string) {
	buildOnce.Do(func() {
		root := repoRoot()
		builtImage, buildErr = readImage(filepath.Join(root, "Dockerfile"))
		if buildErr != nil {
			return
		}
		dir, err := os.MkdirTemp("", "routeshift-install-")
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		builtBinary = filepath.Join(dir, "routeshift")
		cmd := exec.Command("go", "build", "-trimpath", "-o", builtBinary, ".")
		cmd.Dir, cmd.Env = root, append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building routeshift as the Dockerfile does: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtImage, builtBinary
}

var (
	buildOnce   sync.Once
	builtImage  image
	builtBinary string
	builtDir    string
	buildErr    error
)

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		_ = os.RemoveAll(builtDir)
	}
	os.Exit(code)
}
