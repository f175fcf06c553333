package cli

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
)

// TestTranslateStringDataSecret: a TLS Secret written with stringData (as
// many charts and tutorials write certificates) is used as the API server
// stores it, with its keys in data; a key in both takes stringData's.
func TestTranslateStringDataSecret(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	input := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: www, namespace: shop}
spec:
  tls: [{hosts: [www.example.com], secretName: www-tls}]
  rules:
  - host: www.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: v1
kind: Secret
metadata: {name: www-tls, namespace: shop}
type: kubernetes.io/tls
data: {tls.key: bm90IGEga2V5}
stringData:
  tls.crt: |
` + fixtures.Indent(string(p.Leaf.CertPEM), 4) + `
  tls.key: |
` + fixtures.Indent(string(p.Leaf.KeyPEM), 4) + `
`
	stdout, stderr, code := run(t, input, "translate", "-f", "-")
	if code != 0 || stderr != "summary: 1 ingress read (0 of another class, ignored); 1 route emitted; 0 rules or paths produced no Route\n" {
		t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
	}
	r := &routecore.Route{}
	if err := yaml.UnmarshalStrict([]byte(stdout), r); err != nil {
		t.Fatal(err)
	}
	if r.Spec.TLS == nil || r.Spec.TLS.Certificate != string(p.Leaf.CertPEM) || r.Spec.TLS.Key != string(p.Leaf.KeyPEM) {
		t.Errorf("the Route does not carry the Secret's stringData certificate and key:\n%s", stdout)
	}
}

// TestTranslateMissingClass: an Ingress whose IngressClass is not there is
// reported as such, not as another controller's.
func TestTranslateMissingClass(t *testing.T) {
	input := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: www, namespace: shop}
spec:
  ingressClassName: routeshift
  rules:
  - host: www.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
`
	_, stderr, code := run(t, input, "translate", "-f", "-")
	want := `warning: ingress shop/www: ignored: IngressClass "routeshift" not found; the controller manages an Ingress of a class only when that class exists with spec.controller openshift.io/ingress-to-route
summary: 1 ingress read (0 of another class, 1 of a class not found, ignored); 0 routes emitted; 0 rules or paths produced no Route
`
	if code != 0 || stderr != want {
		t.Errorf("exit %d\nstderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	withClass := input + "---\napiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: routeshift}\nspec: {controller: openshift.io/ingress-to-route}\n---\n" +
		"apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec: {ports: [{port: 80}]}\n"
	if out, stderr, code := run(t, withClass, "translate", "-f", "-", "-o", "name"); code != 0 || !strings.HasPrefix(out, "shop/www-") {
		t.Errorf("with the class: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
}

// TestTranslateVerbose: -v lists the objects translate does not read.
func TestTranslateVerbose(t *testing.T) {
	input := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n---\n" +
		"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: www}\nspec: {}\n"
	_, stderr, code := run(t, input, "translate", "-f", "-", "-v")
	want := "skipped: <stdin>, document 1 (line 1): apps/v1 Deployment web\n" +
		"summary: 1 ingress read (0 of another class, ignored); 0 routes emitted; 0 rules or paths produced no Route\n"
	if code != 0 || stderr != want {
		t.Errorf("exit %d\nstderr:\n%s\nwant:\n%s", code, stderr, want)
	}
}

// TestTranslateRefusedBySchema: a Route the webhook's rules accept but the
// CRD's schema refuses (a host label over 63 characters, allowed by
// route.openshift.io/allow-non-dns-compliant-host) is reported, not
// printed, so that translate's output always passes validate.
func TestTranslateRefusedBySchema(t *testing.T) {
	label := strings.Repeat("a", 70)
	input := `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: long
  namespace: shop
  annotations: {route.openshift.io/allow-non-dns-compliant-host: "true"}
spec:
  rules:
  - host: ` + label + `.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
  - host: short.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{port: 80}]}
`
	stdout, stderr, code := run(t, input, "translate", "-f", "-")
	want := `warning: ingress shop/long: Route for host "` + label + `.example.com" and path "/" would be refused by the API server: spec.host: Invalid value: "` + label +
		`.example.com": spec.host in body should match '^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9]))*$'` + "\n" +
		"summary: 1 ingress read (0 of another class, ignored); 1 route emitted; 1 rule or path produced no Route\n"
	if code != 0 || stderr != want {
		t.Fatalf("exit %d\nstderr:\n%s\nwant:\n%s", code, stderr, want)
	}
	if _, verr, vcode := run(t, stdout, "validate", "-f", "-"); vcode != 0 {
		t.Errorf("translate's output does not validate: exit %d\n%s", vcode, verr)
	}
}
