package ingress

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestStartupResync: what changed while the controller was down is caught
// up when it starts. An Ingress whose path was edited gets the Route of the
// new path, and the Route of the old path, which its owner still holds and
// garbage collection therefore keeps, is deleted. The Routes of an Ingress
// deleted meanwhile are removed by kube-controller-manager's garbage
// collector (the controller is not needed for that) and not brought back.
//
// The package's manager process (webhook and controller) is stopped and
// started again; Routes are not written while it is down, since their
// admission webhooks fail closed.
func TestStartupResync(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "resync")
	web := networkingv1.ServiceBackendPort{Name: "http"}
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	kept := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kept"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{rule("kept.example.com", path("/old", "web", web))}}}
	gone := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gone"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{rule("gone.example.com", path("/", "web", web))}}}
	create(t, cp, kept, gone)
	oldPath, newPath := ingress.RouteName("kept", "kept.example.com", "/old"), ingress.RouteName("kept", "kept.example.com", "/new")
	goneRoute := ingress.RouteName("gone", "gone.example.com", "/")
	wantRoutes(t, cp, ns, oldPath, goneRoute)

	stopped := false
	t.Cleanup(func() {
		// The other tests of the package need the manager.
		if stopped {
			if err := cp.Webhook.Start(); err != nil {
				t.Errorf("restarting the manager: %v\n%s", err, cp.Webhook.Output())
			}
		}
	})
	// Stop ends the process even when it reports an error.
	err := cp.Webhook.Stop()
	stopped = true
	if err != nil {
		t.Fatalf("stopping the manager: %v\n%s", err, cp.Webhook.Output())
	}

	update(t, cp, kept, func(i *networkingv1.Ingress) { i.Spec.Rules[0].HTTP.Paths[0].Path = "/new" })
	if err := cp.Client.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	// Garbage collection alone: the deleted Ingress's Route goes, and
	// nothing follows the edit while the controller is down.
	if r := wantRoutes(t, cp, ns, oldPath)[oldPath]; r.Spec.Path != "/old" {
		t.Fatalf("route %s has path %q while the controller is down, want /old", oldPath, r.Spec.Path)
	}

	if err := cp.Webhook.Start(); err != nil {
		t.Fatalf("restarting the manager: %v\n%s", err, cp.Webhook.Output())
	}
	stopped = false
	routes := wantRoutes(t, cp, ns, newPath)
	r := routes[newPath]
	if r.Spec.Host != "kept.example.com" || r.Spec.Path != "/new" || r.Spec.To.Name != "web" {
		t.Errorf("route %s: %+v", newPath, r.Spec)
	}
	var stored networkingv1.Ingress
	if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(kept), &stored); err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(&r); ref == nil || ref.UID != stored.UID {
		t.Errorf("route %s owner %+v, want Ingress kept (%s)", newPath, r.OwnerReferences, stored.UID)
	}
}
