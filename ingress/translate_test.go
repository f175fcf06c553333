package ingress

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/routeshift/routeshift/routecore"
)

// translateCase is an Ingress, the objects it can refer to, and the whole
// Result Translate must return for it.
type translateCase struct {
	name    string
	ingress *networkingv1.Ingress
	objects []any
	// controller is the controller name passed to Translate; empty means
	// DefaultControllerName.
	controller string
	want       Result
}

// runTranslate runs the cases: the Result must equal want exactly, every
// emitted Route must be defaulted and valid, and the Ingress must be left
// as it was.
func runTranslate(t *testing.T, cases []translateCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			controller := tc.controller
			if controller == "" {
				controller = DefaultControllerName
			}
			before := tc.ingress.DeepCopy()
			got := Translate(tc.ingress, objects(tc.objects...), controller)
			sameResult(t, got, tc.want)
			checkEmitted(t, got)
			if !reflect.DeepEqual(tc.ingress, before) {
				t.Errorf("Translate changed the Ingress (- before, + after):\n%s", lineDiff(toYAML(before), toYAML(tc.ingress)))
			}
		})
	}
}

func TestTranslateRules(t *testing.T) {
	runTranslate(t, []translateCase{{
		name: "one route per rule host and path, in rule then path order",
		ingress: ingress(
			rule("www.example.com", path("/", "web", portName("http")), path("/api", "api", portName("http"))),
			rule("shop.example.com", path("/cart", "cart", portName("http")))),
		objects: []any{web(), api(), cart()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http")),
			route("www.example.com", "/api", "api", toPort("http")),
			route("shop.example.com", "/cart", "cart", toPort("http")))},
	}, {
		name:    "route name is the ingress name, a dash and 5 characters of a hash of host and path",
		ingress: ingress(rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http"), withName("web-fii3t")))},
	}, {
		name:    "the same host in two rules: a route per rule",
		ingress: ingress(rule("www.example.com", path("/", "web", portName("http"))), rule("www.example.com", path("/api", "api", portName("http")))),
		objects: []any{web(), api()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http")),
			route("www.example.com", "/api", "api", toPort("http")))},
	}, {
		name:    "empty path: no spec.path",
		ingress: ingress(rule("www.example.com", path("", "web", portName("http")))),
		objects: []any{web()},
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "", "web", toPort("http")))},
	}, {
		name: "Prefix, ImplementationSpecific and unset pathType: prefix routes with the path verbatim",
		ingress: ingress(rule("www.example.com",
			typed(networkingv1.PathTypePrefix, path("/prefix", "web", portName("http"))),
			typed(networkingv1.PathTypeImplementationSpecific, path("/specific/", "web", portName("http"))),
			path("/unset", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/prefix", "web", toPort("http")),
			route("www.example.com", "/specific/", "web", toPort("http")),
			route("www.example.com", "/unset", "web", toPort("http")))},
	}, {
		name: "Exact pathType: the path-type annotation, on that path's route only",
		ingress: ingress(rule("www.example.com",
			typed(networkingv1.PathTypeExact, path("/healthz", "web", portName("http"))),
			typed(networkingv1.PathTypePrefix, path("/", "web", portName("http"))))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/healthz", "web", toPort("http"), exactPath),
			route("www.example.com", "/", "web", toPort("http")))},
	}, {
		name:    "Exact pathType with an empty path: no path-type annotation",
		ingress: ingress(rule("www.example.com", typed(networkingv1.PathTypeExact, path("", "web", portName("http"))))),
		objects: []any{web()},
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "", "web", toPort("http")))},
	}, {
		name:    "wildcard host: wildcard.<domain> with wildcardPolicy Subdomain",
		ingress: ingress(rule("*.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(
			route("wildcard.example.com", "/", "web", toPort("http"), subdomain))},
	}, {
		name:    "rule without http: skipped with a problem, later rules still served",
		ingress: ingress(ruleWithoutHTTP("static.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true,
			Routes:   routes(route("www.example.com", "/", "web", toPort("http"))),
			Problems: problems("Missing http field in rule at index 0")},
	}, {
		name:    "rule without host: skipped with a problem",
		ingress: ingress(rule("www.example.com", path("/", "web", portName("http"))), rule("", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true,
			Routes:   routes(route("www.example.com", "/", "web", toPort("http"))),
			Problems: problems("Missing host field in rule at index 1")},
	}, {
		name:    "rule without http or host: the missing http field is reported",
		ingress: ingress(ruleWithoutHTTP("")),
		want:    Result{Managed: true, Problems: problems("Missing http field in rule at index 0")},
	}, {
		name:    "rule with an empty paths list: skipped with a problem",
		ingress: ingress(rule("www.example.com"), rule("shop.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true,
			Routes:   routes(route("shop.example.com", "/", "web", toPort("http"))),
			Problems: problems("Missing paths in rule at index 0")},
	}, {
		name:    "rule without host and paths: the missing host is reported",
		ingress: ingress(rule("")),
		want:    Result{Managed: true, Problems: problems("Missing host field in rule at index 0")},
	}, {
		name: "spec.defaultBackend is ignored",
		ingress: ingress(func(ing *networkingv1.Ingress) {
			ing.Spec.DefaultBackend = &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: portName("http")}}
		}),
		objects: []any{web()},
		want:    Result{Managed: true},
	}})
}

func TestTranslateBackends(t *testing.T) {
	twoPorts := service("web", servicePort("http", 80), servicePort("https", 443), servicePort("metrics", 9090))
	elsewhere := web()
	elsewhere.Namespace = "other"
	runTranslate(t, []translateCase{{
		name:    "port by name: targetPort is that name",
		ingress: ingress(rule("www.example.com", path("/metrics", "web", portName("metrics")))),
		objects: []any{twoPorts},
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "/metrics", "web", toPort("metrics")))},
	}, {
		name: "port name the service lacks: problem, other paths still served",
		ingress: ingress(rule("www.example.com",
			path("/", "web", portName("http")),
			path("/admin", "web", portName("admin")))),
		objects: []any{twoPorts},
		want: Result{Managed: true,
			Routes:   routes(route("www.example.com", "/", "web", toPort("http"))),
			Problems: problems(`No valid target port for backend service "web" at index 0, path index 1`)},
	}, {
		name:    "port number of a named service port: targetPort is that port's name",
		ingress: ingress(rule("www.example.com", path("/", "web", portNumber(443)))),
		objects: []any{twoPorts},
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("https")))},
	}, {
		name:    "port number of an unnamed service port: no spec.port",
		ingress: ingress(rule("www.example.com", path("/", "web", portNumber(8080)))),
		objects: []any{service("web", servicePort("", 8080))},
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "/", "web"))},
	}, {
		name: "port number the service lacks: problem",
		ingress: ingress(
			rule("shop.example.com", path("/", "web", portNumber(80))),
			rule("www.example.com", path("/", "web", portNumber(80)), path("/alt", "web", portNumber(8443)))),
		objects: []any{twoPorts},
		want: Result{Managed: true,
			Routes: routes(
				route("shop.example.com", "/", "web", toPort("http")),
				route("www.example.com", "/", "web", toPort("http"))),
			Problems: problems(`No valid target port for backend service "web" at index 1, path index 1`)},
	}, {
		name: "missing backend service: problem",
		ingress: ingress(
			rule("www.example.com", path("/", "web", portName("http"))),
			rule("shop.example.com", path("/", "web", portName("http")), path("/cart", "cart", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true,
			Routes: routes(
				route("www.example.com", "/", "web", toPort("http")),
				route("shop.example.com", "/", "web", toPort("http"))),
			Problems: problems(`Backend service "cart" not found at index 1, path index 1`)},
	}, {
		name:    "backend service in another namespace: not found",
		ingress: ingress(rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{elsewhere},
		want:    Result{Managed: true, Problems: problems(`Backend service "web" not found at index 0, path index 0`)},
	}, {
		name:    "port name and number both set: the name decides",
		ingress: ingress(rule("www.example.com", path("/", "web", networkingv1.ServiceBackendPort{Name: "admin", Number: 443}))),
		objects: []any{twoPorts},
		want:    Result{Managed: true, Problems: problems(`No valid target port for backend service "web" at index 0, path index 0`)},
	}, {
		name:    "resource backend: problem",
		ingress: ingress(rule("www.example.com", path("/", "web", portName("http")), resourcePath("/assets"))),
		objects: []any{web()},
		want: Result{Managed: true,
			Routes:   routes(route("www.example.com", "/", "web", toPort("http"))),
			Problems: problems("Missing backend service field in rule at index 0, path index 1")},
	}, {
		name:    "empty backend service name: problem",
		ingress: ingress(rule("www.example.com", path("/", "", portName("http")))),
		objects: []any{web()},
		want:    Result{Managed: true, Problems: problems("Missing backend service name in rule at index 0, path index 0")},
	}, {
		name: "every problem of an Ingress, in rule and path order",
		ingress: ingress(
			rule("www.example.com", resourcePath("/a"), path("/b", "", portName("http")), path("/c", "cart", portName("http"))),
			ruleWithoutHTTP("static.example.com"),
			rule("", path("/", "web", portName("http"))),
			rule("shop.example.com", path("/d", "web", portName("grpc")), path("/e", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true,
			Routes: routes(route("shop.example.com", "/e", "web", toPort("http"))),
			Problems: problems(
				"Missing backend service field in rule at index 0, path index 0",
				"Missing backend service name in rule at index 0, path index 1",
				`Backend service "cart" not found at index 0, path index 2`,
				"Missing http field in rule at index 1",
				"Missing host field in rule at index 2",
				`No valid target port for backend service "web" at index 3, path index 0`)},
	}})
}

func TestTranslateTLS(t *testing.T) {
	c := certificates(t)
	webTLS := tlsSecret("web-tls", c.crt, c.key)
	invalidSecret := func(host string) string { return `Invalid or missing TLS secret for rule host "` + host + `"` }
	elsewhere := tlsSecret("web-tls", c.crt, c.key)
	elsewhere.Namespace = "other"
	runTranslate(t, []translateCase{{
		name:    "secret referenced by the rule host: edge with its certificate and key, redirecting HTTP",
		ingress: ingress(tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")), path("/api", "api", portName("http")))),
		objects: []any{web(), api(), webTLS},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http"), edge(c.crt, c.key)),
			route("www.example.com", "/api", "api", toPort("http"), edge(c.crt, c.key)))},
	}, {
		name: "only the hosts a TLS entry lists get TLS",
		ingress: ingress(tls("web-tls", "www.example.com"),
			rule("www.example.com", path("/", "web", portName("http"))),
			rule("shop.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http"), edge(c.crt, c.key)),
			route("shop.example.com", "/", "web", toPort("http")))},
	}, {
		name:    "host match is exact: no case folding, no wildcard matching, no parent domain",
		ingress: ingress(tls("web-tls", "WWW.example.com", "*.example.com", "example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS},
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http")))},
	}, {
		name:    "wildcard host referenced by the same wildcard: edge",
		ingress: ingress(tls("web-tls", "*.example.com"), rule("*.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS},
		want: Result{Managed: true, Routes: routes(
			route("wildcard.example.com", "/", "web", toPort("http"), subdomain, edge(c.crt, c.key)))},
	}, {
		name: "first TLS entry listing the host wins over a later one",
		ingress: ingress(tls("web-tls", "shop.example.com", "www.example.com"), tls("other-tls", "www.example.com"),
			rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS, tlsSecret("other-tls", c.otherCrt, c.otherKey)},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http"), edge(c.crt, c.key)))},
	}, {
		name: "first TLS entry listing the host wins even when its secret is missing",
		ingress: ingress(tls("missing-tls", "www.example.com"), tls("web-tls", "www.example.com"),
			rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS},
		want:    Result{Managed: true, Problems: problems(invalidSecret("www.example.com"))},
	}, {
		name: "missing secret: problem, and no route for any path of the host",
		ingress: ingress(tls("web-tls", "www.example.com"),
			rule("www.example.com", path("/", "web", portName("http")), path("/api", "api", portName("http"))),
			rule("shop.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), api()},
		want: Result{Managed: true,
			Routes:   routes(route("shop.example.com", "/", "web", toPort("http"))),
			Problems: problems(invalidSecret("www.example.com"))},
	}, {
		name:    "secret in another namespace: missing",
		ingress: ingress(tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), elsewhere},
		want:    Result{Managed: true, Problems: problems(invalidSecret("www.example.com"))},
	}, {
		name:    "Opaque secret: problem",
		ingress: ingress(tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), secret("web-tls", corev1.SecretTypeOpaque, "tls.crt", c.crt, "tls.key", c.key)},
		want:    Result{Managed: true, Problems: problems(invalidSecret("www.example.com"))},
	}, {
		name:    "secret lacking tls.key: problem",
		ingress: ingress(tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), secret("web-tls", corev1.SecretTypeTLS, "tls.crt", c.crt)},
		want:    Result{Managed: true, Problems: problems(invalidSecret("www.example.com"))},
	}, {
		name:    "secret lacking tls.crt: problem",
		ingress: ingress(tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), secret("web-tls", corev1.SecretTypeTLS, "tls.key", c.key)},
		want:    Result{Managed: true, Problems: problems(invalidSecret("www.example.com"))},
	}, {
		name:    "TLS entry listing the host without a secretName: problem",
		ingress: ingress(tls("", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want:    Result{Managed: true, Problems: problems(invalidSecret("www.example.com"))},
	}, {
		name:    "invalid secret of a wildcard host: the problem names the Ingress host",
		ingress: ingress(tls("web-tls", "*.example.com"), rule("*.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want:    Result{Managed: true, Problems: problems(invalidSecret("*.example.com"))},
	}, {
		name:    "empty tls.crt and tls.key values: edge without certificate",
		ingress: ingress(tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), tlsSecret("web-tls", "", "")},
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"), edge("", "")))},
	}, {
		name: "completely empty TLS entry: edge without certificate for every host",
		ingress: ingress(tls(""),
			rule("www.example.com", path("/", "web", portName("http"))),
			rule("shop.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http"), edge("", "")),
			route("shop.example.com", "/", "web", toPort("http"), edge("", "")))},
	}, {
		name:    "completely empty TLS entry and a referenced secret: the secret's certificate",
		ingress: ingress(tls(""), tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS},
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"), edge(c.crt, c.key)))},
	}, {
		name:    "TLS entry with a secret but no hosts is not empty: plain HTTP",
		ingress: ingress(tls("web-tls"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS},
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http")))},
	}})
}

func TestTranslateTermination(t *testing.T) {
	c := certificates(t)
	webTLS := tlsSecret("web-tls", c.crt, c.key)
	termination := func(v string) func(*networkingv1.Ingress) { return annotation(TerminationAnnotation, v) }
	terminated := func(v string) func(*routecore.Route) { return routeAnnotation(TerminationAnnotation, v) }
	destinationCA := annotation(DestinationCAAnnotation, "backend-ca")
	withDestinationCA := routeAnnotation(DestinationCAAnnotation, "backend-ca")
	runTranslate(t, []translateCase{{
		name:    "edge without a secret: edge without certificate",
		ingress: ingress(termination("edge"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http"), terminated("edge"), edge("", "")))},
	}, {
		name:    "edge with a referenced secret: its certificate and key",
		ingress: ingress(termination("edge"), tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http"), terminated("edge"), edge(c.crt, c.key)))},
	}, {
		name: "passthrough with a referenced secret: no certificate copied; an empty path is served, a path is a problem",
		ingress: ingress(termination("passthrough"), tls("web-tls", "www.example.com"),
			rule("www.example.com", path("", "web", portName("http")), path("/", "web", portName("http")))),
		objects: []any{web(), webTLS},
		want: Result{Managed: true,
			Routes: routes(route("www.example.com", "", "web", toPort("http"), terminated("passthrough"), passthrough)),
			Problems: problems(`Path "/" cannot be served with passthrough termination (the router cannot see paths in encrypted traffic): ` +
				`remove the path or the route.openshift.io/termination annotation at index 0, path index 1`)},
	}, {
		name:    "passthrough alone enables TLS",
		ingress: ingress(termination("passthrough"), rule("www.example.com", path("", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "", "web", toPort("http"), terminated("passthrough"), passthrough))},
	}, {
		name:    "passthrough with an invalid secret: the secret problem",
		ingress: ingress(termination("passthrough"), tls("web-tls", "www.example.com"), rule("www.example.com", path("", "web", portName("http")))),
		objects: []any{web()},
		want:    Result{Managed: true, Problems: problems(`Invalid or missing TLS secret for rule host "www.example.com"`)},
	}, {
		name: "reencrypt: certificate and key, destination CA from a TLS secret",
		ingress: ingress(termination("reencrypt"), destinationCA, tls("web-tls", "www.example.com"),
			rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS, tlsSecret("backend-ca", c.ca, "")},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			terminated("reencrypt"), withDestinationCA, reencrypt(c.crt, c.key, c.ca)))},
	}, {
		name:    "reencrypt: destination CA from an Opaque secret",
		ingress: ingress(termination("reencrypt"), destinationCA, rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), secret("backend-ca", corev1.SecretTypeOpaque, "tls.crt", c.ca)},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			terminated("reencrypt"), withDestinationCA, reencrypt("", "", c.ca)))},
	}, {
		name:    "reencrypt: a missing destination CA secret is ignored",
		ingress: ingress(termination("reencrypt"), destinationCA, tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			terminated("reencrypt"), withDestinationCA, reencrypt(c.crt, c.key, "")))},
	}, {
		name:    "reencrypt: a destination CA secret of another type is ignored",
		ingress: ingress(termination("reencrypt"), destinationCA, rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), secret("backend-ca", corev1.SecretTypeBasicAuth, "tls.crt", c.ca)},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			terminated("reencrypt"), withDestinationCA, reencrypt("", "", "")))},
	}, {
		name:    "reencrypt: a destination CA secret without tls.crt gives none",
		ingress: ingress(termination("reencrypt"), destinationCA, rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), secret("backend-ca", corev1.SecretTypeOpaque, "ca.crt", c.ca)},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			terminated("reencrypt"), withDestinationCA, reencrypt("", "", "")))},
	}, {
		name:    "reencrypt alone enables TLS",
		ingress: ingress(termination("reencrypt"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			terminated("reencrypt"), reencrypt("", "", "")))},
	}, {
		name:    "the destination CA annotation is ignored for edge",
		ingress: ingress(termination("edge"), destinationCA, rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), tlsSecret("backend-ca", c.ca, "")},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			terminated("edge"), withDestinationCA, edge("", "")))},
	}, {
		name:    "junk termination with a referenced secret: edge, paths allowed",
		ingress: ingress(termination("Passthrough"), tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), webTLS},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			terminated("Passthrough"), edge(c.crt, c.key)))},
	}, {
		name:    "junk termination with an empty TLS entry: edge",
		ingress: ingress(termination("Reencrypt"), tls(""), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			terminated("Reencrypt"), edge("", "")))},
	}, {
		name:    "junk termination alone does not enable TLS",
		ingress: ingress(termination("Passthrough"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			terminated("Passthrough")))},
	}})
}

// TestTranslateNamespace checks that Services and Secrets are looked up in
// the Ingress's namespace, never another, and that its Routes are put there.
func TestTranslateNamespace(t *testing.T) {
	c := certificates(t)
	inStaging := func(o interface{ SetNamespace(string) }) any { o.SetNamespace("staging"); return o }
	got := Translate(
		ingress(func(ing *networkingv1.Ingress) { ing.Namespace = "staging" }, tls("web-tls", "www.example.com"),
			rule("www.example.com", path("/", "web", portName("http"))),
			rule("shop.example.com", path("/", "cart", portName("http")))),
		objects(inStaging(web()), inStaging(tlsSecret("web-tls", c.crt, c.key)), cart(), tlsSecret("web-tls", c.otherCrt, c.otherKey)),
		DefaultControllerName)
	inStagingRoute := func(r *routecore.Route) { r.Namespace = "staging" }
	sameResult(t, got, Result{Managed: true,
		Routes:   routes(route("www.example.com", "/", "web", toPort("http"), edge(c.crt, c.key), inStagingRoute)),
		Problems: problems(`Backend service "cart" not found at index 1, path index 0`)})
	checkEmitted(t, got)
}

func TestTranslateMetadata(t *testing.T) {
	reconciled := func(v string) func(*routecore.Route) { return routeAnnotation(ReconcileLabelsAnnotation, v) }
	runTranslate(t, []translateCase{{
		name: "labels and annotations copied but kubectl's last-applied configuration; the Ingress is the controller owner",
		ingress: ingress(label("app", "shop"), label("tier", "front"),
			annotation(corev1.LastAppliedConfigAnnotation, `{"kind":"Ingress"}`+"\n"),
			annotation("haproxy.router.openshift.io/timeout", "30s"), annotation("example.com/team", "payments"),
			rule("www.example.com", path("/", "web", portName("http")), typed(networkingv1.PathTypeExact, path("/ping", "web", portName("http"))))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http"),
				routeLabel("app", "shop"), routeLabel("tier", "front"),
				routeAnnotation("haproxy.router.openshift.io/timeout", "30s"), routeAnnotation("example.com/team", "payments")),
			route("www.example.com", "/ping", "web", toPort("http"),
				routeLabel("app", "shop"), routeLabel("tier", "front"),
				routeAnnotation("haproxy.router.openshift.io/timeout", "30s"), routeAnnotation("example.com/team", "payments"), exactPath))},
	}, {
		name:    "only the last-applied annotation: no annotations",
		ingress: ingress(annotation(corev1.LastAppliedConfigAnnotation, "{}"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http")))},
	}, {
		name: "an Ingress-level path-type annotation is not copied: the path type is each path's",
		ingress: ingress(annotation(routecore.AnnPathType, "Exact"),
			rule("www.example.com", path("/", "web", portName("http")), typed(networkingv1.PathTypeExact, path("/ping", "web", portName("http"))))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http")),
			route("www.example.com", "/ping", "web", toPort("http"), exactPath))},
	}, {
		name: "cert-manager's annotations are not copied: ingress-shim fills the Ingress's Secret, which the Routes serve",
		ingress: ingress(annotation(routecore.AnnCertClusterIssuer, "letsencrypt"), annotation(routecore.AnnCertDuration, "2160h"),
			annotation("example.com/team", "payments"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			routeAnnotation("example.com/team", "payments")))},
	}, {
		name:    "Ingress without a UID (read from a file): no ownerReferences",
		ingress: ingress(func(ing *networkingv1.Ingress) { ing.UID = "" }, rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			func(r *routecore.Route) { r.OwnerReferences = nil }))},
	}, {
		name:    "reconcile-labels true",
		ingress: ingress(withReconcileLabels("true"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, ReconcileLabels: true,
			Routes: routes(route("www.example.com", "/", "web", toPort("http"), reconciled("true")))},
	}, {
		name:    "reconcile-labels is trimmed and parsed like strconv.ParseBool",
		ingress: ingress(withReconcileLabels(" TRUE "), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, ReconcileLabels: true,
			Routes: routes(route("www.example.com", "/", "web", toPort("http"), reconciled(" TRUE ")))},
	}, {
		name:    "reconcile-labels false",
		ingress: ingress(withReconcileLabels("0")),
		want:    Result{Managed: true},
	}, {
		name:    "reconcile-labels invalid: false, described",
		ingress: ingress(withReconcileLabels("NotTrue"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true,
			InvalidReconcileLabels: `Invalid value on annotation "route.openshift.io/reconcile-labels" due to: "strconv.ParseBool: parsing \"NotTrue\": invalid syntax"`,
			Routes:                 routes(route("www.example.com", "/", "web", toPort("http"), reconciled("NotTrue")))},
	}})
}

func TestTranslateClass(t *testing.T) {
	ours := ingressClass("openshift-default", DefaultControllerName)
	theirs := ingressClass("nginx", "k8s.io/ingress-nginx")
	custom := ingressClass("custom", "example.com/router")
	legacy := func(v string) func(*networkingv1.Ingress) { return annotation(ClassAnnotation, v) }
	served := rule("www.example.com", path("/", "web", portName("http")))
	objs := []any{web(), ours, theirs, custom}
	runTranslate(t, []translateCase{{
		name:    "no class: managed",
		ingress: ingress(served),
		objects: objs,
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http")))},
	}, {
		name:    "ingressClassName of an IngressClass for openshift.io/ingress-to-route: managed",
		ingress: ingress(className("openshift-default"), served),
		objects: objs,
		want:    Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http")))},
	}, {
		name:    "ingressClassName of another controller's IngressClass: not managed",
		ingress: ingress(className("nginx"), served, withReconcileLabels("NotTrue"), ruleWithoutHTTP("")),
		objects: objs,
		want:    Result{},
	}, {
		name:    "ingressClassName of a missing IngressClass: not managed, the class named",
		ingress: ingress(className("missing"), served),
		objects: objs,
		want:    Result{MissingClass: "missing"},
	}, {
		name:    "legacy class annotation wins over ingressClassName: not managed",
		ingress: ingress(legacy("nginx"), className("openshift-default"), served),
		objects: objs,
		want:    Result{},
	}, {
		name:    "legacy class annotation wins over ingressClassName: managed",
		ingress: ingress(legacy("openshift-default"), className("nginx"), served),
		objects: objs,
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"),
			routeAnnotation(ClassAnnotation, "openshift-default")))},
	}, {
		name:    "empty legacy class annotation wins over ingressClassName",
		ingress: ingress(legacy(""), className("openshift-default"), served),
		objects: objs,
		want:    Result{},
	}, {
		name:    "empty legacy class annotation names a class, and none is called that",
		ingress: ingress(legacy(""), served),
		objects: objs,
		want:    Result{},
	}, {
		name:       "custom controller name: its IngressClasses are managed",
		ingress:    ingress(className("custom"), served),
		objects:    objs,
		controller: "example.com/router",
		want:       Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http")))},
	}, {
		name:       "custom controller name: OpenShift's IngressClasses are not",
		ingress:    ingress(className("openshift-default"), served),
		objects:    objs,
		controller: "example.com/router",
		want:       Result{},
	}, {
		name:       "custom controller name: Ingresses without a class are managed",
		ingress:    ingress(served),
		objects:    objs,
		controller: "example.com/router",
		want:       Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http")))},
	}})
}

func TestTranslateRejected(t *testing.T) {
	c := certificates(t)
	label64 := strings.Repeat("x", 64)
	runTranslate(t, []translateCase{{
		name:    "upper-case host: skipped with routecore's errors",
		ingress: ingress(rule("WWW.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Problems: problems(`Route for host "WWW.example.com" and path "/" would be rejected: ` +
			`[spec.host: Invalid value: "WWW.example.com": host must conform to DNS 952 subdomain conventions, ` +
			`spec.host: Invalid value: "WWW.example.com": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', ` +
			`and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')] ` +
			`at index 0, path index 0`)},
	}, {
		name: "host label of 64 characters: skipped, other rules served",
		ingress: ingress(rule(label64+".example.com", path("", "web", portName("http"))),
			rule("www.example.com", path("", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true,
			Routes: routes(route("www.example.com", "", "web", toPort("http"))),
			Problems: problems(`Route for host "` + label64 + `.example.com" and path "" would be rejected: ` +
				`spec.host: Invalid value: "` + label64 + `.example.com": must be no more than 63 characters at index 0, path index 0`)},
	}, {
		name:    "wildcard host routecore refuses: the problem names the Ingress host",
		ingress: ingress(rule("*.Example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Problems: problems(`Route for host "*.Example.com" and path "/" would be rejected: ` +
			`[spec.host: Invalid value: "wildcard.Example.com": host must conform to DNS 952 subdomain conventions, ` +
			`spec.host: Invalid value: "wildcard.Example.com": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', ` +
			`and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')] ` +
			`at index 0, path index 0`)},
	}, {
		name:    "path with a space: only that path skipped",
		ingress: ingress(rule("www.example.com", path("/a b", "web", portName("http")), path("/ab", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true,
			Routes: routes(route("www.example.com", "/ab", "web", toPort("http"))),
			Problems: problems(`Route for host "www.example.com" and path "/a b" would be rejected: ` +
				`spec.path: Invalid value: "/a b": cannot contain # or spaces at index 0, path index 0`)},
	}, {
		name:    "path without a leading slash: skipped",
		ingress: ingress(rule("www.example.com", typed(networkingv1.PathTypeImplementationSpecific, path("api", "web", portName("http"))))),
		objects: []any{web()},
		want: Result{Managed: true, Problems: problems(`Route for host "www.example.com" and path "api" would be rejected: ` +
			`spec.path: Invalid value: "api": path must begin with / at index 0, path index 0`)},
	}, {
		name:    "router annotation value routecore refuses: every route skipped",
		ingress: ingress(annotation("haproxy.router.openshift.io/timeout", "5x"), rule("www.example.com", path("/", "web", portName("http")), path("/api", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Problems: problems(
			`Route for host "www.example.com" and path "/" would be rejected: metadata.annotations[haproxy.router.openshift.io/timeout]: `+
				`Invalid value: "5x": must be a TimeUnit: a whole number from 1 up, optionally followed by us, ms, s, m, h or d (no unit means ms), `+
				`for example 5500ms or 30s at index 0, path index 0`,
			`Route for host "www.example.com" and path "/api" would be rejected: metadata.annotations[haproxy.router.openshift.io/timeout]: `+
				`Invalid value: "5x": must be a TimeUnit: a whole number from 1 up, optionally followed by us, ms, s, m, h or d (no unit means ms), `+
				`for example 5500ms or 30s at index 0, path index 1`)},
	}, {
		name:    "certificate that does not parse: skipped",
		ingress: ingress(tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), tlsSecret("web-tls", "garbage", c.key)},
		want: Result{Managed: true, Problems: problems(`Route for host "www.example.com" and path "/" would be rejected: ` +
			`spec.tls.certificate: Invalid value: "redacted certificate data": invalid/empty certificate data: ` +
			`data does not contain any valid RSA or ECDSA certificates at index 0, path index 0`)},
	}, {
		name:    "key that does not match the certificate: skipped",
		ingress: ingress(tls("web-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web(), tlsSecret("web-tls", c.crt, c.otherKey)},
		want: Result{Managed: true, Problems: problems(`Route for host "www.example.com" and path "/" would be rejected: ` +
			`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key at index 0, path index 0`)},
	}})
}

func TestTranslateNames(t *testing.T) {
	long := "frontend-for-the-payments-service-of-the-shop-in-europe-west-1" // 62 characters
	dashAt58 := strings.Repeat("a", 56) + "-b-and-more"
	dotsAt58 := strings.Repeat("a", 55) + "-.b.and.more"
	runTranslate(t, []translateCase{{
		name:    "long ingress name: the first 57 characters",
		ingress: ingress(named(long), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"), ownedBy(long),
			withName("frontend-for-the-payments-service-of-the-shop-in-europe-w-fii3t")))},
	}, {
		name:    "long ingress name: a dash that would end the prefix is dropped",
		ingress: ingress(named(dashAt58), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"), ownedBy(dashAt58),
			withName(strings.Repeat("a", 56)+"-fii3t")))},
	}, {
		name:    "long ingress name: dashes and dots that would end the prefix are dropped",
		ingress: ingress(named(dotsAt58), rule("www.example.com", path("/", "web", portName("http")))),
		objects: []any{web()},
		want: Result{Managed: true, Routes: routes(route("www.example.com", "/", "web", toPort("http"), ownedBy(dotsAt58),
			withName(strings.Repeat("a", 55)+"-fii3t")))},
	}, {
		name:    "the same host and path twice: the second name is re-seeded",
		ingress: ingress(rule("www.example.com", path("/", "web", portName("http")), path("/", "api", portName("http")))),
		objects: []any{web(), api()},
		want: Result{Managed: true, Routes: routes(
			route("www.example.com", "/", "web", toPort("http")),
			route("www.example.com", "/", "api", toPort("http"), withName(routeName(ingressName, "www.example.com\x00/\x001"))))},
	}})
}

// TestRouteName checks the name properties for Ingress names of 1 to 70
// characters with dashes and dots at every position the truncation can cut,
// and for a name of the API's maximum, 253 characters.
func TestRouteName(t *testing.T) {
	var names []string
	for n := 1; n <= 70; n++ {
		names = append(names, strings.Repeat("a", n))
		for cut := 1; cut < n; cut++ {
			for _, sep := range []string{"-", ".", "--", "-9."} {
				name := strings.Repeat("a", cut) + sep + strings.Repeat("b", max(0, n-cut-len(sep)))
				if len(validation.IsDNS1123Subdomain(name)) == 0 {
					names = append(names, name)
				}
			}
		}
	}
	names = append(names, strings.Repeat("a.", 126)+"a")
	hosts := []string{"www.example.com", "wildcard.example.com", "shop.example.com"}
	paths := []string{"", "/", "/api", "/api/"}
	for _, name := range names {
		seen := map[string]string{}
		for _, host := range hosts {
			for _, p := range paths {
				got := RouteName(name, host, p)
				if again := RouteName(name, host, p); again != got {
					t.Fatalf("RouteName(%q, %q, %q) is not deterministic: %q then %q", name, host, p, got, again)
				}
				if len(got) > routecore.MaxNameLength {
					t.Errorf("RouteName(%q, %q, %q) = %q: %d characters", name, host, p, got, len(got))
				}
				if errs := validation.IsDNS1123Subdomain(got); len(errs) > 0 {
					t.Errorf("RouteName(%q, %q, %q) = %q: not a DNS subdomain: %v", name, host, p, got, errs)
				}
				prefix, suffix := got[:len(got)-6], got[len(got)-6:]
				if !strings.HasPrefix(name, prefix) || strings.HasSuffix(prefix, "-") || strings.HasSuffix(prefix, ".") {
					t.Errorf("RouteName(%q, %q, %q) = %q: prefix %q", name, host, p, got, prefix)
				}
				if len(name) <= 57 && prefix != name {
					t.Errorf("RouteName(%q, %q, %q) = %q: a name of %d characters is shortened", name, host, p, got, len(name))
				}
				if suffix[0] != '-' {
					t.Errorf("RouteName(%q, %q, %q) = %q: no dash before the hash", name, host, p, got)
				}
				if other, dup := seen[got]; dup {
					t.Errorf("RouteName(%q, ...) gives %q for both %s and %q %q", name, got, other, host, p)
				}
				seen[got] = host + " " + p
			}
		}
	}
}

// TestTranslateHashCollision finds two paths whose names collide (5 base32
// characters are 25 bits: a few thousand paths suffice) and checks that the
// second is re-seeded rather than clashing with the first.
func TestTranslateHashCollision(t *testing.T) {
	first, second := collidingPaths(t, ingressName, "www.example.com")
	ing := ingress(rule("www.example.com", path(first, "web", portName("http")), path(second, "web", portName("http"))))
	got := Translate(ing, objects(web()), DefaultControllerName)
	sameResult(t, got, Result{Managed: true, Routes: routes(
		route("www.example.com", first, "web", toPort("http")),
		route("www.example.com", second, "web", toPort("http"), withName(routeName(ingressName, "www.example.com\x00"+second+"\x001"))))})
	checkEmitted(t, got)
}

// collidingPaths returns two paths of host whose RouteNames are equal.
func collidingPaths(t *testing.T, ingress, host string) (string, string) {
	t.Helper()
	byName := map[string]string{}
	for i := range 1 << 20 {
		p := "/p" + strconv.Itoa(i)
		name := RouteName(ingress, host, p)
		if other, ok := byName[name]; ok {
			return other, p
		}
		byName[name] = p
	}
	t.Fatal("no two paths of a million have the same route name")
	return "", ""
}

// TestTranslateSharesNothing changes everything a Result points to and
// checks that neither the Ingress nor the other Routes see it: callers may
// modify the Routes they are given.
func TestTranslateSharesNothing(t *testing.T) {
	ing := ingress(label("app", "shop"), annotation("example.com/team", "payments"), annotation(TerminationAnnotation, "reencrypt"),
		rule("www.example.com", path("/", "web", portName("http")), path("/api", "web", portName("http"))))
	objs := objects(web())
	before := ing.DeepCopy()
	want := Translate(ing, objs, DefaultControllerName)
	got := Translate(ing, objs, DefaultControllerName)
	if len(got.Routes) != 2 {
		t.Fatalf("got %d routes, want 2", len(got.Routes))
	}
	r := got.Routes[0]
	r.Labels["app"] = "changed"
	r.Annotations["example.com/team"] = "changed"
	r.OwnerReferences[0].Name = "changed"
	*r.OwnerReferences[0].Controller = false
	*r.Spec.To.Weight = 1
	r.Spec.Port.TargetPort.StrVal = "changed"
	r.Spec.TLS.Certificate = "changed"
	if !reflect.DeepEqual(ing, before) {
		t.Errorf("changing a Route changed the Ingress")
	}
	if !reflect.DeepEqual(got.Routes[1], want.Routes[1]) {
		t.Errorf("changing a Route changed another Route (- want, + got):\n%s", lineDiff(toYAML(want.Routes[1]), toYAML(got.Routes[1])))
	}
	if again := Translate(ing, objs, DefaultControllerName); !reflect.DeepEqual(again, want) {
		t.Errorf("changing a Route changed the next Result")
	}
}

// FuzzTranslate builds an Ingress from the fuzzed strings (three paths of a
// host, the same host again, a second host, an annotation, a termination
// and TLS entries chosen by tlsMode) and checks what must hold for every
// input: no panic, every Route defaulted and valid, unique names of at most
// 63 characters, an unmanaged Ingress gives Result{}, and the same input
// gives the same Result without the Ingress being changed.
func FuzzTranslate(f *testing.F) {
	f.Add("www.example.com", "/", "Prefix", "web", "http", int32(80), "example.com/team", "payments", "", uint8(0))
	f.Add("*.example.com", "", "Exact", "web", "", int32(80), ClassAnnotation, "", "passthrough", uint8(1))
	f.Add("WWW.example.com", "/a b", "ImplementationSpecific", "", "https", int32(0), ReconcileLabelsAnnotation, " TRUE ", "reencrypt", uint8(7))
	f.Add("shop.example.com", "api", "", "web", "", int32(8080), "haproxy.router.openshift.io/timeout", "5x", "edge", uint8(12))
	f.Add(strings.Repeat("x", 64)+".example.com", "/#", "Exact", "web", "http", int32(-1), DestinationCAAnnotation, "web-tls", "Passthrough", uint8(255))
	c := certificates(f)
	f.Fuzz(func(t *testing.T, host, p, pathType, svc, port string, number int32, key, value, termination string, tlsMode uint8) {
		backend := networkingv1.ServiceBackendPort{Name: port, Number: number}
		ing := ingress(
			rule(host, typed(networkingv1.PathType(pathType), path(p, svc, backend)), path(p+"/x", svc, backend), path(p, svc, backend)),
			rule(host, path(p, svc, backend)),
			rule("www."+host, path(p, svc, portNumber(number))))
		if key != "" {
			annotation(key, value)(ing)
		}
		if termination != "" {
			annotation(TerminationAnnotation, termination)(ing)
		}
		if tlsMode&1 != 0 {
			tls("web-tls", host)(ing)
		}
		if tlsMode&2 != 0 {
			tls("")(ing)
		}
		if tlsMode&4 != 0 {
			tls("missing", "www."+host)(ing)
		}
		if tlsMode&8 != 0 {
			className(value)(ing)
		}
		objs := objects(service(svc, servicePort(port, number), servicePort("", number+1)),
			tlsSecret("web-tls", c.crt, c.key), ingressClass(value, DefaultControllerName))
		before := ing.DeepCopy()
		got := Translate(ing, objs, DefaultControllerName)
		checkEmitted(t, got)
		if !got.Managed && !reflect.DeepEqual(got, Result{}) {
			t.Errorf("unmanaged Ingress gave %#v, want Result{}", got)
		}
		names := map[string]bool{}
		for _, r := range got.Routes {
			if len(r.Name) > routecore.MaxNameLength {
				t.Errorf("route name %q has %d characters", r.Name, len(r.Name))
			}
			if names[r.Name] {
				t.Errorf("route name %q given twice", r.Name)
			}
			names[r.Name] = true
		}
		if again := Translate(ing, objs, DefaultControllerName); !reflect.DeepEqual(again, got) {
			t.Errorf("Translate is not deterministic (- first, + second):\n%s", lineDiff(render(got), render(again)))
		}
		if !reflect.DeepEqual(ing, before) {
			t.Errorf("Translate changed the Ingress")
		}
	})
}

// BenchmarkTranslate measures Translate on an Ingress with two hosts, one
// path each, services with named ports: over plain HTTP, and with edge TLS
// from a Secret holding a 2048-bit RSA certificate and key (whose checks
// routecore.ValidateRoute runs for each Route).
func BenchmarkTranslate(b *testing.B) {
	c := certificates(b)
	twoHosts := []func(*networkingv1.Ingress){
		rule("www.example.com", path("/", "web", portName("http"))),
		rule("shop.example.com", path("/cart", "cart", portName("http"))),
	}
	cases := []struct {
		name    string
		ingress *networkingv1.Ingress
		objects *ObjectSet
	}{
		{"plain", ingress(twoHosts...), objects(web(), cart())},
		{"edge-rsa2048", ingress(append(twoHosts, tls("web-tls", "www.example.com", "shop.example.com"))...),
			objects(web(), cart(), tlsSecret("web-tls", c.crt, c.key))},
	}
	for _, bc := range cases {
		if res := Translate(bc.ingress, bc.objects, DefaultControllerName); len(res.Routes) != 2 || len(res.Problems) > 0 {
			b.Fatalf("%s: want 2 routes and no problems, got %d routes, problems %q", bc.name, len(res.Routes), res.Problems)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Translate(bc.ingress, bc.objects, DefaultControllerName)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ingresses/s")
		})
	}
}
