package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spf13/cobra"

	"github.com/routeshift/routeshift/routecore"
)

type clearStatusOptions struct {
	router        string
	namespace     string
	allNamespaces bool
	dryRun        bool
	kubeconfig    string
}

func newClearRouteStatus() *cobra.Command {
	o := &clearStatusOptions{}
	cmd := &cobra.Command{
		Use:   "clear-route-status --router NAME [-n NAMESPACE | -A] [ROUTE...]",
		Short: "Remove a router's entries from route status (after the router is removed or renamed)",
		Long: `clear-route-status removes the status.ingress entries a router wrote, from every Route of a
namespace (-n, default: the kubeconfig's), of every namespace (-A), or from the Routes named.

A running routeshift router keeps its own entries true: it removes them when a Route leaves its
shard. Entries stay behind only when a router stops for good or is renamed (ROUTER_SERVICE_NAME):
this command removes them, the way OpenShift's clear-route-status script does. Entries of other
routers are left alone. Stop the router first: one that still runs may write its entries again.

Each Route is updated through the status subresource, conflict-safe. --dry-run prints what would
be removed without changing anything.`,
		Example: `  # the router "west" was removed: clear its entries everywhere
  routeshift clear-route-status --router west -A

  # see first what would change in one namespace
  routeshift clear-route-status --router west -n shop --dry-run`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.router == "" {
				return errors.New("--router is required: name the router (its ROUTER_SERVICE_NAME) whose entries to remove")
			}
			if o.allNamespaces && len(args) > 0 {
				return errors.New("name Routes with -n NAMESPACE, not with -A")
			}
			return o.run(cmd.Context(), args, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.router, "router", "", "name of the router whose entries to remove (status.ingress[].routerName)")
	f.StringVarP(&o.namespace, "namespace", "n", "", "namespace of the Routes (default: the kubeconfig's current namespace)")
	f.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "every namespace")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what would be removed; change nothing")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig (default: $KUBECONFIG, then ~/.kube/config)")
	return cmd
}

func (o *clearStatusOptions) run(ctx context.Context, names []string, stdout, stderr io.Writer) error {
	m := managerOptions{kubeconfig: o.kubeconfig}
	cfg, err := m.restConfig()
	if err != nil {
		return fmt.Errorf("connecting to the cluster: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme()})
	if err != nil {
		return err
	}
	ns := o.namespace
	if ns == "" && !o.allNamespaces {
		if ns, err = kubeconfigNamespace(o.kubeconfig); err != nil {
			return err
		}
	}
	var keys []types.NamespacedName
	if len(names) > 0 {
		for _, n := range names {
			keys = append(keys, types.NamespacedName{Namespace: ns, Name: n})
		}
	} else {
		var list routecore.RouteList
		var opts []client.ListOption
		if !o.allNamespaces {
			opts = append(opts, client.InNamespace(ns))
		}
		if err := c.List(ctx, &list, opts...); err != nil {
			return fmt.Errorf("listing routes: %w", err)
		}
		for _, r := range list.Items {
			if hasEntry(&r, o.router) {
				keys = append(keys, types.NamespacedName{Namespace: r.Namespace, Name: r.Name})
			}
		}
	}
	o.warnIfRunning(ctx, c, stderr)

	cleared, failed := 0, 0
	for _, k := range keys {
		found := false
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			var r routecore.Route
			if err := c.Get(ctx, k, &r); err != nil {
				return err
			}
			before := len(r.Status.Ingress)
			r.Status.Ingress = slices.DeleteFunc(r.Status.Ingress, func(in routecore.RouteIngress) bool { return in.RouterName == o.router })
			if found = len(r.Status.Ingress) < before; !found || o.dryRun {
				return nil
			}
			return c.Status().Update(ctx, &r)
		})
		switch {
		case err != nil:
			failed++
			fmt.Fprintf(stderr, "route %s: %v\n", k, err)
		case !found:
			if len(names) > 0 {
				fmt.Fprintf(stderr, "route %s: no entry of router %s\n", k, o.router)
			}
		default:
			cleared++
			verb := "removed"
			if o.dryRun {
				verb = "would remove"
			}
			fmt.Fprintf(stdout, "route %s: %s the entry of router %s\n", k, verb, o.router)
		}
	}
	summary := fmt.Sprintf("%s cleared of router %s", plural(cleared, "route", "routes"), o.router)
	if o.dryRun {
		summary = fmt.Sprintf("%s would be cleared of router %s (dry run: nothing changed)", plural(cleared, "route", "routes"), o.router)
	}
	fmt.Fprintln(stderr, summary)
	if failed > 0 {
		return fmt.Errorf("%s could not be cleared (see above)", plural(failed, "route", "routes"))
	}
	return nil
}

func hasEntry(r *routecore.Route, router string) bool {
	return slices.ContainsFunc(r.Status.Ingress, func(in routecore.RouteIngress) bool { return in.RouterName == router })
}

// warnIfRunning warns when the router still holds its leader election
// Lease: it would write its entries again. Without the right to list
// Leases it says nothing.
func (o *clearStatusOptions) warnIfRunning(ctx context.Context, c client.Client, stderr io.Writer) {
	var leases coordinationv1.LeaseList
	if err := c.List(ctx, &leases); err != nil {
		if !apierrors.IsForbidden(err) {
			fmt.Fprintf(stderr, "warning: cannot tell whether router %s still runs: %v\n", o.router, err)
		}
		return
	}
	for _, l := range leases.Items {
		if l.Name != "routeshift-router-"+o.router || l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil ||
			l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" { // released by a router that stopped
			continue
		}
		expires := l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second)
		if time.Now().Before(expires) {
			fmt.Fprintf(stderr, "warning: router %s still runs (Lease %s/%s renewed %s ago): it will write its entries again; stop it first\n",
				o.router, l.Namespace, l.Name, time.Since(l.Spec.RenewTime.Time).Round(time.Second))
		}
	}
}

// kubeconfigNamespace is the current context's namespace, "default" when it
// names none (what kubectl uses).
func kubeconfigNamespace(kubeconfig string) (string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	ns, _, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).Namespace()
	if err != nil {
		return "", fmt.Errorf("reading the kubeconfig's namespace: %w (or pass -n)", err)
	}
	return ns, nil
}
