package cli

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
)

const shopInput = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  namespace: shop
  annotations:
    route.openshift.io/termination: edge
spec:
  defaultBackend: {service: {name: web, port: {number: 80}}}
  tls:
  - hosts: [shop.example.com]
    secretName: missing-cert
  rules:
  - host: www.example.com
    http:
      paths:
      - path: /api/v1
        pathType: Exact
        backend: {service: {name: api, port: {number: 8080}}}
  - host: shop.example.com
    http:
      paths:
      - backend: {service: {name: web, port: {number: 80}}}
  - http:
      paths:
      - backend: {service: {name: web, port: {number: 80}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: legacy, namespace: shop}
spec:
  ingressClassName: nginx
  rules:
  - host: old.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop}
spec:
  ports: [{port: 8080}]
`

// TestTranslate: the Routes on stdout, problems and the summary on stderr,
// and the output passes validate.
func TestTranslate(t *testing.T) {
	stdout, stderr, code := run(t, shopInput, "translate", "-f", "-")
	name := ingress.RouteName("shop", "www.example.com", "/api/v1")
	wantOut := `apiVersion: route.openshift.io/v1
kind: Route
metadata:
  annotations:
    route.openshift.io/termination: edge
    routeshift.io/path-type: Exact
  name: ` + name + `
  namespace: shop
spec:
  host: www.example.com
  path: /api/v1
  tls:
    insecureEdgeTerminationPolicy: Redirect
    termination: edge
  to:
    kind: Service
    name: api
    weight: 100
  wildcardPolicy: None
`
	wantErr := `warning: ingress shop/shop: Invalid or missing TLS secret for rule host "shop.example.com"
warning: ingress shop/shop: Missing host field in rule at index 2
warning: ingress shop/shop: path "/api/v1" of host "www.example.com" (rule 0, path 0) has pathType Exact: routeshift serves it exactly (routeshift.io/path-type: Exact), but OpenShift makes no Route for an Exact path, so on OpenShift it would not be served; use pathType Prefix there
warning: ingress shop/shop: spec.defaultBackend (service web) produces no Route: requests that match no rule will get the router's 503; add a rule for every host it should serve
warning: ingress shop/legacy: ignored: its class belongs to another controller (not openshift.io/ingress-to-route)
summary: 2 ingresses read (1 of another class, ignored); 1 route emitted; 2 rules or paths produced no Route
`
	if code != 0 || stdout != wantOut || stderr != wantErr {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant stdout:\n%s\nwant stderr:\n%s", code, stdout, stderr, wantOut, wantErr)
	}
	vout, verr, vcode := run(t, stdout, "validate", "-f", "-")
	// The Route serves its path exactly, which only routeshift's router
	// does: validate says so.
	note := "Note: shop/" + name + ": OpenShift's router ignores routeshift.io/path-type (routeshift's own annotations): on OpenShift this Route behaves otherwise\n"
	if vcode != 0 || verr != note+"summary: 1 route read: 1 valid, 0 invalid; 0 objects of other kinds skipped\n" || vout != "shop/"+name+" valid\n" {
		t.Errorf("translate's output does not validate: exit %d\n%s%s", vcode, vout, verr)
	}

	names, _, code := run(t, shopInput, "translate", "-f", "-", "-o", "name")
	if code != 0 || names != "shop/"+name+"\n" {
		t.Errorf("-o name: exit %d, %q", code, names)
	}
}

// TestTranslateBadInput: an object translate cannot read is reported and
// makes the exit status 1; the others are still translated.
func TestTranslateBadInput(t *testing.T) {
	good := "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: good}\nspec: {rules: [{host: a.example.com}]}\n"
	summary := "summary: 1 ingress read (0 of another class, ignored); 0 routes emitted; 1 rule or path produced no Route\n"
	problem := "warning: ingress default/good: Missing http field in rule at index 0\n"
	tests := []struct {
		name, stdin string
		args        []string
		code        int
		want        string
	}{
		{"extensions/v1beta1 Ingress", "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: old}\n" + good, nil, 1,
			"error: <stdin>, document 1 (line 1): Ingress extensions/v1beta1 is not read: convert it to networking.k8s.io/v1 (serviceName/servicePort become service.name/service.port)\n" +
				problem + summary},
		{"unknown field", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {portz: []}\n" + good, nil, 0,
			"Warning: <stdin>, document 1 (line 1): unknown field \"spec.portz\"\n" + problem + summary},
		{"unknown field, strict", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {portz: []}\n" + good, []string{"--strict"}, 1,
			"error: <stdin>, document 1 (line 1): Service in version \"v1\" cannot be handled as a Service: strict decoding error: unknown field \"spec.portz\"\n" + problem + summary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := run(t, tt.stdin, append([]string{"translate", "-f", "-"}, tt.args...)...)
			if code != tt.code || stderr != tt.want {
				t.Errorf("exit %d, stderr\n%s\nwant exit %d, stderr\n%s", code, stderr, tt.code, tt.want)
			}
		})
	}
	if _, stderr, code := run(t, "", "translate", "-f", "-", "--from-cluster"); code != 1 || !strings.Contains(stderr, "use either -f or --from-cluster") {
		t.Errorf("-f with --from-cluster: exit %d, %q", code, stderr)
	}
}

// TestTranslateNginxAnnotations: ingress-nginx annotations are reported,
// with what to use instead, and copied to the Routes without effect.
func TestTranslateNginxAnnotations(t *testing.T) {
	input := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: api
  namespace: shop
  annotations:
    nginx.ingress.kubernetes.io/rewrite-target: /
    nginx.ingress.kubernetes.io/whitelist-source-range: 10.0.0.0/8,192.168.0.0/16
    nginx.ingress.kubernetes.io/some-new-knob: "on"
    haproxy.router.openshift.io/rewrite-target: /
spec:
  rules:
  - host: api.example.com
    http:
      paths:
      - path: /api
        pathType: Prefix
        backend: {service: {name: api, port: {number: 8080}}}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop}
spec:
  ports: [{port: 8080}]
`
	stdout, stderr, code := run(t, input, "translate", "-f", "-")
	wantErr := `warning: ingress shop/api: annotation nginx.ingress.kubernetes.io/rewrite-target has no effect on Routes: set haproxy.router.openshift.io/rewrite-target (the path's prefix is replaced; regular-expression captures such as /$2 have no equivalent)
warning: ingress shop/api: annotation nginx.ingress.kubernetes.io/some-new-knob has no effect on Routes
warning: ingress shop/api: annotation nginx.ingress.kubernetes.io/whitelist-source-range has no effect on Routes: set haproxy.router.openshift.io/ip_allowlist (addresses and CIDRs separated by spaces, not commas)
summary: 1 ingress read (0 of another class, ignored); 1 route emitted; 0 rules or paths produced no Route
`
	if code != 0 || stderr != wantErr {
		t.Errorf("exit %d\nstderr:\n%s\nwant:\n%s", code, stderr, wantErr)
	}
	if !strings.Contains(stdout, "haproxy.router.openshift.io/rewrite-target: /") {
		t.Errorf("the router annotation is not on the Route:\n%s", stdout)
	}
}

// TestTranslateShopIngresses is the acceptance case: translate -f
// on a real-world export (fixtures.ShopIngresses) prints a clear report on
// stderr and Routes on stdout that validate accepts; each Route is what the
// mapping says.
func TestTranslateShopIngresses(t *testing.T) {
	file := writeFile(t, "shop-ingresses.yaml", fixtures.ShopIngresses)
	stdout, stderr, code := run(t, "", "translate", "-f", file)
	wantErr := `warning: ingress shop/storefront: Backend service "cart" not found at index 0, path index 4
warning: ingress shop/storefront: annotation nginx.ingress.kubernetes.io/proxy-body-size has no effect on Routes: set routeshift.io/max-body-size (the same size, e.g. 8m)
warning: ingress shop/storefront: path "/healthz" of host "www.example.com" (rule 0, path 2) has pathType Exact: routeshift serves it exactly (routeshift.io/path-type: Exact), but OpenShift makes no Route for an Exact path, so on OpenShift it would not be served; use pathType Prefix there
warning: ingress shop/checkout: annotation nginx.ingress.kubernetes.io/ssl-passthrough has no effect on Routes: set route.openshift.io/termination: passthrough
warning: ingress shop/docs: ignored: its class belongs to another controller (not openshift.io/ingress-to-route)
summary: 4 ingresses read (1 of another class, ignored); 7 routes emitted; 1 rule or path produced no Route
`
	if code != 0 || stderr != wantErr {
		t.Fatalf("exit %d\nstderr:\n%s\nwant:\n%s", code, stderr, wantErr)
	}

	storefront := " | annotations haproxy.router.openshift.io/timeout=30s nginx.ingress.kubernetes.io/proxy-body-size=8m | labels app.kubernetes.io/name=storefront team=shop"
	// host and path name the Route (RouteName), as in its spec.
	want := []struct{ ingress, host, path, route string }{
		{"storefront", "www.example.com", "/", "www.example.com/ -> storefront:http edge(www.example.com) None" + storefront},
		{"storefront", "www.example.com", "/api", "www.example.com/api -> api:(all) edge(www.example.com) None" + storefront},
		{"storefront", "www.example.com", "/healthz", "www.example.com/healthz -> storefront:http edge(www.example.com) None" +
			" | annotations haproxy.router.openshift.io/timeout=30s nginx.ingress.kubernetes.io/proxy-body-size=8m routeshift.io/path-type=Exact" +
			" | labels app.kubernetes.io/name=storefront team=shop"},
		{"storefront", "www.example.com", "/static", "www.example.com/static -> storefront:http edge(www.example.com) None" + storefront},
		{"storefront", "example.com", "/", "example.com/ -> storefront:http edge(www.example.com) None" + storefront},
		{"checkout", "secure.example.com", "", "secure.example.com -> checkout:https passthrough() None" +
			" | annotations nginx.ingress.kubernetes.io/ssl-passthrough=true route.openshift.io/termination=passthrough | labels"},
		{"tenant-portal", "wildcard.tenants.example.com", "/", "wildcard.tenants.example.com/ -> tenant-portal:http edge(*.tenants.example.com) Subdomain | annotations | labels"},
	}
	docs := strings.Split(stdout, "\n---\n")
	if len(docs) != len(want) {
		t.Fatalf("%d routes printed, want %d:\n%s", len(docs), len(want), stdout)
	}
	var names, valid []string
	for i, w := range want {
		var r routecore.Route
		if err := yaml.UnmarshalStrict([]byte(docs[i]), &r); err != nil {
			t.Fatalf("route %d: %v in\n%s", i, err, docs[i])
		}
		name := ingress.RouteName(w.ingress, w.host, w.path)
		if got := describeRoute(t, &r); r.Name != name || r.Namespace != "shop" || got != w.route {
			t.Errorf("route %d: %s/%s\n%s\nwant %s/%s\n%s", i, r.Namespace, r.Name, got, "shop", name, w.route)
		}
		names = append(names, "shop/"+name+"\n")
		valid = append(valid, "shop/"+name+" valid\n")
	}

	if out, _, code := run(t, "", "translate", "-f", file, "-o", "name"); code != 0 || out != strings.Join(names, "") {
		t.Errorf("-o name: exit %d\n%s", code, out)
	}
	vout, verr, vcode := run(t, stdout, "validate", "-f", "-")
	notes, summary, _ := strings.Cut(verr, "summary: ")
	if vcode != 0 || summary != "7 routes read: 7 valid, 0 invalid; 0 objects of other kinds skipped\n" || vout != strings.Join(valid, "") ||
		strings.Count(notes, "\n") != 1 || !strings.HasPrefix(notes, "Note: shop/storefront-") ||
		!strings.HasSuffix(notes, ": OpenShift's router ignores routeshift.io/path-type (routeshift's own annotations): on OpenShift this Route behaves otherwise\n") {
		t.Errorf("translate's output does not validate: exit %d\nstdout:\n%s\nstderr:\n%s", vcode, vout, verr)
	}
}

// describeRoute sums a Route up in one line: host and path, service and
// target port ("(all)" without spec.port), termination with the common name
// of its certificate (the key must be there too) and wildcard policy, then
// its annotations and labels, sorted. Every TLS Route must redirect HTTP.
func describeRoute(t *testing.T, r *routecore.Route) string {
	t.Helper()
	port := "(all)"
	if r.Spec.Port != nil {
		port = r.Spec.Port.TargetPort.String()
	}
	tls := "plain"
	if c := r.Spec.TLS; c != nil {
		cn := ""
		if c.Certificate != "" {
			block, _ := pem.Decode([]byte(c.Certificate))
			cert, err := x509.ParseCertificate(block.Bytes)
			if err != nil || c.Key == "" {
				t.Fatalf("route %s: certificate %v, key %d bytes", r.Name, err, len(c.Key))
			}
			cn = cert.Subject.CommonName
		}
		if c.InsecureEdgeTerminationPolicy != routecore.InsecureEdgeTerminationPolicyRedirect {
			t.Errorf("route %s: insecureEdgeTerminationPolicy %q, want Redirect", r.Name, c.InsecureEdgeTerminationPolicy)
		}
		tls = fmt.Sprintf("%s(%s)", c.Termination, cn)
	}
	pairs := func(m map[string]string) string {
		var out []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out = append(out, " "+k+"="+m[k])
		}
		return strings.Join(out, "")
	}
	return fmt.Sprintf("%s%s -> %s:%s %s %s | annotations%s | labels%s", r.Spec.Host, r.Spec.Path, r.Spec.To.Name, port, tls,
		r.Spec.WildcardPolicy, pairs(r.Annotations), pairs(r.Labels))
}
