package cli

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/internal/fixtures"
)

// nginxIngresses is n ingress-nginx Ingresses (class nginx) in 50
// namespaces with their Services and, per namespace, one TLS Secret, as
// `kubectl get ingress,service,secret -A -o yaml` would print them. The
// annotation mix is what such clusters hold: regular-expression rewrites,
// body sizes, timeouts, allowlists, CORS, stickiness, a few snippets, TLS
// on half the hosts; one Ingress in 20 is a canary of the one before it.
func nginxIngresses(n int, crt, key string) string {
	var b strings.Builder
	indent := func(pem string) string { return strings.ReplaceAll(strings.TrimSpace(pem), "\n", "\n    ") }
	for ns := range 50 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Secret\nmetadata: {name: tls, namespace: ns%d}\ntype: kubernetes.io/tls\nstringData:\n  tls.crt: |\n    %s\n  tls.key: |\n    %s\n",
			ns, indent(crt), indent(key))
	}
	for i := range n {
		ns := i % 50
		annotations := []string{}
		host, path := fmt.Sprintf("h%d.example.com", i), "/"
		canary := i%20 == 19
		if canary {
			// a canary of Ingress i-1, in its namespace, for its host and path
			ns = (i - 1) % 50
			host = fmt.Sprintf("h%d.example.com", i-1)
			if (i-1)%5 < 2 {
				path = "/api(/|$)(.*)"
			}
			annotations = append(annotations, `nginx.ingress.kubernetes.io/canary: "true"`, `nginx.ingress.kubernetes.io/canary-weight: "10"`)
		}
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc%d, namespace: ns%d}\nspec: {ports: [{name: http, port: 80}]}\n", i, ns)
		if !canary {
			if i%5 < 2 {
				annotations = append(annotations, `nginx.ingress.kubernetes.io/use-regex: "true"`, `nginx.ingress.kubernetes.io/rewrite-target: /$2`)
				path = "/api(/|$)(.*)"
			}
			if i%3 == 0 {
				annotations = append(annotations, `nginx.ingress.kubernetes.io/proxy-body-size: 8m`)
			}
			if i%4 == 0 {
				annotations = append(annotations, `nginx.ingress.kubernetes.io/proxy-read-timeout: "120"`, `nginx.ingress.kubernetes.io/proxy-send-timeout: "120"`)
			}
			if i%7 == 0 {
				annotations = append(annotations, `nginx.ingress.kubernetes.io/whitelist-source-range: "10.0.0.0/8,192.168.0.0/16"`)
			}
			if i%10 == 0 {
				annotations = append(annotations, `nginx.ingress.kubernetes.io/enable-cors: "true"`)
			}
			if i%10 == 1 {
				annotations = append(annotations, `nginx.ingress.kubernetes.io/affinity: cookie`)
			}
			if i%25 == 0 {
				annotations = append(annotations, `nginx.ingress.kubernetes.io/configuration-snippet: "more_set_headers \"X-Frame-Options: DENY\";"`)
			}
		}
		tls := ""
		if i%2 == 0 && !canary {
			tls = fmt.Sprintf("  tls: [{hosts: [%s], secretName: tls}]\n", host)
		}
		fmt.Fprintf(&b, "---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: ing%d\n  namespace: ns%d\n  annotations:\n    kubernetes.io/ingress.class: nginx\n", i, ns)
		for _, a := range annotations {
			fmt.Fprintf(&b, "    %s\n", a)
		}
		fmt.Fprintf(&b, "spec:\n%s  rules:\n  - host: %s\n    http:\n      paths:\n      - {path: %q, pathType: ImplementationSpecific, backend: {service: {name: svc%d, port: {name: http}}}}\n",
			tls, host, path, i)
	}
	return b.String()
}

// BenchmarkTranslateNginx is `routeshift translate --from ingress-nginx -f -`
// of 1,000 and 10,000 ingress-nginx Ingresses (500 canaries at 10,000),
// printing the Routes and the report: from YAML, as `kubectl get -o yaml`
// of separate documents, and from JSON, as a stream of objects. The time
// per 10,000 Ingresses must not grow with their number (s/10k-ingresses;
// the 10k/1k ratio of the totals is at most 11).
func BenchmarkTranslateNginx(b *testing.B) {
	pki, err := fixtures.Certificates()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1000, 10000} {
		in := nginxIngresses(n, string(pki.Leaf.CertPEM), string(pki.Leaf.KeyPEM))
		js, err := jsonStream(in)
		if err != nil {
			b.Fatal(err)
		}
		for _, form := range []struct{ name, in string }{{"yaml", in}, {"json", js}} {
			b.Run(fmt.Sprintf("ingresses-%d-%s", n, form.name), func(b *testing.B) {
				for b.Loop() {
					if code := Execute([]string{"translate", "--from", "ingress-nginx", "-f", "-"}, strings.NewReader(form.in), io.Discard, io.Discard); code != 0 {
						b.Fatalf("translate exited %d", code)
					}
				}
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/op-total")
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/float64(n)*10000, "s/10k-ingresses")
			})
		}
	}
}

// jsonStream is YAML documents as a stream of JSON objects, one per line.
func jsonStream(docs string) (string, error) {
	var b strings.Builder
	for doc := range strings.SplitSeq("\n"+docs, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return "", err
		}
		b.Write(js)
		b.WriteByte('\n')
	}
	return b.String(), nil
}
