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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/ingress/nginx"
	"github.com/routeshift/routeshift/internal/input"
	"github.com/routeshift/routeshift/internal/parallel"
	"github.com/routeshift/routeshift/routecore"
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
	from           string
	adoptClasses   []string
	nginxConfigMap string
}

// fromIngressNginx is --from's value that converts ingress-nginx Ingresses.
const fromIngressNginx = "ingress-nginx"

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

Leaving ingress-nginx: --from ingress-nginx takes the Ingresses written for ingress-nginx
too — those of every IngressClass whose spec.controller is k8s.io/ingress-nginx, of the
legacy class "nginx", of each --adopt-class NAME, and those with no class — and converts
their nginx.ingress.kubernetes.io/* annotations into Route behaviour. Each annotation gets
a verdict: exact, approximate (the difference in one sentence), router-wide (the router
setting that holds it), not-supported (why, and what to do) or refused (snippets, never
honoured). Defaults of ingress-nginx that differ from the router's (sticky sessions, the
60 s timeout, HSTS, the 1 MiB body limit) are made explicit and reported too. Canary
Ingresses become weighted alternate backends of their primary's Routes. Global defaults
come from ingress-nginx's ConfigMap (--ingress-nginx-configmap, read from the input or
the cluster); without it ingress-nginx's documented defaults are assumed, and the report
says so. The whole table: docs/reference/ingress-nginx.md.

Output: -o yaml (Routes on stdout, the report on stderr), -o name, -o report (a Markdown
migration report on stdout: per Ingress each annotation's verdict, then a summary and a
histogram of annotations by verdict), -o json (the same report as JSON, for CI).

The exit status is 0 when the input could be read, even if some rules produce no Route:
those are results, reported as warnings. With --strict (which also refuses objects with
unknown or duplicate fields) it is 1 when any Ingress is not converted exactly: an
annotation of its own approximated, router-wide, not supported or refused, or a rule or
path that produced no Route.`,
		Example: `  routeshift translate -f ingress.yaml -f services.yaml
  kubectl get ingress,service,ingressclass -A -o yaml | routeshift translate -f -
  routeshift translate --from-cluster -n shop -o yaml > routes.yaml
  routeshift translate --from ingress-nginx -f shop.yaml
  routeshift translate --from ingress-nginx --from-cluster -A -o report > migration.md
  routeshift translate --from ingress-nginx -f ingresses/ -o json --strict`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.namespaceSet = cmd.Flags().Changed("namespace")
			return o.run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	o.in.addFlags(f, "translate reads Ingresses, Services, Secrets and IngressClasses")
	f.StringVarP(&o.namespace, "namespace", "n", "default", "namespace of objects that name none; with --from-cluster, the namespace to read (default: the kubeconfig context's, as kubectl's)")
	f.StringVarP(&o.output, "output", "o", "yaml", `"yaml" prints the Routes; "name" prints NAMESPACE/NAME lines; "report" a Markdown migration report; "json" the report as JSON`)
	f.StringVar(&o.from, "from", "", `"ingress-nginx": take Ingresses written for ingress-nginx and convert their annotations`)
	f.StringArrayVar(&o.adoptClasses, "adopt-class", nil, "with --from ingress-nginx, also take Ingresses of this class (IngressClass name or legacy annotation value; repeatable)")
	f.StringVar(&o.nginxConfigMap, "ingress-nginx-configmap", "ingress-nginx/ingress-nginx-controller", "NAMESPACE/NAME of ingress-nginx's ConfigMap, read from the input (or the cluster with --from-cluster) for its global defaults")
	f.StringVar(&o.controllerName, "ingress-controller-name", ingress.DefaultControllerName, "IngressClass spec.controller of the Ingresses to translate")
	f.BoolVar(&o.fromCluster, "from-cluster", false, "read Ingresses, Services, Secrets and IngressClasses from the cluster (read-only)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for --from-cluster (default: $KUBECONFIG, then ~/.kube/config)")
	f.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "with --from-cluster, read every namespace")
	return cmd
}

func (o *translateOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	switch o.output {
	case "yaml", "name", "report", "json":
	default:
		return fmt.Errorf("--output %q is not supported: use -o yaml, name, report or json", o.output)
	}
	if o.from != "" && o.from != fromIngressNginx {
		return fmt.Errorf("--from %q is not supported: the one source translate converts is --from %s", o.from, fromIngressNginx)
	}
	if len(o.adoptClasses) > 0 && o.from == "" {
		return fmt.Errorf("--adopt-class needs --from %s: adopted Ingresses are converted from ingress-nginx", fromIngressNginx)
	}
	configMap, err := ingress.ParseConfigMapName("--ingress-nginx-configmap", o.nginxConfigMap)
	if err != nil {
		return err
	}
	in := translateInputs{objs: ingress.NewObjectSet(), configMap: configMap}
	failed := 0
	switch {
	case o.fromCluster && len(o.in.files) > 0:
		return fmt.Errorf("use either -f or --from-cluster, not both")
	case o.fromCluster:
		err = o.readCluster(ctx, &in)
	default:
		failed, err = o.readFiles(ctx, stdin, &in, stderr)
	}
	if err != nil {
		return err
	}
	opts := ingress.Options{ControllerName: o.controllerName}
	var rep migrationReport
	if o.from == fromIngressNginx {
		opts.AdoptClasses = append([]string{"nginx"}, o.adoptClasses...)
		opts.AdoptNginxClasses, opts.AdoptUnclassed = true, true
		opts.Nginx = nginx.DefaultGlobals()
		rep.Nginx = true
		if in.nginxData != nil {
			var findings []nginx.Finding
			opts.Nginx, findings = nginx.GlobalsFromConfigMap(in.nginxData)
			rep.ConfigMap = in.configMap.String()
			rep.ConfigMapFindings = findings
		} else {
			rep.Assumed = opts.Nginx.Assumed()
		}
	}
	results, err := o.translateAll(ctx, in, opts)
	if err != nil {
		return err
	}
	docs := 0
	for i, ing := range in.ingresses {
		res := results[i].res
		rep.add(ing, res, o.notes(ing, res))
		switch o.output {
		case "yaml":
			o.report(ing, res, stderr)
			for _, doc := range results[i].docs {
				if docs > 0 {
					if _, err := io.WriteString(stdout, "---\n"); err != nil {
						return err
					}
				}
				if _, err := stdout.Write(doc); err != nil {
					return err
				}
				docs++
			}
		case "name":
			o.report(ing, res, stderr)
			for _, r := range res.Routes {
				fmt.Fprintf(stdout, "%s/%s\n", r.Namespace, r.Name)
			}
		}
	}
	switch o.output {
	case "yaml":
		rep.writeText(stderr)
	case "name":
		rep.writeText(stderr)
	case "report":
		rep.writeMarkdown(stdout)
	case "json":
		if err := rep.writeJSON(stdout); err != nil {
			return err
		}
	}
	switch {
	case failed > 0:
		return errInvalid
	case o.in.strict && rep.inexact() > 0:
		return fmt.Errorf("--strict: %s not converted exactly (see the report)", plural(rep.inexact(), "ingress", "ingresses"))
	}
	return nil
}

// translateInputs are the objects translate read.
type translateInputs struct {
	ingresses []*networkingv1.Ingress
	objs      *ingress.ObjectSet
	// configMap names ingress-nginx's ConfigMap; nginxData is its data
	// when it was read (nil when not found).
	configMap types.NamespacedName
	nginxData map[string]string
}

// translation is one Ingress's translation: its result, and its Routes
// as YAML documents with -o yaml.
type translation struct {
	res  ingress.Result
	docs [][]byte
	err  error
}

// translateAll translates every Ingress, each on its own, spread over the
// cores; the results are in the Ingresses' order.
func (o *translateOptions) translateAll(ctx context.Context, in translateInputs, opts ingress.Options) ([]translation, error) {
	out := make([]translation, len(in.ingresses))
	parallel.Range(len(in.ingresses), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = o.translateOne(ctx, in.ingresses[i], in.objs, opts)
		}
	})
	for _, t := range out {
		if t.err != nil {
			return nil, t.err
		}
	}
	return out, nil
}

// translateOne translates one Ingress. The Routes the API server would
// refuse after the webhook (for the CRD's schema) move from the result's
// Routes to its Problems, so that what translate prints is what the
// cluster would store.
func (o *translateOptions) translateOne(ctx context.Context, ing *networkingv1.Ingress, objs ingress.Objects, opts ingress.Options) translation {
	t := translation{res: ingress.TranslateWith(ing, objs, opts)}
	res := &t.res
	kept := res.Routes[:0]
	for _, r := range res.Routes {
		obj, err := input.RouteObject(r)
		if err != nil {
			return translation{err: err}
		}
		errs, err := input.ValidateRouteObject(ctx, r, obj)
		if err != nil {
			return translation{err: err}
		}
		if len(errs) > 0 {
			res.Problems = append(res.Problems, fmt.Sprintf("Route for host %q and path %q would be refused by the API server: %s",
				r.Spec.Host, r.Spec.Path, errs.ToAggregate().Error()))
			continue
		}
		kept = append(kept, r)
		if o.output == "yaml" {
			doc, err := yamlDocument(printableObject(obj))
			if err != nil {
				return translation{err: err}
			}
			t.docs = append(t.docs, doc)
		}
	}
	res.Routes = kept
	return t
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
	for _, n := range o.notes(ing, res) {
		fmt.Fprintf(stderr, "warning: ingress %s: %s\n", who, n)
	}
	if res.Conversion != nil {
		for _, f := range res.Conversion.Findings {
			fmt.Fprintf(stderr, "%s: ingress %s: %s\n", findingLevel(f), who, f.Describe())
		}
	}
	for _, r := range res.Routes {
		// Exact paths have a warning of their own (PathTypeHints).
		if n := openShiftNote(r.Annotations, routecore.AnnPathType); n != "" {
			fmt.Fprintf(stderr, "note: ingress %s: route %s: %s\n", who, r.Name, n)
		}
	}
}

// findingLevel is the report line's prefix of a finding: "note" for what
// is kept exactly, "warning" otherwise.
func findingLevel(f nginx.Finding) string {
	if f.Verdict == nginx.Exact {
		return "note"
	}
	return "warning"
}

// notes are the warnings of a managed Ingress's translation, other than
// its conversion's findings.
func (o *translateOptions) notes(ing *networkingv1.Ingress, res ingress.Result) []string {
	if !res.Managed {
		return nil
	}
	var notes []string
	notes = append(notes, res.Problems...)
	if !res.Adopted {
		notes = append(notes, ingress.AnnotationHints(ing)...)
	}
	notes = append(notes, ingress.PathTypeHints(ing)...)
	if res.InvalidReconcileLabels != "" {
		notes = append(notes, res.InvalidReconcileLabels)
	}
	if d := ing.Spec.DefaultBackend; d != nil {
		// OpenShift's controller ignores it silently (and so does ours); a
		// migration dry-run is where its loss should be seen.
		notes = append(notes, "spec.defaultBackend"+describeBackend(d)+" produces no Route: requests that match no rule will get the router's 503; add a rule for every host it should serve")
	}
	return notes
}

// readFiles reads the objects translate uses and skips the others. An
// object that cannot be decoded is reported on stderr and counted; the
// others are still read.
func (o *translateOptions) readFiles(ctx context.Context, stdin io.Reader, in *translateInputs, stderr io.Writer) (int, error) {
	read, err := o.in.read(ctx, stdin)
	if err != nil {
		return 0, err
	}
	// Decoding is spread over the cores; what it reports is printed in the
	// input's order.
	type decoded struct {
		into     client.Object
		problems []string
		err      error
	}
	objs := make([]decoded, len(read))
	parallel.Range(len(read), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d := &objs[i]
			if d.into, d.err = translateInput(read[i]); d.into != nil && d.err == nil {
				d.problems, d.err = input.Decode(read[i], d.into)
			}
		}
	})
	failed := 0
	for i, obj := range read {
		into, err := objs[i].into, objs[i].err
		if err == nil && into == nil {
			o.in.skip(obj, stderr) // Deployments and the like travel with Ingresses; they do not matter here
			continue
		}
		if err == nil {
			err = o.in.strictness(obj, objs[i].problems, stderr)
		}
		if err != nil {
			fmt.Fprintln(stderr, "error:", err)
			failed++
			continue
		}
		if into.GetNamespace() == "" {
			into.SetNamespace(o.namespace)
		}
		switch obj := into.(type) {
		case *networkingv1.Ingress:
			in.ingresses = append(in.ingresses, obj)
			in.objs.Add(obj)
		case *corev1.ConfigMap:
			if obj.Namespace == in.configMap.Namespace && obj.Name == in.configMap.Name {
				in.nginxData = nonNil(obj.Data)
			}
		default:
			in.objs.Add(into)
		}
	}
	return failed, nil
}

// nonNil returns m, or an empty map for nil: a ConfigMap without data was
// still found.
func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
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
	case obj.Kind == "ConfigMap" && obj.APIVersion == "v1":
		return &corev1.ConfigMap{}, nil
	}
	return nil, nil
}

// readCluster lists the objects with get/list rights only, in the
// namespace of -n, else the kubeconfig context's (as kubectl does), or in
// every namespace with -A.
func (o *translateOptions) readCluster(ctx context.Context, in *translateInputs) error {
	m := managerOptions{kubeconfig: o.kubeconfig, qps: -1}
	cfg, err := m.restConfig()
	if err != nil {
		return fmt.Errorf("connecting to the cluster: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme()})
	if err != nil {
		return err
	}
	var opts []client.ListOption
	if !o.allNamespaces {
		ns, err := o.clusterNamespace()
		if err != nil {
			return err
		}
		opts = append(opts, client.InNamespace(ns))
	}
	if o.from == fromIngressNginx {
		cm := &corev1.ConfigMap{}
		switch err := c.Get(ctx, in.configMap, cm); {
		case err == nil:
			in.nginxData = nonNil(cm.Data)
		case apierrors.IsNotFound(err), apierrors.IsForbidden(err):
			// ingress-nginx's documented defaults are assumed, and the report says so
		default:
			return fmt.Errorf("reading ingress-nginx's ConfigMap %s: %w", in.configMap, err)
		}
	}
	objs := in.objs
	var ings networkingv1.IngressList
	var svcs corev1.ServiceList
	var secrets corev1.SecretList
	var classes networkingv1.IngressClassList
	for what, list := range map[string]client.ObjectList{"ingresses": &ings, "services": &svcs, "secrets": &secrets} {
		if err := c.List(ctx, list, opts...); err != nil {
			return fmt.Errorf("listing %s: %w", what, err)
		}
	}
	if err := c.List(ctx, &classes); err != nil {
		return fmt.Errorf("listing ingressclasses: %w", err)
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
		objs.Add(out[i])
	}
	slices.SortFunc(out, func(a, b *networkingv1.Ingress) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	in.ingresses = out
	return nil
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
