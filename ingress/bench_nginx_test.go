package ingress

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/ingress/nginx"
)

// nginxCluster is n ingress-nginx Ingresses (legacy class nginx) in 50
// namespaces with their Services and one TLS Secret per namespace, with
// the annotation mix of such clusters: regular-expression rewrites, body
// sizes, timeouts, allowlists, CORS, stickiness, a few snippets, TLS on
// half the hosts; one Ingress in 20 is a canary of the one before it.
func nginxCluster(n int, crt, key string) ([]*networkingv1.Ingress, *ObjectSet) {
	objs := NewObjectSet()
	for ns := range 50 {
		objs.Add(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "tls", Namespace: fmt.Sprintf("ns%d", ns)}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: []byte(crt), corev1.TLSPrivateKeyKey: []byte(key)}})
	}
	var ings []*networkingv1.Ingress
	for i := range n {
		ns, host, p := i%50, fmt.Sprintf("h%d.example.com", i), "/"
		a := map[string]string{ClassAnnotation: "nginx"}
		canary := i%20 == 19
		if canary {
			ns, host = (i-1)%50, fmt.Sprintf("h%d.example.com", i-1)
			if (i-1)%5 < 2 {
				p = "/api(/|$)(.*)"
			}
			a[nginx.Prefix+"canary"], a[nginx.Prefix+"canary-weight"] = "true", "10"
		} else {
			if i%5 < 2 {
				a[nginx.Prefix+"use-regex"], a[nginx.Prefix+"rewrite-target"], p = "true", "/$2", "/api(/|$)(.*)"
			}
			if i%3 == 0 {
				a[nginx.Prefix+"proxy-body-size"] = "8m"
			}
			if i%4 == 0 {
				a[nginx.Prefix+"proxy-read-timeout"], a[nginx.Prefix+"proxy-send-timeout"] = "120", "120"
			}
			if i%7 == 0 {
				a[nginx.Prefix+"whitelist-source-range"] = "10.0.0.0/8,192.168.0.0/16"
			}
			if i%10 == 0 {
				a[nginx.Prefix+"enable-cors"] = "true"
			}
			if i%10 == 1 {
				a[nginx.Prefix+"affinity"] = "cookie"
			}
			if i%25 == 0 {
				a[nginx.Prefix+"configuration-snippet"] = `more_set_headers "X-Frame-Options: DENY";`
			}
		}
		namespace, svc := fmt.Sprintf("ns%d", ns), fmt.Sprintf("svc%d", i)
		objs.Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: svc, Namespace: namespace},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}})
		ing := ingress(named(fmt.Sprintf("ing%d", i)), rule(host, path(p, svc, portName("http"))))
		ing.Namespace, ing.Annotations = namespace, a
		if i%2 == 0 && !canary {
			ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{host}, SecretName: "tls"}}
		}
		objs.Add(ing)
		ings = append(ings, ing)
	}
	return ings, objs
}

// BenchmarkTranslateNginx is TranslateWith of every Ingress of an
// ingress-nginx cluster of 1,000 and 10,000 Ingresses (500 canaries at
// 10,000), adopted and converted: the work of `translate --from
// ingress-nginx` and the controller without reading and printing.
func BenchmarkTranslateNginx(b *testing.B) {
	c := certificates(b)
	for _, n := range []int{1000, 10000} {
		ings, objs := nginxCluster(n, c.crt, c.key)
		opts := Options{AdoptClasses: []string{"nginx"}, Nginx: nginx.DefaultGlobals()}
		routes := 0
		for _, ing := range ings {
			routes += len(TranslateWith(ing, objs, opts).Routes)
		}
		if want := n - n/20; routes != want {
			b.Fatalf("%d Routes from %d Ingresses, want %d", routes, n, want)
		}
		b.Run(fmt.Sprintf("ingresses-%d", n), func(b *testing.B) {
			for b.Loop() {
				for _, ing := range ings {
					TranslateWith(ing, objs, opts)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/op-total")
		})
	}
}
