package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/internal/cli"
	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/internal/input"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// verdict is what validate or the API server (with the webhooks) made of
// one Route.
type verdict struct {
	valid bool
	// message is why it was refused: "The Route "NAME" is invalid: …" as
	// kubectl prints it, or the API server's message for a request it could
	// not decode.
	message string
	// route is the Route as it would be stored, when valid.
	route *routecore.Route
}

const legacyV1 = "validate reads OpenShift 3's legacy apiVersion v1 as route.openshift.io/v1 (with a warning); " +
	"the API server serves Routes only as route.openshift.io/v1"

// legitimateDifferences are the Routes on which validate and the API server
// disagree by design, by corpus file and Route name, with the reason. Each
// must still differ (with default or strict field validation), or it is to
// be removed from this list.
var legitimateDifferences = map[string]string{
	"legacy-v1.yaml/r":      legacyV1,
	"template.json/eap-app": legacyV1,
	"routecore-route.yaml/edge-external-certificate": "the validating webhook checks that the router may read the Secret of " +
		"spec.tls.externalCertificate, which needs the cluster; validate makes no permission checks",
}

// acceptedByOpenShift are Routes of the corpus that OpenShift's API server
// accepts (routecore's tables say valid), which both sides must therefore
// accept, not only agree on.
var acceptedByOpenShift = []string{
	"routecore-headers.yaml/headers-on-plain",
	"routecore-headers.yaml/names-differing-in-case",
	"routecore-headers.yaml/empty-actions-on-passthrough",
	"routecore-headers.yaml/request-only",
}

// TestValidateAgreesWithWebhook gives every input of the project's validate
// tests (internal/cli/testdata/validate, which holds those of
// internal/cli's validate tests and the whole-Route cases of routecore's
// validation tables, and the Route examples of OpenShift's route
// documentation in internal/fixtures) to `routeshift
// validate` and to the API server with the webhooks (a server-side dry run
// of each Route), with the API server's default field validation and with
// Strict, and requires the same verdict for every Route, the same message
// where both refuse it in kubectl's "is invalid" form or as a strict
// decoding error, and the same stored spec, labels and annotations where
// both accept it. Objects of other kinds are skipped by validate and not
// sent; Template objects are sent as validate processed them, and those
// with a parameter without value (an input error, not a verdict) are left
// out.
func TestValidateAgreesWithWebhook(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "verdicts")
	cases := validateCorpus(t, cp.RepoRoot)
	differed := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		for _, strict := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s strict=%v", name, strict), func(t *testing.T) {
				file := filepath.Join(t.TempDir(), name)
				if err := os.WriteFile(file, []byte(cases[name]), 0o600); err != nil {
					t.Fatal(err)
				}
				routes := routesOf(t, file)
				offline := validateVerdicts(t, file, ns, strict, routes)
				for _, o := range routes {
					key := name + "/" + o.Name
					server := serverVerdict(cp, o, ns, strict)
					differed[key] = differed[key] || compareVerdicts(t, key, offline[o.Name], server)
					if slices.Contains(acceptedByOpenShift, key) && !server.valid {
						t.Errorf("%s: OpenShift accepts this Route, the API server with the webhooks refuses it: %s", key, server.message)
					}
				}
			})
		}
	}
	for key, reason := range legitimateDifferences {
		if !differed[key] {
			t.Errorf("%s is listed as a legitimate difference (%s), but validate and the API server agree on it: remove it from the list", key, reason)
		}
	}
}

// validateCorpus reads the corpus, placeholders filled in, by file name.
func validateCorpus(t *testing.T, root string) map[string]string {
	t.Helper()
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "internal", "cli", "testdata", "validate", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in internal/cli/testdata/validate: %v", err)
	}
	cases := map[string]string{"openshift-doc-routes.yaml": fixtures.DocRoutes(p)}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases[filepath.Base(f)] = fixtures.WithPEMs(string(data), p)
	}
	return cases
}

// routesOf returns the Routes of a file as validate reads them; those a
// Template could not give (a parameter without value) are left out.
func routesOf(t *testing.T, file string) []input.Object {
	t.Helper()
	objs, err := input.Read(context.Background(), []string{file}, nil, input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var routes []input.Object
	for _, o := range objs {
		if o.Kind == "Route" && o.Err == nil && (o.APIVersion == "v1" || strings.HasPrefix(o.APIVersion, routecore.GroupName+"/")) {
			routes = append(routes, o)
		}
	}
	if len(routes) == 0 {
		t.Fatalf("%s holds no Route", file)
	}
	return routes
}

// validateVerdicts runs `routeshift validate -o yaml` on file and reads
// its verdicts by Route name.
func validateVerdicts(t *testing.T, file, ns string, strict bool, routes []input.Object) map[string]verdict {
	t.Helper()
	args := []string{"validate", "-f", file, "-n", ns, "-o", "yaml"}
	if strict {
		args = append(args, "--strict")
	}
	var stdout, stderr bytes.Buffer
	cli.Execute(args, strings.NewReader(""), &stdout, &stderr)
	out := map[string]verdict{}
	for _, doc := range strings.Split(stdout.String(), "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		r := &routecore.Route{}
		if err := yaml.Unmarshal([]byte(doc), r); err != nil {
			t.Fatalf("validate's output: %v\n%s", err, doc)
		}
		out[r.Name] = verdict{valid: true, route: r}
	}
	for name, message := range refusals(stderr.String(), routes) {
		out[name] = verdict{message: message}
	}
	return out
}

// refusals reads validate's stderr: a kubectl-style "is invalid" block per
// refused Route, or an "error: SOURCE: MESSAGE" line naming the object by
// where it was read.
func refusals(stderr string, routes []input.Object) map[string]string {
	out := map[string]string{}
	name := ""
	for line := range strings.Lines(stderr) {
		switch {
		case strings.HasPrefix(line, `The Route "`):
			name = strings.SplitN(line, `"`, 3)[1]
			out[name] = line
		case strings.HasPrefix(line, "* ") && name != "":
			out[name] += line
		case strings.HasPrefix(line, "error: "):
			name = ""
			for _, o := range routes {
				if rest, ok := strings.CutPrefix(line, "error: "+o.Source+": "); ok {
					out[o.Name] = rest
				}
			}
		default:
			name = ""
		}
	}
	for n, m := range out {
		out[n] = strings.TrimSuffix(m, "\n")
	}
	return out
}

// serverVerdict creates the Route in a server-side dry run, as `kubectl
// create --dry-run=server` would, and reads the answer.
func serverVerdict(cp *framework.ControlPlane, o input.Object, ns string, strict bool) verdict {
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(o.JSON, &u.Object); err != nil {
		return verdict{message: err.Error()}
	}
	u.SetNamespace(ns)
	opts := []client.CreateOption{client.DryRunAll}
	if strict {
		opts = append(opts, client.FieldValidation(metav1.FieldValidationStrict))
	}
	if err := cp.Client.Create(context.Background(), u, opts...); err != nil {
		return verdict{message: kubectlMessage(err)}
	}
	r := &routecore.Route{}
	js, err := json.Marshal(u.Object)
	if err == nil {
		err = json.Unmarshal(js, r)
	}
	if err != nil {
		return verdict{message: err.Error()}
	}
	return verdict{valid: true, route: r}
}

// kubectlMessage is an API error as kubectl prints it: an Invalid error's
// causes one per line after "The KIND "NAME" is invalid:" (on that line
// when there is one), any other error's message without the webhook's
// "denied the request" preamble.
func kubectlMessage(err error) string {
	var status *apierrors.StatusError
	if !errors.As(err, &status) {
		return err.Error()
	}
	d := status.ErrStatus.Details
	if status.ErrStatus.Reason != metav1.StatusReasonInvalid || d == nil || len(d.Causes) == 0 {
		msg := status.ErrStatus.Message
		if _, rest, ok := strings.Cut(msg, "denied the request: "); ok {
			msg = rest
		}
		return msg
	}
	prefix := fmt.Sprintf("The %s %q is invalid: ", d.Kind, d.Name)
	if len(d.Causes) == 1 {
		return prefix + d.Causes[0].Field + ": " + d.Causes[0].Message
	}
	lines := []string{prefix}
	for _, c := range d.Causes {
		lines = append(lines, "* "+c.Field+": "+c.Message)
	}
	return strings.Join(lines, "\n")
}

// compareVerdicts fails unless validate and the API server agree on a
// Route; a Route of legitimateDifferences is not compared. It reports
// whether the verdicts differ.
func compareVerdicts(t *testing.T, key string, offline, server verdict) bool {
	t.Helper()
	differ := offline.valid != server.valid
	if reason, listed := legitimateDifferences[key]; listed {
		t.Logf("%s: validate valid=%v, the API server valid=%v; may differ by design: %s", key, offline.valid, server.valid, reason)
		return differ
	}
	switch {
	case differ:
		t.Errorf("%s: validate says valid=%v, the API server valid=%v\nvalidate: %s\nserver:   %s", key, offline.valid, server.valid, offline.message, server.message)
	case !offline.valid && comparable(offline.message, server.message) && causes(offline.message) != causes(server.message):
		t.Errorf("%s: refused in other words\nvalidate: %s\nserver:   %s", key, offline.message, server.message)
	case offline.valid && !sameStored(offline.route, server.route):
		t.Errorf("%s: stored differently\nvalidate: %+v %v %v\nserver:   %+v %v %v", key,
			offline.route.Spec, offline.route.Labels, offline.route.Annotations, server.route.Spec, server.route.Labels, server.route.Annotations)
	}
	return differ
}

// causes is a refusal with its lines sorted: the order in which the
// schema's checks report errors in sibling fields follows map iteration,
// on the API server as in validate.
func causes(message string) string {
	lines := strings.Split(message, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// comparable reports whether both messages are of a form both sides
// produce: kubectl's "is invalid" or a strict decoding error.
func comparable(a, b string) bool {
	both := func(f func(string) bool) bool { return f(a) && f(b) }
	return both(func(s string) bool { return strings.HasPrefix(s, "The Route ") }) ||
		both(func(s string) bool { return strings.Contains(s, "strict decoding error: ") })
}

func sameStored(a, b *routecore.Route) bool {
	return equality.Semantic.DeepEqual(a.Spec, b.Spec) && equality.Semantic.DeepEqual(a.Labels, b.Labels) &&
		equality.Semantic.DeepEqual(a.Annotations, b.Annotations)
}
