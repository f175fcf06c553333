package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/haproxy"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/input"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

type renderOptions struct {
	in          inputFlags
	namespace   string
	routeSuffix string
	output      string
	dir         string
	check       bool
	haproxy     string
	asStored    bool
	stderr      io.Writer
}

func newRender() *cobra.Command {
	o := &renderOptions{}
	var parse func() (settings.Config, error)
	cmd := &cobra.Command{
		Use:   "render -f FILE [-f FILE...] [--dir DIR] [--check] [-o yaml]",
		Short: "Judge Routes offline as a router would, and print one line per Route",
		Long: `render reads Routes, Namespaces, EndpointSlices, Services and Secrets from files and runs the
router's admission offline, with the same settings as "routeshift router" (environment
variables or flags). It prints one line per Route, in input order:

  NAMESPACE/NAME admitted
  NAMESPACE/NAME rejected REASON        (the message follows on stderr)
  NAMESPACE/NAME ignored                (outside this router's shard)

then a summary line on stderr. Objects of other kinds (Deployments, ConfigMaps…) are
skipped and counted there; -v lists them. Input is read as by "routeshift validate"
(YAML or JSON, List objects, OpenShift Templates with --param, unknown fields dropped
with a warning or refused with --strict).

Routes are defaulted as the admission webhook would (a host is generated for Routes
without one). With --as-stored they are judged exactly as the API server stores them,
without that defaulting, as the router sees Routes created before the webhook was
installed: a Route without a host gets ROUTER_SUBDOMAIN's host or is rejected with
NoHostValue, an invalid host InvalidHost. Routes without a creationTimestamp are as old
as their place in the input: earlier documents are older. -o yaml prints the Routes with
the status.ingress entry this router would write instead.

--dir writes the HAProxy configuration; --check then runs haproxy -c on it and prints
HAProxy's own message when it refuses it. The exit status is 0 when every Route could be
judged (rejections are results, not errors), non-zero when the input or a Route cannot be
read, the configuration cannot be written or HAProxy refuses it. Ctrl-C (SIGINT) and
SIGTERM stop it.

` + settingsHelp,
		Example: `  routeshift render -f routes.yaml
  ROUTER_DENIED_DOMAINS=internal.example.com routeshift render -f routes.yaml -f namespaces.yaml
  kubectl get routes,namespaces -A -o yaml | routeshift render -f - --labels shard=public
  kubectl get routes -A -o yaml | ROUTER_SUBDOMAIN='${name}-${namespace}.apps.example.com' routeshift render -f - --as-stored
  routeshift render -f routes.yaml --dir /tmp/cfg --check`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := parse()
			if err != nil {
				return err
			}
			return o.run(cmd.Context(), cfg, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	o.in.addFlags(f, "render reads Routes, Namespaces, EndpointSlices, Services and Secrets")
	f.StringVarP(&o.namespace, "input-namespace", "n", "default", "namespace of objects that name none")
	f.StringVar(&o.routeSuffix, "route-suffix", routecore.DefaultRouteSuffix, "DNS suffix of generated hosts, as the webhook's")
	f.StringVarP(&o.output, "output", "o", "", `"yaml" prints the Routes with this router's status entry`)
	f.StringVar(&o.dir, "dir", "", "write the HAProxy configuration (haproxy.cfg, maps, certificates) into this directory")
	f.BoolVar(&o.check, "check", false, "check the written configuration with haproxy -c (needs --dir)")
	f.StringVar(&o.haproxy, "haproxy", "haproxy", "HAProxy binary for --check")
	f.BoolVar(&o.asStored, "as-stored", false, "judge Routes as stored, without the webhook's defaulting (Routes created before the webhook)")
	parse = settings.AddFlags(f, os.Getenv)
	return cmd
}

// errInterrupted stops a command on SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

func (o *renderOptions) run(ctx context.Context, cfg settings.Config, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.output != "" && o.output != "yaml" {
		return fmt.Errorf("--output %q is not supported: use -o yaml or omit it", o.output)
	}
	if o.check && o.dir == "" {
		return errors.New("--check needs --dir")
	}
	objs, err := o.in.read(ctx, stdin)
	if err != nil {
		return err
	}
	o.stderr = stderr
	in := &renderInput{store: router.NewStore(cfg.Router.Admission), seen: map[types.NamespacedName]bool{}}
	for i, obj := range objs {
		if ctx.Err() != nil {
			return errInterrupted
		}
		o.add(in, obj, i)
	}
	snap := in.store.Build(true)
	if ctx.Err() != nil {
		return errInterrupted
	}
	if err := o.writeConfig(ctx, cfg, snap); err != nil {
		return err
	}
	if err := o.print(ctx, cfg, in, snap, stdout); err != nil {
		return err
	}
	fmt.Fprintln(stderr, in.summary)
	if in.summary.unreadable > 0 {
		return errInvalid
	}
	return nil
}

// renderInput is what render has read: the store the router would hold,
// the Routes in input order, and what happened to each object.
type renderInput struct {
	store   *router.Store
	routes  []*routecore.Route
	seen    map[types.NamespacedName]bool
	summary renderSummary
}

// print writes one line per Route, or with -o yaml the Routes with their
// status, and counts the verdicts.
func (o *renderOptions) print(ctx context.Context, cfg settings.Config, in *renderInput, snap router.Snapshot, stdout io.Writer) error {
	id := cfg.Router.StatusIdentity()
	var printed []any
	for _, r := range in.routes {
		if ctx.Err() != nil {
			return errInterrupted
		}
		k := router.Key(r.Namespace, r.Name)
		d, _ := snap.Decisions.Get(k)
		in.summary.count(d.Verdict)
		switch {
		case o.output == "yaml":
			r.Status.Ingress, _ = router.DesiredStatus(r, d, id, time.Now())
			shown := r.DeepCopy()
			if strings.HasPrefix(string(shown.UID), syntheticUID) {
				shown.UID, shown.CreationTimestamp = "", metav1.Time{}
			}
			printed = append(printed, printable(shown))
		case d.Verdict == router.Rejected:
			fmt.Fprintf(stdout, "%s rejected %s\n", k, d.Reason)
			fmt.Fprintf(o.stderr, "%s: %s\n", k, d.Message)
		default:
			fmt.Fprintf(stdout, "%s %s\n", k, d.Verdict)
		}
	}
	return printYAML(stdout, printed)
}

// renderSummary counts what render did, for its last line.
type renderSummary struct {
	admitted, rejected, ignored, unreadable, skipped int
}

func (s *renderSummary) count(v router.Verdict) {
	switch v {
	case router.Admitted:
		s.admitted++
	case router.Rejected:
		s.rejected++
	default:
		s.ignored++
	}
}

func (s renderSummary) String() string {
	judged := s.admitted + s.rejected + s.ignored
	out := fmt.Sprintf("summary: %s judged: %d admitted, %d rejected, %d ignored", plural(judged, "route", "routes"), s.admitted, s.rejected, s.ignored)
	if s.unreadable > 0 {
		out += fmt.Sprintf("; %s could not be read", plural(s.unreadable, "route", "routes"))
	}
	return out + fmt.Sprintf("; %s skipped", plural(s.skipped, "object of another kind", "objects of other kinds"))
}

// writeConfig renders the configuration into --dir and checks it.
func (o *renderOptions) writeConfig(ctx context.Context, cfg settings.Config, snap router.Snapshot) error {
	if o.dir == "" {
		return nil
	}
	abs, err := filepath.Abs(o.dir)
	if err != nil {
		return err
	}
	cfg.DataPlane.WorkingDir = abs
	renderer, err := haproxy.NewRenderer(cfg.DataPlane)
	if err != nil {
		return err
	}
	files, err := haproxy.NewFileLoader(cfg.DataPlane).Load()
	if err != nil {
		return err
	}
	out, err := renderer.Render(snap, haproxy.Inputs{Files: files})
	if err != nil {
		return err
	}
	// Every file, not only those that differ from an empty directory's:
	// --dir may hold an earlier rendering.
	out.Changed = slices.Sorted(maps.Keys(out.Files))
	if err := runtime.WriteFiles(abs, out); err != nil {
		return err
	}
	if !o.check {
		return nil
	}
	return o.haproxyCheck(ctx, abs, out.ConfigArgs)
}

// haproxyCheck runs haproxy -c as the router does before it loads a
// configuration, and returns HAProxy's own message: its output without
// the version notices.
func (o *renderOptions) haproxyCheck(ctx context.Context, dir string, configArgs []string) error {
	err := runtime.CheckContext(ctx, o.haproxy, dir, configArgs)
	var refused *runtime.RefusedError
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return errInterrupted
	case !errors.As(err, &refused):
		return fmt.Errorf("running %s for --check: %w (name the binary with --haproxy)", o.haproxy, err)
	}
	var lines []string
	for line := range strings.Lines(refused.Words) {
		if !strings.HasPrefix(line, "[NOTICE]") {
			lines = append(lines, strings.TrimRight(line, "\n"))
		}
	}
	if len(lines) == 0 {
		lines = []string{refused.Err.Error()}
	}
	return fmt.Errorf("haproxy -c refuses the configuration in %s:\n%s", o.dir, strings.Join(lines, "\n"))
}

// syntheticUID prefixes the UIDs render gives Routes read from files; they
// order ties and are not printed.
const syntheticUID = "render-input-"

// add reads one object into the store. An object of a kind render does
// not read is skipped; one it cannot decode is reported on stderr and
// counted, and the others are still read.
func (o *renderOptions) add(in *renderInput, obj input.Object, i int) {
	ns := obj.Namespace
	if ns == "" {
		ns = o.namespace
	}
	var err error
	switch {
	case isRoute(obj):
		err = o.addRoute(in, obj, ns, i)
	case obj.Kind == "Namespace" && obj.APIVersion == "v1":
		n := &corev1.Namespace{}
		if err = o.in.decode(obj, n, o.stderr); err == nil {
			in.store.SetNamespace(n.Name, n.Labels)
		}
	case obj.Kind == "EndpointSlice" && obj.APIVersion == "discovery.k8s.io/v1":
		es := &discoveryv1.EndpointSlice{}
		if err = o.in.decode(obj, es, o.stderr); err == nil {
			es.Namespace = ns
			in.store.SetEndpointSlice(es)
		}
	case obj.Kind == "Secret" && obj.APIVersion == "v1":
		s := &corev1.Secret{}
		if err = o.in.decode(obj, s, o.stderr); err == nil {
			s.Namespace = ns
			in.store.SetSecret(s)
		}
	case obj.Kind == "Service" && obj.APIVersion == "v1":
		svc := &corev1.Service{}
		if err = o.in.decode(obj, svc, o.stderr); err == nil {
			svc.Namespace = ns
			in.store.SetService(svc)
		}
	default:
		in.summary.skipped++
		o.in.skip(obj, o.stderr)
	}
	if err != nil {
		fmt.Fprintln(o.stderr, "error:", err)
		if isRoute(obj) {
			in.summary.unreadable++
		}
	}
}

// addRoute reads a Route, defaulted as the webhook would unless
// --as-stored, with the input order as its age when it has none.
func (o *renderOptions) addRoute(in *renderInput, obj input.Object, ns string, i int) error {
	r, err := o.in.decodeRoute(obj, o.stderr)
	if err != nil {
		return err
	}
	r.Namespace = ns
	if !o.asStored {
		routecore.Default(r, nil, routecore.DefaultOptions{RouteSuffix: o.routeSuffix})
	}
	if r.CreationTimestamp.IsZero() {
		r.CreationTimestamp = metav1.NewTime(time.Unix(0, 0).Add(time.Duration(i) * time.Second))
	}
	if r.UID == "" {
		r.UID = types.UID(fmt.Sprintf("%s%08d", syntheticUID, i))
	}
	key := types.NamespacedName{Namespace: r.Namespace, Name: r.Name}
	if in.seen[key] {
		return fmt.Errorf("%s: route %s appears twice in the input", obj.Source, key)
	}
	in.seen[key] = true
	in.routes = append(in.routes, r)
	in.store.SetRoute(r)
	return nil
}
