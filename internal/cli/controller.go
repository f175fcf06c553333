package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/routeshift/routeshift/ingress"
)

func addControllerFlags(f *pflag.FlagSet, o *ingress.ControllerOptions) {
	f.StringVar(&o.ControllerName, "ingress-controller-name", ingress.DefaultControllerName,
		"IngressClass spec.controller of the Ingresses to manage (Ingresses without a class are managed too)")
	f.IntVar(&o.Workers, "workers", 4, "Ingresses reconciled in parallel")
}

const controllerHelp = `The Ingress-to-Route controller keeps, for every Ingress it manages, one owned Route per
rule host and path (names <ingress>-<hash>), and makes them match the Ingress: missing
Routes are created, edits to owned Routes are reverted, TLS Secret rotation is followed,
Routes no longer asked for are deleted, and deleted Ingresses lose their Routes through
garbage collection. Rules and paths that cannot become Routes are reported as
IncompleteIngressToRouteRules Warning events on the Ingress, failed writes as
FailedIngressToRouteConversion Warning events ("kubectl get events --field-selector
type=Warning" lists every problem). The Ingress's status.loadBalancer lists the
canonical hostnames of the routers that admitted its Routes.

An Ingress is managed when it names no class, or a class whose IngressClass has
spec.controller equal to --ingress-controller-name. Replicas elect a leader.`

func newController() *cobra.Command {
	m, ctl := &managerOptions{}, &ingress.ControllerOptions{}
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run the Ingress-to-Route controller",
		Long:  controllerHelp,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return m.run(cmd.Context(), nil, ctl)
		},
	}
	m.addFlags(cmd.Flags(), true)
	addControllerFlags(cmd.Flags(), ctl)
	return cmd
}

func newManager() *cobra.Command {
	m, wh, ctl := &managerOptions{}, &webhookOptions{}, &ingress.ControllerOptions{}
	cmd := &cobra.Command{
		Use:   "manager",
		Short: "Run the admission webhook and the Ingress-to-Route controller in one process",
		Long: `manager runs what "routeshift webhook" and "routeshift controller" run, in one process:
every replica serves the webhooks, and the elected leader runs the controller.

` + controllerHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return m.run(cmd.Context(), wh, ctl)
		},
	}
	m.addFlags(cmd.Flags(), true)
	wh.addFlags(cmd.Flags())
	addControllerFlags(cmd.Flags(), ctl)
	return cmd
}
