// Command cainjector runs cert-manager's CA injector
// (github.com/cert-manager/cert-manager/pkg/controller/cainjector, the
// version pinned in go.mod) the way cert-manager's cmd/cainjector does: a
// controller-runtime manager with every injector registered. It fills the
// caBundle of webhook configurations, APIServices and CRD conversion webhooks
// annotated cert-manager.io/inject-ca-from (a Certificate),
// cert-manager.io/inject-ca-from-secret (a Secret) or
// cert-manager.io/inject-apiserver-ca.
//
// It exists because cert-manager's cmd/* mains are separate modules the Go
// module proxy does not serve; this file is only glue. Flags keep
// cert-manager's names; there is no leader election (run one replica).
// --healthz-listen-address serves /livez and /readyz (200 once the caches
// synced).
//
// It must not import anything from the routeshift module.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	kscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
	apireg "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cmscheme "github.com/cert-manager/cert-manager/pkg/client/clientset/versioned/scheme"
	"github.com/cert-manager/cert-manager/pkg/controller/cainjector"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"
)

type options struct {
	kubeconfig, namespace          string
	leaderElect                    bool
	certificatesDataSource         bool
	webhooks, apiServices, crds    bool
	healthzAddress, metricsAddress string
	logging                        logsapi.LoggingConfiguration
}

func main() {
	logf.InitLogs()
	defer logf.FlushLogs()
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cert-manager-cainjector:", err)
		logf.FlushLogs()
		os.Exit(1)
	}
}

func run(args []string) error {
	var o options
	fs := pflag.NewFlagSet("cert-manager-cainjector", pflag.ContinueOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file to reach the API server with (default: in-cluster config)")
	fs.StringVar(&o.namespace, "namespace", "", "inject only into objects of this namespace, from Certificates and Secrets in it (default: all)")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "not supported by this build: must stay false")
	fs.BoolVar(&o.certificatesDataSource, "enable-certificates-data-source", true, "inject from Certificates (cert-manager.io/inject-ca-from)")
	fs.BoolVar(&o.webhooks, "enable-webhookconfigurations-injectable", true, "inject into Mutating and ValidatingWebhookConfigurations")
	fs.BoolVar(&o.apiServices, "enable-apiservices-injectable", true, "inject into APIServices")
	fs.BoolVar(&o.crds, "enable-customresourcedefinitions-injectable", true, "inject into CRD conversion webhooks")
	fs.StringVar(&o.healthzAddress, "healthz-listen-address", "0.0.0.0:9403", `address of /livez and /readyz ("0" turns it off)`)
	fs.StringVar(&o.metricsAddress, "metrics-listen-address", "0", `address of /metrics ("0" turns it off)`)
	logsapi.SetRecommendedLoggingConfiguration(&o.logging)
	logf.AddFlags(&o.logging, fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := logf.ValidateAndApply(&o.logging); err != nil {
		return err
	}
	if o.leaderElect {
		return errors.New("--leader-elect=true: this build has no leader election; run a single replica with --leader-elect=false")
	}
	ctrl.SetLogger(klog.Background())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runInjector(logf.NewContext(ctx, logf.Log, "cainjector"), o)
}

func runInjector(ctx context.Context, o options) error {
	mgr, err := newManager(o)
	if err != nil {
		return err
	}
	if o.certificatesDataSource {
		if err := waitForCertificateCRD(ctx, mgr); err != nil {
			return err
		}
	}
	err = cainjector.RegisterAllInjectors(ctx, mgr, cainjector.SetupOptions{
		Namespace:                    o.namespace,
		EnableCertificatesDataSource: o.certificatesDataSource,
		EnabledReconcilersFor: map[string]bool{
			cainjector.MutatingWebhookConfigurationName:   o.webhooks,
			cainjector.ValidatingWebhookConfigurationName: o.webhooks,
			cainjector.APIServiceName:                     o.apiServices,
			cainjector.CustomResourceDefinitionName:       o.crds,
		},
	})
	if err != nil {
		return fmt.Errorf("registering the injectors: %w", err)
	}
	return mgr.Start(ctx)
}

// newManager builds the controller-runtime manager: Secrets are read from
// the API server rather than cached (the injectors watch only their
// metadata), and /readyz answers once the caches synced.
func newManager(o options) (ctrl.Manager, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{kscheme.AddToScheme, cmscheme.AddToScheme, apiext.AddToScheme, apireg.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	var namespaces map[string]cache.Config
	if o.namespace != "" {
		namespaces = map[string]cache.Config{o.namespace: {}}
	}
	mgr, err := ctrl.NewManager(util.RestConfigWithUserAgent(cfg, "cainjector"), ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{ReaderFailOnMissingInformer: true, DefaultNamespaces: namespaces},
		Client:                 client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
		Metrics:                metricsserver.Options{BindAddress: o.metricsAddress},
		HealthProbeBindAddress: o.healthzAddress,
		LivenessEndpointName:   "/livez",
	})
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("livez", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("informers", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("caches not synced")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return mgr, nil
}

// waitForCertificateCRD waits up to five minutes for cert-manager's
// Certificate CRD, which the Certificate data source watches.
func waitForCertificateCRD(ctx context.Context, mgr ctrl.Manager) error {
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return err
	}
	log := logf.FromContext(ctx)
	return wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(ctx context.Context) (bool, error) {
		err := direct.Get(ctx, types.NamespacedName{Name: "certificates.cert-manager.io"}, &apiext.CustomResourceDefinition{})
		if apierrors.IsNotFound(err) {
			log.Info("waiting for the certificates.cert-manager.io CRD (install cert-manager's CRDs)")
			return false, nil
		}
		return err == nil, err
	})
}
