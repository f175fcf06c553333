package install

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// recommendedLabels are the Kubernetes recommended labels every object of
// the install carries.
var recommendedLabels = []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component",
	"app.kubernetes.io/part-of", "app.kubernetes.io/version", "app.kubernetes.io/managed-by"}

// version is the project's version, from the repository's VERSION file.
func version(t *testing.T) string {
	raw, err := os.ReadFile(filepath.Join(repoRoot(), "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(raw))
}

// renderedVariants renders every way of installing, without a cluster:
// each overlay, the self-signed one with the network-policy component, and
// the chart with each of chartValues.
func renderedVariants(t *testing.T) map[string][]*unstructured.Unstructured {
	out := map[string][]*unstructured.Unstructured{}
	for _, overlay := range []string{"self-signed", "cert-manager", "host-network"} {
		objs, err := renderKustomization(filepath.Join(repoRoot(), "manifests", "overlays", overlay))
		if err != nil {
			t.Fatal(err)
		}
		out["kustomize/"+overlay] = objs
	}
	objs, err := renderOverlay(t.TempDir(), "self-signed", "network-policy")
	if err != nil {
		t.Fatal(err)
	}
	out["kustomize/self-signed+network-policy"] = objs
	for name, values := range chartValues {
		objs, err := renderChart(chartDir(), "routeshift", "routeshift", values)
		if err != nil {
			t.Fatal(err)
		}
		out["helm/"+name] = objs
	}
	return out
}

// TestConventions: every object of every variant carries the recommended
// labels with the VERSION; images are pinned to VERSION and pulled
// IfNotPresent; Deployments spread their replicas; Leases are granted by
// name.
func TestConventions(t *testing.T) {
	want := version(t)
	for name, objs := range renderedVariants(t) {
		t.Run(name, func(t *testing.T) {
			for _, o := range objs {
				checkLabels(t, o, want)
				switch o.GetKind() {
				case "Deployment":
					d := &appsv1.Deployment{}
					mustConvert(t, o, d)
					checkDeployment(t, d, want)
				case "Role", "ClusterRole":
					r := &rbacv1.Role{}
					mustConvert(t, o, r)
					checkLeaseRules(t, o.GetName(), r.Rules)
				}
			}
		})
	}
}

func checkLabels(t *testing.T, o *unstructured.Unstructured, version string) {
	t.Helper()
	labels := o.GetLabels()
	for _, l := range recommendedLabels {
		if labels[l] == "" {
			t.Errorf("%s %s has no label %s", o.GetKind(), o.GetName(), l)
		}
	}
	if v := labels["app.kubernetes.io/version"]; v != version {
		t.Errorf("%s %s: app.kubernetes.io/version %q, want %q (VERSION)", o.GetKind(), o.GetName(), v, version)
	}
}

func checkDeployment(t *testing.T, d *appsv1.Deployment, version string) {
	t.Helper()
	spec := d.Spec.Template.Spec
	for _, c := range spec.Containers {
		if !strings.HasSuffix(c.Image, ":"+version) {
			t.Errorf("deployment %s: image %q, want tag %s (VERSION)", d.Name, c.Image, version)
		}
		if c.ImagePullPolicy != "IfNotPresent" {
			t.Errorf("deployment %s: imagePullPolicy %q, want IfNotPresent", d.Name, c.ImagePullPolicy)
		}
	}
	if len(spec.TopologySpreadConstraints) == 0 && (spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil) {
		t.Errorf("deployment %s: neither topologySpreadConstraints nor pod anti-affinity spreads its replicas", d.Name)
	}
	for k, v := range d.Spec.Selector.MatchLabels {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("deployment %s: selector %s=%s does not match its template's labels", d.Name, k, v)
		}
	}
}

// checkLeaseRules: a rule on leases grants only create (which cannot be
// limited by name) unless it names the Leases.
func checkLeaseRules(t *testing.T, role string, rules []rbacv1.PolicyRule) {
	t.Helper()
	for _, r := range rules {
		if !slices.Contains(r.Resources, "leases") || len(r.ResourceNames) > 0 {
			continue
		}
		if len(r.Verbs) != 1 || r.Verbs[0] != "create" {
			t.Errorf("role %s grants %v on leases without resourceNames: only create may be unnamed", role, r.Verbs)
		}
	}
}

func mustConvert(t *testing.T, o *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
}
