package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/internal/childproc"
	"github.com/routeshift/routeshift/internal/controlplane"
	"github.com/routeshift/routeshift/internal/freeport"
	"github.com/routeshift/routeshift/internal/hostaddr"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/manifests"
	"github.com/routeshift/routeshift/routecerts"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/webhook"
)

// ReadyLine is what `routeshift local` prints once everything serves.
const ReadyLine = "routeshift local is ready."

// localDomain ends the demo hosts: curl and browsers resolve every
// *.localhost name to the loopback address, so the printed commands work
// without editing /etc/hosts.
const localDomain = "routeshift.localhost"

type localOptions struct {
	dataDir     string
	clean       bool
	binDir      string
	bind        string
	httpPort    int
	httpsPort   int
	haproxyPath string
	certManager bool
}

func newLocal() *cobra.Command {
	o := &localOptions{}
	cmd := &cobra.Command{
		Use:   "local",
		Short: "Run the whole system on this machine: API server, webhook, controller, router and a demo",
		Long: `local starts etcd, kube-apiserver and kube-controller-manager (built into bin/ by "make tools"),
installs the Route CRD, RBAC, the webhook configurations and an IngressClass, runs the
admission webhook, the Ingress-to-Route controller and the router (HAProxy on 127.0.0.1:8080
and 127.0.0.1:8443) in this process, deploys a demo backend with an Ingress and a Route, waits
until a request through HAProxy succeeds and the API server publishes the Route's OpenAPI schema
(which kubectl apply reads), and prints the commands to try it.

With --with-cert-manager, local also installs cert-manager's CRDs and runs its controller
(both built into --bin-dir by "make tools"), makes a self-signed ClusterIssuer and a CA
ClusterIssuer ` + LocalCAIssuer + ` on it (the CA's certificate is written to
<data-dir>/` + localCAFile + `), and deploys a Route annotated
cert-manager.io/cluster-issuer: ` + LocalCAIssuer + `, which serves the certificate
cert-manager issues for it; the printed curl command verifies it against the CA.

The cluster's data lives in --data-dir and is kept across runs; --clean starts afresh.
Ctrl-C stops everything it started.

The demo backend listens on this machine's first non-loopback IPv4 address, because the API
server refuses loopback addresses in EndpointSlices (so there is no --allow-loopback-endpoints
here); it closes connections from anywhere but this machine. Backends of your own need such an
address too. On a machine without one, local stops at start and says so.

Before starting anything, local checks the binaries in --bin-dir, HAProxy (--haproxy), the
HAProxy ports (--http-port, --https-port) and the data directory, and says what to do when one
is missing, taken or from another version. The HAProxy ports must lie outside the kernel's
ephemeral port range (/proc/sys/net/ipv4/ip_local_port_range, usually 32768-60999), from
which the API server's own connections take their local ports, unless
net.ipv4.ip_local_reserved_ports keeps them out of it. When HAProxy cannot listen on a port
after all, local stops with HAProxy's own error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dataDir, "data-dir", defaultDataDir(), "directory for the cluster's data, kubeconfig, certificates and logs")
	f.BoolVar(&o.clean, "clean", false, "delete --data-dir first")
	f.StringVar(&o.binDir, "bin-dir", "", "directory with etcd, kube-apiserver, kube-controller-manager and kubectl (default: $ROUTESHIFT_BIN, else bin/ beside the routeshift binary or in the current directory)")
	f.StringVar(&o.bind, "bind-address", "127.0.0.1", "address HAProxy listens on")
	f.IntVar(&o.httpPort, "http-port", 8080, "HAProxy's HTTP port")
	f.IntVar(&o.httpsPort, "https-port", 8443, "HAProxy's HTTPS port")
	f.StringVar(&o.haproxyPath, "haproxy", "haproxy", "HAProxy binary")
	f.BoolVar(&o.certManager, "with-cert-manager", false, "also run cert-manager's controller (built into --bin-dir by \"make tools\") with a CA ClusterIssuer "+LocalCAIssuer+
		" whose certificate is written to <data-dir>/"+localCAFile+", and a demo Route whose certificate it issues (see docs/certificates.md)")
	return cmd
}

func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "routeshift", "local")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "routeshift", "local")
	}
	return filepath.Join(os.TempDir(), "routeshift-local")
}

// localRun is one run of `routeshift local`: what it started, to stop.
type localRun struct {
	opts *localOptions
	out  io.Writer
	bin  string
	log  *os.File
	cp   *controlplane.ControlPlane
	kcm  *childproc.Process
	// certManager is cert-manager's controller (--with-cert-manager).
	certManager *childproc.Process
	cfg         *rest.Config
	client      client.Client
	kubecfg     string
	wg          sync.WaitGroup
	errs        chan error
	demoPort    int
	webhookPort int
	// hostIP is the machine's address the demo backend listens on.
	hostIP string
}

func (o *localOptions) run(ctx context.Context, out io.Writer) error {
	r := &localRun{opts: o, out: out, errs: make(chan error, 8)}
	if err := r.prepare(); err != nil {
		return err
	}
	defer r.log.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer r.stop(cancel)
	for _, s := range r.steps() {
		fmt.Fprintf(out, "==> %s\n", s.what)
		if err := s.do(ctx); err != nil {
			return fmt.Errorf("%s: %w (logs: %s)", s.what, err, r.log.Name())
		}
	}
	r.printReady()
	select {
	case <-ctx.Done():
		fmt.Fprintln(out, "==> stopping")
		return nil
	case err := <-r.errs:
		return fmt.Errorf("%w (logs: %s)", err, r.log.Name())
	}
}

// step is one step of a run, printed before it starts.
type step struct {
	what string
	do   func(context.Context) error
}

// steps are the run's steps in order. With --with-cert-manager, its CRDs
// are installed before the manager starts, so the route-certificates
// controller finds them at once.
func (r *localRun) steps() []step {
	o := r.opts
	steps := []step{
		{"starting etcd and kube-apiserver (data in " + o.dataDir + ")", r.startAPIServer},
		{"starting kube-controller-manager", r.startControllerManager},
		{"installing the Route CRD, RBAC, webhook configurations and the IngressClass", r.install},
	}
	if o.certManager {
		steps = append(steps,
			step{"installing cert-manager's CRDs (" + certManagerVersion() + ")", r.installCertManagerCRDs},
			step{"starting cert-manager's controller", r.startCertManager},
			step{"making the ClusterIssuer " + LocalCAIssuer + " (CA certificate in " + r.caFile() + ")", r.installIssuers})
	}
	steps = append(steps,
		step{"starting the admission webhook and the controllers", r.startManager},
		step{"starting the router (HAProxy on " + net.JoinHostPort(o.bind, strconv.Itoa(o.httpPort)) + " and :" + strconv.Itoa(o.httpsPort) + ")", r.startRouter},
		step{"deploying the demo: a backend, an Ingress and a Route", r.deployDemo},
		step{"waiting for the demo to answer through HAProxy", r.waitForDemo})
	if o.certManager {
		steps = append(steps, step{"waiting for the demo Route secure to serve the certificate cert-manager issues", r.waitForSecureDemo})
	}
	return append(steps, step{"waiting for the API server to publish the Route schema (kubectl reads it)", r.waitForRouteSchema})
}

// prepare checks everything the run needs that can be checked before a
// process starts, so that a mistake costs no wait, and takes the data
// directory.
func (r *localRun) prepare() error {
	o := r.opts
	if err := r.checkNotInUse(); err != nil {
		return err
	}
	if o.clean {
		if err := os.RemoveAll(o.dataDir); err != nil {
			return fmt.Errorf("--clean: %w", err)
		}
	}
	if err := os.MkdirAll(o.dataDir, 0o700); err != nil {
		return fmt.Errorf("--data-dir: %w", err)
	}
	if err := r.checkVersion(); err != nil {
		return err
	}
	bin, err := findBinDir(o.binDir)
	if err != nil {
		return err
	}
	r.bin = bin
	if o.certManager {
		if err := checkCertManager(bin); err != nil {
			return err
		}
	}
	if err := checkHAProxy(o.haproxyPath); err != nil {
		return err
	}
	if r.hostIP, err = hostaddr.IPv4(); err != nil {
		return fmt.Errorf("the demo backend: %w", err)
	}
	if err := o.checkPorts(); err != nil {
		return err
	}
	if err := os.WriteFile(r.pidFile(), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return err
	}
	r.log, err = os.OpenFile(filepath.Join(o.dataDir, "routeshift.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(r.log), zap.JSONEncoder()))
	return nil
}

func (r *localRun) pidFile() string { return filepath.Join(r.opts.dataDir, "routeshift.pid") }

// checkNotInUse refuses a data directory another running `routeshift
// local` uses (before --clean could delete its data).
func (r *localRun) checkNotInUse() error {
	data, err := os.ReadFile(r.pidFile())
	if err != nil {
		return nil
	}
	if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); pid > 0 && pid != os.Getpid() && syscall.Kill(pid, 0) == nil {
		return fmt.Errorf("another routeshift local (pid %d) is using %s: stop it, or use another --data-dir", pid, r.opts.dataDir)
	}
	return nil
}

// checkHAProxy finds the HAProxy binary the router will run.
func checkHAProxy(path string) error {
	_, err := exec.LookPath(path)
	switch {
	case err == nil:
		return nil
	case strings.Contains(path, "/"):
		return fmt.Errorf("--haproxy %s: %w: pass the path of HAProxy 2.6 or newer, or install it with 'sudo apt-get install -y haproxy' (Debian 12, Ubuntu 24.04 or newer)", path, errors.Unwrap(err))
	default:
		return fmt.Errorf("HAProxy is not installed (no %s in PATH): install HAProxy 2.6 or newer with 'sudo apt-get install -y haproxy' (Debian 12, Ubuntu 24.04 or newer), or pass its path with --haproxy", path)
	}
}

// checkPorts refuses HAProxy ports that are taken, naming the flag to
// change.
func (o *localOptions) checkPorts() error {
	if o.httpPort == o.httpsPort {
		return fmt.Errorf("--http-port and --https-port are both %d: choose two ports", o.httpPort)
	}
	for _, p := range []struct {
		port int
		flag string
	}{{o.httpPort, "--http-port"}, {o.httpsPort, "--https-port"}} {
		addr := net.JoinHostPort(o.bind, strconv.Itoa(p.port))
		l, err := net.Listen("tcp", addr)
		switch {
		case errors.Is(err, syscall.EADDRINUSE):
			return fmt.Errorf("port %d on %s (%s) is in use: stop the program using it, or choose another port with %s", p.port, o.bind, p.flag, p.flag)
		case err != nil:
			return fmt.Errorf("HAProxy cannot listen on %s (--bind-address, %s): %w", addr, p.flag, err)
		}
		l.Close()
		if freeport.ClientsMayTake(p.port) {
			low, high := freeport.EphemeralRange()
			return fmt.Errorf("%s %d is in this machine's ephemeral port range %d-%d (/proc/sys/net/ipv4/ip_local_port_range), from which the API server's own connections take their local ports, so HAProxy could find it taken: choose a port below %d with %s, or keep it out of the range with 'sudo sysctl -w net.ipv4.ip_local_reserved_ports=%d'",
				p.flag, p.port, low, high, low, p.flag, p.port)
		}
	}
	return nil
}

// dataVersion is written to the data directory; a directory of another
// version is refused rather than half-reused.
const dataVersion = "routeshift-local/1 etcd/3.7 kubernetes/1.37"

func (r *localRun) checkVersion() error {
	path := filepath.Join(r.opts.dataDir, "VERSION")
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, err := os.Stat(filepath.Join(r.opts.dataDir, "etcd")); err == nil {
			return fmt.Errorf("%s holds cluster data without a VERSION file (from another program, or damaged): run 'routeshift local --clean' to delete it and start afresh, or use another --data-dir", r.opts.dataDir)
		}
		return os.WriteFile(path, []byte(dataVersion+"\n"), 0o600)
	case err != nil:
		return err
	case strings.TrimSpace(string(data)) != dataVersion:
		return fmt.Errorf("%s holds data of %q, not %q: run 'routeshift local --clean' to delete it and start afresh, or use another --data-dir", r.opts.dataDir, strings.TrimSpace(string(data)), dataVersion)
	}
	return nil
}

// findBinDir finds the directory with the control-plane binaries.
func findBinDir(flag string) (string, error) {
	var candidates []string
	if flag != "" {
		candidates = []string{flag}
	} else {
		if env := os.Getenv("ROUTESHIFT_BIN"); env != "" {
			candidates = append(candidates, env)
		}
		if exe, err := os.Executable(); err == nil {
			candidates = append(candidates, filepath.Dir(exe), filepath.Join(filepath.Dir(exe), "..", "bin"))
		}
		if wd, err := os.Getwd(); err == nil {
			candidates = append(candidates, filepath.Join(wd, "bin"))
		}
	}
	for _, dir := range candidates {
		ok := true
		for _, b := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kubectl"} {
			if st, err := os.Stat(filepath.Join(dir, b)); err != nil || st.Mode()&0o111 == 0 {
				ok = false
			}
		}
		if ok {
			return filepath.Abs(dir)
		}
	}
	return "", fmt.Errorf("etcd, kube-apiserver, kube-controller-manager and kubectl not found in %s: run 'make tools' in the routeshift repository (it builds them into bin/), or pass --bin-dir",
		strings.Join(candidates, ", "))
}

func (r *localRun) startAPIServer(ctx context.Context) error {
	crds, err := embeddedCRDs()
	if err != nil {
		return err
	}
	r.cp, err = controlplane.Start(ctx, controlplane.Options{BinDir: r.bin, DataDir: r.opts.dataDir, Log: r.log, CRDs: crds,
		StartTimeout: 2 * time.Minute, StopTimeout: 30 * time.Second})
	if err != nil {
		return fmt.Errorf("%w; if the data in %s is damaged, run 'routeshift local --clean'", err, r.opts.dataDir)
	}
	r.cfg = rest.CopyConfig(r.cp.Config)
	r.cfg.QPS = -1
	r.kubecfg = filepath.Join(r.opts.dataDir, "kubeconfig")
	if err := os.WriteFile(r.kubecfg, r.cp.Kubeconfig, 0o600); err != nil {
		return err
	}
	r.client, err = client.New(r.cfg, client.Options{Scheme: scheme()})
	return err
}

func embeddedCRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := manifests.FS.ReadFile("crd/route.openshift.io_routes.yaml")
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	return []*apiextensionsv1.CustomResourceDefinition{crd}, yaml.Unmarshal(data, crd)
}

func (r *localRun) startControllerManager(_ context.Context) error {
	var err error
	r.kcm, err = childproc.Start(exec.Command(filepath.Join(r.bin, "kube-controller-manager"), "--kubeconfig", r.kubecfg, "--secure-port=0",
		"--leader-elect=false", "--use-service-account-credentials=false",
		"--controllers=garbage-collector-controller,clusterrole-aggregation-controller,namespace-controller"),
		childproc.Options{Log: r.log})
	return err
}

// install applies the embedded manifests a local cluster needs, with the
// webhooks pointed at 127.0.0.1.
func (r *localRun) install(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	r.webhookPort = port
	for _, name := range []string{"routeshift", "demo"} {
		if err := r.ensure(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			return err
		}
	}
	for _, file := range []string{"rbac/user-roles.yaml", "webhook/webhooks.yaml", "webhook/ingressclass.yaml"} {
		data, err := manifests.FS.ReadFile(file)
		if err != nil {
			return err
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			if len(u.Object) == 0 {
				continue
			}
			pointWebhooksAt(u, port)
			if err := r.apply(ctx, u); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
		}
	}
	return nil
}

// pointWebhooksAt replaces the webhook configurations' service references
// by https://127.0.0.1:port/PATH.
func pointWebhooksAt(u *unstructured.Unstructured, port int) {
	hooks, ok := u.Object["webhooks"].([]any)
	if !ok {
		return
	}
	for _, h := range hooks {
		cc := h.(map[string]any)["clientConfig"].(map[string]any)
		svc := cc["service"].(map[string]any)
		cc["url"] = fmt.Sprintf("https://127.0.0.1:%d%s", port, svc["path"])
		delete(cc, "service")
	}
}

func (r *localRun) apply(ctx context.Context, u *unstructured.Unstructured) error {
	existing := u.DeepCopy()
	err := r.client.Get(ctx, client.ObjectKeyFromObject(u), existing)
	switch {
	case apierrors.IsNotFound(err):
		return r.client.Create(ctx, u)
	case err != nil:
		return err
	}
	u.SetResourceVersion(existing.GetResourceVersion())
	return r.client.Update(ctx, u)
}

func (r *localRun) ensure(ctx context.Context, obj client.Object) error {
	if err := r.client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// background runs a component until ctx ends; its failure ends the run.
func (r *localRun) background(ctx context.Context, name string, run func(context.Context) error) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if err := run(ctx); err != nil && ctx.Err() == nil {
			r.errs <- fmt.Errorf("%s stopped: %w", name, err)
		}
	}()
}

func (r *localRun) startManager(ctx context.Context) error {
	m := &managerOptions{kubeconfig: r.kubecfg, qps: -1, logLevel: "info", metricsAddr: "0", metricsAuth: settings.MetricsAuthNone, probeAddr: "0"}
	wh := &webhookOptions{host: "127.0.0.1", port: r.webhookPort, certDir: filepath.Join(r.opts.dataDir, "webhook-certs"),
		handlers: webhook.Options{RouteSuffix: localDomain},
		selfSigned: selfSignedOptions{enabled: true, secret: "routeshift/routeshift-webhook-tls", ips: []net.IP{net.ParseIP("127.0.0.1")},
			dnsNames: []string{"localhost"}, mutatingConfig: "routeshift", validatingConfig: "routeshift"}}
	ctl := &controllerOptions{controllers: []string{"*"}, ingress: ingress.ControllerOptions{Workers: 2},
		certificates: routecerts.Options{RouterServiceAccount: webhook.DefaultRouterServiceAccount}}
	m.leaderElect = false
	r.background(ctx, "the webhook and controller", func(ctx context.Context) error { return m.start(ctx, r.cfg, wh, ctl) })
	return waitFor(ctx, 60*time.Second, func() error {
		conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.webhookPort), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only probing that it serves
		if err == nil {
			conn.Close()
		}
		return err
	})
}

func (r *localRun) startRouter(ctx context.Context) error {
	cfg := settings.Defaults()
	cfg.Router.Namespace = "routeshift"
	cfg.Router.CanonicalHostname = "router." + localDomain
	cfg.DataPlane.BindAddress, cfg.DataPlane.HTTPPort, cfg.DataPlane.HTTPSPort = r.opts.bind, r.opts.httpPort, r.opts.httpsPort
	// Redirects to HTTPS name the local port, so that they work.
	cfg.DataPlane.HTTPSRedirectPort = r.opts.httpsPort
	cfg.DataPlane.WorkingDir = filepath.Join(r.opts.dataDir, "router")
	var err error
	if cfg.DataPlane.SNIPort, err = freePort(); err != nil {
		return err
	}
	if cfg.DataPlane.NoSNIPort, err = freePort(); err != nil {
		return err
	}
	listen, err := freePort()
	if err != nil {
		return err
	}
	cfg.Listen.Addr = fmt.Sprintf("127.0.0.1:%d", listen)
	// No load balancer sends it traffic: Ctrl-C stops it at once.
	cfg.Listen.DrainPeriod = 0
	alerts := &bindAlerts{out: r.log}
	r.background(ctx, "the router", func(ctx context.Context) error {
		return runRouterWith(ctx, r.cfg, cfg, r.opts.haproxyPath, alerts)
	})
	return waitFor(ctx, 60*time.Second, func() error {
		if alert := alerts.first(); alert != "" {
			return permanent{r.opts.bindError(alert)}
		}
		resp, err := http.Get(fmt.Sprintf("http://%s/healthz/ready", cfg.Listen.Addr))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return errors.New(resp.Status)
		}
		return nil
	})
}

// deployDemo starts an HTTP backend and exposes it through a selector-less
// Service and an EndpointSlice, an Ingress (plain HTTP) and a Route (edge
// TLS). Kubernetes refuses loopback addresses in EndpointSlices, so the
// backend listens on the machine's own address; it closes every connection
// that does not come from this machine.
func (r *localRun) deployDemo(ctx context.Context) error {
	ip := r.hostIP
	tl, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return err
	}
	l := hostaddr.LocalOnly(tl)
	r.demoPort = tl.Addr().(*net.TCPAddr).Port
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprintf(w, "Hello from the routeshift demo: %s%s\n", req.Host, req.URL.Path)
	})}
	r.background(ctx, "the demo backend", func(ctx context.Context) error {
		go func() { <-ctx.Done(); _ = srv.Close() }()
		if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	portName, port, ready := "http", int32(r.demoPort), true
	class := "routeshift"
	prefix := networkingv1.PathTypePrefix
	w := int32(100)
	objs := []client.Object{
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "demo"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(port)}}}},
		&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "demo"},
			Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{Host: "demo." + localDomain,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
					Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
						Name: "demo", Port: networkingv1.ServiceBackendPort{Name: "http"}}}}}}}}}}},
		&routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "hello"},
			Spec: routecore.RouteSpec{Host: "hello." + localDomain, To: routecore.RouteTargetReference{Kind: "Service", Name: "demo", Weight: &w},
				TLS: &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyRedirect}}},
	}
	for _, o := range objs {
		if err := r.ensure(ctx, o); err != nil {
			return err
		}
	}
	// The backend listens on a new port each run: the EndpointSlice follows.
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "demo-local",
		Labels: map[string]string{discoveryv1.LabelServiceName: "demo", discoveryv1.LabelManagedBy: "routeshift-local"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port}}}
	return r.apply(ctx, toUnstructured(es))
}

func toUnstructured(o client.Object) *unstructured.Unstructured {
	m, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	u := &unstructured.Unstructured{Object: m}
	gvk, _ := apiutil.GVKForObject(o, scheme())
	u.SetGroupVersionKind(gvk)
	return u
}

// getLocal GETs url with the connection made to bind, whatever the host
// resolves to, and without verifying the (self-signed) certificate.
func getLocal(url, bind string) (string, error) {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, port, _ := net.SplitHostPort(addr)
		return (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, network, net.JoinHostPort(bind, port))
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dial,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}} //nolint:gosec // the demo's default certificate is self-signed
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return string(body), err
}

// waitForDemo waits until the demo answers through HAProxy on both ports.
func (r *localRun) waitForDemo(ctx context.Context) error {
	return waitFor(ctx, 2*time.Minute, func() error {
		for _, url := range []string{r.demoURL(false), r.demoURL(true)} {
			body, err := getLocal(url, r.opts.bind)
			if err != nil {
				return err
			}
			if !strings.Contains(body, "Hello from the routeshift demo") {
				return fmt.Errorf("%s answered %q", url, body)
			}
		}
		return nil
	})
}

// routeSchema is the name of the Route's schema in the API server's
// OpenAPI documents.
const routeSchema = "io.openshift.route.v1.Route"

// waitForRouteSchema waits until the API server publishes the Route's
// schema in OpenAPI v3 (/openapi/v3/apis/route.openshift.io/v1) and v2,
// which it builds a moment after the CRD is established: before, kubectl
// apply of a Route fails with "failed to download openapi".
func (r *localRun) waitForRouteSchema(ctx context.Context) error {
	dc, err := discovery.NewDiscoveryClientForConfig(r.cfg)
	if err != nil {
		return err
	}
	return waitFor(ctx, 2*time.Minute, func() error {
		paths, err := dc.OpenAPIV3().Paths()
		if err != nil {
			return fmt.Errorf("/openapi/v3: %w", err)
		}
		gv, ok := paths["apis/"+routecore.GroupVersion.String()]
		if !ok {
			return fmt.Errorf("/openapi/v3 does not list apis/%s yet", routecore.GroupVersion)
		}
		data, err := gv.Schema(runtime.ContentTypeJSON)
		if err != nil {
			return fmt.Errorf("/openapi/v3/apis/%s: %w", routecore.GroupVersion, err)
		}
		var v3 struct {
			Components struct {
				Schemas map[string]json.RawMessage `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(data, &v3); err != nil || v3.Components.Schemas[routeSchema] == nil {
			return fmt.Errorf("/openapi/v3/apis/%s has no %s yet (%v)", routecore.GroupVersion, routeSchema, err)
		}
		v2, err := dc.OpenAPISchema()
		if err != nil {
			return fmt.Errorf("/openapi/v2: %w", err)
		}
		for _, d := range v2.GetDefinitions().GetAdditionalProperties() {
			if d.GetName() == routeSchema {
				return nil
			}
		}
		return fmt.Errorf("/openapi/v2 has no %s yet", routeSchema)
	})
}

func (r *localRun) demoURL(tls bool) string {
	if tls {
		return fmt.Sprintf("https://hello.%s:%d/", localDomain, r.opts.httpsPort)
	}
	return fmt.Sprintf("http://demo.%s:%d/", localDomain, r.opts.httpPort)
}

func (r *localRun) printReady() {
	kubectl := filepath.Join(r.bin, "kubectl")
	invalid := `{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"too-heavy","namespace":"demo"},"spec":{"host":"heavy.` + localDomain + `","to":{"name":"demo","weight":300}}}`
	fmt.Fprintf(r.out, "\n%s\n\n", ReadyLine)
	fmt.Fprintf(r.out, "  data and logs: %s\n\n", r.opts.dataDir)
	fmt.Fprintf(r.out, "Try it:\n\n")
	fmt.Fprintf(r.out, "  export KUBECONFIG=%s\n", r.kubecfg)
	fmt.Fprintf(r.out, "  %s get routes -A\n", kubectl)
	fmt.Fprintf(r.out, "  curl %s\n", r.demoURL(false))
	fmt.Fprintf(r.out, "  curl -k %s\n", r.demoURL(true))
	if r.opts.certManager {
		fmt.Fprintf(r.out, "  curl --cacert %s %s\n", r.caFile(), r.secureURL())
	}
	fmt.Fprintf(r.out, "  echo '%s' | %s apply -f -\n\n", invalid, kubectl)
	fmt.Fprintf(r.out, "Press Ctrl-C to stop.\n")
}

// stop stops everything the run started, newest first.
func (r *localRun) stop(cancel context.CancelFunc) {
	cancel()
	r.wg.Wait()
	for _, p := range []*childproc.Process{r.certManager, r.kcm} {
		if p != nil {
			_ = p.Stop(10 * time.Second)
		}
	}
	if r.cp != nil {
		_ = r.cp.Stop()
	}
	_ = os.Remove(r.pidFile())
}

// permanent is an error waitFor returns at once: waiting longer cannot help.
type permanent struct{ error }

func waitFor(ctx context.Context, timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		if err = check(); err == nil {
			return nil
		}
		if p := (permanent{}); errors.As(err, &p) {
			return p.error
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("not ready after %s: %w", timeout, err)
}

func freePort() (int, error) { return freeport.Get() }

// bindAlerts passes HAProxy's output on to out and keeps the first alert
// about a socket it cannot listen on: without it, such a failure shows only
// as a router that never gets ready.
type bindAlerts struct {
	out io.Writer

	mu      sync.Mutex
	partial []byte
	alert   string
}

func (b *bindAlerts) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.partial = append(b.partial, p...)
	for {
		line, rest, ok := bytes.Cut(b.partial, []byte("\n"))
		if !ok {
			break
		}
		if b.alert == "" && bytes.Contains(line, []byte("[ALERT]")) && bytes.Contains(line, []byte("cannot bind socket")) {
			b.alert = haproxyMessage(string(line))
		}
		b.partial = rest
	}
	b.mu.Unlock()
	return b.out.Write(p)
}

func (b *bindAlerts) first() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.alert
}

// haproxyMessage strips the "[ALERT]    (PID) : " prefix of a line of
// HAProxy's.
func haproxyMessage(line string) string {
	if _, msg, ok := strings.Cut(line, ") : "); ok {
		return strings.TrimSpace(msg)
	}
	return strings.TrimSpace(line)
}

// bindError explains HAProxy's alert about a socket it cannot listen on,
// naming the flag of the port when it is one of the flags'.
func (o *localOptions) bindError(alert string) error {
	for _, p := range []struct {
		port int
		flag string
	}{{o.httpPort, "--http-port"}, {o.httpsPort, "--https-port"}} {
		if !strings.Contains(alert, net.JoinHostPort(o.bind, strconv.Itoa(p.port))+"]") {
			continue
		}
		if strings.Contains(alert, "Address already in use") {
			return fmt.Errorf("HAProxy cannot listen on port %d (%s): %s: another program took the port after routeshift local checked it; stop it, or choose another port with %s",
				p.port, p.flag, alert, p.flag)
		}
		return fmt.Errorf("HAProxy cannot listen on port %d (%s): %s: choose another port with %s", p.port, p.flag, alert, p.flag)
	}
	return fmt.Errorf("HAProxy cannot listen: %s", alert)
}
