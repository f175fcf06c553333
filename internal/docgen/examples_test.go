package main

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/routecore"
)

// TestAnnotationExamplesValidate: every catalogue annotation has an example
// the catalogue accepts, and an edge Route with all of them set is valid
// (but the cert-manager issuer keys other than cert-manager.io/issuer:
// a Route names one issuer).
func TestAnnotationExamplesValidate(t *testing.T) {
	all := baseRoute()
	all.Spec.To.Kind = "Service"
	all.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}
	all.Annotations = map[string]string{}
	for _, a := range routecore.AnnotationCatalogue {
		example, err := annotationExample(a.Key)
		if err != nil {
			t.Error(err)
			continue
		}
		if err := a.Validate(field.NewPath("metadata", "annotations").Key(a.Key), example); err != nil {
			t.Errorf("%s: example %q is refused: %v", a.Key, example, err)
		}
		if a.Key != routecore.AnnCertIssuerName && a.Key != routecore.AnnCertClusterIssuer {
			all.Annotations[a.Key] = example
		}
	}
	if errs := routecore.ValidateRoute(all, routecore.ValidateOptions{}); len(errs) > 0 {
		t.Errorf("a Route with every example annotation is invalid: %v", errs)
	}
}

// TestExamplesCannotDrift: docgen fails, saying what to do, when an
// annotation has no example, and when an example names one that no longer
// exists. (Every router setting's example is a field of its entry in
// internal/settings, whose tests parse it.)
func TestExamplesCannotDrift(t *testing.T) {
	tests := []struct {
		name     string
		examples map[string]string
		change   func(m map[string]string)
		want     string
	}{
		{"annotation without example", annotationExampleValues, func(m map[string]string) { delete(m, routecore.AnnTimeoutTunnel) },
			"annotation haproxy.router.openshift.io/timeout-tunnel has no example: add one to annotationExampleValues in internal/docgen/examples.go"},
		{"example of a removed annotation", annotationExampleValues, func(m map[string]string) { m["haproxy.router.openshift.io/gone"] = "x" },
			"internal/docgen/examples.go has examples of haproxy.router.openshift.io/gone, which no longer exist: remove them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := make(map[string]string, len(tt.examples))
			for k, v := range tt.examples {
				saved[k] = v
			}
			t.Cleanup(func() {
				clear(tt.examples)
				for k, v := range saved {
					tt.examples[k] = v
				}
			})
			tt.change(tt.examples)
			if _, err := generate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("generate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
