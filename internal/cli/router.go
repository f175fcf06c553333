package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy"
	"github.com/routeshift/routeshift/haproxy/exporter"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/input"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/internal/version"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

const settingsHelp = `Every setting is an environment variable (the names OpenShift's router uses) and a flag;
a flag wins over its variable. Run "routeshift router --help" for the list.`

func newRouter() *cobra.Command {
	m := &managerOptions{}
	var parse func() (settings.Config, error)
	cmd := &cobra.Command{
		Use:   "router",
		Short: "Run the router: admit Routes, write their status, serve them with HAProxy",
		Long: `router watches Routes, Namespaces, EndpointSlices, Services and TLS Secrets and decides,
for this router instance, which Routes it serves: its shard (ROUTE_LABELS, NAMESPACE_LABELS),
allowed and denied domains, wildcard routes, host claims (the oldest Route wins a host, and its
namespace owns it unless ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK), and certificate checks.
It reports each decision in the Route's status.ingress entry for ROUTER_SERVICE_NAME (only
the elected replica writes) and serves /healthz, /healthz/ready and /metrics on
ROUTER_LISTEN_ADDR (/metrics to whom ROUTER_METRICS_AUTH lets in: by default a bearer
token whose user may get routers/metrics of this router in route.openshift.io).

` + settingsHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := parse()
			if err != nil {
				return err
			}
			return runRouter(cmd.Context(), m, cfg, cmd.ErrOrStderr())
		},
	}
	parse = settings.AddFlags(cmd.Flags(), os.Getenv)
	m.addFlags(cmd.Flags(), false)
	cmd.Flags().Lookup("metrics-bind-address").Hidden = true
	cmd.Flags().Lookup("health-probe-bind-address").Hidden = true
	return cmd
}

func runRouter(ctx context.Context, m *managerOptions, cfg settings.Config, stderr io.Writer) error {
	if err := m.setupLogging(); err != nil {
		return err
	}
	if err := settings.CheckUnsupported(os.Getenv); err != nil {
		return err
	}
	for _, env := range slices.Sorted(mapKeys(settings.Superseded)) {
		if os.Getenv(env) != "" {
			ctrl.Log.Info("ignoring "+env, "reason", settings.Superseded[env])
		}
	}
	restConfig, err := m.restConfig()
	if err != nil {
		return fmt.Errorf("connecting to the cluster: %w", err)
	}
	return runRouterWith(ctx, restConfig, cfg, "haproxy", nil)
}

// runRouterWith runs a router with its data plane (HAProxy from
// haproxyPath) and its health and metrics listener.
func runRouterWith(ctx context.Context, restConfig *rest.Config, cfg settings.Config, haproxyPath string, haproxyLog io.Writer) error {
	reg, runtimeMetrics, routerMetrics, err := newRouterRegistry()
	if err != nil {
		return err
	}
	dataPlane, err := haproxy.NewDataPlane(cfg.DataPlane, haproxy.DataPlaneOptions{HAProxy: haproxyPath, Log: haproxyLog, Metrics: runtimeMetrics})
	if err != nil {
		return err
	}
	if err := registerExporter(reg, cfg, dataPlane.Stats); err != nil {
		return err
	}
	r := router.NewRouter(cfg.Router, routerMetrics, dataPlane)
	clients, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	auth, err := newMetricsAuth(cfg.Listen.MetricsAuth, cfg.DataPlane.StatsUsername, cfg.DataPlane.StatsPassword,
		routerMetricsAccess(cfg.Router.Name), clients)
	if err != nil {
		return err
	}
	health := &routerHealth{ready: r.Ready, registry: reg, auth: auth}
	server := &http.Server{Addr: cfg.Listen.Addr, Handler: health.mux(), ReadHeaderTimeout: 10 * time.Second}
	serve := router.EveryReplica(func(ctx context.Context) error {
		go func() {
			<-ctx.Done()
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = server.Shutdown(shutdown)
		}()
		if err := server.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("ROUTER_LISTEN_ADDR %s: %w", cfg.Listen.Addr, err)
		}
		return nil
	})
	ctrl.Log.Info("starting the router", "name", cfg.Router.Name, "namespace", cfg.Router.Namespace, "listen", cfg.Listen.Addr,
		"http", cfg.DataPlane.HTTPPort, "https", cfg.DataPlane.HTTPSPort)
	return r.Run(ctx, restConfig, router.RunOptions{Runnables: []manager.Runnable{serve}})
}

// newRouterRegistry is the registry of a router's /metrics, with the Go
// and process collectors, the build information and the metrics of the
// router and of HAProxy's runtime registered.
func newRouterRegistry() (*prometheus.Registry, *runtime.Metrics, *router.Metrics, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if err := version.RegisterBuildInfo(reg); err != nil {
		return nil, nil, nil, err
	}
	runtimeMetrics, err := runtime.NewMetrics(reg)
	if err != nil {
		return nil, nil, nil, err
	}
	routerMetrics, err := router.NewMetrics(reg)
	if err != nil {
		return nil, nil, nil, err
	}
	return reg, runtimeMetrics, routerMetrics, nil
}

// registerExporter adds HAProxy's statistics to reg when ROUTER_METRICS_TYPE
// is haproxy.
func registerExporter(reg prometheus.Registerer, cfg settings.Config, stats func(context.Context) (string, error)) error {
	if cfg.Listen.MetricsType != "haproxy" {
		return nil
	}
	return reg.Register(exporter.New(cfg.Exporter, stats))
}

// routerHealth answers /healthz (the process runs) and /healthz/ready
// (HAProxy serves the first complete configuration), open to all, and
// /metrics to those auth lets in.
type routerHealth struct {
	ready    func() bool
	registry *prometheus.Registry
	auth     *metricsAuth
}

func (h *routerHealth) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/healthz/ready", func(w http.ResponseWriter, _ *http.Request) {
		if !h.ready() {
			http.Error(w, "HAProxy does not serve a complete configuration yet", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("/metrics", h.auth.wrap(promhttp.HandlerFor(h.registry, promhttp.HandlerOpts{})))
	return mux
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

type renderOptions struct {
	in          inputFlags
	namespace   string
	routeSuffix string
	output      string
	dir         string
	check       bool
	haproxy     string
	stderr      io.Writer
}

func newRender() *cobra.Command {
	o := &renderOptions{}
	var parse func() (settings.Config, error)
	cmd := &cobra.Command{
		Use:   "render -f FILE [-f FILE...] [--dir DIR] [--check] [-o yaml]",
		Short: "Judge Routes offline as a router would, and print one line per Route",
		Long: `render reads Routes, Namespaces, EndpointSlices, Services and Secrets from files and runs the
router's admission offline, with the same settings as "routeshift router" (environment
variables or flags). It prints one line per Route, in input order:

  NAMESPACE/NAME admitted
  NAMESPACE/NAME rejected REASON        (the message follows on stderr)
  NAMESPACE/NAME ignored                (outside this router's shard)

Routes are defaulted as the admission webhook would (a host is generated for Routes
without one). Routes without a creationTimestamp are as old as their place in the input:
earlier documents are older. -o yaml prints the Routes with the status.ingress entry this
router would write instead. The exit status is 0 when every Route could be judged
(rejections are results, not errors), non-zero when the input cannot be read.

` + settingsHelp,
		Example: `  routeshift render -f routes.yaml
  ROUTER_DENIED_DOMAINS=internal.example.com routeshift render -f routes.yaml -f namespaces.yaml
  kubectl get routes,namespaces -A -o yaml | routeshift render -f - --labels shard=public`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := parse()
			if err != nil {
				return err
			}
			return o.run(cfg, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	o.in.addFlags(f, "render reads Routes, Namespaces, EndpointSlices, Services and Secrets")
	f.StringVarP(&o.namespace, "input-namespace", "n", "default", "namespace of objects that name none")
	f.StringVar(&o.routeSuffix, "route-suffix", routecore.DefaultRouteSuffix, "DNS suffix of generated hosts, as the webhook's")
	f.StringVarP(&o.output, "output", "o", "", `"yaml" prints the Routes with this router's status entry`)
	f.StringVar(&o.dir, "dir", "", "write the HAProxy configuration (haproxy.cfg, maps, certificates) into this directory")
	f.BoolVar(&o.check, "check", false, "check the written configuration with haproxy -c (needs --dir)")
	f.StringVar(&o.haproxy, "haproxy", "haproxy", "HAProxy binary for --check")
	parse = settings.AddFlags(f, os.Getenv)
	return cmd
}

func (o *renderOptions) run(cfg settings.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.output != "" && o.output != "yaml" {
		return fmt.Errorf("--output %q is not supported: use -o yaml or omit it", o.output)
	}
	objs, err := o.in.read(stdin)
	if err != nil {
		return err
	}
	o.stderr = stderr
	store := router.NewStore(cfg.Router.Admission)
	var routes []*routecore.Route
	for i, obj := range objs {
		if err := o.add(store, obj, i, &routes); err != nil {
			return err
		}
	}
	snap := store.Commit(true)
	if err := o.writeConfig(cfg, snap); err != nil {
		return err
	}
	id := router.StatusIdentity{RouterName: cfg.Router.Name, CanonicalHostname: cfg.Router.CanonicalHostname}
	var printed []any
	for _, r := range routes {
		k := r.Namespace + "/" + r.Name
		d, _ := snap.Decisions.Get(k)
		switch {
		case o.output == "yaml":
			r.Status.Ingress, _ = router.DesiredStatus(r, d, id, time.Now())
			shown := r.DeepCopy()
			if strings.HasPrefix(string(shown.UID), syntheticUID) {
				shown.UID, shown.CreationTimestamp = "", metav1.Time{}
			}
			printed = append(printed, printable(shown))
		case d.Verdict == router.Rejected:
			fmt.Fprintf(stdout, "%s rejected %s\n", k, d.Reason)
			fmt.Fprintf(stderr, "%s: %s\n", k, d.Message)
		default:
			fmt.Fprintf(stdout, "%s %s\n", k, d.Verdict)
		}
	}
	return printYAML(stdout, printed)
}

// writeConfig renders the configuration into --dir and checks it.
func (o *renderOptions) writeConfig(cfg settings.Config, snap router.Snapshot) error {
	if o.dir == "" {
		if o.check {
			return errors.New("--check needs --dir")
		}
		return nil
	}
	abs, err := filepath.Abs(o.dir)
	if err != nil {
		return err
	}
	cfg.DataPlane.WorkingDir = abs
	renderer, err := haproxy.NewRenderer(cfg.DataPlane)
	if err != nil {
		return err
	}
	out, err := renderer.Render(snap)
	if err != nil {
		return err
	}
	for rel, f := range out.Files {
		path := filepath.Join(abs, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := certs.WriteFileAtomic(path, f.Data, f.Mode); err != nil {
			return err
		}
	}
	if !o.check {
		return nil
	}
	args := []string{"-c", "-q"}
	for _, a := range out.ConfigArgs {
		args = append(args, "-f", filepath.Join(abs, a))
	}
	if msg, err := exec.Command(o.haproxy, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("haproxy -c refuses the configuration in %s: %v\n%s", o.dir, err, msg)
	}
	return nil
}

// syntheticUID prefixes the UIDs render gives Routes read from files; they
// order ties and are not printed.
const syntheticUID = "render-input-"

// add reads one object into the store; Routes are defaulted as the webhook
// would, and get the input order as their age.
func (o *renderOptions) add(store *router.Store, obj input.Object, i int, routes *[]*routecore.Route) error {
	ns := obj.Namespace
	if ns == "" {
		ns = o.namespace
	}
	switch {
	case obj.Kind == "Route":
		r, err := o.in.decodeRoute(obj, o.stderr)
		if err != nil {
			return err
		}
		r.Namespace = ns
		routecore.Default(r, nil, routecore.DefaultOptions{RouteSuffix: o.routeSuffix})
		if r.CreationTimestamp.IsZero() {
			r.CreationTimestamp = metav1.NewTime(time.Unix(0, 0).Add(time.Duration(i) * time.Second))
		}
		if r.UID == "" {
			r.UID = types.UID(fmt.Sprintf("%s%08d", syntheticUID, i))
		}
		if slices.ContainsFunc(*routes, func(x *routecore.Route) bool { return x.Namespace == r.Namespace && x.Name == r.Name }) {
			return fmt.Errorf("%s: route %s/%s appears twice in the input", obj.Source, r.Namespace, r.Name)
		}
		*routes = append(*routes, r)
		store.SetRoute(r)
	case obj.Kind == "Namespace" && obj.APIVersion == "v1":
		n := &corev1.Namespace{}
		if err := o.in.decode(obj, n, o.stderr); err != nil {
			return err
		}
		store.SetNamespace(n.Name, n.Labels)
	case obj.Kind == "EndpointSlice" && obj.APIVersion == "discovery.k8s.io/v1":
		es := &discoveryv1.EndpointSlice{}
		if err := o.in.decode(obj, es, o.stderr); err != nil {
			return err
		}
		es.Namespace = ns
		store.SetEndpointSlice(es)
	case obj.Kind == "Secret" && obj.APIVersion == "v1":
		s := &corev1.Secret{}
		if err := o.in.decode(obj, s, o.stderr); err != nil {
			return err
		}
		s.Namespace = ns
		store.SetSecret(s)
	case obj.Kind == "Service" && obj.APIVersion == "v1":
		svc := &corev1.Service{}
		if err := o.in.decode(obj, svc, o.stderr); err != nil {
			return err
		}
		svc.Namespace = ns
		store.SetService(svc)
	default:
		return fmt.Errorf("%s: %s %s is not read by render: give it Routes, Namespaces, EndpointSlices, Services and Secrets",
			obj.Source, obj.APIVersion, obj.Kind)
	}
	return nil
}
