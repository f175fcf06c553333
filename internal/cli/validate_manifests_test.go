package cli

import (
	"strings"
	"testing"
)

// TestValidateOtherKinds: objects of other kinds are skipped and counted;
// -v lists them (app.yaml: a Route beside the objects it serves).
func TestValidateOtherKinds(t *testing.T) {
	summary := "summary: 2 routes read: 2 valid, 0 invalid; 4 objects of other kinds skipped\n"
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{name: "summary only", wantStderr: summary},
		{name: "-v lists them", args: []string{"-v"}, wantStderr: "skipped: <stdin>, document 1 (line 4): v1 Service web\n" +
			"skipped: <stdin>, document 2 (line 9): apps/v1 Deployment web\n" +
			"skipped: <stdin>, document 4 (line 18), item 0: v1 ConfigMap settings\n" +
			"skipped: <stdin>, document 5 (line 27): serving.knative.dev/v1 Route knative\n" + summary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(t, corpus(t, "app.yaml"), append([]string{"validate", "-f", "-", "-n", "shop"}, tt.args...)...)
			if stdout != "shop/web valid\nshop/api valid\n" || stderr != tt.wantStderr || code != 0 {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant stderr:\n%s", code, stdout, stderr, tt.wantStderr)
			}
		})
	}
}

// TestValidateUnknownFields: an unknown field is a warning naming its path
// (the API server drops it), or with --strict the API server's strict
// error; either way the rest of the file is checked.
func TestValidateUnknownFields(t *testing.T) {
	tests := []struct {
		name                   string
		args                   []string
		wantCode               int
		wantStdout, wantStderr string
	}{
		{name: "warning by default", wantStdout: "test/ports valid\ntest/plain valid\n",
			wantStderr: "Warning: <stdin>, document 1 (line 3): unknown field \"spec.ports\"\n" +
				"summary: 2 routes read: 2 valid, 0 invalid; 0 objects of other kinds skipped\n"},
		{name: "error with --strict", args: []string{"--strict"}, wantCode: 1, wantStdout: "test/plain valid\n",
			wantStderr: "error: <stdin>, document 1 (line 3): Route in version \"v1\" cannot be handled as a Route: strict decoding error: unknown field \"spec.ports\"\n" +
				"summary: 2 routes read: 1 valid, 1 invalid; 0 objects of other kinds skipped\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(t, corpus(t, "unknown-field.yaml"), append([]string{"validate", "-f", "-", "-n", "test"}, tt.args...)...)
			if stdout != tt.wantStdout || stderr != tt.wantStderr || code != tt.wantCode {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d, stderr:\n%s", code, stdout, stderr, tt.wantCode, tt.wantStderr)
			}
		})
	}
}

// TestValidateTemplate: a Template's Routes are validated with its
// parameters substituted as oc process substitutes them; a Route that
// needs a generated parameter says which and how to give it. template.json
// is in the shape of the jboss templates of openshift/library: OpenShift 3
// JSON, an "id" on every object, a Service and a DeploymentConfig beside
// the Routes, a generated password and an empty hostname parameter.
func TestValidateTemplate(t *testing.T) {
	src := "<stdin>, document 1 (line 1), template eap-basic, object "
	legacy := func(i string) string {
		return "Warning: " + src + i + ": apiVersion v1 is OpenShift 3's legacy Route group; read as route.openshift.io/v1, which is what the cluster serves\n"
	}
	id := func(i string) string { return "Warning: " + src + i + ": unknown field \"id\"\n" }
	tests := []struct {
		name                   string
		args                   []string
		wantCode               int
		wantStdout, wantStderr string
	}{
		{name: "defaults", wantCode: 1, wantStdout: "apps/eap-app valid\n",
			wantStderr: legacy("1") + id("1") +
				"error: " + src + "2: template eap-basic: parameter ADMIN_PASSWORD has no value: oc process would generate one (generate: expression, from: \"[a-zA-Z0-9]{8}\"); give it with --param ADMIN_PASSWORD=VALUE\n" +
				"summary: 2 routes read: 1 valid, 1 invalid; 2 objects of other kinds skipped\n"},
		{name: "parameters given", args: []string{"--param", "APPLICATION_NAME=shop", "--param", "ADMIN_PASSWORD=x7", "--param", "HOSTNAME_HTTP=shop.example.com"},
			wantStdout: "apps/shop valid\napps/shop-admin valid\n",
			wantStderr: legacy("1") + id("1") + legacy("2") + id("2") +
				"summary: 2 routes read: 2 valid, 0 invalid; 2 objects of other kinds skipped\n"},
		{name: "a parameter no template has", args: []string{"--param", "HOSTNAME=x"}, wantCode: 1,
			wantStderr: "error: --param HOSTNAME: no Template in the input has a parameter of that name\n"},
		{name: "not NAME=VALUE", args: []string{"--param", "HOSTNAME"}, wantCode: 1,
			wantStderr: "error: --param \"HOSTNAME\": give NAME=VALUE\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(t, corpus(t, "template.json"), append([]string{"validate", "-f", "-", "-n", "apps"}, tt.args...)...)
			if stdout != tt.wantStdout || stderr != tt.wantStderr || code != tt.wantCode {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr, tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

// TestValidateTemplateOutput: the processed Route is what oc process makes
// of it (the template's labels added, its hard-coded namespace dropped, a
// ${{…}} number a number), then defaulted.
func TestValidateTemplateOutput(t *testing.T) {
	stdout, _, code := run(t, corpus(t, "template.json"), "validate", "-f", "-", "-n", "apps", "-o", "yaml", "--param", "ADMIN_PASSWORD=x7")
	want := `apiVersion: route.openshift.io/v1
kind: Route
metadata:
  annotations:
    openshift.io/host.generated: "true"
  labels:
    template: eap-basic
  name: eap-app
  namespace: apps
spec:
  host: eap-app-apps.router.default.svc.cluster.local
  to:
    kind: Service
    name: eap-app
    weight: 20
  wildcardPolicy: None
---
`
	if code != 0 || !strings.HasPrefix(stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant it to start with:\n%s", code, stdout, want)
	}
}

// TestValidateCRDSchema: what the CRD's schema refuses is refused offline
// in the API server's words, after the webhook's own rules passed.
func TestValidateCRDSchema(t *testing.T) {
	label := strings.Repeat("a", 70)
	stdout, stderr, code := run(t, corpus(t, "long-label.yaml"), "validate", "-f", "-")
	want := `The Route "long-label" is invalid: spec.host: Invalid value: "` + label + `.example.com": spec.host in body should match ` +
		`'^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9]))*$'` + "\n" +
		"summary: 1 route read: 0 valid, 1 invalid; 0 objects of other kinds skipped\n"
	if stdout != "" || stderr != want || code != 1 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
}

// TestValidateJSONKeepsCharacters: a JSON file is read as JSON, so a
// U+0085 in a path reaches the rules (and the output) as written, as it
// reaches the webhook; in YAML it is a line break, which YAML folds into a
// space, for the API server too.
func TestValidateJSONKeepsCharacters(t *testing.T) {
	stdout, stderr, code := run(t, corpus(t, "nel.json"), "validate", "-f", "-", "-o", "yaml")
	if code != 0 || !strings.Contains(stdout, `path: "/a\Nb"`) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// The printed YAML reads back as the same path.
	again, stderr, code := run(t, stdout, "validate", "-f", "-", "-o", "yaml")
	if code != 0 || again != stdout {
		t.Errorf("exit %d, read back:\n%s\nstderr:\n%s", code, again, stderr)
	}
	_, stderr, code = run(t, corpus(t, "nel.yaml"), "validate", "-f", "-")
	if want := `The Route "nel" is invalid: spec.path: Invalid value: "/a b": cannot contain # or spaces`; code != 1 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr %q, want it to start with %q", code, stderr, want)
	}
}

// TestValidateGenerateName: a Route with only metadata.generateName is
// listed under the name the API server will give it.
func TestValidateGenerateName(t *testing.T) {
	stdin := "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {generateName: web-}\nspec: {host: a.example.com, to: {name: s}}\n"
	stdout, stderr, code := run(t, stdin, "validate", "-f", "-")
	if stdout != "default/web-<generated> valid\n" || code != 0 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
