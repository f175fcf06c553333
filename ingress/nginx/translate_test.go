package nginx_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/ingress/nginx"
	"github.com/routeshift/routeshift/internal/fixtures"
)

// TestTranslateEveryEntry runs every per-entry case through the Ingress
// translation, as `routeshift translate --from ingress-nginx` and the
// controller do: an Ingress of class nginx carrying the case's
// annotations in, the Routes' fields and the finding's report line out.
func TestTranslateEveryEntry(t *testing.T) {
	pki, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	ns := "ns"
	objs := func(ing *networkingv1.Ingress) *ingress.ObjectSet {
		s := ingress.NewObjectSet()
		for _, name := range []string{"web", "web-canary"} {
			s.Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}})
		}
		s.Add(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "www-tls"}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: pki.Leaf.CertPEM, corev1.TLSPrivateKeyKey: pki.Leaf.KeyPEM}})
		s.Add(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "backend-ca"}, Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"ca.crt": pki.CA.CertPEM}})
		s.Add(ing)
		return s
	}
	cases := nginx.TranslateCases()
	if len(cases) < len(nginx.Table()) {
		t.Fatalf("%d cases for %d entries", len(cases), len(nginx.Table()))
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			prefix := networkingv1.PathTypePrefix
			annotations := map[string]string{ingress.ClassAnnotation: "nginx"}
			for k, v := range tc.Annotations {
				annotations[k] = v
			}
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", Annotations: annotations},
				Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "www.example.com",
					IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
						Path: "/", PathType: &prefix, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
							Name: "web", Port: networkingv1.ServiceBackendPort{Name: "http"}}}}}}}}}}}
			if tc.TLS {
				ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"www.example.com"}, SecretName: "www-tls"}}
			}
			res := ingress.TranslateWith(ing, objs(ing), ingress.Options{AdoptClasses: []string{"nginx"}, Nginx: nginx.DefaultGlobals()})
			if !res.Adopted || res.Conversion == nil {
				t.Fatalf("not adopted: %+v", res)
			}
			var line string
			for _, f := range res.Conversion.Findings {
				if f.Key == tc.Key && !f.Default {
					line = f.Describe()
				}
			}
			if !strings.HasPrefix(line, nginx.Prefix+tc.Key+"=") || !strings.Contains(line, ": "+string(tc.Verdict)+": ") {
				t.Errorf("report line %q, want %s%s=…: %s: …", line, nginx.Prefix, tc.Key, tc.Verdict)
			}
			switch {
			case res.Canary:
				if len(res.Routes) != 0 {
					t.Errorf("a canary got %d Routes of its own", len(res.Routes))
				}
				return
			case len(res.Routes) == 0:
				if len(res.Problems) == 0 {
					t.Fatal("no Route and no problem saying why")
				}
				return
			}
			for _, r := range res.Routes {
				for k, want := range tc.RouteAnnotations {
					got, ok := r.Annotations[k]
					if want == tc.Absent && ok || want != tc.Absent && got != want {
						t.Errorf("route %s: annotation %s = %q (set %v), want %q", r.Spec.Host, k, got, ok, want)
					}
				}
				if tc.Termination != "" && (r.Spec.TLS == nil || r.Spec.TLS.Termination != tc.Termination) {
					t.Errorf("route %s: tls %+v, want termination %s", r.Spec.Host, r.Spec.TLS, tc.Termination)
				}
				if tc.Insecure != "" && (r.Spec.TLS == nil || r.Spec.TLS.InsecureEdgeTerminationPolicy != tc.Insecure) {
					t.Errorf("route %s: tls %+v, want insecureEdgeTerminationPolicy %s", r.Spec.Host, r.Spec.TLS, tc.Insecure)
				}
			}
		})
	}
}
