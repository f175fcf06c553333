package routecore

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/internal/fixtures"
)

// TestDocumentedExamples: every Route example of OpenShift's route documentation
// (internal/fixtures) is valid once defaulted, and the hostless one gets the
// host OpenShift generates for it.
func TestDocumentedExamples(t *testing.T) {
	docs := strings.Split(fixtures.DocRoutes(testCerts(t)), "\n---\n")
	if len(docs) != fixtures.DocRouteCount {
		t.Fatalf("fixture has %d documents, want 16", len(docs))
	}
	for _, doc := range docs {
		var r Route
		if err := yaml.UnmarshalStrict([]byte(doc), &r); err != nil {
			t.Fatalf("fixture does not decode: %v\n%s", err, doc)
		}
		t.Run(r.Name, func(t *testing.T) {
			r.Namespace = "mynamespace"
			Default(&r, nil, DefaultOptions{})
			sameMessages(t, ValidateRoute(&r, ValidateOptions{}), nil)
			if r.Name == "no-route-hostname" && r.Spec.Host != "no-route-hostname-mynamespace.router.default.svc.cluster.local" {
				t.Errorf("generated host %q", r.Spec.Host)
			}
		})
	}
}
