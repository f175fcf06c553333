// Package ingressbench measures the Ingress-to-Route controller on the real
// API server: convergence of thousands of Ingresses against a plain client
// loop writing the same Routes, and the writes of a steady cluster.
package ingressbench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

func TestMain(m *testing.M) {
	// The benchmark's own clients log nothing worth reading.
	logf.SetLogger(logr.Discard())
	// The controller adopts ingress-nginx's class for the conversion phase;
	// adopting it costs the plain phase nothing it would not cost users.
	os.Exit(framework.MainWith(m, framework.Options{Controller: true, LogLevel: "info", ControllerArgs: []string{"--adopt-class", "nginx"}}))
}

// Scale of the benchmark; BENCH_INGRESSES overrides the number of Ingresses.
const (
	namespaces = 50
	workers    = 4 // the controller's default, and the plain loop's
	steady     = 60 * time.Second
)

// BenchmarkConvergence creates N Ingresses (2 hosts each) while the
// controller is stopped, starts it and times until the 2N Routes exist.
// In the same run, before and after, a plain loop with the same parallelism
// creates the same Routes (through the same webhook) in other namespaces:
// the API server is the floor. Then the same N Ingresses as ingress-nginx's
// (class nginx, a realistic mix of its annotations, one in 20 a canary of
// the one before), adopted and converted, and once more without a class,
// so not converted: nginx/unconverted is the conversion's cost,
// nginx/controller compares with the plain Ingresses. Then it counts the
// controller's writes in a steady minute.
func BenchmarkConvergence(b *testing.B) {
	n := 5000
	if v, err := strconv.Atoi(os.Getenv("BENCH_INGRESSES")); err == nil && v > 0 {
		n = v
	}
	cp := framework.Cluster(b)
	ctx := context.Background()
	run := strconv.FormatInt(time.Now().Unix(), 36)

	// No client-side rate limit: the API server (with the webhook) is the floor.
	cfg := rest.CopyConfig(cp.Config)
	cfg.QPS = -1
	c, err := client.New(cfg, client.Options{Scheme: cp.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	// The plain loop runs before and after the controller, and the floor is
	// their mean: the controller's phase runs on a store grown by the first
	// loop's objects, the second loop's on one grown by the controller's too.
	plainBefore := plainLoop(b, cp, c, n, "plain-"+run)
	// The controller: Ingresses and Services first, with it stopped.
	if err := cp.Webhook.Stop(); err != nil {
		b.Fatal(err)
	}
	ctlNS := createNamespaces(b, cp, "ctl-"+run)
	var objects []client.Object
	for i := range namespaces {
		_, svc := ingressAndService(ctlNS[i], i, run)
		objects = append(objects, svc)
	}
	for i := range n {
		ing, _ := ingressAndService(ctlNS[i%namespaces], i, "ctl-"+run)
		objects = append(objects, ing)
	}
	parallel(b, objects, func(o client.Object) error { return c.Create(ctx, o) })
	converged := watchRoutes(b, cp, "ctl-"+run, 2*n)
	start := time.Now()
	if err := cp.Webhook.Start(); err != nil {
		b.Fatal(err)
	}
	ready := time.Since(start)
	select {
	case <-converged:
	case <-time.After(15 * time.Minute):
		b.Fatal("the controller did not converge within 15 minutes")
	}
	ctlTime := time.Since(start)
	b.ReportMetric(ready.Seconds(), "controller-ready-s")
	nginxTime := nginxPhase(b, cp, c, n, "ngx-"+run, true)
	unconvertedTime := nginxPhase(b, cp, c, n, "unc-"+run, false)
	plainAfter := plainLoop(b, cp, c, n, "after-"+run)
	plainTime := (plainBefore + plainAfter) / 2

	before := writes(b, cp)
	time.Sleep(steady)
	steadyWrites := writes(b, cp) - before

	b.ReportMetric(plainBefore.Seconds(), "plain-before-s")
	b.ReportMetric(plainAfter.Seconds(), "plain-after-s")
	b.ReportMetric(ctlTime.Seconds(), "controller-s")
	b.ReportMetric(ctlTime.Seconds()/plainTime.Seconds(), "controller/plain")
	b.ReportMetric(nginxTime.Seconds(), "nginx-controller-s")
	b.ReportMetric(nginxTime.Seconds()/ctlTime.Seconds(), "nginx/controller")
	b.ReportMetric(unconvertedTime.Seconds(), "unconverted-controller-s")
	b.ReportMetric(nginxTime.Seconds()/unconvertedTime.Seconds(), "nginx/unconverted")
	b.ReportMetric(float64(steadyWrites), "writes-in-steady-60s")
	b.ReportMetric(float64(2*n), "routes")
}

// nginxPhase creates n ingress-nginx Ingresses (and their Services) while
// the controller is stopped, starts it and returns how long it took until
// their Routes exist. Adopted (class nginx), they are converted: 2 Routes
// per Ingress, none for the canaries, which join their primaries' Routes.
// Not adopted (the same Ingresses without a class), they are translated
// without conversion, as routeshift's own: their annotations are copied
// and reported as ignored, and canaries get Routes of their own.
func nginxPhase(b *testing.B, cp *framework.ControlPlane, c client.Client, n int, label string, adopted bool) time.Duration {
	if err := cp.Webhook.Stop(); err != nil {
		b.Fatal(err)
	}
	nss := createNamespaces(b, cp, label)
	var objects []client.Object
	for i := range namespaces {
		_, svc := ingressAndService(nss[i], i, label)
		objects = append(objects, svc)
	}
	want := 0
	for i := range n {
		ing := nginxIngress(nss, i, label)
		if !adopted {
			delete(ing.Annotations, ingress.ClassAnnotation)
		}
		if !adopted || !ingress.IsCanary(ing) {
			want += 2
		}
		objects = append(objects, ing)
	}
	parallel(b, objects, func(o client.Object) error { return c.Create(context.Background(), o) })
	converged := watchRoutes(b, cp, label, want)
	start := time.Now()
	if err := cp.Webhook.Start(); err != nil {
		b.Fatal(err)
	}
	select {
	case <-converged:
	case <-time.After(15 * time.Minute):
		b.Fatal("the controller did not converge on ingress-nginx Ingresses within 15 minutes")
	}
	return time.Since(start)
}

// nginxIngress is Ingress i of ingressAndService as ingress-nginx's: the
// legacy class annotation and a mix of its annotations; one in 20 is a
// canary of Ingress i-1 (same namespace, hosts and path).
func nginxIngress(nss []string, i int, label string) *networkingv1.Ingress {
	if i%20 == 19 {
		ing, _ := ingressAndService(nss[(i-1)%namespaces], i-1, label)
		ing.Name = fmt.Sprintf("app-%d-canary", i-1)
		ing.Annotations = map[string]string{ingress.ClassAnnotation: "nginx",
			"nginx.ingress.kubernetes.io/canary": "true", "nginx.ingress.kubernetes.io/canary-weight": "10"}
		return ing
	}
	ing, _ := ingressAndService(nss[i%namespaces], i, label)
	a := map[string]string{ingress.ClassAnnotation: "nginx"}
	if i%3 == 0 {
		a["nginx.ingress.kubernetes.io/proxy-body-size"] = "8m"
	}
	if i%4 == 0 {
		a["nginx.ingress.kubernetes.io/proxy-read-timeout"] = "120"
	}
	if i%7 == 0 {
		a["nginx.ingress.kubernetes.io/whitelist-source-range"] = "10.0.0.0/8,192.168.0.0/16"
	}
	if i%10 == 0 {
		a["nginx.ingress.kubernetes.io/enable-cors"] = "true"
	}
	if i%10 == 1 {
		a["nginx.ingress.kubernetes.io/affinity"] = "cookie"
	}
	ing.Annotations = a
	return ing
}

// plainLoop creates, in new namespaces, the 2n Routes the controller would
// make for n Ingresses (without owner), with the controller's parallelism,
// and returns how long that took.
func plainLoop(b *testing.B, cp *framework.ControlPlane, c client.Client, n int, prefix string) time.Duration {
	nss := createNamespaces(b, cp, prefix)
	objs := ingress.NewObjectSet()
	var routes []*routecore.Route
	for i := range n {
		ing, svc := ingressAndService(nss[i%namespaces], i, prefix)
		ing.UID = ""
		objs.Add(svc)
		routes = append(routes, ingress.Translate(ing, objs, ingress.DefaultControllerName).Routes...)
	}
	if len(routes) != 2*n {
		b.Fatalf("translate made %d routes, want %d", len(routes), 2*n)
	}
	start := time.Now()
	parallel(b, routes, func(r *routecore.Route) error { return c.Create(context.Background(), r) })
	return time.Since(start)
}

func createNamespaces(b *testing.B, cp *framework.ControlPlane, prefix string) []string {
	var out []string
	for i := range namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", prefix, i)}}
		if err := cp.Client.Create(context.Background(), ns); err != nil {
			b.Fatal(err)
		}
		out = append(out, ns.Name)
	}
	return out
}

// ingressAndService are Ingress i (two hosts, one path each) and the
// Service of its namespace.
func ingressAndService(ns string, i int, run string) (*networkingv1.Ingress, *corev1.Service) {
	prefix := networkingv1.PathTypePrefix
	backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Name: "http"}}}
	rule := func(host string) networkingv1.IngressRule {
		return networkingv1.IngressRule{Host: host, IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
			Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix, Backend: backend}}}}}
	}
	ing := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("app-%d", i), Labels: map[string]string{"bench": run}, UID: "x"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{
			rule(fmt.Sprintf("app-%d.%s.example.com", i, run)), rule(fmt.Sprintf("www.app-%d.%s.example.com", i, run))}},
	}
	// Headless: the translation reads only the ports, and thousands of
	// Services per run, over several runs against one API server, would
	// fill its Service IP range ("range is full").
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	return ing, svc
}

// parallel applies write to every item from `workers` goroutines.
func parallel[T any](b *testing.B, items []T, write func(T) error) {
	work := make(chan T)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for it := range work {
				if err := write(it); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
}

// watchRoutes watches Routes labelled bench=label (Routes copy their
// Ingress's labels) and returns a channel closed once want of them exist.
// A watch, unlike polling lists, costs the API server nothing while it waits.
func watchRoutes(b *testing.B, cp *framework.ControlPlane, label string, want int) <-chan struct{} {
	w, err := metadata.NewForConfigOrDie(cp.Config).Resource(routecore.GroupVersion.WithResource("routes")).
		Watch(context.Background(), metav1.ListOptions{LabelSelector: "bench=" + label})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer w.Stop()
		seen := map[string]bool{}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Added {
				if m, ok := ev.Object.(*metav1.PartialObjectMetadata); ok {
					seen[m.Namespace+"/"+m.Name] = true
				}
			}
			if len(seen) >= want {
				close(done)
				return
			}
		}
	}()
	return done
}

// writes reads the controller's Route write counter.
func writes(b *testing.B, cp *framework.ControlPlane) int {
	body, err := cp.Webhook.Metrics()
	if err != nil {
		b.Fatal(err)
	}
	total := 0
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "routeshift_ingress_route_writes_total{") {
			n, _ := strconv.Atoi(line[strings.LastIndexByte(line, ' ')+1:])
			total += n
		}
	}
	return total
}
