package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/routecerts"
	"github.com/routeshift/routeshift/webhook"
)

// The controllers `manager` and `controller` run, by their --controllers
// names.
const (
	ingressController      = "ingress-to-route"
	certificatesController = routecerts.ControllerName
)

var controllerNames = []string{ingressController, certificatesController}

// controllerOptions select and configure the controllers.
type controllerOptions struct {
	controllers    []string
	nginxConfigMap string
	ingress        ingress.ControllerOptions
	certificates   routecerts.Options
}

// addControllerFlags adds the controllers' flags; withRouterAccount adds
// --router-service-account, which `manager` shares with the webhook.
func addControllerFlags(f *pflag.FlagSet, o *controllerOptions, withRouterAccount bool) {
	f.StringSliceVar(&o.controllers, "controllers", []string{"*"}, fmt.Sprintf(
		"controllers to run: '*' runs all, NAME adds one, -NAME leaves one out (names: %s)", strings.Join(controllerNames, ", ")))
	f.StringVar(&o.ingress.ControllerName, "ingress-controller-name", ingress.DefaultControllerName,
		"IngressClass spec.controller of the Ingresses to manage (Ingresses without a class are managed too)")
	f.StringArrayVar(&o.ingress.Adopt.AdoptClasses, "adopt-class", nil,
		"also manage the Ingresses of this class (an IngressClass name or legacy kubernetes.io/ingress.class value), written for ingress-nginx: "+
			"their nginx.ingress.kubernetes.io/* annotations are converted (repeatable; e.g. --adopt-class nginx)")
	f.BoolVar(&o.ingress.PublishAdoptedStatus, "publish-adopted-status", false,
		"write status.loadBalancer of adopted Ingresses too (leave it off while ingress-nginx still serves the class: it publishes its own address until DNS moves)")
	f.StringVar(&o.nginxConfigMap, "ingress-nginx-configmap", "",
		"NAMESPACE/NAME of ingress-nginx's ConfigMap: adopted Ingresses get its global defaults (timeouts, ssl-redirect, hsts, …), followed as it changes; "+
			"the controller needs get, list and watch on that ConfigMap. Unset, or while it does not exist: ingress-nginx's documented defaults")
	f.IntVar(&o.ingress.Workers, "workers", 4, "Ingresses, and Routes asking for certificates, reconciled in parallel")
	if withRouterAccount {
		f.StringVar(&o.certificates.RouterServiceAccount, "router-service-account", webhook.DefaultRouterServiceAccount,
			"user name of the router's service account, which the route-certificates controller lets read each Secret it manages")
	}
}

// enabled returns which controllers --controllers selects, or an error
// naming an unknown controller or a malformed option.
func (o *controllerOptions) enabled() (map[string]bool, error) {
	if o.nginxConfigMap != "" {
		name, err := ingress.ParseConfigMapName("--ingress-nginx-configmap", o.nginxConfigMap)
		if err != nil {
			return nil, err
		}
		if len(o.ingress.Adopt.AdoptClasses) == 0 {
			return nil, fmt.Errorf("--ingress-nginx-configmap needs --adopt-class: its defaults apply to adopted Ingresses only")
		}
		o.ingress.NginxConfigMap = name
	}
	on := map[string]bool{}
	for _, c := range o.controllers {
		name, off := strings.CutPrefix(c, "-")
		switch {
		case c == "*":
			for _, n := range controllerNames {
				on[n] = true
			}
		case !slices.Contains(controllerNames, name):
			return nil, fmt.Errorf("--controllers: unknown controller %q: use %s, '*' or -NAME", c, strings.Join(controllerNames, ", "))
		default:
			on[name] = !off
		}
	}
	return on, nil
}

const controllerHelp = `Controllers (--controllers; all run by default):

ingress-to-route keeps, for every Ingress it manages, one owned Route per rule host and
path (names <ingress>-<hash>), and makes them match the Ingress: missing Routes are
created, edits to owned Routes are reverted, TLS Secret rotation is followed, Routes no
longer asked for are deleted, and deleted Ingresses lose their Routes through garbage
collection. Rules and paths that cannot become Routes are reported as
IncompleteIngressToRouteRules Warning events on the Ingress, failed writes as
FailedIngressToRouteConversion Warning events ("kubectl get events --field-selector
type=Warning" lists every problem). The Ingress's status.loadBalancer lists the
canonical hostnames of the routers that admitted its Routes. An Ingress is managed when
it names no class, or a class whose IngressClass has spec.controller equal to
--ingress-controller-name.

Leaving ingress-nginx: --adopt-class NAME (repeatable) makes the Ingresses of class NAME
managed too, with their nginx.ingress.kubernetes.io/* annotations converted into Route
behaviour by the same table as "routeshift translate --from ingress-nginx" (see
docs/reference/ingress-nginx.md). Each annotation kept only approximately, not supported,
or refused (snippets are never honoured) is reported once as an
ApproximatedIngressNginxAnnotations, UnsupportedIngressNginxAnnotations or
RefusedIngressNginxAnnotations Warning event. Canary Ingresses (canary: "true" with
canary-weight) become weighted alternate backends of their primary Ingress's Routes.
Ingresses without a class are converted too when an adopted class is the default
IngressClass. Adopted Ingresses' status is left to ingress-nginx unless
--publish-adopted-status is given. ingress-nginx's global defaults (proxy-read-timeout,
ssl-redirect, hsts, …) come from its ConfigMap when --ingress-nginx-configmap names it
(the controller watches it, logs each key not kept exactly, and converts every adopted
Ingress again when it changes); otherwise ingress-nginx's documented defaults apply.

route-certificates gives edge and reencrypt Routes that name a cert-manager issuer
(cert-manager.io/issuer or cert-manager.io/cluster-issuer, see docs/certificates.md) a
certificate: it keeps one cert-manager Certificate per Route (named <route>-route-tls,
filling the Secret of the same name), a Role and RoleBinding letting the router's service
account (--router-service-account) read exactly that Secret, and, once the certificate is
issued, the Route's spec.tls.externalCertificate naming the Secret (until then the router
serves its default certificate). The private key never enters the Route. Progress is
reported as events on the Route (CertificateRequested, CertificatePending,
CertificateIssued, CertificateFailed with cert-manager's reason, CertificateRemoved),
shown by "kubectl describe route". It starts when the API server serves cert-manager's
CRDs, and waits for them until then.

Replicas elect a leader, which runs the controllers.`

func newController() *cobra.Command {
	m, ctl := &managerOptions{}, &controllerOptions{}
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run the Ingress-to-Route and route-certificates controllers",
		Long:  controllerHelp,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return m.run(cmd.Context(), nil, ctl)
		},
	}
	m.addFlags(cmd.Flags(), true)
	addControllerFlags(cmd.Flags(), ctl, true)
	return cmd
}

func newManager() *cobra.Command {
	m, wh, ctl := &managerOptions{}, &webhookOptions{}, &controllerOptions{}
	cmd := &cobra.Command{
		Use:   "manager",
		Short: "Run the admission webhook and the controllers in one process",
		Long: `manager runs what "routeshift webhook" and "routeshift controller" run, in one process:
every replica serves the webhooks, and the elected leader runs the controllers.

` + stoppingHelp + `

` + controllerHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctl.certificates.RouterServiceAccount = wh.handlers.RouterServiceAccount
			return m.run(cmd.Context(), wh, ctl)
		},
	}
	m.addFlags(cmd.Flags(), true)
	wh.addFlags(cmd.Flags())
	addControllerFlags(cmd.Flags(), ctl, false)
	return cmd
}
