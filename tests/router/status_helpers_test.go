package router

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// isolationLabel marks a test's namespace so that the test's routers serve
// it alone: the control plane is shared by the package's tests, and the
// Routes of earlier tests stay unless deleted (without
// kube-controller-manager namespaces never finish terminating). Routers
// remove their entries from the Routes they do not serve, so each test
// also gives its routers names no other test uses.
const isolationLabel = "routeshift.test/namespace"

// testNamespace creates a namespace whose Routes are deleted when the test
// ends, after its routers stopped, so that later tests' routers do not
// find them.
func testNamespace(t *testing.T, cp *framework.ControlPlane, prefix string) string {
	t.Helper()
	ns := cp.CreateNamespace(t, prefix)
	t.Cleanup(func() {
		if err := cp.Client.DeleteAllOf(context.Background(), &routecore.Route{}, client.InNamespace(ns)); err != nil {
			t.Errorf("deleting the routes of %s: %v", ns, err)
		}
	})
	return ns
}

// isolatedNamespace is testNamespace labelled with isolationLabel and
// extra labels: routers started with --namespace-labels only(ns) serve it
// and no other.
func isolatedNamespace(t *testing.T, cp *framework.ControlPlane, prefix string, extra map[string]string) string {
	t.Helper()
	ns := testNamespace(t, cp, prefix)
	lbls := map[string]string{isolationLabel: ns}
	for k, v := range extra {
		lbls[k] = v
	}
	patchObject(t, cp, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, lbls, nil)
	return ns
}

// only is the namespace selector of a router that serves ns alone.
func only(ns string) string { return isolationLabel + "=" + ns }

// patchObject sets labels and annotations of obj (named by its namespace
// and name) with a JSON merge patch, which needs no resourceVersion and so
// never conflicts; a nil value removes a key.
func patchObject(t *testing.T, cp *framework.ControlPlane, obj client.Object, labels, annotations map[string]string) {
	t.Helper()
	if err := patchMeta(cp, obj, labels, annotations); err != nil {
		t.Fatalf("patching %s/%s: %v", obj.GetNamespace(), obj.GetName(), err)
	}
}

func patchMeta(cp *framework.ControlPlane, obj client.Object, labels, annotations map[string]string) error {
	meta := map[string]any{}
	if labels != nil {
		meta["labels"] = labels
	}
	if annotations != nil {
		meta["annotations"] = annotations
	}
	data, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		return err
	}
	return cp.Client.Patch(context.Background(), obj, client.RawPatch(types.MergePatchType, data))
}

// getRoute reads a Route from the API server.
func getRoute(t *testing.T, cp *framework.ControlPlane, ns, name string) *routecore.Route {
	t.Helper()
	r := &routecore.Route{}
	if err := cp.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// entryOf returns the status entry of router in r, if any.
func entryOf(r *routecore.Route, router string) (routecore.RouteIngress, bool) {
	i := slices.IndexFunc(r.Status.Ingress, func(in routecore.RouteIngress) bool { return in.RouterName == router })
	if i < 0 {
		return routecore.RouteIngress{}, false
	}
	return r.Status.Ingress[i], true
}

// admittedEntry checks that in is router's entry saying host is admitted,
// with wildcard policy None and the canonical hostname given ("" for none).
func admittedEntry(in routecore.RouteIngress, router, host, canonical string) error {
	if in.RouterName != router || in.Host != host || in.WildcardPolicy != routecore.WildcardPolicyNone || in.RouterCanonicalHostname != canonical {
		return fmt.Errorf("entry %+v, want router %s, host %s, wildcard policy None, canonical hostname %q", in, router, host, canonical)
	}
	if len(in.Conditions) != 1 {
		return fmt.Errorf("entry of %s has conditions %+v, want Admitted alone", router, in.Conditions)
	}
	c := in.Conditions[0]
	if c.Type != routecore.RouteAdmitted || c.Status != corev1.ConditionTrue || c.Reason != "" || c.Message != "" || c.LastTransitionTime == nil {
		return fmt.Errorf("entry of %s has condition %+v, want Admitted True with a transition time and no reason", router, c)
	}
	return nil
}

// wantWrites is how many status writes a router should have counted.
type wantWrites struct {
	name   string
	router *framework.Router
	n      int
}

// writesSettle waits until each router has written status its n times,
// then checks that none writes more while they handle what they may still
// have queued: the quiet period outlasts a few status write retries and a
// RELOAD_INTERVAL.
func writesSettle(t *testing.T, wants ...wantWrites) {
	t.Helper()
	counts := func() error {
		for _, w := range wants {
			if n := writes(t, w.router); n != w.n {
				return fmt.Errorf("router %s counts %d status writes, want %d", w.name, n, w.n)
			}
		}
		return nil
	}
	framework.EventuallyWithin(t, 2*time.Minute, "status writes", counts)
	const quiet = 6 * time.Second
	for end := time.Now().Add(quiet); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		if err := counts(); err != nil {
			t.Fatalf("%v: a router wrote status when nothing had changed", err)
		}
	}
}
