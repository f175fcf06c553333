package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	kjson "sigs.k8s.io/json"

	"github.com/routeshift/routeshift/internal/input"
	"github.com/routeshift/routeshift/internal/invalid"
	"github.com/routeshift/routeshift/routecore"
)

type validateOptions struct {
	in          inputFlags
	routeSuffix string
	namespace   string
	output      string
	skipCerts   bool
}

func newValidate() *cobra.Command {
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate -f FILE [-f FILE...]",
		Short: "Default and validate Routes offline, exactly as the admission webhook and the API server do",
		Long: `validate reads Routes from YAML or JSON files (several documents per file, List
objects, OpenShift Templates, "-" for standard input), decodes them as the API server
does, applies the webhook's defaulting (including host generation) and validation, then
the Route CRD's schema as the API server checks it, and reports each invalid Route on
stderr in kubectl's words:

  The Route "NAME" is invalid: spec.to.weight: Invalid value: 300: ...

Objects of other kinds (Services, Deployments…) are skipped and counted in the summary
line; -v lists them. A Template's Routes are validated with its parameters substituted
as "oc process" does, from --param NAME=VALUE or the parameters' values; a parameter
that "oc process" would generate, or a required one without a value, must be given.

Fields the Route type does not have are dropped with a warning, as the API server
does by default; --strict refuses such Routes, as kubectl --validate=strict does.
Either way the other objects are still checked. Warnings (a misspelt router
annotation, an annotation with no effect) are printed as "Warning:" lines.
Permission checks (routes/custom-host) need a cluster and are not made. The exit
status is 1 when any Route is invalid or the input cannot be read, else 0.`,
		Example: `  routeshift validate -f route.yaml
  routeshift validate -f app.yaml -v            # also list the Services, Deployments… skipped
  routeshift validate -f routes/ingress-a.yaml -f routes/ingress-b.yaml --route-suffix apps.example.com
  routeshift validate -f template.yaml --param APPLICATION_DOMAIN=app.example.com
  kubectl get routes -A -o yaml | routeshift validate -f -
  routeshift validate -f route.yaml -o yaml      # print the defaulted Routes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	o.in.addFlags(f, "validate reads only Routes")
	f.StringVar(&o.routeSuffix, "route-suffix", routecore.DefaultRouteSuffix, "DNS suffix of generated hosts (<name>-<namespace>.<suffix>)")
	f.StringVarP(&o.namespace, "namespace", "n", "default", "namespace of Routes that name none (as kubectl's current namespace would)")
	f.StringVarP(&o.output, "output", "o", "", `"yaml" prints the defaulted Routes on stdout`)
	f.BoolVar(&o.skipCerts, "skip-certificate-checks", false, "do not parse and check TLS certificates and keys")
	return cmd
}

func (o *validateOptions) run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.output != "" && o.output != "yaml" {
		return fmt.Errorf("--output %q is not supported: use -o yaml or omit it", o.output)
	}
	if err := routecore.ValidateRouteSuffix(o.routeSuffix); err != nil {
		return fmt.Errorf("--route-suffix: %v", err)
	}
	objs, err := o.in.read(ctx, stdin)
	if err != nil {
		return err
	}
	var sum validateSummary
	var defaulted []any
	for _, obj := range objs {
		if !isRoute(obj) {
			sum.skipped++
			o.in.skip(obj, stderr)
			continue
		}
		r, err := o.validate(ctx, obj, stderr)
		if err != nil {
			return err
		}
		if r == nil {
			sum.invalid++
			continue
		}
		sum.valid++
		if o.output == "yaml" {
			defaulted = append(defaulted, printable(r))
		} else {
			fmt.Fprintf(stdout, "%s/%s valid\n", r.Namespace, displayName(r))
		}
	}
	if err := printYAML(stdout, defaulted); err != nil {
		return err
	}
	fmt.Fprintln(stderr, sum)
	if sum.invalid > 0 {
		return errInvalid
	}
	return nil
}

// validate decodes, defaults and validates one Route as the API server and
// the webhook would; it returns nil, having said why on stderr, when the
// Route would be refused. An error means validate cannot go on.
func (o *validateOptions) validate(ctx context.Context, obj input.Object, stderr io.Writer) (*routecore.Route, error) {
	r, err := o.in.decodeRoute(obj, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return nil, nil
	}
	if r.Namespace == "" {
		r.Namespace = o.namespace
	}
	routecore.Default(r, nil, routecore.DefaultOptions{RouteSuffix: o.routeSuffix})
	for _, w := range routecore.Warnings(r, routecore.WarningOptions{GeneratedHostSuffix: o.routeSuffix}) {
		fmt.Fprintf(stderr, "Warning: %s/%s: %s\n", r.Namespace, r.Name, w)
	}
	if n := openShiftNote(r.Annotations); n != "" {
		fmt.Fprintf(stderr, "Note: %s/%s: %s\n", r.Namespace, r.Name, n)
	}
	// The mutating webhook refuses first; the API server checks the schema
	// only of what it let through.
	errs := routecore.ValidateRoute(r, routecore.ValidateOptions{SkipCertificateChecks: o.skipCerts})
	if len(errs) == 0 {
		if errs, err = input.ValidateRoute(ctx, r); err != nil {
			return nil, err
		}
	}
	if len(errs) > 0 {
		fmt.Fprint(stderr, invalid.RouteMessage(r.Name, errs))
		return nil, nil
	}
	return r, nil
}

// displayName is a Route's name, or for one with only generateName what
// the API server will name it: that prefix and 5 random characters.
func displayName(r *routecore.Route) string {
	if r.Name == "" && r.GenerateName != "" {
		return r.GenerateName + "<generated>"
	}
	return r.Name
}

// validateSummary counts what validate did, for its last line.
type validateSummary struct {
	valid, invalid, skipped int
}

func (s validateSummary) String() string {
	return fmt.Sprintf("summary: %s read: %d valid, %d invalid; %s skipped",
		plural(s.valid+s.invalid, "route", "routes"), s.valid, s.invalid, plural(s.skipped, "object of another kind", "objects of other kinds"))
}

// inputFlags are how every offline command reads its input.
type inputFlags struct {
	files   []string
	params  []string
	strict  bool
	verbose bool
}

// addFlags adds the input flags; skipped says which kinds the command reads.
func (in *inputFlags) addFlags(f *pflag.FlagSet, reads string) {
	f.StringArrayVarP(&in.files, "filename", "f", nil, `file to read ("-" for standard input); repeatable`)
	f.StringArrayVar(&in.params, "param", nil, "NAME=VALUE of a Template parameter, as oc process -p takes it; repeatable")
	f.BoolVar(&in.strict, "strict", false, "refuse objects with unknown or duplicate fields, as kubectl --validate=strict does (default: drop them with a warning, as the API server does)")
	f.BoolVarP(&in.verbose, "verbose", "v", false, "list the objects skipped for their kind ("+reads+")")
}

func (in *inputFlags) read(ctx context.Context, stdin io.Reader) ([]input.Object, error) {
	params := make(map[string]string, len(in.params))
	for _, p := range in.params {
		name, value, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("--param %q: give NAME=VALUE", p)
		}
		params[name] = value
	}
	objs, err := input.Read(ctx, in.files, stdin, input.Options{Params: params})
	if ctx.Err() != nil {
		return nil, errInterrupted
	}
	return objs, err
}

// skip lists an object of a kind the command does not read, with -v.
func (in *inputFlags) skip(obj input.Object, stderr io.Writer) {
	if in.verbose {
		fmt.Fprintf(stderr, "skipped: %s: %s %s %s\n", obj.Source, obj.APIVersion, obj.Kind, obj.Name)
	}
}

// decode decodes a built-in object (see input.Decode), reporting unknown
// and duplicate fields as the API server does.
func (in *inputFlags) decode(obj input.Object, into any, stderr io.Writer) error {
	problems, err := input.Decode(obj, into)
	if err != nil {
		return err
	}
	return in.strictness(obj, problems, stderr)
}

// strictness prints the strict-decoding problems of an object as warnings,
// or with --strict returns them as the API server's error.
func (in *inputFlags) strictness(obj input.Object, problems []string, stderr io.Writer) error {
	if len(problems) == 0 {
		return nil
	}
	if in.strict {
		version := obj.APIVersion[strings.LastIndex(obj.APIVersion, "/")+1:]
		return fmt.Errorf("%s: %s in version %q cannot be handled as a %s: strict decoding error: %s",
			obj.Source, obj.Kind, version, obj.Kind, strings.Join(problems, ", "))
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "Warning: %s: %s\n", obj.Source, p)
	}
	return nil
}

// isRoute reports whether an object is an OpenShift Route: of the
// route.openshift.io group, or of OpenShift 3's legacy v1. Routes of other
// APIs, such as Knative's serving.knative.dev, are other kinds.
func isRoute(obj input.Object) bool {
	return obj.Kind == "Route" && (obj.APIVersion == "v1" || strings.HasPrefix(obj.APIVersion, routecore.GroupName+"/"))
}

// decodeRoute decodes a Route as the API server does. OpenShift 3
// manifests that say apiVersion v1 are read as route.openshift.io/v1, with
// a warning.
func (in *inputFlags) decodeRoute(obj input.Object, stderr io.Writer) (*routecore.Route, error) {
	switch obj.APIVersion {
	case routecore.GroupVersion.String():
	case "v1":
		if obj.Err == nil {
			fmt.Fprintf(stderr, "Warning: %s: apiVersion v1 is OpenShift 3's legacy Route group; read as route.openshift.io/v1, which is what the cluster serves\n", obj.Source)
		}
	default:
		return nil, fmt.Errorf("%s: apiVersion %s is not served; Routes are %s", obj.Source, obj.APIVersion, routecore.GroupVersion)
	}
	r := &routecore.Route{}
	problems, err := input.DecodeRoute(obj, r)
	if err != nil {
		return nil, err
	}
	if err := in.strictness(obj, problems, stderr); err != nil {
		return nil, err
	}
	return r, nil
}

// printable drops what a freshly defaulted object has no value for
// (creationTimestamp: null, an empty status), as kubectl's output does.
func printable(r *routecore.Route) any {
	m, _ := input.RouteObject(r)
	return printableObject(m)
}

// printableObject drops from a Route object what kubectl does not show of
// an object never stored: a null creationTimestamp and an empty status.
func printableObject(m map[string]any) map[string]any {
	if meta, ok := m["metadata"].(map[string]any); ok && meta["creationTimestamp"] == nil {
		delete(meta, "creationTimestamp")
	}
	if st, ok := m["status"].(map[string]any); ok && len(st) == 0 {
		delete(m, "status")
	}
	return m
}

// printYAML prints objects as YAML documents, their fields named as in
// JSON. It converts through JSON values and emits the YAML itself, rather
// than converting JSON text, which reads the JSON as YAML and so turns a
// U+0085 in a value into a space.
func printYAML(w io.Writer, objs []any) error {
	for i, o := range objs {
		v, ok := o.(map[string]any)
		if !ok {
			js, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &v); err != nil {
				return err
			}
		}
		out, err := yamlDocument(v)
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

// openShiftNote names, once per Route, the annotations only routeshift's
// router reads ("" for none), so that a Route meant to run on OpenShift
// too is not relied on for what OpenShift's router ignores.
// Keys in except are left out (their own warnings say more).
func openShiftNote(annotations map[string]string, except ...string) string {
	keys := slices.DeleteFunc(routecore.OpenShiftIgnores(annotations), func(k string) bool { return slices.Contains(except, k) })
	if len(keys) == 0 {
		return ""
	}
	return "OpenShift's router ignores " + strings.Join(keys, ", ") + " (routeshift's own annotations): on OpenShift this Route behaves otherwise"
}
