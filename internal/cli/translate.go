package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/internal/input"
)

type translateOptions struct {
	in             inputFlags
	namespace      string
	namespaceSet   bool
	output         string
	controllerName string
	fromCluster    bool
	kubeconfig     string
	allNamespaces  bool
}

func newTranslate() *cobra.Command {
	o := &translateOptions{}
	cmd := &cobra.Command{
		Use:   "translate -f FILE [-f FILE...] | translate --from-cluster",
		Short: "Show the Routes the Ingress-to-Route controller would make from Ingresses",
		Long: `translate is a migration dry-run: it reads Ingresses, with the Services, Secrets and
IngressClasses they refer to, and prints the Routes the Ingress-to-Route controller would
create — same names, same specs, valid for "routeshift validate" and the webhook.

Every rule or path that would produce no Route is reported on stderr as
  warning: ingress NAMESPACE/NAME: MESSAGE
and so is every ingress-nginx annotation (nginx.ingress.kubernetes.io/*), which Routes do not
honour, with the Route annotation or setting to use instead where there is one; then a
summary. Ingresses of another controller's class are listed as ignored.
Input is YAML or JSON (several documents per file, List objects, "-" for stdin); with
--from-cluster the objects are read from the cluster instead, and nothing is changed.

Routes of Ingresses read from files have no ownerReference (the Ingress has no UID until
it is stored); applied by hand, they stand alone. With --from-cluster they are owned by
their Ingress, exactly as the controller writes them.

The exit status is 0 when the input could be read, even if some rules produce no Route:
those are results, reported as warnings.`,
		Example: `  routeshift translate -f ingress.yaml -f services.yaml
  kubectl get ingress,service,ingressclass -A -o yaml | routeshift translate -f -
  routeshift translate --from-cluster -n shop -o yaml > routes.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.namespaceSet = cmd.Flags().Changed("namespace")
			return o.run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	o.in.addFlags(f, "translate reads Ingresses, Services, Secrets and IngressClasses")
	f.StringVarP(&o.namespace, "namespace", "n", "default", "namespace of objects that name none; with --from-cluster, the namespace to read (default: the kubeconfig context's, as kubectl's)")
	f.StringVarP(&o.output, "output", "o", "yaml", `"yaml" prints the Routes; "name" prints NAMESPACE/NAME lines`)
	f.StringVar(&o.controllerName, "ingress-controller-name", ingress.DefaultControllerName, "IngressClass spec.controller of the Ingresses to translate")
	f.BoolVar(&o.fromCluster, "from-cluster", false, "read Ingresses, Services, Secrets and IngressClasses from the cluster (read-only)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for --from-cluster (default: $KUBECONFIG, then ~/.kube/config)")
	f.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "with --from-cluster, read every namespace")
	return cmd
}

func (o *translateOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.output != "yaml" && o.output != "name" {
		return fmt.Errorf("--output %q is not supported: use -o yaml or -o name", o.output)
	}
	var ingresses []*networkingv1.Ingress
	objs := ingress.NewObjectSet()
	failed := 0
	var err error
	switch {
	case o.fromCluster && len(o.in.files) > 0:
		return fmt.Errorf("use either -f or --from-cluster, not both")
	case o.fromCluster:
		ingresses, err = o.readCluster(ctx, objs)
	default:
		ingresses, failed, err = o.readFiles(ctx, stdin, objs, stderr)
	}
	if err != nil {
		return err
	}
	var routes []any
	var sum summary
	for _, ing := range ingresses {
		res := ingress.Translate(ing, objs, o.controllerName)
		if err := refuseAsStored(ctx, &res); err != nil {
			return err
		}
		sum.add(ing, res)
		o.report(ing, res, stderr)
		for _, r := range res.Routes {
			if o.output == "name" {
				fmt.Fprintf(stdout, "%s/%s\n", r.Namespace, r.Name)
			} else {
				routes = append(routes, printable(r))
			}
		}
	}
	if err := printYAML(stdout, routes); err != nil {
		return err
	}
	fmt.Fprintln(stderr, sum.String())
	if failed > 0 {
		return errInvalid
	}
	return nil
}

// refuseAsStored moves the Routes the API server would refuse after the
// webhook (for the CRD's schema) from res.Routes to res.Problems, so that
// what translate prints is what the cluster would store.
func refuseAsStored(ctx context.Context, res *ingress.Result) error {
	kept := res.Routes[:0]
	for _, r := range res.Routes {
		errs, err := input.ValidateRoute(ctx, r)
		if err != nil {
			return err
		}
		if len(errs) > 0 {
			res.Problems = append(res.Problems, fmt.Sprintf("Route for host %q and path %q would be refused by the API server: %s",
				r.Spec.Host, r.Spec.Path, errs.ToAggregate().Error()))
			continue
		}
		kept = append(kept, r)
	}
	res.Routes = kept
	return nil
}

// report writes the warnings of one Ingress's translation on stderr.
func (o *translateOptions) report(ing *networkingv1.Ingress, res ingress.Result, stderr io.Writer) {
	who := ing.Namespace + "/" + ing.Name
	switch {
	case !res.Managed && res.MissingClass != "":
		fmt.Fprintf(stderr, "warning: ingress %s: ignored: IngressClass %q not found; the controller manages an Ingress of a class only when that class exists with spec.controller %s\n",
			who, res.MissingClass, o.controllerName)
		return
	case !res.Managed:
		fmt.Fprintf(stderr, "warning: ingress %s: ignored: its class belongs to another controller (not %s)\n", who, o.controllerName)
		return
	}
	var notes []string
	notes = append(notes, res.Problems...)
	notes = append(notes, ingress.AnnotationHints(ing)...)
	notes = append(notes, ingress.PathTypeHints(ing)...)
	if res.InvalidReconcileLabels != "" {
		notes = append(notes, res.InvalidReconcileLabels)
	}
	if d := ing.Spec.DefaultBackend; d != nil {
		// OpenShift's controller ignores it silently (and so does ours); a
		// migration dry-run is where its loss should be seen.
		notes = append(notes, "spec.defaultBackend"+describeBackend(d)+" produces no Route: requests that match no rule will get the router's 503; add a rule for every host it should serve")
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "warning: ingress %s: %s\n", who, n)
	}
}

// readFiles reads the objects translate uses and skips the others. An
// object that cannot be decoded is reported on stderr and counted; the
// others are still read.
func (o *translateOptions) readFiles(ctx context.Context, stdin io.Reader, objs *ingress.ObjectSet, stderr io.Writer) ([]*networkingv1.Ingress, int, error) {
	read, err := o.in.read(ctx, stdin)
	if err != nil {
		return nil, 0, err
	}
	var ingresses []*networkingv1.Ingress
	failed := 0
	for _, obj := range read {
		into, err := translateInput(obj)
		if err == nil && into == nil {
			o.in.skip(obj, stderr) // Deployments and the like travel with Ingresses; they do not matter here
			continue
		}
		if err == nil {
			err = o.in.decode(obj, into, stderr)
		}
		if err != nil {
			fmt.Fprintln(stderr, "error:", err)
			failed++
			continue
		}
		if into.GetNamespace() == "" {
			into.SetNamespace(o.namespace)
		}
		if ing, ok := into.(*networkingv1.Ingress); ok {
			ingresses = append(ingresses, ing)
		} else {
			objs.Add(into)
		}
	}
	return ingresses, failed, nil
}

// translateInput returns the object to decode obj into, or nil for a kind
// translate does not read.
func translateInput(obj input.Object) (client.Object, error) {
	switch {
	case obj.Kind == "Ingress" && obj.APIVersion == "networking.k8s.io/v1":
		return &networkingv1.Ingress{}, nil
	case obj.Kind == "Ingress":
		return nil, fmt.Errorf("%s: Ingress %s is not read: convert it to networking.k8s.io/v1 (serviceName/servicePort become service.name/service.port)", obj.Source, obj.APIVersion)
	case obj.Kind == "IngressClass" && obj.APIVersion == "networking.k8s.io/v1":
		return &networkingv1.IngressClass{}, nil
	case obj.Kind == "Service" && obj.APIVersion == "v1":
		return &corev1.Service{}, nil
	case obj.Kind == "Secret" && obj.APIVersion == "v1":
		return &corev1.Secret{}, nil
	}
	return nil, nil
}

// readCluster lists the objects with get/list rights only, in the
// namespace of -n, else the kubeconfig context's (as kubectl does), or in
// every namespace with -A.
func (o *translateOptions) readCluster(ctx context.Context, objs *ingress.ObjectSet) ([]*networkingv1.Ingress, error) {
	m := managerOptions{kubeconfig: o.kubeconfig, qps: -1}
	cfg, err := m.restConfig()
	if err != nil {
		return nil, fmt.Errorf("connecting to the cluster: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme()})
	if err != nil {
		return nil, err
	}
	var opts []client.ListOption
	if !o.allNamespaces {
		ns, err := o.clusterNamespace()
		if err != nil {
			return nil, err
		}
		opts = append(opts, client.InNamespace(ns))
	}
	var ings networkingv1.IngressList
	var svcs corev1.ServiceList
	var secrets corev1.SecretList
	var classes networkingv1.IngressClassList
	for what, list := range map[string]client.ObjectList{"ingresses": &ings, "services": &svcs, "secrets": &secrets} {
		if err := c.List(ctx, list, opts...); err != nil {
			return nil, fmt.Errorf("listing %s: %w", what, err)
		}
	}
	if err := c.List(ctx, &classes); err != nil {
		return nil, fmt.Errorf("listing ingressclasses: %w", err)
	}
	for i := range svcs.Items {
		objs.Add(&svcs.Items[i])
	}
	for i := range secrets.Items {
		objs.Add(&secrets.Items[i])
	}
	for i := range classes.Items {
		objs.Add(&classes.Items[i])
	}
	out := make([]*networkingv1.Ingress, len(ings.Items))
	for i := range ings.Items {
		out[i] = &ings.Items[i]
	}
	slices.SortFunc(out, func(a, b *networkingv1.Ingress) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return out, nil
}

// clusterNamespace is the namespace --from-cluster reads: -n when given,
// else the kubeconfig context's ("default" when it names none, the pod's
// own in a cluster), as kubectl chooses it.
func (o *translateOptions) clusterNamespace() (string, error) {
	if o.namespaceSet {
		return o.namespace, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.kubeconfig
	ns, _, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).Namespace()
	if err != nil {
		return "", fmt.Errorf("reading the namespace of the kubeconfig context: %w (or name one with -n)", err)
	}
	return ns, nil
}

// summary counts what a translation did, for the report's last line.
type summary struct {
	ingresses, ignored, missingClass, routes, problems int
}

func (s *summary) add(_ *networkingv1.Ingress, res ingress.Result) {
	s.ingresses++
	switch {
	case !res.Managed && res.MissingClass != "":
		s.missingClass++
	case !res.Managed:
		s.ignored++
	}
	s.routes += len(res.Routes)
	s.problems += len(res.Problems)
}

func (s summary) String() string {
	ignored := fmt.Sprintf("%d of another class", s.ignored)
	if s.missingClass > 0 {
		ignored += fmt.Sprintf(", %d of a class not found", s.missingClass)
	}
	return fmt.Sprintf("summary: %s read (%s, ignored); %s emitted; %s produced no Route",
		plural(s.ingresses, "ingress", "ingresses"), ignored, plural(s.routes, "route", "routes"), plural(s.problems, "rule or path", "rules or paths"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// describeBackend names an Ingress backend for a warning: " (service web)",
// " (resource Kind/name)" or "".
func describeBackend(b *networkingv1.IngressBackend) string {
	switch {
	case b.Service != nil:
		return " (service " + b.Service.Name + ")"
	case b.Resource != nil:
		return " (resource " + b.Resource.Kind + "/" + b.Resource.Name + ")"
	}
	return ""
}
