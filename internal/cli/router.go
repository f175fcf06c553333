package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/routeshift/routeshift/haproxy"
	"github.com/routeshift/routeshift/haproxy/exporter"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/internal/version"
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

On SIGTERM it drains: /healthz/ready answers 503 while HAProxy serves on for
ROUTER_DRAIN_SECONDS, so that load balancers move clients elsewhere; then HAProxy closes
its listeners and finishes the requests in progress (within ROUTER_HARD_STOP_AFTER, 30s
when empty). A second signal skips the rest of the wait.

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
	ctx, stop := drainOnStop(ctx, cfg.Listen.DrainPeriod, &health.draining)
	defer stop()
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
	// The consumers stop once the drain is over; HAProxy takes up to its
	// stop timeout to finish the requests in progress.
	return r.Run(ctx, restConfig, router.RunOptions{Runnables: []manager.Runnable{serve},
		StopTimeout: dataPlane.StopTimeout() + 10*time.Second})
}

// drainOnStop returns the context the router runs under. When ctx (ended
// by SIGTERM or SIGINT) ends, draining is set, which makes /healthz/ready
// answer 503, and the router keeps serving for period before the returned
// context ends, so that load balancers and kube-proxy take this replica
// out of rotation before HAProxy closes its listeners. Another signal
// meanwhile ends the wait. stop releases what it holds.
func drainOnStop(ctx context.Context, period time.Duration, draining *atomic.Bool) (run context.Context, stop func()) {
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-run.Done():
			return
		case <-ctx.Done():
		}
		draining.Store(true)
		// Registered only now: the first signal must not end the drain.
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(again)
		log := ctrl.Log.WithName("router")
		log.Info("stopping: /healthz/ready answers 503 and HAProxy keeps serving for ROUTER_DRAIN_SECONDS, "+
			"then finishes the requests in progress; signal again to skip the wait", "drain", period.String())
		wait := time.NewTimer(period)
		defer wait.Stop()
		select {
		case <-wait.C:
		case <-again:
			log.Info("signalled again: stopping without waiting for the rest of the drain")
		case <-run.Done():
		}
		cancel()
	}()
	return run, cancel
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
// (HAProxy serves the first complete configuration, and the router is not
// stopping), open to all, and /metrics to those auth lets in.
type routerHealth struct {
	ready func() bool
	// draining is set once the router is told to stop.
	draining atomic.Bool
	registry *prometheus.Registry
	auth     *metricsAuth
}

func (h *routerHealth) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/healthz/ready", func(w http.ResponseWriter, _ *http.Request) {
		if h.draining.Load() {
			http.Error(w, "the router is stopping: HAProxy serves on until ROUTER_DRAIN_SECONDS have passed", http.StatusServiceUnavailable)
			return
		}
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
