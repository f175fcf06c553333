// Package integration tests routeshift against a real kube-apiserver and etcd
// (see tests/framework), using the real kubectl for what users see.
package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

func TestMain(m *testing.M) {
	os.Exit(framework.Main(m))
}

// fullRoute uses every kind of field a Route has except certificates.
const fullRoute = `apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: shop
spec:
  host: shop.example.com
  path: /cart
  to:
    kind: Service
    name: shop
    weight: 20
  alternateBackends:
  - kind: Service
    name: shop-canary
    weight: 80
  port:
    targetPort: http
  tls:
    termination: edge
    insecureEdgeTerminationPolicy: Redirect
  wildcardPolicy: None
  httpHeaders:
    actions:
      response:
      - name: X-Frame-Options
        action:
          type: Set
          set:
            value: DENY
`

func TestRouteCRD(t *testing.T) {
	cp := framework.Cluster(t)

	t.Run("CRD is established and serves v1", func(t *testing.T) {
		t.Parallel()
		stdout, stderr, err := cp.Kubectl(t, "get", "crd", "routes.route.openshift.io", "-o", "json")
		if err != nil {
			t.Fatalf("kubectl get crd: %v\n%s", err, stderr)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := json.Unmarshal([]byte(stdout), &crd); err != nil {
			t.Fatalf("decoding CRD: %v", err)
		}
		for _, want := range []apiextensionsv1.CustomResourceDefinitionConditionType{apiextensionsv1.NamesAccepted, apiextensionsv1.Established} {
			if status := crdCondition(&crd, want); status != apiextensionsv1.ConditionTrue {
				t.Errorf("condition %s = %q, want True", want, status)
			}
		}
		if crd.Spec.Scope != apiextensionsv1.NamespaceScoped {
			t.Errorf("scope = %s, want Namespaced", crd.Spec.Scope)
		}
		var versions []string
		for _, v := range crd.Spec.Versions {
			versions = append(versions, v.Name)
			if v.Name != routecore.GroupVersion.Version {
				continue
			}
			if !v.Served || !v.Storage {
				t.Errorf("version %s: served=%t storage=%t, want both", v.Name, v.Served, v.Storage)
			}
			if v.Subresources == nil || v.Subresources.Status == nil {
				t.Errorf("version %s has no status subresource", v.Name)
			}
		}
		if want := []string{routecore.GroupVersion.Version}; !reflect.DeepEqual(versions, want) {
			t.Errorf("versions = %q, want %q", versions, want)
		}

		stdout, stderr, err = cp.Kubectl(t, "api-resources", "--api-group", routecore.GroupName, "--no-headers", "-o", "name")
		if err != nil {
			t.Fatalf("kubectl api-resources: %v\n%s", err, stderr)
		}
		if got := strings.TrimSpace(stdout); got != "routes.route.openshift.io" {
			t.Errorf("kubectl api-resources lists %q, want routes.route.openshift.io", got)
		}
	})

	t.Run("kubectl apply round-trips every field", func(t *testing.T) {
		t.Parallel()
		ns := cp.CreateNamespace(t, "roundtrip")
		var applied routecore.Route
		if err := yaml.UnmarshalStrict([]byte(fullRoute), &applied); err != nil {
			t.Fatalf("test manifest does not match the Route type: %v", err)
		}
		apply(t, cp, ns, fullRoute)

		got := kubectlGetRoute(t, cp, ns, "shop")
		if !reflect.DeepEqual(got.Spec, applied.Spec) {
			t.Errorf("spec changed on the way through the API server\n got: %s\nwant: %s", toJSON(t, got.Spec), toJSON(t, applied.Spec))
		}
		// Guard against a manifest that silently lost fields while decoding.
		if applied.Spec.Port == nil || applied.Spec.Port.TargetPort != intstr.FromString("http") ||
			applied.Spec.TLS == nil || applied.Spec.HTTPHeaders == nil || len(applied.Spec.AlternateBackends) != 1 {
			t.Errorf("manifest decoded incompletely: %s", toJSON(t, applied.Spec))
		}
	})

	t.Run("CRD defaults kind weight and wildcardPolicy", func(t *testing.T) {
		t.Parallel()
		ns := cp.CreateNamespace(t, "defaults")
		apply(t, cp, ns, `apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: minimal
spec:
  host: minimal.example.com
  to:
    name: foo
`)
		got := kubectlGetRoute(t, cp, ns, "minimal")
		if got.Spec.To.Kind != "Service" {
			t.Errorf("to.kind = %q, want Service", got.Spec.To.Kind)
		}
		if got.Spec.To.Weight == nil || *got.Spec.To.Weight != 100 {
			t.Errorf("to.weight = %s, want 100", toJSON(t, got.Spec.To.Weight))
		}
		if got.Spec.WildcardPolicy != routecore.WildcardPolicyNone {
			t.Errorf("wildcardPolicy = %q, want None", got.Spec.WildcardPolicy)
		}
		if got.Spec.To.Name != "foo" || got.Spec.Host != "minimal.example.com" {
			t.Errorf("to.name/host = %q/%q, want foo/minimal.example.com", got.Spec.To.Name, got.Spec.Host)
		}
	})

	t.Run("kubectl get shows the printer columns", func(t *testing.T) {
		t.Parallel()
		ns := cp.CreateNamespace(t, "columns")
		apply(t, cp, ns, fullRoute)

		row := kubectlGetRoutesRow(t, cp, ns, "shop")
		if row["SERVICE"] != "shop" || row["TLS"] != "edge" {
			t.Errorf("SERVICE, TLS = %q, %q; want shop, edge", row["SERVICE"], row["TLS"])
		}
		if row["HOST"] != "" || row["ADMITTED"] != "" {
			t.Errorf("HOST, ADMITTED before any status = %q, %q; want both empty", row["HOST"], row["ADMITTED"])
		}

		ctx := context.Background()
		var route routecore.Route
		if err := cp.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, &route); err != nil {
			t.Fatal(err)
		}
		route.Status = admittedStatus("www.example.com")
		if err := cp.Client.Status().Update(ctx, &route); err != nil {
			t.Fatalf("updating status: %v", err)
		}

		row = kubectlGetRoutesRow(t, cp, ns, "shop")
		if row["HOST"] != "www.example.com" || row["ADMITTED"] != "True" {
			t.Errorf("HOST, ADMITTED after status = %q, %q; want www.example.com, True", row["HOST"], row["ADMITTED"])
		}
	})

	t.Run("kubectl get -o wide adds path and port", func(t *testing.T) {
		t.Parallel()
		ns := cp.CreateNamespace(t, "wide")
		apply(t, cp, ns, fullRoute)
		row := kubectlTableRow(t, cp, ns, "shop", []string{"NAME", "HOST", "ADMITTED", "SERVICE", "TLS", "AGE", "PATH", "PORT"},
			"get", "routes", "-o", "wide")
		if row["PATH"] != "/cart" || row["PORT"] != "http" || row["SERVICE"] != "shop" {
			t.Errorf("PATH, PORT, SERVICE = %q, %q, %q; want /cart, http, shop", row["PATH"], row["PORT"], row["SERVICE"])
		}
	})

	t.Run("kubectl get all lists Routes", func(t *testing.T) {
		t.Parallel()
		ns := cp.CreateNamespace(t, "all")
		apply(t, cp, ns, fullRoute)
		stdout, stderr, err := cp.Kubectl(t, "get", "all", "-n", ns, "-o", "name")
		if err != nil {
			t.Fatalf("kubectl get all: %v\n%s", err, stderr)
		}
		if !slices.Contains(strings.Fields(stdout), "route.route.openshift.io/shop") {
			t.Errorf("kubectl get all -o name = %q, want it to list route.route.openshift.io/shop (the CRD's categories hold all)", stdout)
		}
	})

	t.Run("status is a subresource", func(t *testing.T) {
		t.Parallel()
		ns := cp.CreateNamespace(t, "status")
		ctx := context.Background()
		route := &routecore.Route{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "status"},
			Spec: routecore.RouteSpec{
				Host: "status.example.com",
				To:   routecore.RouteTargetReference{Kind: "Service", Name: "web", Weight: ptr.To[int32](100)},
			},
			Status: admittedStatus("ignored-on-create.example.com"),
		}
		if err := cp.Client.Create(ctx, route); err != nil {
			t.Fatal(err)
		}
		if len(route.Status.Ingress) != 0 {
			t.Errorf("create stored a status: %s", toJSON(t, route.Status))
		}

		route.Status = admittedStatus("www.example.com")
		if err := cp.Client.Status().Update(ctx, route); err != nil {
			t.Fatalf("updating status: %v", err)
		}
		want := route.Status

		route.Labels = map[string]string{"changed": "yes"}
		route.Status = admittedStatus("other.example.com")
		if err := cp.Client.Update(ctx, route); err != nil {
			t.Fatalf("updating route: %v", err)
		}

		got := kubectlGetRoute(t, cp, ns, "status")
		if got.Labels["changed"] != "yes" {
			t.Errorf("plain update did not change the labels: %v", got.Labels)
		}
		if !reflect.DeepEqual(got.Status, want) {
			t.Errorf("plain update changed the status\n got: %s\nwant: %s", toJSON(t, got.Status), toJSON(t, want))
		}
	})

	t.Run("schema refuses weight above 256", func(t *testing.T) {
		t.Parallel()
		ns := cp.CreateNamespace(t, "bounds")
		_, stderr := applyErr(t, cp, ns, `apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: heavy
spec:
  host: heavy.example.com
  to:
    kind: Service
    name: web
    weight: 300
`)
		for _, want := range []string{`The Route "heavy" is invalid`, "spec.to.weight", "256"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("kubectl apply error does not mention %q:\n%s", want, stderr)
			}
		}
		err := cp.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "heavy"}, &routecore.Route{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("refused route: get returned %v, want NotFound", err)
		}
	})
}

// apply runs `kubectl apply -f` on manifest (written to a file) in namespace ns.
func apply(t *testing.T, cp *framework.ControlPlane, ns, manifest string) {
	t.Helper()
	if stdout, stderr := applyErr(t, cp, ns, manifest); stderr != "" {
		t.Fatalf("kubectl apply failed:\n%s%s", stdout, stderr)
	}
}

// applyErr runs `kubectl apply -f` on manifest and returns its output; stderr
// is empty only when kubectl succeeded without warnings.
func applyErr(t *testing.T, cp *framework.ControlPlane, ns, manifest string) (stdout, stderr string) {
	t.Helper()
	// Not t.TempDir(): its name comes from the test name, and kubectl's -f
	// splits its argument at commas.
	dir, err := os.MkdirTemp("", "routeshift-manifest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	file := filepath.Join(dir, "route.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = cp.Kubectl(t, "apply", "-n", ns, "-f", file)
	if err != nil && stderr == "" {
		stderr = err.Error()
	}
	return stdout, stderr
}

// kubectlGetRoute reads a route with `kubectl get route -o json`.
func kubectlGetRoute(t *testing.T, cp *framework.ControlPlane, ns, name string) *routecore.Route {
	t.Helper()
	stdout, stderr, err := cp.Kubectl(t, "get", "route", name, "-n", ns, "-o", "json")
	if err != nil {
		t.Fatalf("kubectl get route: %v\n%s", err, stderr)
	}
	var route routecore.Route
	if err := json.Unmarshal([]byte(stdout), &route); err != nil {
		t.Fatalf("decoding kubectl output: %v\n%s", err, stdout)
	}
	return &route
}

// kubectlGetRoutesRow runs `kubectl get routes` and returns the row of the
// named route keyed by column header. It fails the test unless the header
// is exactly the columns a Route table has.
func kubectlGetRoutesRow(t *testing.T, cp *framework.ControlPlane, ns, name string) map[string]string {
	t.Helper()
	return kubectlTableRow(t, cp, ns, name, []string{"NAME", "HOST", "ADMITTED", "SERVICE", "TLS", "AGE"}, "get", "routes")
}

// kubectlTableRow runs kubectl with args in namespace ns and returns the
// row of the named object keyed by column header. It fails the test unless
// the header is exactly want.
func kubectlTableRow(t *testing.T, cp *framework.ControlPlane, ns, name string, want []string, args ...string) map[string]string {
	t.Helper()
	stdout, stderr, err := cp.Kubectl(t, append(args, "-n", ns)...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	t.Logf("kubectl %s:\n%s", strings.Join(args, " "), stdout)
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	header := strings.Fields(lines[0])
	if !reflect.DeepEqual(header, want) {
		t.Fatalf("header = %q, want %q", header, want)
	}
	// Empty cells are blank, so split rows at the columns' start offsets
	// (kubectl aligns header and rows) rather than at spaces.
	starts := make([]int, len(header))
	offset := 0
	for i, h := range header {
		starts[i] = offset + strings.Index(lines[0][offset:], h)
		offset = starts[i] + len(h)
	}
	for _, line := range lines[1:] {
		row := make(map[string]string, len(header))
		for i, h := range header {
			end := len(line)
			if i+1 < len(starts) {
				end = min(starts[i+1], len(line))
			}
			row[h] = strings.TrimSpace(line[min(starts[i], end):end])
		}
		if row["NAME"] == name {
			return row
		}
	}
	t.Fatalf("no row for route %s in:\n%s", name, stdout)
	return nil
}

// admittedStatus is a status in which one router admitted the route at host.
func admittedStatus(host string) routecore.RouteStatus {
	now := metav1.Now()
	return routecore.RouteStatus{Ingress: []routecore.RouteIngress{{
		Host:           host,
		RouterName:     "default",
		WildcardPolicy: routecore.WildcardPolicyNone,
		Conditions: []routecore.RouteIngressCondition{{
			Type:               routecore.RouteAdmitted,
			Status:             corev1.ConditionTrue,
			LastTransitionTime: &now,
		}},
	}}}
}

func crdCondition(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) apiextensionsv1.ConditionStatus {
	for _, c := range crd.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
