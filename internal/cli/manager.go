package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/internal/version"
	"github.com/routeshift/routeshift/routecerts"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/webhook"
)

// managerOptions are the flags of the long-running commands: the cluster,
// logging, metrics, probes and leader election.
type managerOptions struct {
	kubeconfig        string
	qps               float32
	burst             int
	logLevel          string
	metricsAddr       string
	probeAddr         string
	pprofAddr         string
	metricsAuth       string
	leaderElect       bool
	leaderElectionNS  string
	leaderElectionApp bool
}

func (o *managerOptions) addFlags(f *pflag.FlagSet, leaderElection bool) {
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, the in-cluster service account, then ~/.kube/config)")
	f.Float32Var(&o.qps, "kube-api-qps", -1, "requests per second to the API server; -1 leaves rate limiting to the server's API Priority and Fairness")
	f.IntVar(&o.burst, "kube-api-burst", 0, "burst of requests to the API server when --kube-api-qps is set")
	f.StringVar(&o.logLevel, "log-level", "info", "log level: info, or debug for every admission decision and Route write")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", `address of /metrics ("0" turns it off)`)
	if f.Lookup("metrics-auth") == nil { // the router has its own (ROUTER_METRICS_AUTH)
		f.StringVar(&o.metricsAuth, "metrics-auth", settings.MetricsAuthKubernetes, `who may read /metrics: kubernetes (a bearer token whose user may get the non-resource URL /metrics, checked with a TokenReview and a SubjectAccessReview) or none (anyone who reaches --metrics-bind-address)`)
	}
	f.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	f.StringVar(&o.pprofAddr, "pprof-bind-address", "", "address of Go's /debug/pprof profiles, for diagnosing CPU or memory use (empty: off; bind it to localhost)")
	if leaderElection {
		o.leaderElectionApp = true
		ns := os.Getenv("POD_NAMESPACE")
		if ns == "" {
			ns = "routeshift"
		}
		f.BoolVar(&o.leaderElect, "leader-elect", true, "elect a leader among replicas; only the leader reconciles (webhooks are served by every replica)")
		f.StringVar(&o.leaderElectionNS, "leader-election-namespace", ns, "namespace of the leader election Lease (default: $POD_NAMESPACE, else routeshift)")
	}
}

func (o *managerOptions) restConfig() (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if o.kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	} else {
		cfg, err = ctrl.GetConfig()
	}
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = o.qps, o.burst
	if cfg.QPS == 0 {
		cfg.QPS = -1
	}
	return cfg, nil
}

// setupLogging logs JSON lines; debug adds controller-runtime's V(1).
func (o *managerOptions) setupLogging() error {
	var level zapcore.Level
	switch o.logLevel {
	case "info":
		level = zapcore.InfoLevel
	case "debug":
		level = zapcore.DebugLevel
	default:
		return fmt.Errorf("--log-level %q: use info or debug", o.logLevel)
	}
	ctrl.SetLogger(zap.New(zap.Level(level), zap.JSONEncoder()))
	return nil
}

// scheme knows the built-in types, Routes and cert-manager's types.
func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = routecore.AddToScheme(s)
	_ = cmapi.AddToScheme(s)
	return s
}

// gracefulShutdown is how long the manager's runnables get to stop once its
// context ends (after --shutdown-delay): the manifests'
// terminationGracePeriodSeconds cover the two and a margin.
const gracefulShutdown = 20 * time.Second

// run starts a manager serving the webhooks (wh not nil) and running the
// controllers ctl selects (ctl not nil), until ctx ends.
func (o *managerOptions) run(ctx context.Context, wh *webhookOptions, ctl *controllerOptions) error {
	if err := o.setupLogging(); err != nil {
		return err
	}
	cfg, err := o.restConfig()
	if err != nil {
		return fmt.Errorf("connecting to the cluster: %w", err)
	}
	return o.start(ctx, cfg, wh, ctl)
}

// start is run with a rest config at hand (routeshift local).
func (o *managerOptions) start(ctx context.Context, cfg *rest.Config, wh *webhookOptions, ctl *controllerOptions) error {
	var err error
	enabled := map[string]bool{}
	if ctl != nil {
		if enabled, err = ctl.enabled(); err != nil {
			return err
		}
	}
	controllers := enabled[ingressController] || enabled[certificatesController]
	delay := &shutdownDelay{log: ctrl.Log.WithName("shutdown")}
	if wh != nil {
		if wh.shutdownDelay < 0 {
			return fmt.Errorf("--shutdown-delay %v: use a duration of 0 or more, such as 15s", wh.shutdownDelay)
		}
		delay.delay = wh.shutdownDelay
	}
	shutdown := gracefulShutdown
	metricsOpts := metricsserver.Options{BindAddress: o.metricsAddr}
	switch o.metricsAuth {
	case settings.MetricsAuthNone:
	case settings.MetricsAuthKubernetes:
		metricsOpts.FilterProvider = func(c *rest.Config, hc *http.Client) (metricsserver.Filter, error) {
			clients, err := kubernetes.NewForConfigAndClient(c, hc)
			if err != nil {
				return nil, err
			}
			auth, err := newMetricsAuth(settings.MetricsAuthKubernetes, "", "", managerMetricsAccess, clients)
			if err != nil {
				return nil, err
			}
			return func(_ logr.Logger, h http.Handler) (http.Handler, error) { return auth.wrap(h), nil }, nil
		}
	default:
		return fmt.Errorf("--metrics-auth %q: use kubernetes or none", o.metricsAuth)
	}
	opts := ctrl.Options{
		Scheme:                  scheme(),
		Metrics:                 metricsOpts,
		HealthProbeBindAddress:  o.probeAddr,
		PprofBindAddress:        o.pprofAddr,
		GracefulShutdownTimeout: &shutdown,
		LeaderElection:          o.leaderElect && controllers,
		LeaderElectionID:        "routeshift-ingress-to-route",
		LeaderElectionNamespace: o.leaderElectionNS,
		// Step down at once on shutdown so a standby takes over quickly.
		LeaderElectionReleaseOnCancel: true,
	}
	if enabled[ingressController] {
		opts.Cache = ingress.CacheOptions(ctl.ingress.NginxConfigMap)
	}
	var renew manager.RunnableFunc
	if wh != nil {
		if opts.WebhookServer, renew, err = wh.server(ctx, cfg); err != nil {
			return err
		}
		opts.WebhookServer = delay.server(opts.WebhookServer)
	}
	mgr, err := ctrl.NewManager(cfg, opts)
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	if err := version.RegisterBuildInfo(ctrlmetrics.Registry); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if renew != nil {
		if err := mgr.Add(renew); err != nil {
			return err
		}
	}
	if wh != nil {
		if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
			return err
		}
		if err := mgr.AddReadyzCheck("shutdown", delay.readyz); err != nil {
			return err
		}
		if _, err := webhook.SetupWithManager(ctx, mgr, wh.handlers); err != nil {
			return err
		}
		ctrl.Log.Info("serving the Route admission webhooks", "port", wh.port, "certDir", wh.certDir)
	}
	if controllers && wh == nil {
		// Without a webhook server to wait for, the controller is ready
		// when its process answers.
		if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
			return err
		}
	}
	if err := ctl.setup(ctx, mgr, enabled, opts.LeaderElection); err != nil {
		return err
	}
	// The signal ends ctx; the manager's own context ends after
	// --shutdown-delay, and its graceful shutdown begins then.
	run, stop := delay.run(ctx)
	defer stop()
	return mgr.Start(run)
}

// setup adds the enabled controllers to mgr.
func (ctl *controllerOptions) setup(ctx context.Context, mgr manager.Manager, enabled map[string]bool, leaderElection bool) error {
	if enabled[ingressController] {
		if _, err := ingress.SetupWithManager(ctx, mgr, ctl.ingress); err != nil {
			return err
		}
		ctrl.Log.Info("running the Ingress-to-Route controller", "controllerName", ctl.ingress.ControllerName, "leaderElection", leaderElection)
	}
	if enabled[certificatesController] {
		opts := ctl.certificates
		opts.Workers = ctl.ingress.Workers
		if err := routecerts.SetupWithManager(mgr, opts); err != nil {
			return err
		}
		ctrl.Log.Info("running the route-certificates controller", "routerServiceAccount", opts.RouterServiceAccount, "leaderElection", leaderElection)
	}
	return nil
}
