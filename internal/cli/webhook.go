package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/webhook"
)

// clusterOptions are the flags every command that talks to a cluster has.
type clusterOptions struct {
	kubeconfig string
	logLevel   string
}

func (o *clusterOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, the in-cluster service account, then ~/.kube/config)")
	f.StringVar(&o.logLevel, "log-level", "info", "log level: info, or debug for every admission decision")
}

func (o *clusterOptions) restConfig() (*rest.Config, error) {
	if o.kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	}
	return ctrl.GetConfig()
}

// setupLogging logs JSON lines; debug adds controller-runtime's V(1), which
// includes every allowed admission request.
func (o *clusterOptions) setupLogging() error {
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

// scheme knows the built-in types and Routes.
func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = routecore.AddToScheme(s)
	return s
}

type webhookOptions struct {
	cluster     clusterOptions
	handlers    webhook.Options
	host        string
	port        int
	certDir     string
	metricsAddr string
	probeAddr   string
	selfSigned  selfSignedOptions
}

// selfSignedOptions configure the serving certificate bootstrap used when
// cert-manager is not installed.
type selfSignedOptions struct {
	enabled          bool
	secret           string
	dnsNames         []string
	ips              []net.IP
	mutatingConfig   string
	validatingConfig string
}

func newWebhook() *cobra.Command {
	o := &webhookOptions{}
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Run the Route admission webhook (mutating and validating)",
		Long: `webhook serves the Route admission webhooks over TLS: the mutating one defaults Routes
(generated hosts with the openshift.io/host.generated annotation, the stored host kept
on update, weights, kinds, termination case) and rejects invalid ones; the validating one
re-validates the final object, checks the routes/custom-host permission of the requesting
user with SubjectAccessReviews, and returns warnings (a host held by an older Route in
another namespace, a misspelt router annotation, host and subdomain both set).

Serving certificates are read from --cert-dir (tls.crt, tls.key) and reloaded when the
files change; cert-manager can write them (manifests/overlays/cert-manager). Without
cert-manager, --self-signed keeps a CA and serving certificate in a Secret, writes them to
--cert-dir and injects the CA into the webhook configurations.

Endpoints: the webhooks on --port (` + webhook.MutatePath + `, ` + webhook.ValidatePath + `),
/healthz and /readyz on --health-probe-bind-address, /metrics on --metrics-bind-address
(routeshift_admission_duration_seconds by webhook, operation and decision).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	o.cluster.addFlags(f)
	f.StringVar(&o.host, "host", "", "address to serve the webhooks on (default: all)")
	f.IntVar(&o.port, "port", 9443, "port to serve the webhooks on")
	f.StringVar(&o.certDir, "cert-dir", "/var/run/routeshift/webhook-certs", "directory with the serving certificate tls.crt and key tls.key")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", `address of /metrics ("0" turns it off)`)
	f.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	f.StringVar(&o.handlers.RouteSuffix, "route-suffix", routecore.DefaultRouteSuffix, "DNS suffix of generated hosts (<name>-<namespace>.<suffix>)")
	f.StringVar(&o.handlers.RouterServiceAccount, "router-service-account", webhook.DefaultRouterServiceAccount, "user name of the router's service account, which must be able to read external certificate secrets")
	f.BoolVar(&o.handlers.SkipCertificateChecks, "skip-certificate-checks", false, "do not check TLS certificates and keys at admission (the router still checks them)")
	f.BoolVar(&o.selfSigned.enabled, "self-signed", false, "provide serving certificates from a self-signed CA kept in --self-signed-secret, and inject the CA into the webhook configurations")
	f.StringVar(&o.selfSigned.secret, "self-signed-secret", "routeshift/routeshift-webhook-tls", "NAMESPACE/NAME of the Secret holding the self-signed CA and serving certificate")
	f.StringSliceVar(&o.selfSigned.dnsNames, "self-signed-dns-name", []string{"routeshift-webhook.routeshift.svc", "routeshift-webhook.routeshift.svc.cluster.local"}, "DNS names of the self-signed serving certificate")
	f.IPSliceVar(&o.selfSigned.ips, "self-signed-ip", nil, "IP addresses of the self-signed serving certificate")
	f.StringVar(&o.selfSigned.mutatingConfig, "mutating-webhook-configuration", "routeshift", "MutatingWebhookConfiguration to inject the self-signed CA into")
	f.StringVar(&o.selfSigned.validatingConfig, "validating-webhook-configuration", "routeshift", "ValidatingWebhookConfiguration to inject the self-signed CA into")
	return cmd
}

func (o *webhookOptions) run(ctx context.Context) error {
	if err := o.cluster.setupLogging(); err != nil {
		return err
	}
	cfg, err := o.cluster.restConfig()
	if err != nil {
		return fmt.Errorf("connecting to the cluster: %w", err)
	}
	var renew manager.RunnableFunc
	if o.selfSigned.enabled {
		if renew, err = o.bootstrapCertificates(ctx, cfg); err != nil {
			return err
		}
	}
	mgr, err := o.newManager(cfg)
	if err != nil {
		return err
	}
	if renew != nil {
		if err := mgr.Add(renew); err != nil {
			return err
		}
	}
	if _, err := webhook.SetupWithManager(ctx, mgr, o.handlers); err != nil {
		return err
	}
	ctrl.Log.Info("serving the Route admission webhooks", "port", o.port, "certDir", o.certDir)
	return mgr.Start(ctx)
}

func (o *webhookOptions) newManager(cfg *rest.Config) (manager.Manager, error) {
	shutdown := 20 * time.Second
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme(),
		Metrics:                 metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress:  o.probeAddr,
		GracefulShutdownTimeout: &shutdown,
		WebhookServer: ctrlwebhook.NewServer(ctrlwebhook.Options{
			Host: o.host, Port: o.port, CertDir: o.certDir,
			TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.MinVersion = tls.VersionTLS12 }},
		}),
	})
	if err != nil {
		return nil, fmt.Errorf("creating the manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return nil, err
	}
	return mgr, nil
}

// bootstrapCertificates provides the self-signed serving certificate before
// the server starts, and returns a runnable that renews it twice a day (the
// server reloads the files when they change).
func (o *webhookOptions) bootstrapCertificates(ctx context.Context, cfg *rest.Config) (manager.RunnableFunc, error) {
	ns, name, ok := cutNamespacedName(o.selfSigned.secret)
	if !ok {
		return nil, fmt.Errorf("--self-signed-secret %q: want NAMESPACE/NAME", o.selfSigned.secret)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme()})
	if err != nil {
		return nil, err
	}
	bootstrap := &certs.SelfSigned{
		Client: c, Secret: types.NamespacedName{Namespace: ns, Name: name},
		DNSNames: o.selfSigned.dnsNames, IPs: o.selfSigned.ips, Dir: o.certDir,
		MutatingWebhookConfigurations:   nonEmpty(o.selfSigned.mutatingConfig),
		ValidatingWebhookConfigurations: nonEmpty(o.selfSigned.validatingConfig),
	}
	if err := bootstrap.Ensure(ctx); err != nil {
		return nil, fmt.Errorf("self-signed serving certificate: %w", err)
	}
	ctrl.Log.Info("self-signed serving certificate ready", "secret", o.selfSigned.secret, "dir", o.certDir)
	return func(ctx context.Context) error {
		tick := time.NewTicker(12 * time.Hour)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
				if err := bootstrap.Ensure(ctx); err != nil {
					ctrl.Log.Error(err, "renewing the self-signed serving certificate")
				}
			}
		}
	}, nil
}

func cutNamespacedName(s string) (string, string, bool) {
	ns, name, ok := strings.Cut(s, "/")
	return ns, name, ok && ns != "" && name != ""
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
