package ingress

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestIngressStatusAddresses: a router that reports an IP address as its
// canonical hostname (a router publishing its Service's load-balancer IP,
// say) appears in the Ingress's status.loadBalancer.ingress as an ip, in
// canonical form, and one that reports a name as a hostname; the API server
// refuses an IP address as a hostname. A value that is neither is left out
// without holding up the others. What users and health checks that read
// status.loadBalancer (Argo CD's Ingress check wants an entry there) see,
// `kubectl get ingress -o wide`'s ADDRESS, lists them all.
func TestIngressStatusAddresses(t *testing.T) {
	cp := framework.Cluster(t)
	ns, ing, routeNames := lbIngress(t, cp, "status-addresses", "a.example.com", "b.example.com")
	a, b := routeNames[0], routeNames[1]

	t.Run("an IP address alone", func(t *testing.T) {
		setRouteStatus(t, cp, ns, a, routerEntry("a.example.com", "v4", "192.0.2.10", true))
		wantEntries(t, cp, ing, networkingv1.IngressLoadBalancerIngress{IP: "192.0.2.10"})
	})
	t.Run("IPv4, IPv6 and a name", func(t *testing.T) {
		setRouteStatus(t, cp, ns, a, routerEntry("a.example.com", "v4", "192.0.2.10", true), routerEntry("a.example.com", "name", "router.apps.example.com", true))
		setRouteStatus(t, cp, ns, b, routerEntry("b.example.com", "v6", "2001:DB8:0::10", true), routerEntry("b.example.com", "bad", "Not_A_Name", true))
		wantEntries(t, cp, ing, networkingv1.IngressLoadBalancerIngress{IP: "192.0.2.10"}, networkingv1.IngressLoadBalancerIngress{IP: "2001:db8::10"},
			networkingv1.IngressLoadBalancerIngress{Hostname: "router.apps.example.com"})
		wantPublished(t, cp, ing, "192.0.2.10,2001:db8::10,router.apps.example.com")
		stdout, stderr, err := cp.Kubectl(t, "get", "ingress", "lb", "-n", ns, "-o", "wide", "--no-headers")
		if err != nil {
			t.Fatalf("kubectl get ingress: %v\n%s", err, stderr)
		}
		if want := "192.0.2.10,2001:db8::10,router.apps.example.com"; !slices.Contains(strings.Fields(stdout), want) {
			t.Errorf("kubectl get ingress -o wide prints %q, want ADDRESS %s", stdout, want)
		}
	})
	t.Run("a router that leaves goes, whatever its shape", func(t *testing.T) {
		setRouteStatus(t, cp, ns, a, routerEntry("a.example.com", "name", "router.apps.example.com", true))
		setRouteStatus(t, cp, ns, b)
		wantEntries(t, cp, ing, networkingv1.IngressLoadBalancerIngress{Hostname: "router.apps.example.com"})
	})
}

// wantEntries waits until the Ingress's status.loadBalancer.ingress is
// exactly want, in that order.
func wantEntries(t *testing.T, cp *framework.ControlPlane, ing *networkingv1.Ingress, want ...networkingv1.IngressLoadBalancerIngress) {
	t.Helper()
	framework.Eventually(t, fmt.Sprintf("load balancer status %+v", want), func() error {
		var got networkingv1.Ingress
		if err := cp.Client.Get(context.Background(), client.ObjectKeyFromObject(ing), &got); err != nil {
			return err
		}
		if !equality.Semantic.DeepEqual(got.Status.LoadBalancer.Ingress, want) {
			return fmt.Errorf("load balancer status %+v", got.Status.LoadBalancer.Ingress)
		}
		return nil
	})
}
