package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/internal/input"
	"github.com/routeshift/routeshift/routecore"
)

type validateOptions struct {
	files       []string
	routeSuffix string
	namespace   string
	output      string
	skipCerts   bool
}

func newValidate() *cobra.Command {
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate -f FILE [-f FILE...]",
		Short: "Default and validate Routes offline, exactly as the admission webhook does",
		Long: `validate reads Routes from YAML or JSON files (several documents per file, List
objects, "-" for standard input), applies the webhook's defaulting (including host
generation) and validation, and reports each invalid Route on stderr in kubectl's
words:

  The Route "NAME" is invalid: spec.to.weight: Invalid value: 300: ...

Warnings (a misspelt router annotation, an annotation with no effect) are printed
as "Warning:" lines. Permission checks (routes/custom-host) need a cluster and are
not made. The exit status is 1 when any Route is invalid or the input cannot be
read, else 0.`,
		Example: `  routeshift validate -f route.yaml
  routeshift validate -f routes/ingress-a.yaml -f routes/ingress-b.yaml --route-suffix apps.example.com
  kubectl get routes -A -o yaml | routeshift validate -f -
  routeshift validate -f route.yaml -o yaml      # print the defaulted Routes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.files, "filename", "f", nil, `file to read ("-" for standard input); repeatable`)
	f.StringVar(&o.routeSuffix, "route-suffix", routecore.DefaultRouteSuffix, "DNS suffix of generated hosts (<name>-<namespace>.<suffix>)")
	f.StringVarP(&o.namespace, "namespace", "n", "default", "namespace of Routes that name none (as kubectl's current namespace would)")
	f.StringVarP(&o.output, "output", "o", "", `"yaml" prints the defaulted Routes on stdout`)
	f.BoolVar(&o.skipCerts, "skip-certificate-checks", false, "do not parse and check TLS certificates and keys")
	return cmd
}

func (o *validateOptions) run(stdin io.Reader, stdout, stderr io.Writer) error {
	if o.output != "" && o.output != "yaml" {
		return fmt.Errorf("--output %q is not supported: use -o yaml or omit it", o.output)
	}
	if err := routecore.ValidateRouteSuffix(o.routeSuffix); err != nil {
		return fmt.Errorf("--route-suffix: %v", err)
	}
	objs, err := input.Read(o.files, stdin)
	if err != nil {
		return err
	}
	routes := make([]*routecore.Route, 0, len(objs))
	for _, obj := range objs {
		r, warning, err := decodeRoute(obj)
		if err != nil {
			return err
		}
		if warning != "" {
			fmt.Fprintln(stderr, "Warning:", warning)
		}
		routes = append(routes, r)
	}
	invalid := 0
	var defaulted []any
	for _, r := range routes {
		if r.Namespace == "" {
			r.Namespace = o.namespace
		}
		routecore.Default(r, nil, routecore.DefaultOptions{RouteSuffix: o.routeSuffix})
		for _, w := range routecore.Warnings(r, routecore.WarningOptions{GeneratedHostSuffix: o.routeSuffix}) {
			fmt.Fprintf(stderr, "Warning: %s/%s: %s\n", r.Namespace, r.Name, w)
		}
		if errs := routecore.ValidateRoute(r, routecore.ValidateOptions{SkipCertificateChecks: o.skipCerts}); len(errs) > 0 {
			invalid++
			fmt.Fprint(stderr, invalidMessage("Route", r.Name, errs))
			continue
		}
		if o.output == "yaml" {
			defaulted = append(defaulted, printable(r))
		} else {
			fmt.Fprintf(stdout, "%s/%s valid\n", r.Namespace, r.Name)
		}
	}
	if err := printYAML(stdout, defaulted); err != nil {
		return err
	}
	if invalid > 0 {
		return errInvalid
	}
	return nil
}

// decodeRoute decodes a Route strictly. OpenShift 3 manifests that say
// apiVersion v1 are read as route.openshift.io/v1, with a warning.
func decodeRoute(obj input.Object) (*routecore.Route, string, error) {
	warning := ""
	switch {
	case obj.Kind != "Route":
		return nil, "", fmt.Errorf("%s: kind %s (%s) is not a Route; validate reads only route.openshift.io/v1 Routes", obj.Source, obj.Kind, obj.APIVersion)
	case obj.APIVersion == "v1":
		warning = fmt.Sprintf("%s: apiVersion v1 is OpenShift 3's legacy Route group; read as route.openshift.io/v1, which is what the cluster serves", obj.Source)
	case obj.APIVersion != routecore.GroupVersion.String():
		return nil, "", fmt.Errorf("%s: apiVersion %s is not served; Routes are %s", obj.Source, obj.APIVersion, routecore.GroupVersion)
	}
	r := &routecore.Route{}
	if err := input.DecodeStrict(obj, r); err != nil {
		return nil, "", err
	}
	r.APIVersion, r.Kind = routecore.GroupVersion.String(), "Route"
	return r, warning, nil
}

// invalidMessage renders errors as kubectl renders an Invalid API error:
// one cause on the same line, several as a bulleted list.
func invalidMessage(kind, name string, errs field.ErrorList) string {
	prefix := fmt.Sprintf("The %s %q is invalid: ", kind, name)
	if len(errs) == 1 {
		return prefix + errs[0].Error() + "\n"
	}
	var b strings.Builder
	b.WriteString(prefix + "\n")
	for _, e := range errs {
		b.WriteString("* " + e.Error() + "\n")
	}
	return b.String()
}

// printable drops what a freshly defaulted object has no value for
// (creationTimestamp: null, an empty status), as kubectl's output does.
func printable(r *routecore.Route) any {
	js, _ := yaml.Marshal(r)
	var m map[string]any
	_ = yaml.Unmarshal(js, &m)
	if meta, ok := m["metadata"].(map[string]any); ok && meta["creationTimestamp"] == nil {
		delete(meta, "creationTimestamp")
	}
	if st, ok := m["status"].(map[string]any); ok && len(st) == 0 {
		delete(m, "status")
	}
	return m
}

func printYAML(w io.Writer, objs []any) error {
	for i, o := range objs {
		out, err := yaml.Marshal(o)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}
