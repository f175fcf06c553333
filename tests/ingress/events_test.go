package ingress

import (
	"context"
	"fmt"
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestRouteNameTaken: when the name of one of an Ingress's Routes is held
// by a Route the Ingress does not own, the controller reports it in a
// FailedIngressToRouteConversion event and leaves that Route alone, serves
// the Ingress's other rules, and creates its Route once the name is free.
func TestRouteNameTaken(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "taken")
	web := networkingv1.ServiceBackendPort{Name: "http"}
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	taken, free := ingress.RouteName("clash", "clash.example.com", "/"), ingress.RouteName("clash", "free.example.com", "/")
	foreign := &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: taken, Labels: map[string]string{"team": "other"}},
		Spec: routecore.RouteSpec{Host: "other.example.com", To: routecore.RouteTargetReference{Kind: "Service", Name: "web"}}}
	create(t, cp, foreign)
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "clash"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{
			rule("clash.example.com", path("/", "web", web)),
			rule("free.example.com", path("/", "web", web)),
		}}}
	create(t, cp, ing)

	wantEvent(t, cp, ns, "clash", ingress.ReasonFailed, corev1.EventTypeWarning,
		"Error in converting Ingress to Route: route "+taken+": a Route named "+taken+
			" already exists and is not owned by this Ingress: delete or rename that Route, or rename the Ingress")
	routes := wantRoutes(t, cp, ns, taken, free)
	if got := routes[taken]; got.ResourceVersion != foreign.ResourceVersion || len(got.OwnerReferences) != 0 || got.Spec.Host != "other.example.com" {
		t.Errorf("the foreign route was changed: resourceVersion %s (created %s), owners %+v, host %s",
			got.ResourceVersion, foreign.ResourceVersion, got.OwnerReferences, got.Spec.Host)
	}
	if got := routes[free]; metav1.GetControllerOf(&got) == nil || got.Spec.Host != "free.example.com" {
		t.Errorf("route %s: owners %+v, host %s", free, got.OwnerReferences, got.Spec.Host)
	}

	if err := cp.Client.Delete(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, "the Ingress's own route "+taken, func() error {
		r := &routecore.Route{}
		if err := cp.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: taken}, r); err != nil {
			return err
		}
		if ref := metav1.GetControllerOf(r); ref == nil || ref.Name != "clash" || r.Spec.Host != "clash.example.com" {
			return fmt.Errorf("route %s: owners %+v, host %s", taken, r.OwnerReferences, r.Spec.Host)
		}
		return nil
	})
}

// TestReconcileLabels: with route.openshift.io/reconcile-labels "true" the
// Routes' labels follow the Ingress's and user edits of them are reverted;
// without it, or with a value that is not a boolean (reported in an
// InvalidAnnotationValue event), labels are copied at creation only.
func TestReconcileLabels(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "labels")
	web := networkingv1.ServiceBackendPort{Name: "http"}
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	created := map[string]string{"app": "shop", "tier": "front"}
	mk := func(name, reconcile string) *networkingv1.Ingress {
		ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: maps.Clone(created)},
			Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{rule(name+".example.com", path("/", "web", web))}}}
		if reconcile != "" {
			ing.Annotations = map[string]string{ingress.ReconcileLabelsAnnotation: reconcile}
		}
		return ing
	}
	on, off, invalid := mk("on", "true"), mk("off", ""), mk("invalid", "NotTrue")
	create(t, cp, on, off, invalid)
	route := map[*networkingv1.Ingress]string{}
	for _, ing := range []*networkingv1.Ingress{on, off, invalid} {
		route[ing] = ingress.RouteName(ing.Name, ing.Name+".example.com", "/")
	}
	for name, r := range wantRoutes(t, cp, ns, route[on], route[off], route[invalid]) {
		if !maps.Equal(r.Labels, created) {
			t.Errorf("route %s labels %v, want the Ingress's %v", name, r.Labels, created)
		}
	}
	wantEvent(t, cp, ns, "invalid", ingress.ReasonInvalidAnnotation, corev1.EventTypeWarning,
		`Invalid value on annotation "route.openshift.io/reconcile-labels" due to: "strconv.ParseBool: parsing \"NotTrue\": invalid syntax"`)

	// waitLabels waits until the Ingress's Route carries annotation k=v
	// (proof that the controller synced it) and checks its labels then.
	waitLabels := func(t *testing.T, ing *networkingv1.Ingress, k, v string, want map[string]string) {
		t.Helper()
		framework.Eventually(t, "route "+route[ing]+" synced", func() error {
			r := &routecore.Route{}
			if err := cp.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: route[ing]}, r); err != nil {
				return err
			}
			if r.Annotations[k] != v || r.Spec.Path != "/" {
				return fmt.Errorf("route %s: annotations %v, path %q", r.Name, r.Annotations, r.Spec.Path)
			}
			if !maps.Equal(r.Labels, want) {
				return fmt.Errorf("route %s labels %v, want %v", r.Name, r.Labels, want)
			}
			return nil
		})
	}

	t.Run("user edits of labels", func(t *testing.T) {
		edited := map[string]string{"app": "hijacked"}
		for _, ing := range []*networkingv1.Ingress{on, off, invalid} {
			// The path edit is always reverted, so the controller is seen to
			// have synced each Route.
			update(t, cp, &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: route[ing]}}, func(r *routecore.Route) {
				r.Labels, r.Spec.Path = maps.Clone(edited), "/hijacked"
			})
		}
		waitLabels(t, on, ingress.ReconcileLabelsAnnotation, "true", created)
		waitLabels(t, off, ingress.ReconcileLabelsAnnotation, "", edited)
		waitLabels(t, invalid, ingress.ReconcileLabelsAnnotation, "NotTrue", edited)
	})

	t.Run("Ingress label changes", func(t *testing.T) {
		changed := map[string]string{"app": "shop", "tier": "back"}
		for _, ing := range []*networkingv1.Ingress{on, off, invalid} {
			update(t, cp, ing, func(i *networkingv1.Ingress) {
				i.Labels = maps.Clone(changed)
				if i.Annotations == nil {
					i.Annotations = map[string]string{}
				}
				i.Annotations["example.com/revision"] = "2"
			})
		}
		waitLabels(t, on, "example.com/revision", "2", changed)
		waitLabels(t, off, "example.com/revision", "2", map[string]string{"app": "hijacked"})
		waitLabels(t, invalid, "example.com/revision", "2", map[string]string{"app": "hijacked"})
	})
}

// wantEvent waits for an event of reason and type on the named Ingress,
// with exactly this note.
func wantEvent(t *testing.T, cp *framework.ControlPlane, ns, ingressName, reason, eventType, note string) {
	t.Helper()
	framework.Eventually(t, "the "+reason+" event", func() error {
		var list eventsv1.EventList
		if err := cp.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return err
		}
		var seen []string
		for _, e := range list.Items {
			if e.Regarding.Kind != "Ingress" || e.Regarding.Name != ingressName || e.Reason != reason {
				continue
			}
			if e.Type == eventType && e.Note == note {
				return nil
			}
			seen = append(seen, e.Type+": "+e.Note)
		}
		return fmt.Errorf("no %s event %q on Ingress %s; %s events: %q", eventType, note, ingressName, reason, seen)
	})
}
