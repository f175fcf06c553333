package cli

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/internal/fixtures"
)

// nginxShop is an ingress-nginx cluster's export: an IngressClass of
// ingress-nginx, an Ingress of that class with annotations of every
// verdict, a canary, an Ingress of the legacy class annotation, one of
// routeshift's own class and ingress-nginx's ConfigMap.
const nginxShop = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: public}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: web-v2, namespace: shop}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop
  namespace: shop
  annotations:
    nginx.ingress.kubernetes.io/proxy-read-timeout: "120"
    nginx.ingress.kubernetes.io/proxy-body-size: 8m
    nginx.ingress.kubernetes.io/configuration-snippet: "more_set_headers \"X: y\";"
spec:
  ingressClassName: public
  rules:
  - host: shop.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shop-canary
  namespace: shop
  annotations:
    nginx.ingress.kubernetes.io/canary: "true"
    nginx.ingress.kubernetes.io/canary-weight: "25"
spec:
  ingressClassName: public
  rules:
  - host: shop.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web-v2, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: legacy
  namespace: shop
  annotations:
    kubernetes.io/ingress.class: nginx
spec:
  rules:
  - host: legacy.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
`

const nginxConfigMap = `---
apiVersion: v1
kind: ConfigMap
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
data:
  proxy-read-timeout: "90"
  proxy-body-size: "0"
`

func TestTranslateFromIngressNginx(t *testing.T) {
	t.Run("without --from the Ingresses are another controller's", func(t *testing.T) {
		out, errOut, code := run(t, nginxShop, "translate", "-f", "-", "-o", "name")
		if code != 0 || out != "" || !strings.Contains(errOut, "summary: 3 ingresses read (2 of another class, 1 of a class not found, ignored); 0 routes emitted") {
			t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
		}
	})
	t.Run("with --from ingress-nginx: adopted, converted, the canary merged", func(t *testing.T) {
		out, errOut, code := run(t, nginxShop, "translate", "--from", "ingress-nginx", "-f", "-")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, want := range []string{
			"haproxy.router.openshift.io/timeout: 120s", "haproxy.router.openshift.io/disable_cookies: \"true\"",
			"alternateBackends:", "name: web-v2", "weight: 25", "weight: 75", "host: legacy.example.com",
			"routeshift.io/max-body-size: 8m", "routeshift.io/max-body-size: 1m",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the Routes lack %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "name: shop-canary-") {
			t.Errorf("the canary got a Route of its own:\n%s", out)
		}
		for _, want := range []string{
			`warning: ingress shop/shop: nginx.ingress.kubernetes.io/configuration-snippet="more_set_headers \"X: y\";": refused: `,
			`warning: ingress shop/shop: nginx.ingress.kubernetes.io/proxy-body-size="8m": approximate: `,
			`warning: ingress shop/legacy: ingress-nginx default proxy-body-size: approximate: ingress-nginx refuses request bodies over 1m by default (413), and so do the Routes (routeshift.io/max-body-size 1m)`,
			`warning: ingress shop/shop: nginx.ingress.kubernetes.io/proxy-read-timeout="120": approximate: `,
			"note: ingress-nginx's ConfigMap was not given (--ingress-nginx-configmap): assumed its defaults proxy-read-timeout 60,",
			"summary: 3 ingresses converted from ingress-nginx: 2 exactly, 0 approximately, 0 with losses, 1 refused",
		} {
			if !strings.Contains(errOut, want) {
				t.Errorf("the report lacks %q:\n%s", want, errOut)
			}
		}
	})
	t.Run("the ConfigMap's defaults replace ingress-nginx's", func(t *testing.T) {
		out, errOut, code := run(t, nginxShop+nginxConfigMap, "translate", "--from", "ingress-nginx", "-f", "-")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "haproxy.router.openshift.io/timeout: 90s") || strings.Contains(errOut, "ConfigMap was not given") {
			t.Errorf("the legacy Ingress did not get the ConfigMap's 90 s, or the report still assumes defaults:\n%s\n%s", out, errOut)
		}
		if strings.Contains(out, "routeshift.io/max-body-size: 1m") || !strings.Contains(out, "routeshift.io/max-body-size: 8m") {
			t.Errorf("with the ConfigMap's proxy-body-size 0, only the Ingress's own limit is on a Route:\n%s", out)
		}
	})
	t.Run("--strict fails when anything is not exact", func(t *testing.T) {
		_, errOut, code := run(t, nginxShop, "translate", "--from", "ingress-nginx", "-f", "-", "-o", "name", "--strict")
		if code == 0 || !strings.Contains(errOut, "--strict: 1 ingress not converted exactly") {
			t.Errorf("exit %d, stderr:\n%s", code, errOut)
		}
	})
	t.Run("--strict on routeshift's own Ingresses: a path without a Route fails, a note does not", func(t *testing.T) {
		own := `apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: own, namespace: shop}
spec:
  rules:
  - host: own.example.com
    http:
      paths:
      - {path: /healthz, pathType: Exact, backend: {service: {name: web, port: {name: http}}}}
`
		if _, errOut, code := run(t, own, "translate", "-f", "-", "-o", "name", "--strict"); code != 0 {
			t.Errorf("an Exact path's note failed --strict: exit %d\n%s", code, errOut)
		}
		missing := strings.Replace(own, "name: web, port", "name: gone, port", 1)
		if _, errOut, code := run(t, missing, "translate", "-f", "-", "-o", "name", "--strict"); code == 0 || !strings.Contains(errOut, "--strict: 1 ingress not converted exactly") {
			t.Errorf("a path without a Route passed --strict: exit %d\n%s", code, errOut)
		}
	})
	t.Run("-o json", func(t *testing.T) {
		out, errOut, code := run(t, nginxShop, "translate", "--from", "ingress-nginx", "-f", "-", "-o", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var rep struct {
			Outcomes  map[string]int `json:"outcomes"`
			Verdicts  map[string]int `json:"annotationsByVerdict"`
			Ingresses []struct {
				Name     string   `json:"name"`
				Outcome  string   `json:"outcome"`
				Canary   bool     `json:"canary"`
				Routes   []string `json:"routes"`
				Findings []struct {
					Key, Verdict string
				} `json:"findings"`
			} `json:"ingresses"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		if rep.Outcomes["refused"] != 1 || rep.Outcomes["exact"] != 2 || rep.Verdicts["refused"] != 1 || rep.Verdicts["approximate"] != 2 ||
			len(rep.Ingresses) != 3 {
			t.Errorf("report: %+v", rep)
		}
		for _, ir := range rep.Ingresses {
			if ir.Name == "shop-canary" && (!ir.Canary || len(ir.Routes) != 0) {
				t.Errorf("canary: %+v", ir)
			}
		}
	})
	t.Run("-o report", func(t *testing.T) {
		out, _, code := run(t, nginxShop, "translate", "--from", "ingress-nginx", "-f", "-", "-o", "report")
		for _, want := range []string{"# Migration report", "| refused | 1 |", "### shop/shop: refused", "| nginx.ingress.kubernetes.io/configuration-snippet | more_set_headers \"X: y\"; | refused |"} {
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("exit %d; the report lacks %q:\n%s", code, want, out)
			}
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown source", []string{"--from", "traefik"}, `--from "traefik" is not supported`},
		{"adopt without --from", []string{"--adopt-class", "nginx"}, "--adopt-class needs --from ingress-nginx"},
		{"bad ConfigMap name", []string{"--from", "ingress-nginx", "--ingress-nginx-configmap", "nginx"}, "give NAMESPACE/NAME"},
		{"bad output", []string{"-o", "html"}, `--output "html" is not supported`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := run(t, nginxShop, append([]string{"translate", "-f", "-"}, tc.args...)...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, errOut, tc.want)
			}
		})
	}
}

// TestTranslateSpreadOverCoresKeepsOrder translates hundreds of
// ingress-nginx Ingresses (canaries, TLS, refused snippets) once on one
// core and once on four: Routes, report lines and summary are the same,
// in the input's order.
func TestTranslateSpreadOverCoresKeepsOrder(t *testing.T) {
	pki, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	in := nginxIngresses(300, string(pki.Leaf.CertPEM), string(pki.Leaf.KeyPEM))
	run := func(procs int, output string) (string, string) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var stdout, stderr strings.Builder
		if code := Execute([]string{"translate", "--from", "ingress-nginx", "-o", output, "-f", "-"}, strings.NewReader(in), &stdout, &stderr); code != 0 {
			t.Fatalf("translate exited %d: %s", code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	for _, output := range []string{"yaml", "json"} {
		oneOut, oneErr := run(1, output)
		manyOut, manyErr := run(4, output)
		if oneOut != manyOut {
			t.Errorf("-o %s: stdout differs between one core and four", output)
		}
		if oneErr != manyErr {
			t.Errorf("-o %s: stderr differs between one core and four", output)
		}
		if output == "yaml" {
			if got := strings.Count(oneOut, "kind: Route\n"); got != 285 {
				t.Errorf("-o yaml printed %d Routes, want 285 (one per Ingress but the 15 canaries)", got)
			}
		}
	}
}
