package ingress

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// Adopting ingress-nginx's Ingresses (`routeshift controller --adopt-class`).
//
// The package's manager runs without --adopt-class: it ignores the
// Ingresses of class nginx. Each test runs its own `routeshift controller
// --adopt-class nginx` beside it (see startAdoptingController), serving an
// IngressClass controller name no IngressClass has, so that the two share
// no Ingress but the unclassed ones, of which these tests create none.

const (
	// nginxPrefix is the prefix of ingress-nginx's annotations.
	nginxPrefix = "nginx.ingress.kubernetes.io/"
	// nginxClass is the class the tests' controllers adopt.
	nginxClass = "nginx"
)

// The reasons of the events about adopted Ingresses' annotations.
const (
	reasonApproximated = "ApproximatedIngressNginxAnnotations"
	reasonUnsupported  = "UnsupportedIngressNginxAnnotations"
	reasonRefused      = "RefusedIngressNginxAnnotations"
)

// TestAdoptNginxClasses: Ingresses of class nginx, named by
// spec.ingressClassName (with ingress-nginx's IngressClass) or by the legacy
// kubernetes.io/ingress.class annotation, are ignored by a controller
// without --adopt-class and adopted by one with --adopt-class nginx: they
// get Routes whose router annotations are converted from their
// ingress-nginx annotations and defaults.
func TestAdoptNginxClasses(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "adopt-classes")
	createNginxIngressClass(t, cp)
	ours := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "routeshift-" + ns},
		Spec: networkingv1.IngressClassSpec{Controller: ingress.DefaultControllerName}}
	create(t, cp, ours, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	t.Cleanup(func() { _ = cp.Client.Delete(ctx, ours) })

	annotations := map[string]string{
		nginxPrefix + "proxy-read-timeout":     "120",
		nginxPrefix + "whitelist-source-range": "10.0.0.0/8,192.168.0.0/16",
	}
	byName := nginxIngress(ns, "by-class-name", "by-class-name.example.com", "web", annotations)
	byAnnotation := nginxIngress(ns, "by-annotation", "by-annotation.example.com", "web", annotations)
	byAnnotation.Spec.IngressClassName = nil
	byAnnotation.Annotations[ingress.ClassAnnotation] = nginxClass
	cases := []struct {
		name  string
		ing   *networkingv1.Ingress
		route string
	}{
		{"spec.ingressClassName nginx", byName, ingress.RouteName(byName.Name, "by-class-name.example.com", "/")},
		{"annotation kubernetes.io/ingress.class nginx", byAnnotation, ingress.RouteName(byAnnotation.Name, "by-annotation.example.com", "/")},
	}
	for _, tc := range cases {
		create(t, cp, tc.ing)
	}
	// An Ingress of the manager's own class, created after the nginx ones.
	marker := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "marker"},
		Spec: networkingv1.IngressSpec{IngressClassName: &ours.Name,
			Rules: []networkingv1.IngressRule{rule("marker.example.com", path("/", "web", networkingv1.ServiceBackendPort{Name: "http"}))}}}
	markerRoute := ingress.RouteName("marker", "marker.example.com", "/")

	t.Run("ignored without --adopt-class", func(t *testing.T) {
		reconciles := metricSum(t, cp, `controller_runtime_reconcile_total{controller="ingress-to-route",`)
		create(t, cp, marker)
		wantRoute(t, cp, ns, markerRoute)
		// The manager's queue is first in, first out: the nginx Ingresses,
		// created before the marker, were taken before it. Once the
		// manager is idle, their syncs have ended.
		waitIdle(t, cp, reconciles)
		got, err := routesOf(ctx, cp.Client, ns)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{markerRoute}; !slices.Equal(names(got), want) {
			t.Errorf("routes %v once the manager, without --adopt-class, synced the nginx Ingresses; want only the marker's %v", names(got), want)
		}
	})

	t.Run("adopted with --adopt-class nginx", func(t *testing.T) {
		startAdoptingController(t, cp, "routeshift.test/adopt-classes", "--adopt-class", nginxClass)
		routes := wantRoutes(t, cp, ns, markerRoute, cases[0].route, cases[1].route)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := routes[tc.route]
				if ref := metav1.GetControllerOf(&r); ref == nil || ref.Kind != "Ingress" || ref.Name != tc.ing.Name {
					t.Errorf("route %s owner: %+v", r.Name, r.OwnerReferences)
				}
				if r.Spec.Host != tc.ing.Spec.Rules[0].Host || r.Spec.Path != "/" || r.Spec.To.Kind != "Service" || r.Spec.To.Name != "web" {
					t.Errorf("route %s: %+v", r.Name, r.Spec)
				}
				for k, v := range map[string]string{
					// No affinity annotation: ingress-nginx sets no cookie.
					routecore.AnnDisableCookies: "true",
					routecore.AnnTimeout:        "120s",
					routecore.AnnIPAllowlist:    "10.0.0.0/8 192.168.0.0/16",
				} {
					if got, ok := r.Annotations[k]; !ok || got != v {
						t.Errorf("route %s: annotation %s=%q (set: %v), want %q; annotations %v", r.Name, k, got, ok, v, r.Annotations)
					}
				}
			})
		}
	})
}

// TestAdoptedAnnotationEvents: an adopted Ingress with an approximate, an
// unsupported and a refused (snippet) annotation gets one Warning event of
// each reason, listing its annotations as `KEY="VALUE": VERDICT: caveat`.
// Syncs that change nothing of them (here label changes) record no event
// again, neither a new Event nor a second occurrence in the first's series;
// a changed value records one new event, of its own reason only.
func TestAdoptedAnnotationEvents(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "adopt-events")
	createNginxIngressClass(t, cp)
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	controller := startAdoptingController(t, cp, "routeshift.test/adopt-events", "--adopt-class", nginxClass)

	const snippet = `more_set_headers "X-Adopted: yes";`
	ing := nginxIngress(ns, "noisy", "noisy.example.com", "web", map[string]string{
		nginxPrefix + "proxy-read-timeout":    "120",
		nginxPrefix + "proxy-send-timeout":    "60",
		nginxPrefix + "auth-url":              "https://auth.example.com/verify",
		nginxPrefix + "configuration-snippet": snippet,
		// The Route's labels follow the Ingress's: a label change is seen
		// to have been synced.
		ingress.ReconcileLabelsAnnotation: "true",
	})
	ing.Labels = map[string]string{"app": "noisy"}
	create(t, cp, ing)
	route := ingress.RouteName("noisy", "noisy.example.com", "/")
	wantRoutes(t, cp, ns, route)

	// findings: the line each annotation gets, and the reason of the
	// event listing it.
	findings := []struct{ reason, line string }{
		{reasonApproximated, findingLine("proxy-read-timeout", "120", "approximate")},
		{reasonApproximated, findingLine("proxy-send-timeout", "60", "approximate")},
		{reasonUnsupported, findingLine("auth-url", "https://auth.example.com/verify", "not-supported")},
		{reasonRefused, findingLine("configuration-snippet", snippet, "refused")},
	}
	reasons := []string{reasonApproximated, reasonRefused, reasonUnsupported}
	events := waitEvents(t, cp, ns, ing.Name, func(got map[string][]eventsv1.Event) error {
		for _, reason := range reasons {
			if len(got[reason]) == 0 {
				return fmt.Errorf("no %s event yet; reasons %v", reason, slices.Sorted(maps.Keys(got)))
			}
		}
		return nil
	})
	t.Run("one event of each reason, listing its annotations", func(t *testing.T) {
		checkEventReasons(t, events, map[string]int{reasonApproximated: 1, reasonUnsupported: 1, reasonRefused: 1})
		for _, f := range findings {
			for _, reason := range reasons {
				note := events[reason][0].Note
				if listed := strings.Contains(note, f.line); listed != (reason == f.reason) {
					t.Errorf("%s event lists %q: %v, want %v; note: %s", reason, f.line, listed, reason == f.reason, note)
				}
			}
		}
	})

	t.Run("syncs that change nothing record no event", func(t *testing.T) {
		for _, rev := range []string{"2", "3"} {
			reconciles := controller.scrape(t, `controller_runtime_reconcile_total{controller="ingress-to-route",`)
			update(t, cp, ing, func(i *networkingv1.Ingress) { i.Labels["rev"] = rev })
			framework.Eventually(t, "route "+route+" has label rev="+rev, func() error {
				r := &routecore.Route{}
				if err := cp.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: route}, r); err != nil {
					return err
				}
				if r.Labels["rev"] != rev {
					return fmt.Errorf("labels %v", r.Labels)
				}
				return nil
			})
			waitControllerIdle(t, controller, reconciles)
		}
		// A new value of the unsupported annotation makes a new event,
		// recorded after the label syncs' events, were there any.
		const changed = "https://auth.example.com/v2"
		update(t, cp, ing, func(i *networkingv1.Ingress) { i.Annotations[nginxPrefix+"auth-url"] = changed })
		changedLine := findingLine("auth-url", changed, "not-supported")
		events := waitEvents(t, cp, ns, ing.Name, func(got map[string][]eventsv1.Event) error {
			for _, e := range got[reasonUnsupported] {
				if strings.Contains(e.Note, changedLine) {
					return nil
				}
			}
			return fmt.Errorf("no %s event listing %q", reasonUnsupported, changedLine)
		})
		checkEventReasons(t, events, map[string]int{reasonApproximated: 1, reasonUnsupported: 2, reasonRefused: 1})
	})
}

// TestAdoptedIngressStatus: the status of an adopted Ingress is left to
// ingress-nginx: status.loadBalancer stays empty when a router admits its
// Route; with --publish-adopted-status the router's canonical hostname is
// published.
func TestAdoptedIngressStatus(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "adopt-status")
	createNginxIngressClass(t, cp)
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	controller := startAdoptingController(t, cp, "routeshift.test/adopt-status", "--adopt-class", nginxClass)
	ing := nginxIngress(ns, "adopted", "adopted.example.com", "web", nil)
	create(t, cp, ing)
	route := ingress.RouteName("adopted", "adopted.example.com", "/")
	wantRoutes(t, cp, ns, route)

	const canonical = "router.apps.example.com"
	setRouteStatus(t, cp, ns, route, routerEntry("adopted.example.com", "public", canonical, true))

	t.Run("no status without --publish-adopted-status", func(t *testing.T) {
		reconciles := controller.scrape(t, `controller_runtime_reconcile_total{controller="ingress-to-route",`)
		managerReconciles := metricSum(t, cp, `controller_runtime_reconcile_total{controller="ingress-to-route",`)
		// A user edit the controller reverts: the sync that reverts it
		// sees the Route admitted (a Route's changes arrive in order).
		r := &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: route}}
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
		if len(r.Status.Ingress) != 1 {
			t.Fatalf("route %s status %+v, want the router's admission", route, r.Status.Ingress)
		}
		waitControllerIdle(t, controller, reconciles)
		waitIdle(t, cp, managerReconciles)
		var got networkingv1.Ingress
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(ing), &got); err != nil {
			t.Fatal(err)
		}
		if lb := got.Status.LoadBalancer.Ingress; len(lb) != 0 {
			t.Errorf("the adopted Ingress's status.loadBalancer.ingress is %+v, want it left empty for ingress-nginx", lb)
		}
		if v, ok := got.Annotations[ingress.PublishedAddressesAnnotation]; ok {
			t.Errorf("the adopted Ingress has %s=%q", ingress.PublishedAddressesAnnotation, v)
		}
	})

	t.Run("published with --publish-adopted-status", func(t *testing.T) {
		startAdoptingController(t, cp, "routeshift.test/adopt-status-publish", "--adopt-class", nginxClass, "--publish-adopted-status")
		wantLoadBalancer(t, cp, ing, canonical)
	})
}

// TestAdoptedCanary: a canary Ingress (canary "true", canary-weight 30)
// for the host and path of an adopted primary Ingress has no Route of its
// own; created after the primary, it makes its Service an alternate
// backend of the primary's Route, weighted 30 against the primary's 70;
// deleted, it leaves the Route with its one backend at the default weight.
func TestAdoptedCanary(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "adopt-canary")
	createNginxIngressClass(t, cp)
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}),
		service(ns, "web-canary", corev1.ServicePort{Name: "http", Port: 80}))
	controller := startAdoptingController(t, cp, "routeshift.test/adopt-canary", "--adopt-class", nginxClass)

	primary := nginxIngress(ns, "shop", "shop.example.com", "web", nil)
	create(t, cp, primary)
	route := ingress.RouteName("shop", "shop.example.com", "/")
	wantRoutes(t, cp, ns, route)
	wantBackends(t, cp, ns, route, routecore.DefaultWeight)

	canary := nginxIngress(ns, "shop-canary", "shop.example.com", "web-canary", map[string]string{
		nginxPrefix + "canary":        "true",
		nginxPrefix + "canary-weight": "30",
	})

	t.Run("canary created after the primary", func(t *testing.T) {
		create(t, cp, canary)
		wantBackends(t, cp, ns, route, 70, routecore.RouteTargetReference{Kind: "Service", Name: "web-canary", Weight: ptr(int32(30))})
		// An adopted Ingress created after the canary: once it has its
		// Route and the controller is idle, the canary's own sync, queued
		// before it, has ended too.
		reconciles := controller.scrape(t, `controller_runtime_reconcile_total{controller="ingress-to-route",`)
		marker := nginxIngress(ns, "marker", "marker.example.com", "web", nil)
		create(t, cp, marker)
		markerRoute := ingress.RouteName("marker", "marker.example.com", "/")
		wantRoute(t, cp, ns, markerRoute)
		waitControllerIdle(t, controller, reconciles)
		got, err := routesOf(ctx, cp.Client, ns)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{markerRoute, route}; !slices.Equal(names(got), want) {
			t.Errorf("routes %v, want %v: the canary Ingress has no Route of its own", names(got), want)
		}
	})

	t.Run("canary deleted", func(t *testing.T) {
		if err := cp.Client.Delete(ctx, canary); err != nil {
			t.Fatal(err)
		}
		wantBackends(t, cp, ns, route, routecore.DefaultWeight)
	})
}

// nginxIngress is an Ingress of class nginx (spec.ingressClassName) with
// one rule: host, path / of pathType Prefix, to port http of svc.
func nginxIngress(ns, name, host, svc string, annotations map[string]string) *networkingv1.Ingress {
	class := nginxClass
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: map[string]string{}},
		Spec: networkingv1.IngressSpec{IngressClassName: &class,
			Rules: []networkingv1.IngressRule{rule(host, path("/", svc, networkingv1.ServiceBackendPort{Name: "http"}))}}}
	maps.Copy(ing.Annotations, annotations)
	return ing
}

// createNginxIngressClass creates ingress-nginx's IngressClass nginx and
// deletes it when the test ends.
func createNginxIngressClass(t *testing.T, cp *framework.ControlPlane) {
	t.Helper()
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: nginxClass},
		Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
	create(t, cp, ic)
	t.Cleanup(func() {
		if err := cp.Client.Delete(context.Background(), ic); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting IngressClass %s: %v", ic.Name, err)
		}
	})
}

// findingLine is how an event lists an annotation of an adopted Ingress:
// its key and quoted value, then the verdict.
func findingLine(key, value, verdict string) string {
	return fmt.Sprintf("%s%s=%q: %s: ", nginxPrefix, key, value, verdict)
}

// wantRoute waits until ns holds the named Route, whichever others it
// holds.
func wantRoute(t *testing.T, cp *framework.ControlPlane, ns, name string) {
	t.Helper()
	framework.Eventually(t, "route "+name, func() error {
		return cp.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &routecore.Route{})
	})
}

// wantBackends waits until the Route's spec.to is the Service web with
// weight and its alternate backends are exactly alternates.
func wantBackends(t *testing.T, cp *framework.ControlPlane, ns, name string, weight int32, alternates ...routecore.RouteTargetReference) {
	t.Helper()
	framework.Eventually(t, fmt.Sprintf("route %s: web weight %d, alternate backends %s", name, weight, describeBackends(alternates)), func() error {
		r := &routecore.Route{}
		if err := cp.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, r); err != nil {
			return err
		}
		if r.Spec.To.Kind != "Service" || r.Spec.To.Name != "web" || r.Spec.To.Weight == nil || *r.Spec.To.Weight != weight ||
			describeBackends(r.Spec.AlternateBackends) != describeBackends(alternates) {
			return fmt.Errorf("to %s, alternate backends %s", describeBackends([]routecore.RouteTargetReference{r.Spec.To}), describeBackends(r.Spec.AlternateBackends))
		}
		return nil
	})
}

// describeBackends prints backends as [Kind/name weight ...].
func describeBackends(backends []routecore.RouteTargetReference) string {
	var out []string
	for _, b := range backends {
		w := "nil"
		if b.Weight != nil {
			w = fmt.Sprint(*b.Weight)
		}
		out = append(out, fmt.Sprintf("%s/%s %s", b.Kind, b.Name, w))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// waitEvents waits until ready accepts the events about the named Ingress,
// by reason, and returns them. client-go's event sink retries a failed
// write only after about 10 s: on a loaded machine an event can take more
// than one retry to arrive.
func waitEvents(t *testing.T, cp *framework.ControlPlane, ns, name string, ready func(map[string][]eventsv1.Event) error) map[string][]eventsv1.Event {
	t.Helper()
	var got map[string][]eventsv1.Event
	framework.EventuallyWithin(t, 2*time.Minute, "the events of Ingress "+name, func() error {
		var list eventsv1.EventList
		if err := cp.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
			return err
		}
		got = map[string][]eventsv1.Event{}
		for _, e := range list.Items {
			if e.Regarding.Kind == "Ingress" && e.Regarding.Name == name {
				got[e.Reason] = append(got[e.Reason], e)
			}
		}
		return ready(got)
	})
	return got
}

// checkEventReasons checks that the events are of exactly the reasons
// counted, as many distinct Warning events of each, none recorded twice
// (client-go's recorder turns a repeated event into a series on the first).
func checkEventReasons(t *testing.T, events map[string][]eventsv1.Event, want map[string]int) {
	t.Helper()
	for reason, list := range events {
		if len(list) != want[reason] {
			var notes []string
			for _, e := range list {
				notes = append(notes, e.Note)
			}
			t.Errorf("%d %s events, want %d: %q", len(list), reason, want[reason], notes)
		}
		for _, e := range list {
			if e.Type != corev1.EventTypeWarning {
				t.Errorf("%s event of type %s: %s", reason, e.Type, e.Note)
			}
			if e.Series != nil {
				t.Errorf("%s event recorded %d times: %s", reason, e.Series.Count, e.Note)
			}
		}
	}
	for reason, n := range want {
		if _, ok := events[reason]; !ok && n > 0 {
			t.Errorf("no %s event, want %d", reason, n)
		}
	}
}

// scrape adds up the samples of the controller's /metrics page whose line
// starts with prefix (0 when there is none).
func (c *controllerProcess) scrape(t *testing.T, prefix string) float64 {
	t.Helper()
	sum, err := c.scrapeSum(prefix)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func (c *controllerProcess) scrapeSum(prefix string) (float64, error) {
	body, err := c.metrics()
	if err != nil {
		return 0, err
	}
	return sumSamples(body, prefix)
}

// waitControllerIdle is waitIdle for a controller the test started.
func waitControllerIdle(t *testing.T, c *controllerProcess, reconciles float64) {
	t.Helper()
	framework.Eventually(t, "the controller is idle", func() error {
		done, err := c.scrapeSum(`controller_runtime_reconcile_total{controller="ingress-to-route",`)
		if err != nil {
			return err
		}
		active, err := c.scrapeSum(`controller_runtime_active_workers{controller="ingress-to-route"}`)
		if err != nil {
			return err
		}
		if done <= reconciles || active != 0 {
			return fmt.Errorf("%v reconciles finished since, %v running", done-reconciles, active)
		}
		return nil
	})
}

// startAdoptingController runs `routeshift controller` with only the
// Ingress-to-Route controller, for the IngressClass controller name and
// with flags, as startController does (the manager's service account and
// RBAC, no leader election, /metrics open on loopback). It stops when the
// test ends.
func startAdoptingController(t *testing.T, cp *framework.ControlPlane, controllerName string, flags ...string) *controllerProcess {
	t.Helper()
	return startController(t, cp, controllerName, append([]string{"--controllers", "ingress-to-route", "--log-level", "debug"}, flags...)...)
}
