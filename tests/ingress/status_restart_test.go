package ingress

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestIngressStatusAfterRestart: a router that went away while the
// controller was down drops out of the Ingress's status when the
// controller starts again, and other controllers' entries stay. While the
// controller is stopped, one router's status entry is removed from the
// only Route that named it (as a router leaving a shard, or an admin
// clearing a router's status, does), and a Route whose router was the only
// one with another address is deleted (the controller creates it again,
// without status). The controller's record of its own entries,
// routeshift.io/published-addresses on the Ingress, is what tells them from
// other controllers' once no Route names them.
func TestIngressStatusAfterRestart(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns, ing, routeNames := lbIngress(t, cp, "status-restart", "a.example.com", "b.example.com")
	a, b := routeNames[0], routeNames[1]
	writeStatus(t, cp, ing, func(i *networkingv1.Ingress) {
		i.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: "lb.example.com"}, {IP: "10.0.0.1"}}
	})
	public, internal, edgeIP := "public.apps.example.com", "internal.apps.example.com", "192.0.2.7"
	setRouteStatus(t, cp, ns, a, routerEntry("a.example.com", "public", public, true), routerEntry("a.example.com", "internal", internal, true))
	setRouteStatus(t, cp, ns, b, routerEntry("b.example.com", "internal", internal, true), routerEntry("b.example.com", "edge", edgeIP, true))
	wantLoadBalancer(t, cp, ing, "10.0.0.1", edgeIP, internal, "lb.example.com", public)
	wantPublished(t, cp, ing, edgeIP+","+internal+","+public)

	startManager := stopManager(t, cp)
	// The public router leaves: its entry goes from the only Route that
	// had one. Route b, the only one the edge router admitted, is deleted.
	setRouteStatus(t, cp, ns, a, routerEntry("a.example.com", "internal", internal, true))
	if err := cp.Client.Delete(ctx, &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: b}}); err != nil {
		t.Fatal(err)
	}
	startManager()

	routes := wantRoutes(t, cp, ns, a, b)
	if r := routes[b]; len(r.Status.Ingress) != 0 {
		t.Errorf("route %s, created again, has status %+v", b, r.Status.Ingress)
	}
	wantLoadBalancer(t, cp, ing, "10.0.0.1", internal, "lb.example.com")
	wantPublished(t, cp, ing, internal)

	t.Run("the record is not copied to the Routes", func(t *testing.T) {
		for _, r := range routes {
			if v, ok := r.Annotations[ingress.PublishedAddressesAnnotation]; ok {
				t.Errorf("route %s has %s=%q", r.Name, ingress.PublishedAddressesAnnotation, v)
			}
		}
	})
	t.Run("no router left, only other controllers' entries", func(t *testing.T) {
		setRouteStatus(t, cp, ns, a)
		wantLoadBalancer(t, cp, ing, "10.0.0.1", "lb.example.com")
		wantPublished(t, cp, ing, "")
	})
}

// lbIngress creates, in a new namespace, the Service web and the Ingress lb
// with a rule for each host, and waits for their Routes, whose names it
// returns in the order of hosts.
func lbIngress(t *testing.T, cp *framework.ControlPlane, prefix string, hosts ...string) (ns string, ing *networkingv1.Ingress, routes []string) {
	t.Helper()
	ns = cp.CreateNamespace(t, prefix)
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	ing = &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lb"}}
	for _, h := range hosts {
		ing.Spec.Rules = append(ing.Spec.Rules, rule(h, path("/", "web", networkingv1.ServiceBackendPort{Name: "http"})))
		routes = append(routes, ingress.RouteName("lb", h, "/"))
	}
	create(t, cp, ing)
	wantRoutes(t, cp, ns, routes...)
	return ns, ing, routes
}

// wantPublished waits until the Ingress's routeshift.io/published-addresses
// is want ("" for absent).
func wantPublished(t *testing.T, cp *framework.ControlPlane, ing *networkingv1.Ingress, want string) {
	t.Helper()
	framework.Eventually(t, ingress.PublishedAddressesAnnotation+"="+want, func() error {
		var got networkingv1.Ingress
		if err := cp.Client.Get(context.Background(), client.ObjectKeyFromObject(ing), &got); err != nil {
			return err
		}
		if v, ok := got.Annotations[ingress.PublishedAddressesAnnotation]; v != want || (want == "" && ok) {
			return fmt.Errorf("%s=%q (set: %v)", ingress.PublishedAddressesAnnotation, v, ok)
		}
		return nil
	})
}

// stopManager stops the package's manager (webhook and controller) and
// returns the function that starts it again. The end of the test starts it
// when the test did not: the package's other tests need it.
func stopManager(t *testing.T, cp *framework.ControlPlane) (start func()) {
	t.Helper()
	running := false
	t.Cleanup(func() {
		if !running {
			if err := cp.Webhook.Start(); err != nil {
				t.Errorf("restarting the manager: %v\n%s", err, cp.Webhook.Output())
			}
		}
	})
	// Stop ends the process even when it reports an error.
	if err := cp.Webhook.Stop(); err != nil {
		t.Fatalf("stopping the manager: %v\n%s", err, cp.Webhook.Output())
	}
	return func() {
		t.Helper()
		if err := cp.Webhook.Start(); err != nil {
			t.Fatalf("restarting the manager: %v\n%s", err, cp.Webhook.Output())
		}
		running = true
	}
}
