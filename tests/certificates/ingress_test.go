package certificates

import (
	"context"
	"fmt"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

const shimIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: shim
  namespace: %[1]s
  labels: {routeshift.test/certificates: %[1]s}
  annotations: {cert-manager.io/cluster-issuer: ca-%[1]s}
spec:
  tls: [{hosts: [%[2]s], secretName: shim-tls}]
  rules:
  - host: %[2]s
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
`

// testIngressShim: cert-manager's ingress-shim fills the TLS Secret of an
// Ingress annotated with cert-manager.io/cluster-issuer, the Ingress's
// Route carries the certificate and the router serves it; after a renewal
// (requested as cmctl renew does) the Route carries the new certificate.
func testIngressShim(t *testing.T, e *env) {
	host := e.host("shim")
	apply(t, e.cp, fmt.Sprintf(shimIngress, e.ns, host))
	first := waitServed(t, e.router, host, "web", e.roots).chain[0]
	route := ingressRoute(t, e)
	if got := parseCert(t, []byte(route.Spec.TLS.Certificate)); !got.Equal(first) {
		t.Errorf("the router serves serial %s, the Route holds %s", first.SerialNumber, got.SerialNumber)
	}

	cert := &cmapi.Certificate{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: "shim-tls"}, cert); err != nil {
		t.Fatal(err)
	}
	cert.Status.Conditions = append(cert.Status.Conditions, cmapi.CertificateCondition{Type: cmapi.CertificateConditionIssuing,
		Status: cmmeta.ConditionTrue, Reason: "ManuallyTriggered", Message: "Certificate re-issuance manually triggered",
		LastTransitionTime: &metav1.Time{Time: time.Now()}})
	if err := e.c.Status().Update(context.Background(), cert); err != nil {
		t.Fatal(err)
	}
	framework.EventuallyWithin(t, wait, "the Ingress's Route carries the renewed certificate", func() error {
		got := parseCert(t, []byte(ingressRoute(t, e).Spec.TLS.Certificate))
		if got.Equal(first) {
			return fmt.Errorf("still serial %s", got.SerialNumber)
		}
		return nil
	})
	renewed := parseCert(t, []byte(ingressRoute(t, e).Spec.TLS.Certificate))
	framework.EventuallyWithin(t, wait, "the router serves the renewed certificate", func() error {
		s, err := fetch(e.router, host)
		if err != nil {
			return err
		}
		if !s.chain[0].Equal(renewed) {
			return fmt.Errorf("serves serial %s, want %s", s.chain[0].SerialNumber, renewed.SerialNumber)
		}
		return s.verify(host, e.roots)
	})
}

// ingressRoute is the one Route the Ingress shim owns.
func ingressRoute(t *testing.T, e *env) *routecore.Route {
	t.Helper()
	var list routecore.RouteList
	if err := e.c.List(context.Background(), &list, client.InNamespace(e.ns)); err != nil {
		t.Fatal(err)
	}
	var owned []routecore.Route
	for _, r := range list.Items {
		if ref := metav1.GetControllerOf(&r); ref != nil && ref.Kind == "Ingress" && ref.Name == "shim" {
			owned = append(owned, r)
		}
	}
	if len(owned) != 1 || owned[0].Spec.TLS == nil {
		t.Fatalf("Ingress shim owns %d Routes, want 1 with TLS: %+v", len(owned), owned)
	}
	return &owned[0]
}
