package install

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/tests/framework"
)

func chartDir() string { return filepath.Join(repoRoot(), "charts", "routeshift") }

// chartValues are the chart's values the tests render, lint and check, by
// name: the defaults and each value that changes which objects it makes.
var chartValues = map[string]map[string]any{
	"default":      {},
	"cert-manager": {"certManager": map[string]any{"enabled": true}},
	"host-network": {"router": map[string]any{"mode": "HostNetwork"}},
	"node-port":    {"router": map[string]any{"mode": "NodePort"}},
	// Every object that is off by default, on.
	"host-network+extras": {
		"router": map[string]any{"mode": "HostNetwork"},
		"monitoring": map[string]any{
			"serviceMonitor":   map[string]any{"enabled": true},
			"podMonitor":       map[string]any{"enabled": true},
			"prometheusRule":   map[string]any{"enabled": true},
			"grafanaDashboard": map[string]any{"enabled": true},
		},
		"networkPolicy": map[string]any{"enabled": true},
	},
}

// TestChartLint: `helm lint --strict` finds nothing, with each of
// chartValues.
func TestChartLint(t *testing.T) {
	for name, values := range chartValues {
		result := lint.AllWithKubeVersionAndSchemaValidation(chartDir(), values, "routeshift", kubeVersion, false)
		for _, m := range result.Messages {
			if m.Severity >= support.WarningSev { // --strict: warnings fail too
				t.Errorf("helm lint (%s values %v): %s", name, values, m)
			}
		}
	}
}

// TestChartVersion: the chart's version and appVersion are VERSION.
func TestChartVersion(t *testing.T) {
	ch, err := loader.Load(chartDir())
	if err != nil {
		t.Fatal(err)
	}
	want := version(t)
	if ch.Metadata.Version != want || ch.Metadata.AppVersion != want {
		t.Errorf("Chart.yaml version %q, appVersion %q; want both %q (VERSION)", ch.Metadata.Version, ch.Metadata.AppVersion, want)
	}
}

// TestChartMatchesKustomize: with its default values the chart renders
// exactly the objects of manifests/overlays/self-signed, with
// certManager.enabled those of manifests/overlays/cert-manager, with
// networkPolicy.enabled those of the self-signed overlay with the
// network-policy component, and with router.mode HostNetwork those of
// manifests/overlays/host-network (a DaemonSet on the nodes' ports), but for the labels that name the tool
// (managed-by, helm.sh/chart), Helm's resource-policy on the CRD, and the
// Namespace (Helm installs into one).
func TestChartMatchesKustomize(t *testing.T) {
	for _, c := range []struct {
		name       string
		overlay    string
		components []string
		values     map[string]any
	}{
		{"self-signed", "self-signed", nil, map[string]any{}},
		{"cert-manager", "cert-manager", nil, map[string]any{"certManager": map[string]any{"enabled": true}}},
		{"network-policy", "self-signed", []string{"network-policy"}, map[string]any{"networkPolicy": map[string]any{"enabled": true}}},
		{"host-network", "host-network", nil, chartValues["host-network"]},
	} {
		t.Run(c.name, func(t *testing.T) {
			kust, err := renderOverlay(t.TempDir(), c.overlay, c.components...)
			if err != nil {
				t.Fatal(err)
			}
			helm, err := renderChart(chartDir(), "routeshift", "routeshift", c.values)
			if err != nil {
				t.Fatal(err)
			}
			want, got := normalise(t, kust), normalise(t, helm)
			for key, w := range want {
				g, ok := got[key]
				if !ok {
					t.Errorf("the chart lacks %s", key)
					continue
				}
				if !reflect.DeepEqual(w, g) {
					t.Errorf("%s differs between kustomize and the chart:\n%s", key, diffYAML(w, g))
				}
			}
			for key := range got {
				if _, ok := want[key]; !ok {
					t.Errorf("the chart renders %s, which kustomize does not", key)
				}
			}
		})
	}
}

// normalise keys objects by kind, namespace and name, without what only
// one tool writes.
func normalise(t *testing.T, objs []*unstructured.Unstructured) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, o := range objs {
		if o.GetKind() == "Namespace" {
			continue
		}
		o = o.DeepCopy()
		dropToolLabels(o.Object, "metadata")
		dropToolLabels(o.Object, "spec", "template", "metadata")
		annotations := o.GetAnnotations()
		delete(annotations, "helm.sh/resource-policy")
		if len(annotations) == 0 {
			unstructured.RemoveNestedField(o.Object, "metadata", "annotations")
		} else {
			o.SetAnnotations(annotations)
		}
		key := fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
		if _, dup := out[key]; dup {
			t.Errorf("%s rendered twice", key)
		}
		out[key] = o.Object
	}
	return out
}

func dropToolLabels(obj map[string]any, path ...string) {
	labels, found, _ := unstructured.NestedStringMap(obj, append(path, "labels")...)
	if !found {
		return
	}
	delete(labels, "app.kubernetes.io/managed-by")
	delete(labels, "helm.sh/chart")
	_ = unstructured.SetNestedStringMap(obj, labels, append(path, "labels")...)
}

// diffYAML shows the lines of two objects' YAML that differ.
func diffYAML(want, got map[string]any) string {
	w, _ := yaml.Marshal(want)
	g, _ := yaml.Marshal(got)
	wl, gl := strings.Split(string(w), "\n"), strings.Split(string(g), "\n")
	var b strings.Builder
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var a, c string
		if i < len(wl) {
			a = wl[i]
		}
		if i < len(gl) {
			c = gl[i]
		}
		if a != c {
			fmt.Fprintf(&b, "  line %d: kustomize %q\n           chart     %q\n", i+1, a, c)
		}
	}
	return b.String()
}

// TestServerDryRun: the API server accepts every object of the chart with
// each of chartValues, and of the self-signed overlay with the
// network-policy component (server-side apply, dry run), with
// cert-manager's and the Prometheus Operator's CRDs installed, so that
// their objects are checked against the real schemas.
func TestServerDryRun(t *testing.T) {
	cp := framework.NewCluster(t, framework.Options{})
	cp.InstallCertManagerCRDs(t)
	installPromOperatorCRDs(t, cp)
	if out, errOut, err := cp.Kubectl(t, "create", "namespace", "routeshift"); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	renders := map[string]func() ([]*unstructured.Unstructured, error){
		"kustomize/self-signed+network-policy": func() ([]*unstructured.Unstructured, error) {
			return renderOverlay(t.TempDir(), "self-signed", "network-policy")
		},
	}
	for name, values := range chartValues {
		renders["helm/"+name] = func() ([]*unstructured.Unstructured, error) {
			return renderChart(chartDir(), "routeshift", "routeshift", values)
		}
	}
	for name, render := range renders {
		t.Run(name, func(t *testing.T) {
			objs, err := render()
			if err != nil {
				t.Fatal(err)
			}
			data, err := encodeObjects(objs)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "install.yaml")
			if err := os.WriteFile(file, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if out, errOut, err := cp.Kubectl(t, "apply", "--dry-run=server", "--server-side", "--force-conflicts",
				"--field-manager=routeshift-dry-run", "-f", file); err != nil {
				t.Errorf("server-side dry run: %v\n%s\n%s", err, out, errOut)
			}
		})
	}
}
