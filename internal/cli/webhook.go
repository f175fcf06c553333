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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/routeshift/routeshift/internal/servingcert"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/webhook"
)

// webhookOptions configure the admission webhook server.
type webhookOptions struct {
	handlers   webhook.Options
	host       string
	port       int
	certDir    string
	selfSigned selfSignedOptions
	// shutdownDelay is how long admission is served on after the first
	// signal (see shutdownDelay).
	shutdownDelay time.Duration
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
	m, o := &managerOptions{}, &webhookOptions{}
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
(routeshift_admission_duration_seconds by webhook, operation and decision, and
routeshift_build_info), for bearer tokens whose user may get the non-resource URL /metrics
(--metrics-auth).

` + stoppingHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return m.run(cmd.Context(), o, nil)
		},
	}
	m.addFlags(cmd.Flags(), false)
	o.addFlags(cmd.Flags())
	return cmd
}

func (o *webhookOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.host, "host", "", "address to serve the webhooks on (default: all)")
	f.IntVar(&o.port, "port", 9443, "port to serve the webhooks on")
	f.StringVar(&o.certDir, "cert-dir", "/var/run/routeshift/webhook-certs", "directory with the serving certificate tls.crt and key tls.key")
	f.StringVar(&o.handlers.RouteSuffix, "route-suffix", routecore.DefaultRouteSuffix, "DNS suffix of generated hosts (<name>-<namespace>.<suffix>)")
	f.StringVar(&o.handlers.RouterServiceAccount, "router-service-account", webhook.DefaultRouterServiceAccount, "user name of the router's service account, which must be able to read external certificate secrets")
	f.BoolVar(&o.handlers.SkipCertificateChecks, "skip-certificate-checks", false, "do not check TLS certificates and keys at admission (the router still checks them)")
	f.BoolVar(&o.selfSigned.enabled, "self-signed", false, "provide serving certificates from a self-signed CA kept in --self-signed-secret, and inject the CA into the webhook configurations")
	f.StringVar(&o.selfSigned.secret, "self-signed-secret", "routeshift/routeshift-webhook-tls", "NAMESPACE/NAME of the Secret holding the self-signed CA and serving certificate")
	f.StringSliceVar(&o.selfSigned.dnsNames, "self-signed-dns-name", []string{"routeshift-webhook.routeshift.svc", "routeshift-webhook.routeshift.svc.cluster.local"}, "DNS names of the self-signed serving certificate")
	f.IPSliceVar(&o.selfSigned.ips, "self-signed-ip", nil, "IP addresses of the self-signed serving certificate")
	f.StringVar(&o.selfSigned.mutatingConfig, "mutating-webhook-configuration", "routeshift", "MutatingWebhookConfiguration to inject the self-signed CA into")
	f.StringVar(&o.selfSigned.validatingConfig, "validating-webhook-configuration", "routeshift", "ValidatingWebhookConfiguration to inject the self-signed CA into")
	f.DurationVar(&o.shutdownDelay, "shutdown-delay", 0, shutdownDelayHelp)
}

// server returns the webhook server; with --self-signed it first provides
// the serving certificate and returns the runnable that renews it.
func (o *webhookOptions) server(ctx context.Context, cfg *rest.Config) (ctrlwebhook.Server, manager.RunnableFunc, error) {
	var renew manager.RunnableFunc
	if o.selfSigned.enabled {
		var err error
		if renew, err = o.bootstrapCertificates(ctx, cfg); err != nil {
			return nil, nil, err
		}
	}
	return ctrlwebhook.NewServer(ctrlwebhook.Options{
		Host: o.host, Port: o.port, CertDir: o.certDir,
		TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.MinVersion = tls.VersionTLS12 }},
	}), renew, nil
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
	bootstrap := &servingcert.SelfSigned{
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
