package ingress

import (
	"crypto/sha256"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
)

// The Ingress most cases translate: "web" in namespace "shop".
const (
	namespace   = "shop"
	ingressName = "web"
	ingressUID  = types.UID("0c5d1f0e-web")
)

// ingress returns the Ingress "web" in namespace "shop", changed by opts.
func ingress(opts ...func(*networkingv1.Ingress)) *networkingv1.Ingress {
	ing := &networkingv1.Ingress{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Name: ingressName, Namespace: namespace, UID: ingressUID},
	}
	for _, o := range opts {
		o(ing)
	}
	return ing
}

// named renames the Ingress.
func named(name string) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) { ing.Name = name }
}

// rule adds a rule for host serving paths over HTTP.
func rule(host string, paths ...networkingv1.HTTPIngressPath) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) {
		ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{Host: host,
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}}})
	}
}

// ruleWithoutHTTP adds a rule for host that has no http field.
func ruleWithoutHTTP(host string) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) {
		ing.Spec.Rules = append(ing.Spec.Rules, networkingv1.IngressRule{Host: host})
	}
}

// tls adds a spec.tls entry: the secret for hosts.
func tls(secretName string, hosts ...string) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) {
		ing.Spec.TLS = append(ing.Spec.TLS, networkingv1.IngressTLS{Hosts: hosts, SecretName: secretName})
	}
}

// annotation sets an annotation of the Ingress.
func annotation(key, value string) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) {
		if ing.Annotations == nil {
			ing.Annotations = map[string]string{}
		}
		ing.Annotations[key] = value
	}
}

// label sets a label of the Ingress.
func label(key, value string) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) {
		if ing.Labels == nil {
			ing.Labels = map[string]string{}
		}
		ing.Labels[key] = value
	}
}

// withReconcileLabels sets the reconcile-labels annotation.
func withReconcileLabels(v string) func(*networkingv1.Ingress) {
	return annotation(ReconcileLabelsAnnotation, v)
}

// className sets spec.ingressClassName.
func className(name string) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) { ing.Spec.IngressClassName = &name }
}

// path is an HTTP path without pathType served by service at port.
func path(p, service string, port networkingv1.ServiceBackendPort) networkingv1.HTTPIngressPath {
	return networkingv1.HTTPIngressPath{Path: p, Backend: networkingv1.IngressBackend{
		Service: &networkingv1.IngressServiceBackend{Name: service, Port: port}}}
}

// typed sets the pathType of p.
func typed(pathType networkingv1.PathType, p networkingv1.HTTPIngressPath) networkingv1.HTTPIngressPath {
	p.PathType = &pathType
	return p
}

// resourcePath is an HTTP path with a resource backend instead of a service.
func resourcePath(p string) networkingv1.HTTPIngressPath {
	return networkingv1.HTTPIngressPath{Path: p, Backend: networkingv1.IngressBackend{
		Resource: &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "assets"}}}
}

// portName and portNumber select a service port from an Ingress backend.
func portName(name string) networkingv1.ServiceBackendPort {
	return networkingv1.ServiceBackendPort{Name: name}
}

func portNumber(n int32) networkingv1.ServiceBackendPort {
	return networkingv1.ServiceBackendPort{Number: n}
}

// objects is an ObjectSet holding objs.
func objects(objs ...any) *ObjectSet {
	s := NewObjectSet()
	for _, o := range objs {
		s.Add(o)
	}
	return s
}

// service is a Service in namespace "shop" with ports.
func service(name string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.ServiceSpec{Ports: ports}}
}

// servicePort is a Service port; an empty name makes it unnamed.
func servicePort(name string, port int32) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: port, TargetPort: intstr.FromInt32(port + 8000)}
}

// web, api and cart are Services with one port named "http" (80).
func web() *corev1.Service  { return service("web", servicePort("http", 80)) }
func api() *corev1.Service  { return service("api", servicePort("http", 80)) }
func cart() *corev1.Service { return service("cart", servicePort("http", 80)) }

// tlsSecret is a kubernetes.io/tls Secret in namespace "shop".
func tlsSecret(name, crt, key string) *corev1.Secret {
	return secret(name, corev1.SecretTypeTLS, corev1.TLSCertKey, crt, corev1.TLSPrivateKeyKey, key)
}

// secret is a Secret of type typ with data given as key, value pairs.
func secret(name string, typ corev1.SecretType, kv ...string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Type: typ, Data: map[string][]byte{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.Data[kv[i]] = []byte(kv[i+1])
	}
	return s
}

// ingressClass is an IngressClass for controller.
func ingressClass(name, controller string) *networkingv1.IngressClass {
	return &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.IngressClassSpec{Controller: controller}}
}

// route is the Route Translate emits for host and path of Ingress "web",
// served by service, defaulted as routecore.Default does it, changed by
// mods. Its name is RouteName("web", host, path).
func route(host, p, service string, mods ...func(*routecore.Route)) *routecore.Route {
	controller := true
	weight := int32(100)
	r := &routecore.Route{
		TypeMeta: metav1.TypeMeta{APIVersion: "route.openshift.io/v1", Kind: "Route"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      RouteName(ingressName, host, p),
			Namespace: namespace,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "networking.k8s.io/v1", Kind: "Ingress",
				Name: ingressName, UID: ingressUID, Controller: &controller}},
		},
		Spec: routecore.RouteSpec{
			Host:           host,
			Path:           p,
			To:             routecore.RouteTargetReference{Kind: "Service", Name: service, Weight: &weight},
			WildcardPolicy: routecore.WildcardPolicyNone,
		},
	}
	for _, m := range mods {
		m(r)
	}
	return r
}

// routes is a list of Routes, for reading.
func routes(rs ...*routecore.Route) []*routecore.Route { return rs }

// problems is a list of problems, for reading.
func problems(ps ...string) []string { return ps }

// toPort makes the route target the service port called name.
func toPort(name string) func(*routecore.Route) {
	return func(r *routecore.Route) { r.Spec.Port = &routecore.RoutePort{TargetPort: intstr.FromString(name)} }
}

// withName sets the route's name.
func withName(name string) func(*routecore.Route) {
	return func(r *routecore.Route) { r.Name = name }
}

// ownedBy makes the route belong to the Ingress called name.
func ownedBy(name string) func(*routecore.Route) {
	return func(r *routecore.Route) { r.OwnerReferences[0].Name = name }
}

// subdomain sets wildcardPolicy Subdomain.
func subdomain(r *routecore.Route) { r.Spec.WildcardPolicy = routecore.WildcardPolicySubdomain }

// routeAnnotation sets an annotation of the route.
func routeAnnotation(key, value string) func(*routecore.Route) {
	return func(r *routecore.Route) {
		if r.Annotations == nil {
			r.Annotations = map[string]string{}
		}
		r.Annotations[key] = value
	}
}

// routeLabel sets a label of the route.
func routeLabel(key, value string) func(*routecore.Route) {
	return func(r *routecore.Route) {
		if r.Labels == nil {
			r.Labels = map[string]string{}
		}
		r.Labels[key] = value
	}
}

// exactPath is the annotation of a route made from a pathType Exact path.
var exactPath = routeAnnotation(routecore.AnnPathType, "Exact")

// withTLS sets spec.tls.
func withTLS(t routecore.TLSConfig) func(*routecore.Route) {
	return func(r *routecore.Route) { r.Spec.TLS = &t }
}

// edge is an edge TLS configuration with certificate and key, redirecting
// plain HTTP as every generated TLS configuration does.
func edge(crt, key string) func(*routecore.Route) {
	return withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: crt, Key: key,
		InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyRedirect})
}

// passthrough is the passthrough TLS configuration Translate generates.
var passthrough = withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough,
	InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyRedirect})

// reencrypt is a reencrypt TLS configuration.
func reencrypt(crt, key, destinationCA string) func(*routecore.Route) {
	return withTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationReencrypt, Certificate: crt, Key: key,
		DestinationCACertificate: destinationCA, InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyRedirect})
}

// testPKI is the shared test certificates as PEM strings.
type testPKI struct {
	crt, key           string // www.example.com, signed by the CA
	otherCrt, otherKey string // other.example.com, signed by the CA
	ca                 string
}

// certificates returns the shared test certificates.
func certificates(t testing.TB) testPKI {
	t.Helper()
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	return testPKI{crt: string(p.Leaf.CertPEM), key: string(p.Leaf.KeyPEM),
		otherCrt: string(p.Other.CertPEM), otherKey: string(p.Other.KeyPEM), ca: string(p.CA.CertPEM)}
}

// sameResult fails the test unless got is exactly want (reflect.DeepEqual:
// nil and empty differ), showing the difference as YAML lines.
func sameResult(t *testing.T, got, want Result) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	g, w := render(got), render(want)
	if g == w {
		t.Errorf("results differ only in nil versus empty values:\n got: %#v\nwant: %#v", got, want)
		return
	}
	t.Errorf("result differs (- want, + got):\n%s", lineDiff(w, g))
}

// toYAML prints v as YAML.
func toYAML(v any) string {
	out, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(out)
}

// render prints a Result as YAML with the body of each PEM block replaced
// by a hash of it, so diffs stay short but still tell certificates apart.
func render(r Result) string {
	var out, body []string
	for _, l := range strings.Split(toYAML(r), "\n") {
		switch {
		case strings.Contains(l, "-----BEGIN"):
			out, body = append(out, l), []string{}
		case body != nil && strings.Contains(l, "-----END"):
			sum := sha256.Sum256([]byte(strings.Join(body, "\n")))
			indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
			out = append(out, fmt.Sprintf("%s(%d lines, sha256 %x)", indent, len(body), sum[:6]), l)
			body = nil
		case body != nil:
			body = append(body, l)
		default:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// lineDiff is a minimal line diff of a and b (longest common subsequence),
// with "-" for lines only in a and "+" for lines only in b.
func lineDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var sb strings.Builder
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			sb.WriteString("  " + x[i] + "\n")
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			sb.WriteString("+ " + y[j] + "\n")
			j++
		default:
			sb.WriteString("- " + x[i] + "\n")
			i++
		}
	}
	return sb.String()
}

// checkEmitted fails the test unless every emitted route is already
// defaulted exactly as routecore.Default does it and passes
// routecore.ValidateRoute: the controller must never write a Route the
// webhook would change or refuse.
func checkEmitted(t testing.TB, res Result) {
	t.Helper()
	for _, r := range res.Routes {
		defaulted := r.DeepCopy()
		routecore.Default(defaulted, nil, routecore.DefaultOptions{})
		if !reflect.DeepEqual(defaulted, r) {
			t.Errorf("route %s is not defaulted: routecore.Default changes it to %#v", r.Name, defaulted.Spec)
		}
		if r.Spec.To.Kind != "Service" || r.Spec.To.Weight == nil || *r.Spec.To.Weight != routecore.DefaultWeight ||
			r.Spec.WildcardPolicy == "" {
			t.Errorf("route %s lacks defaults: to=%+v wildcardPolicy=%q", r.Name, r.Spec.To, r.Spec.WildcardPolicy)
		}
		if errs := routecore.ValidateRoute(r, routecore.ValidateOptions{}); len(errs) > 0 {
			t.Errorf("route %s would be rejected: %v", r.Name, errs.ToAggregate())
		}
	}
}
