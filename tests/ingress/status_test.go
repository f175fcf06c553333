package ingress

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestIngressStatus: status.loadBalancer.ingress lists, sorted, the
// canonical hostnames of the routers that admitted the Ingress's Routes,
// next to the entries another controller wrote there, which survive every
// change; a router that stops admitting, forgets its status entry or loses
// its Route drops out; nothing is written when nothing changed.
func TestIngressStatus(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "status")
	web := networkingv1.ServiceBackendPort{Name: "http"}
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lb"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{
			rule("a.example.com", path("/", "web", web)),
			rule("b.example.com", path("/", "web", web)),
			rule("c.example.com", path("/", "web", web)),
		}}}
	create(t, cp, ing)
	a, b, c := ingress.RouteName("lb", "a.example.com", "/"), ingress.RouteName("lb", "b.example.com", "/"), ingress.RouteName("lb", "c.example.com", "/")
	wantRoutes(t, cp, ns, a, b, c)

	// Another controller (a cloud load balancer, say) publishes its own
	// address and name.
	foreignIP, foreignName := networkingv1.IngressLoadBalancerIngress{IP: "10.0.0.1"}, networkingv1.IngressLoadBalancerIngress{Hostname: "lb.example.com"}
	writeStatus(t, cp, ing, func(i *networkingv1.Ingress) {
		i.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{foreignName, foreignIP}
	})

	public, internal, shard := "public.apps.example.com", "internal.apps.example.com", "shard.apps.example.com"
	writes := metricSum(t, cp, "routeshift_ingress_status_writes_total{")
	setRouteStatus(t, cp, ns, a, routerEntry("a.example.com", "public", public, true), routerEntry("a.example.com", "internal", internal, false))
	setRouteStatus(t, cp, ns, b, routerEntry("b.example.com", "internal", internal, true))
	setRouteStatus(t, cp, ns, c, routerEntry("c.example.com", "shard", shard, false))
	wantLoadBalancer(t, cp, ing, "10.0.0.1", internal, "lb.example.com", public)
	if after := metricSum(t, cp, `routeshift_ingress_status_writes_total{result="ok"}`); after <= writes {
		t.Errorf("routeshift_ingress_status_writes_total did not count the status write: %v before, %v after", writes, after)
	}
	if statusUpdates(cp, ns) == 0 {
		t.Fatalf("the manager logged no status update for namespace %s: is its log level still debug?", ns)
	}

	t.Run("no write when nothing changed", func(t *testing.T) {
		var before networkingv1.Ingress
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(ing), &before); err != nil {
			t.Fatal(err)
		}
		attempts := statusUpdates(cp, ns)
		reconciles := metricSum(t, cp, `controller_runtime_reconcile_total{controller="ingress-to-route",`)
		// A user edit makes the controller resync the Ingress: it reverts
		// the edit and recomputes the status, which has not changed.
		r := &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: a}}
		update(t, cp, r, func(r *routecore.Route) { r.Spec.Path = "/hijacked" })
		framework.Eventually(t, "the edit is reverted", func() error {
			if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(r), r); err != nil {
				return err
			}
			if r.Spec.Path != "/" {
				return fmt.Errorf("path %q", r.Spec.Path)
			}
			return nil
		})
		waitIdle(t, cp, reconciles)
		// The write counter is the whole controller's, and Ingresses of
		// other tests' namespaces may be changing: count this Ingress's
		// attempts in the manager's log.
		if n := statusUpdates(cp, ns); n != attempts {
			t.Errorf("%d status updates of the Ingress attempted during a resync that changed nothing", n-attempts)
		}
		var after networkingv1.Ingress
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(ing), &after); err != nil {
			t.Fatal(err)
		}
		if after.ResourceVersion != before.ResourceVersion {
			t.Errorf("the Ingress was written: resourceVersion %s, then %s; status %+v", before.ResourceVersion, after.ResourceVersion, after.Status.LoadBalancer)
		}
	})

	t.Run("a router that stops admitting drops out", func(t *testing.T) {
		setRouteStatus(t, cp, ns, b, routerEntry("b.example.com", "internal", internal, false))
		wantLoadBalancer(t, cp, ing, "10.0.0.1", "lb.example.com", public)
	})

	t.Run("a router that admits joins", func(t *testing.T) {
		setRouteStatus(t, cp, ns, c, routerEntry("c.example.com", "shard", shard, true))
		wantLoadBalancer(t, cp, ing, "10.0.0.1", "lb.example.com", public, shard)
	})

	t.Run("a router whose status entry is removed drops out", func(t *testing.T) {
		setRouteStatus(t, cp, ns, a)
		wantLoadBalancer(t, cp, ing, "10.0.0.1", "lb.example.com", shard)
	})

	t.Run("the routers of a deleted Route drop out", func(t *testing.T) {
		update(t, cp, ing, func(i *networkingv1.Ingress) { i.Spec.Rules = i.Spec.Rules[:2] })
		wantRoutes(t, cp, ns, a, b)
		wantLoadBalancer(t, cp, ing, "10.0.0.1", "lb.example.com")
	})
}

// routerEntry is a router's status entry on a Route: admitted or not, with
// its canonical hostname.
func routerEntry(host, router, canonical string, admitted bool) routecore.RouteIngress {
	now := metav1.Now()
	cond := routecore.RouteIngressCondition{Type: routecore.RouteAdmitted, Status: corev1.ConditionTrue, LastTransitionTime: &now}
	if !admitted {
		cond.Status, cond.Reason = corev1.ConditionFalse, "HostAlreadyClaimed"
	}
	return routecore.RouteIngress{Host: host, RouterName: router, RouterCanonicalHostname: canonical,
		WildcardPolicy: routecore.WildcardPolicyNone, Conditions: []routecore.RouteIngressCondition{cond}}
}

// setRouteStatus replaces a Route's status entries, as routers write them.
func setRouteStatus(t *testing.T, cp *framework.ControlPlane, ns, name string, entries ...routecore.RouteIngress) {
	t.Helper()
	writeStatus(t, cp, &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}},
		func(r *routecore.Route) { r.Status.Ingress = entries })
}

// writeStatus re-reads obj, applies change and writes its status
// subresource, retrying conflicts.
func writeStatus[T client.Object](t *testing.T, cp *framework.ControlPlane, obj T, change func(T)) {
	t.Helper()
	writeRetrying(t, cp, obj, change, "updating the status of "+obj.GetName(), func(ctx context.Context, o client.Object) error {
		return cp.Client.Status().Update(ctx, o)
	})
}

// wantLoadBalancer waits until the Ingress's status.loadBalancer.ingress is
// exactly the entries named, in that order: an IP address or a hostname
// each.
func wantLoadBalancer(t *testing.T, cp *framework.ControlPlane, ing *networkingv1.Ingress, entries ...string) {
	t.Helper()
	var want []networkingv1.IngressLoadBalancerIngress
	for _, e := range entries {
		if strings.Trim(e, "0123456789.") == "" {
			want = append(want, networkingv1.IngressLoadBalancerIngress{IP: e})
		} else {
			want = append(want, networkingv1.IngressLoadBalancerIngress{Hostname: e})
		}
	}
	wantEntries(t, cp, ing, want...)
}

// statusUpdates counts the Ingress status updates the manager logged (at
// debug level, the framework's default) for Ingresses in namespace ns.
func statusUpdates(cp *framework.ControlPlane, ns string) int {
	n := 0
	for _, line := range strings.Split(cp.Webhook.Output(), "\n") {
		if strings.Contains(line, `"msg":"ingress status update"`) && strings.Contains(line, `"namespace":"`+ns+`"`) {
			n++
		}
	}
	return n
}

// metricSum adds up the samples of the manager's /metrics page whose line
// starts with prefix (a metric name and the start of its labels).
func metricSum(t *testing.T, cp *framework.ControlPlane, prefix string) float64 {
	t.Helper()
	sum, err := scrapeSum(cp, prefix)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func scrapeSum(cp *framework.ControlPlane, prefix string) (float64, error) {
	body, err := cp.Webhook.Metrics()
	if err != nil {
		return 0, err
	}
	return sumSamples(body, prefix)
}

// sumSamples adds up the samples of a /metrics page whose line starts with
// prefix.
func sumSamples(body, prefix string) (float64, error) {
	sum := 0.0
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, fmt.Errorf("metrics line %q: %v", line, err)
		}
		sum += v
	}
	return sum, nil
}

// waitIdle waits until the controller has finished more reconciles than
// reconciles (a reading of controller_runtime_reconcile_total) and has none
// running: every sync started before the call has ended.
func waitIdle(t *testing.T, cp *framework.ControlPlane, reconciles float64) {
	t.Helper()
	framework.Eventually(t, "the controller is idle", func() error {
		done, err := scrapeSum(cp, `controller_runtime_reconcile_total{controller="ingress-to-route",`)
		if err != nil {
			return err
		}
		active, err := scrapeSum(cp, `controller_runtime_active_workers{controller="ingress-to-route"}`)
		if err != nil {
			return err
		}
		if done <= reconciles || active != 0 {
			return fmt.Errorf("%v reconciles finished since, %v running", done-reconciles, active)
		}
		return nil
	})
}
