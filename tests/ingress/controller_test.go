package ingress

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

func TestMain(m *testing.M) {
	os.Exit(framework.MainWith(m, framework.Options{ControllerManager: true, Controller: true}))
}

// routesOf lists the Routes in ns, by name.
func routesOf(ctx context.Context, c client.Client, ns string) (map[string]routecore.Route, error) {
	var list routecore.RouteList
	if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	out := map[string]routecore.Route{}
	for _, r := range list.Items {
		out[r.Name] = r
	}
	return out, nil
}

func names(m map[string]routecore.Route) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// wantRoutes waits until ns holds exactly the named Routes and returns them.
func wantRoutes(t *testing.T, cp *framework.ControlPlane, ns string, want ...string) map[string]routecore.Route {
	t.Helper()
	slices.Sort(want)
	var got map[string]routecore.Route
	framework.Eventually(t, fmt.Sprintf("routes %v", want), func() error {
		var err error
		if got, err = routesOf(context.Background(), cp.Client, ns); err != nil {
			return err
		}
		if !slices.Equal(names(got), want) {
			return fmt.Errorf("routes %v", names(got))
		}
		return nil
	})
	return got
}

func service(ns, name string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{Ports: ports}}
}

func tlsSecret(t *testing.T, ns, name, host string) *corev1.Secret {
	t.Helper()
	pair, err := certs.Generate(certs.Options{CommonName: host, DNSNames: []string{host}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: pair.CertPEM, corev1.TLSPrivateKeyKey: pair.KeyPEM}}
}

func prefix() *networkingv1.PathType { p := networkingv1.PathTypePrefix; return &p }

// path is an HTTP path of pathType Prefix, or ImplementationSpecific when
// empty (Prefix needs a path).
func path(p, svc string, port networkingv1.ServiceBackendPort) networkingv1.HTTPIngressPath {
	pathType := prefix()
	if p == "" {
		it := networkingv1.PathTypeImplementationSpecific
		pathType = &it
	}
	return networkingv1.HTTPIngressPath{Path: p, PathType: pathType,
		Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc, Port: port}}}
}

func rule(host string, paths ...networkingv1.HTTPIngressPath) networkingv1.IngressRule {
	return networkingv1.IngressRule{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}}}
}

func create(t *testing.T, cp *framework.ControlPlane, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := cp.Client.Create(context.Background(), o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

// update re-reads obj, applies change and writes it, retrying conflicts.
func update[T client.Object](t *testing.T, cp *framework.ControlPlane, obj T, change func(T)) {
	t.Helper()
	writeRetrying(t, cp, obj, change, "updating "+obj.GetName(), func(ctx context.Context, o client.Object) error {
		return cp.Client.Update(ctx, o)
	})
}

// writeRetrying re-reads obj, applies change and writes it with write,
// retrying conflicts; what names the write in failures.
func writeRetrying[T client.Object](t *testing.T, cp *framework.ControlPlane, obj T, change func(T), what string, write func(context.Context, client.Object) error) {
	t.Helper()
	ctx := context.Background()
	for range 10 {
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		change(obj)
		err := write(ctx, obj)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatalf("%s: %v", what, err)
		}
	}
	t.Fatalf("%s: conflicts", what)
}

// TestIngressLifecycle follows one Ingress through its life: Routes appear
// with the right spec and owner; they follow edits of the path, the TLS
// secret and the termination annotation; user edits are reverted; secret
// rotation propagates; deleting the Ingress garbage-collects its Routes.
func TestIngressLifecycle(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "lifecycle")
	create(t, cp,
		service(ns, "web", corev1.ServicePort{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}),
		service(ns, "api", corev1.ServicePort{Port: 8080}),
		tlsSecret(t, ns, "shop-tls", "shop.example.com"))
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shop", Labels: map[string]string{"app": "shop"}},
		Spec: networkingv1.IngressSpec{
			TLS: []networkingv1.IngressTLS{{Hosts: []string{"shop.example.com"}, SecretName: "shop-tls"}},
			Rules: []networkingv1.IngressRule{
				rule("www.example.com", path("/", "web", networkingv1.ServiceBackendPort{Name: "http"}),
					path("/api", "api", networkingv1.ServiceBackendPort{Number: 8080})),
				rule("shop.example.com", path("", "web", networkingv1.ServiceBackendPort{Number: 80})),
			},
		},
	}
	create(t, cp, ing)
	www, api, shop := ingress.RouteName("shop", "www.example.com", "/"), ingress.RouteName("shop", "www.example.com", "/api"), ingress.RouteName("shop", "shop.example.com", "")
	routes := wantRoutes(t, cp, ns, www, api, shop)

	t.Run("specs and owner", func(t *testing.T) {
		w := routes[www]
		if w.Spec.Host != "www.example.com" || w.Spec.Path != "/" || w.Spec.To.Name != "web" || w.Spec.Port == nil ||
			w.Spec.Port.TargetPort != intstr.FromString("http") || w.Spec.TLS != nil || w.Labels["app"] != "shop" {
			t.Errorf("route %s: %+v labels %v", www, w.Spec, w.Labels)
		}
		if a := routes[api]; a.Spec.Port != nil || a.Spec.To.Name != "api" {
			t.Errorf("route %s should target every port of the unnamed service port: %+v", api, a.Spec)
		}
		s := routes[shop]
		if s.Spec.TLS == nil || s.Spec.TLS.Termination != routecore.TLSTerminationEdge ||
			s.Spec.TLS.InsecureEdgeTerminationPolicy != routecore.InsecureEdgeTerminationPolicyRedirect || s.Spec.TLS.Certificate == "" {
			t.Errorf("route %s TLS: %+v", shop, s.Spec.TLS)
		}
		var stored networkingv1.Ingress
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(ing), &stored); err != nil {
			t.Fatal(err)
		}
		for _, r := range routes {
			ref := metav1.GetControllerOf(&r)
			if ref == nil || ref.UID != stored.UID || ref.Kind != "Ingress" || ref.APIVersion != "networking.k8s.io/v1" {
				t.Errorf("route %s owner: %+v", r.Name, r.OwnerReferences)
			}
		}
	})

	t.Run("path edit", func(t *testing.T) {
		update(t, cp, ing, func(i *networkingv1.Ingress) { i.Spec.Rules[0].HTTP.Paths[1].Path = "/api/v2" })
		api = ingress.RouteName("shop", "www.example.com", "/api/v2")
		if r := wantRoutes(t, cp, ns, www, api, shop)[api]; r.Spec.Path != "/api/v2" {
			t.Errorf("route %s path %q", api, r.Spec.Path)
		}
	})

	t.Run("user edit reverted", func(t *testing.T) {
		r := &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: www}}
		update(t, cp, r, func(r *routecore.Route) {
			r.Spec.To.Weight = ptr(int32(7))
			r.Spec.Path = "/hijacked"
			r.Annotations = map[string]string{"haproxy.router.openshift.io/timeout": "1s"}
		})
		framework.Eventually(t, "the edit is reverted", func() error {
			got := &routecore.Route{}
			if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(r), got); err != nil {
				return err
			}
			if got.Spec.Path != "/" || *got.Spec.To.Weight != 100 || len(got.Annotations) != 0 {
				return fmt.Errorf("route %+v annotations %v", got.Spec, got.Annotations)
			}
			return nil
		})
	})

	t.Run("secret rotation", func(t *testing.T) {
		rotated := tlsSecret(t, ns, "shop-tls", "shop.example.com")
		update(t, cp, &corev1.Secret{ObjectMeta: rotated.ObjectMeta}, func(s *corev1.Secret) { s.Data = rotated.Data })
		framework.Eventually(t, "the route carries the rotated certificate", func() error {
			got := &routecore.Route{}
			if err := cp.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: shop}, got); err != nil {
				return err
			}
			if got.Spec.TLS == nil || got.Spec.TLS.Certificate != string(rotated.Data[corev1.TLSCertKey]) {
				return fmt.Errorf("certificate not rotated")
			}
			return nil
		})
	})

	t.Run("TLS secret changed", func(t *testing.T) {
		create(t, cp, tlsSecret(t, ns, "shop-tls-2", "shop.example.com"))
		update(t, cp, ing, func(i *networkingv1.Ingress) { i.Spec.TLS[0].SecretName = "shop-tls-2" })
		var second corev1.Secret
		if err := cp.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "shop-tls-2"}, &second); err != nil {
			t.Fatal(err)
		}
		framework.Eventually(t, "the route uses the new secret", func() error {
			got := &routecore.Route{}
			if err := cp.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: shop}, got); err != nil {
				return err
			}
			if got.Spec.TLS == nil || got.Spec.TLS.Certificate != string(second.Data[corev1.TLSCertKey]) {
				return fmt.Errorf("certificate is not the new secret's")
			}
			return nil
		})
	})

	t.Run("termination annotation", func(t *testing.T) {
		update(t, cp, ing, func(i *networkingv1.Ingress) {
			i.Annotations = map[string]string{ingress.TerminationAnnotation: "reencrypt"}
		})
		framework.Eventually(t, "routes follow the annotation", func() error {
			got, err := routesOf(ctx, cp.Client, ns)
			if err != nil {
				return err
			}
			for _, n := range []string{www, api, shop} {
				r := got[n]
				if r.Spec.TLS == nil || r.Spec.TLS.Termination != routecore.TLSTerminationReencrypt ||
					r.Annotations[ingress.TerminationAnnotation] != "reencrypt" {
					return fmt.Errorf("route %s: %+v", n, r.Spec.TLS)
				}
			}
			return nil
		})
	})

	t.Run("deletion garbage-collects the routes", func(t *testing.T) {
		if err := cp.Client.Delete(ctx, ing); err != nil {
			t.Fatal(err)
		}
		wantRoutes(t, cp, ns)
	})
}

// TestClasses: Ingresses of another controller's class are left alone; a
// class served by routeshift is managed.
func TestClasses(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "classes")
	ours, theirs := "routeshift-"+ns, "nginx-"+ns
	create(t, cp,
		&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: ours}, Spec: networkingv1.IngressClassSpec{Controller: ingress.DefaultControllerName}},
		&networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: theirs}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}},
		service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	mk := func(name, class string) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: networkingv1.IngressSpec{IngressClassName: &class,
				Rules: []networkingv1.IngressRule{rule(name+".example.com", path("/", "web", networkingv1.ServiceBackendPort{Name: "http"}))}}}
	}
	create(t, cp, mk("mine", ours), mk("other", theirs))
	wantRoutes(t, cp, ns, ingress.RouteName("mine", "mine.example.com", "/"))
	// Long enough for the other Ingress to have been seen and skipped.
	time.Sleep(2 * time.Second)
	wantRoutes(t, cp, ns, ingress.RouteName("mine", "mine.example.com", "/"))
}

// TestProblemsAndStatus: rules that make no Route, and ingress-nginx
// annotations, are reported in events on the Ingress; the routers' canonical hostnames of admitted Routes become
// the Ingress's load-balancer status.
func TestProblemsAndStatus(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "problems")
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "partial",
		Annotations: map[string]string{"nginx.ingress.kubernetes.io/proxy-read-timeout": "60"}},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{
			rule("ok.example.com", path("/", "web", networkingv1.ServiceBackendPort{Name: "http"})),
			rule("", path("/", "web", networkingv1.ServiceBackendPort{Name: "http"})),
			rule("gone.example.com", path("/", "missing", networkingv1.ServiceBackendPort{Number: 80})),
		}}}
	create(t, cp, ing)
	name := ingress.RouteName("partial", "ok.example.com", "/")
	wantRoutes(t, cp, ns, name)

	for _, ev := range []struct{ reason, note string }{
		{ingress.ReasonIncomplete, `Incomplete ingress to route rules detected: Missing host field in rule at index 1; Backend service "missing" not found at index 2, path index 0`},
		{ingress.ReasonIgnoredAnnotations, "annotation nginx.ingress.kubernetes.io/proxy-read-timeout has no effect on Routes: set haproxy.router.openshift.io/timeout with a unit, e.g. 60s"},
	} {
		// client-go's event sink retries a failed write only after about
		// 10 s (up to 12 times): on a loaded machine an event can take
		// more than one retry to arrive.
		framework.EventuallyWithin(t, 2*time.Minute, "the "+ev.reason+" event", func() error {
			var list eventsv1.EventList
			if err := cp.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
				return err
			}
			for _, e := range list.Items {
				if e.Reason == ev.reason && e.Regarding.Name == "partial" && e.Note == ev.note {
					return nil
				}
			}
			return fmt.Errorf("no %s event with note %q among %d events", ev.reason, ev.note, len(list.Items))
		})
	}

	// A router admits the Route and reports its canonical hostname.
	r := &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(r), r); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	r.Status.Ingress = []routecore.RouteIngress{
		{Host: "ok.example.com", RouterName: "public", RouterCanonicalHostname: "router.apps.example.com", WildcardPolicy: routecore.WildcardPolicyNone,
			Conditions: []routecore.RouteIngressCondition{{Type: routecore.RouteAdmitted, Status: corev1.ConditionTrue, LastTransitionTime: &now}}},
		{Host: "ok.example.com", RouterName: "internal", RouterCanonicalHostname: "internal.example.com", WildcardPolicy: routecore.WildcardPolicyNone,
			Conditions: []routecore.RouteIngressCondition{{Type: routecore.RouteAdmitted, Status: corev1.ConditionFalse, Reason: "HostAlreadyClaimed", LastTransitionTime: &now}}},
	}
	if err := cp.Client.Status().Update(ctx, r); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, "the Ingress status", func() error {
		var got networkingv1.Ingress
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(ing), &got); err != nil {
			return err
		}
		if lb := got.Status.LoadBalancer.Ingress; len(lb) != 1 || lb[0].Hostname != "router.apps.example.com" {
			return fmt.Errorf("load balancer status %+v", lb)
		}
		return nil
	})
}

// TestNoWritesWhenSteady: once converged, the controller writes nothing.
func TestNoWritesWhenSteady(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "steady")
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	var ings []client.Object
	for i := range 10 {
		host := fmt.Sprintf("h%d.example.com", i)
		ings = append(ings, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("steady-%d", i)},
			Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{rule(host, path("/", "web", networkingv1.ServiceBackendPort{Name: "http"}))}}})
	}
	create(t, cp, ings...)
	var all []string
	for i := range 10 {
		all = append(all, ingress.RouteName(fmt.Sprintf("steady-%d", i), fmt.Sprintf("h%d.example.com", i), "/"))
	}
	wantRoutes(t, cp, ns, all...)
	// Earlier tests' namespaces are being deleted, which is not a steady
	// cluster: wait until they are gone.
	framework.Eventually(t, "no namespace terminating", func() error {
		var list corev1.NamespaceList
		if err := cp.Client.List(context.Background(), &list); err != nil {
			return err
		}
		for _, n := range list.Items {
			if n.Status.Phase == corev1.NamespaceTerminating {
				return fmt.Errorf("namespace %s is terminating", n.Name)
			}
		}
		return nil
	})
	before := writes(t, cp)
	time.Sleep(5 * time.Second)
	if after := writes(t, cp); after != before {
		t.Errorf("the controller wrote %d times in a steady 5 s:\n%s", after-before, cp.Webhook.Output())
	}
}

// writes reads the controller's write counter from its metrics.
func writes(t *testing.T, cp *framework.ControlPlane) int {
	t.Helper()
	body, err := cp.Webhook.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "routeshift_ingress_route_writes_total{") {
			var n int
			fmt.Sscanf(line[strings.LastIndexByte(line, ' ')+1:], "%d", &n)
			total += n
		}
	}
	return total
}

func ptr[T any](v T) *T { return &v }
