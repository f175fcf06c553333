package settings

import (
	"os"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// TestRouterManifestSettings: the router Deployment in manifests/ lists
// every setting as an environment variable with its default, so admins
// find and change them there.
func TestRouterManifestSettings(t *testing.T) {
	raw, err := os.ReadFile("../../manifests/router/router.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.Unmarshal([]byte(strings.Split(string(raw), "\n---\n")[0]), &d); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e.Value
	}
	// Ports differ so that the router runs without privileges; the
	// router publishes the address of its own Service.
	changed := map[string]string{"ROUTER_SERVICE_HTTP_PORT": "8080", "ROUTER_SERVICE_HTTPS_PORT": "8443",
		"ROUTER_PUBLISH_SERVICE": "routeshift-router"}
	for _, s := range Table {
		want, ok := changed[s.Env]
		if !ok {
			want = s.Default
		}
		switch got, present := env[s.Env]; {
		case s.Env == "ROUTER_SERVICE_NAMESPACE" || s.Env == "ROUTER_WORKING_DIR":
		case !present:
			t.Errorf("%s is missing from manifests/router/router.yaml", s.Env)
		case got != want:
			t.Errorf("%s is %q in the manifest, want %q", s.Env, got, want)
		}
	}
}
