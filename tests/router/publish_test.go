package router

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/tests/framework"
)

// loadBalancerService creates a Service of type LoadBalancer in ns, as the
// router's own Service is shipped.
func loadBalancerService(t *testing.T, cp *framework.ControlPlane, ns, name string) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": name},
		Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	create(t, cp, svc)
	return svc
}

// setLoadBalancer writes the Service's status.loadBalancer through the
// status subresource, as a cloud controller does.
func setLoadBalancer(t *testing.T, cp *framework.ControlPlane, ns, name string, ingress ...corev1.LoadBalancerIngress) {
	t.Helper()
	svc := &corev1.Service{}
	if err := cp.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, svc); err != nil {
		t.Fatal(err)
	}
	svc.Status.LoadBalancer.Ingress = ingress
	if err := cp.Client.Status().Update(context.Background(), svc); err != nil {
		t.Fatalf("writing the load balancer status of Service %s/%s: %v", ns, name, err)
	}
}

// waitCanonical waits until router's entry of route ns/name admits host
// with canonical as routerCanonicalHostname.
func waitCanonical(t *testing.T, cp *framework.ControlPlane, ns, name, router, host, canonical string) {
	t.Helper()
	framework.Eventually(t, "the entry of "+router+" names "+canonical, func() error {
		in, _ := entryOf(getRoute(t, cp, ns, name), router)
		return admittedEntry(in, router, host, canonical)
	})
}

// TestPublishService: a router with ROUTER_PUBLISH_SERVICE reports the
// address of that Service's load balancer as its routerCanonicalHostname
// from its first write on (no write without it first), follows it as a
// cloud controller changes it, and drops it when the load balancer has
// none; ROUTER_CANONICAL_HOSTNAME and ROUTER_PUBLISH_STATUS_ADDRESS win
// over the Service.
func TestPublishService(t *testing.T) {
	cp := framework.Cluster(t)
	ns := isolatedNamespace(t, cp, "publish", nil)
	loadBalancerService(t, cp, ns, "edge")
	setLoadBalancer(t, cp, ns, "edge", corev1.LoadBalancerIngress{IP: "203.0.113.7"})
	create(t, cp, route(ns, "shop", "shop.example.com", nil))
	published := cp.StartRouter(t, "published", "--namespace-labels", only(ns), "--publish-service", ns+"/edge")
	canonical := cp.StartRouter(t, "published-canonical", "--namespace-labels", only(ns), "--publish-service", ns+"/edge",
		"--router-canonical-hostname", "apps.example.com")
	fixed := cp.StartRouter(t, "published-fixed", "--namespace-labels", only(ns), "--publish-service", ns+"/edge",
		"--publish-status-address", "198.51.100.1")

	waitCanonical(t, cp, ns, "shop", "published", "shop.example.com", "203.0.113.7")
	waitCanonical(t, cp, ns, "shop", "published-canonical", "shop.example.com", "apps.example.com")
	waitCanonical(t, cp, ns, "shop", "published-fixed", "shop.example.com", "198.51.100.1")
	writesSettle(t, wantWrites{"published", published, 1}, wantWrites{"published-canonical", canonical, 1},
		wantWrites{"published-fixed", fixed, 1})

	// The load balancer gets a host name (a host name wins over an IP
	// address), then loses its address.
	setLoadBalancer(t, cp, ns, "edge", corev1.LoadBalancerIngress{IP: "203.0.113.7"}, corev1.LoadBalancerIngress{Hostname: "lb.example.net"})
	waitCanonical(t, cp, ns, "shop", "published", "shop.example.com", "lb.example.net")
	setLoadBalancer(t, cp, ns, "edge")
	waitCanonical(t, cp, ns, "shop", "published", "shop.example.com", "")
	writesSettle(t, wantWrites{"published", published, 3}, wantWrites{"published-canonical", canonical, 1},
		wantWrites{"published-fixed", fixed, 1})
}
