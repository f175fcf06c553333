package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/internal/fixtures"
)

// run executes routeshift with args and stdin, returning stdout, stderr and
// the exit status.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Execute(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// corpus returns a file of testdata/validate with its certificate
// placeholders filled in. tests/webhook gives every file of that directory
// to both validate and the webhook on a real API server and compares their
// verdicts, so cases belong there rather than inline.
func corpus(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "validate", name))
	if err != nil {
		t.Fatal(err)
	}
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	return fixtures.WithPEMs(string(data), p)
}

// TestValidateDoneWhen is the acceptance case: one kubectl-style
// error each, naming the field, and exit status 1.
func TestValidateDoneWhen(t *testing.T) {
	long := "a-route-name-that-is-sixty-four-characters-long-for-this-test-xx"
	file := writeFile(t, "routes.yaml", corpus(t, "done-when.yaml"))
	stdout, stderr, code := run(t, "", "validate", "-f", file)
	want := strings.Join([]string{
		`The Route "` + long + `" is invalid: metadata.name: Invalid value: "` + long + `": must be no more than 63 characters`,
		`The Route "passthrough-path" is invalid: spec.path: Invalid value: "/api": passthrough termination does not support paths`,
		`The Route "heavy" is invalid: spec.to.weight: Invalid value: 300: weight must be an integer between 0 and 256`,
		`The Route "slow" is invalid: metadata.annotations[haproxy.router.openshift.io/timeout]: Invalid value: "5 minutes": must be a TimeUnit: a whole number from 1 up, optionally followed by us, ms, s, m, h or d (no unit means ms), for example 5500ms or 30s`,
		`The Route "mismatched" is invalid: spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`,
		`summary: 5 routes read: 0 valid, 5 invalid; 0 objects of other kinds skipped`,
	}, "\n") + "\n"
	if stderr != want || stdout != "" || code != 1 {
		t.Errorf("got exit %d\nstdout:\n%s\nstderr:\n%s\nwant stderr:\n%s", code, stdout, stderr, want)
	}
}

func TestValidateDocumentedExamples(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, "openshift-doc-routes.yaml", fixtures.DocRoutes(p))
	stdout, stderr, code := run(t, "", "validate", "-f", file, "-n", "mynamespace")
	if code != 0 || stderr != fmt.Sprintf("summary: %d routes read: %d valid, 0 invalid; 0 objects of other kinds skipped\n", fixtures.DocRouteCount, fixtures.DocRouteCount) {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if lines := strings.Count(stdout, " valid\n"); lines != fixtures.DocRouteCount {
		t.Errorf("%d routes reported valid, want %d:\n%s", lines, fixtures.DocRouteCount, stdout)
	}
	if !strings.Contains(stdout, "mynamespace/no-route-hostname valid\n") {
		t.Errorf("stdout lacks the hostless route:\n%s", stdout)
	}
}

func TestValidateOutputYAML(t *testing.T) {
	stdout, stderr, code := run(t, corpus(t, "list.json"), "validate", "-f", "-", "-n", "mynamespace", "-o", "yaml", "--route-suffix", "apps.example.com")
	want := `apiVersion: route.openshift.io/v1
kind: Route
metadata:
  annotations:
    openshift.io/host.generated: "true"
  name: no-route-hostname
  namespace: mynamespace
spec:
  host: no-route-hostname-mynamespace.apps.example.com
  tls:
    termination: edge
  to:
    kind: Service
    name: service-name
    weight: 100
  wildcardPolicy: None
`
	if stdout != want || stderr != "summary: 1 route read: 1 valid, 0 invalid; 0 objects of other kinds skipped\n" || code != 0 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
}

func TestValidateWarnings(t *testing.T) {
	stdout, stderr, code := run(t, corpus(t, "legacy-v1.yaml"), "validate", "-f", "-")
	want := "Warning: <stdin>, document 1 (line 2): apiVersion v1 is OpenShift 3's legacy Route group; read as route.openshift.io/v1, which is what the cluster serves\n" +
		`Warning: default/r: metadata.annotations[haproxy.router.openshift.io/timout]: unknown router annotation; it has no effect; did you mean "haproxy.router.openshift.io/timeout"?` + "\n" +
		"summary: 1 route read: 1 valid, 0 invalid; 0 objects of other kinds skipped\n"
	if stderr != want || stdout != "default/r valid\n" || code != 0 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant stderr:\n%s", code, stdout, stderr, want)
	}
}

// TestValidateForeignGeneratedHost: a Route exported from OpenShift keeps
// the host that cluster generated; validate says so against this cluster's
// suffix and still accepts it.
func TestValidateForeignGeneratedHost(t *testing.T) {
	stdout, stderr, code := run(t, corpus(t, "foreign-host.yaml"), "validate", "-f", "-", "-n", "shop", "--route-suffix", "apps.k8s.example.com")
	want := `Warning: shop/frontend: spec.host: frontend-shop.apps.ocp.example.com was generated by another cluster or for another route suffix ` +
		`(openshift.io/host.generated is "true"); this cluster would generate frontend-shop.apps.k8s.example.com: ` +
		"remove spec.host and the annotation to get it, or remove the annotation to keep the host\n" +
		"summary: 2 routes read: 2 valid, 0 invalid; 0 objects of other kinds skipped\n"
	if stderr != want || stdout != "shop/frontend valid\nshop/api valid\n" || code != 0 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant stderr:\n%s", code, stdout, stderr, want)
	}
}

// TestValidateBadInput: input that cannot be read gets an error naming the
// file, document and what is wrong, and nothing is validated.
func TestValidateBadInput(t *testing.T) {
	route := "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: ok}\nspec: {host: a.example.com, to: {name: s}}\n"
	tests := []struct {
		name, stdin, want string
	}{
		{name: "not YAML", stdin: route + "---\nspec: [unclosed\n",
			want: "error: <stdin>, document 2 (line 6): not valid YAML or JSON: line 6: did not find expected ',' or ']'\n"},
		{name: "not an object", stdin: "just text\n",
			want: "error: <stdin>, document 1 (line 1): not a Kubernetes object: json: cannot unmarshal string into Go value of type input.header\n"},
		{name: "no kind", stdin: "metadata: {name: x}\n",
			want: "error: <stdin>, document 1 (line 1): not a Kubernetes object: apiVersion and kind are required\n"},
		{name: "empty", stdin: "",
			want: "error: <stdin>: no objects: the input is empty or holds only comments and \"---\"\n"},
		{name: "only separators and comments", stdin: "---\n# nothing\n---\n\n---\n",
			want: "error: <stdin>: no objects: the input is empty or holds only comments and \"---\"\n"},
		{name: "null document", stdin: route + "---\nnull\n",
			want: "error: <stdin>, document 2 (line 6): the document is null, not a Kubernetes object: remove it\n"},
		{name: "trailing garbage after JSON", stdin: `{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"ok"},"spec":{"to":{"name":"s"}}}` + "\n garbage",
			want: "error: <stdin>, line 2: not valid JSON: invalid character 'g' looking for beginning of value\n"},
		{name: "JSON null after an object", stdin: `{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"ok"},"spec":{"to":{"name":"s"}}} null`,
			want: "error: <stdin>, document 2 (line 1): the document is null, not a Kubernetes object: remove it\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(t, tt.stdin, "validate", "-f", "-")
			if stderr != tt.want || stdout != "" || code != 1 {
				t.Errorf("exit %d\nstdout: %q\nstderr: %q\nwant:   %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

// TestValidateEmptyFileNamed: an empty file among others is named.
func TestValidateEmptyFileNamed(t *testing.T) {
	good := writeFile(t, "good.yaml", "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: ok}\nspec: {to: {name: s}}\n")
	empty := writeFile(t, "empty.yaml", "# routes go here\n")
	_, stderr, code := run(t, "", "validate", "-f", good, "-f", empty)
	if want := "error: " + empty + ": no objects: the input is empty or holds only comments and \"---\"\n"; stderr != want || code != 1 {
		t.Errorf("exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// TestValidateObjectProblems: a Route that cannot be decoded is reported,
// and the other objects are still checked.
func TestValidateObjectProblems(t *testing.T) {
	stdout, stderr, code := run(t, corpus(t, "object-problems.yaml"), "validate", "-f", "-")
	want := "error: <stdin>, document 1 (line 3): apiVersion route.openshift.io/v2 is not served; Routes are route.openshift.io/v1\n" +
		"error: <stdin>, document 2 (line 7): json: cannot unmarshal string into Go struct field RouteTargetReference.spec.to.weight of type int32\n" +
		"summary: 3 routes read: 1 valid, 2 invalid; 0 objects of other kinds skipped\n"
	if stdout != "default/ok valid\n" || stderr != want || code != 1 {
		t.Errorf("exit %d\nstdout: %q\nstderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
}

func TestValidateFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"validate"}, "error: no input: name files with -f (use -f - for standard input)\n"},
		{[]string{"validate", "-f", "/nonexistent/routes.yaml"}, "error: reading input: open /nonexistent/routes.yaml: no such file or directory\n"},
		{[]string{"validate", "-f", "-", "-o", "json"}, "error: --output \"json\" is not supported: use -o yaml or omit it\n"},
		{[]string{"validate", "-f", "-", "--route-suffix", "bad wolf.whoswho"}, "error: --route-suffix: invalid DNS suffix: bad wolf.whoswho (a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'))\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, stderr, code := run(t, "", tt.args...)
			if stderr != tt.want || code != 1 {
				t.Errorf("exit %d, stderr %q, want %q", code, stderr, tt.want)
			}
		})
	}
}

// TestValidateRouteshiftAnnotations: routeshift's own annotations are
// named once per Route as what OpenShift's router ignores, and those that
// act only on HTTP are refused on a passthrough Route with the webhook's
// words.
func TestValidateRouteshiftAnnotations(t *testing.T) {
	in := `apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: shop
  namespace: web
  annotations:
    routeshift.io/max-body-size: 8m
    routeshift.io/ip-denylist: 203.0.113.0/24
    haproxy.router.openshift.io/timeout: 5s
spec:
  host: shop.example.com
  to: {kind: Service, name: shop}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: tunnel
  namespace: web
  annotations:
    routeshift.io/max-body-size: 8m
spec:
  host: tunnel.example.com
  to: {kind: Service, name: tunnel}
  tls: {termination: passthrough}
`
	stdout, stderr, code := run(t, in, "validate", "-f", "-")
	wantErr := `Note: web/shop: OpenShift's router ignores routeshift.io/ip-denylist, routeshift.io/max-body-size (routeshift's own annotations): on OpenShift this Route behaves otherwise
Note: web/tunnel: OpenShift's router ignores routeshift.io/max-body-size (routeshift's own annotations): on OpenShift this Route behaves otherwise
The Route "tunnel" is invalid: metadata.annotations[routeshift.io/max-body-size]: Invalid value: "8m": has no effect on passthrough routes, whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)
summary: 2 routes read: 1 valid, 1 invalid; 0 objects of other kinds skipped
`
	if code != 1 || stdout != "web/shop valid\n" || stderr != wantErr {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant:\n%s", code, stdout, stderr, wantErr)
	}
}
