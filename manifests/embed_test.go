package manifests

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/ingress"
)

// TestIngressClassNamesTheController: the installed IngressClass names the
// controller the Ingress-to-Route controller serves by default.
func TestIngressClassNamesTheController(t *testing.T) {
	data, err := FS.ReadFile("webhook/ingressclass.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ic := &networkingv1.IngressClass{}
	if err := yaml.UnmarshalStrict(data, ic); err != nil {
		t.Fatal(err)
	}
	if ic.Spec.Controller != ingress.DefaultControllerName {
		t.Errorf("spec.controller = %q, want %q", ic.Spec.Controller, ingress.DefaultControllerName)
	}
}
