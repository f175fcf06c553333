package routecore_test

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/routecore/examples"
)

// TestExamples runs every example of docs/reference/validation.md: each
// gets exactly the errors its entry names, and an accepted one exactly its
// warnings, so a rule that changes fails here and the page cannot show
// what the code no longer does.
func TestExamples(t *testing.T) {
	tables, err := examples.Tables()
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range tables {
		for i, e := range table.Examples {
			t.Run(fmt.Sprintf("%s/%d", table.Name, i), func(t *testing.T) {
				res := e.Run()
				if got := errorTexts(res.Errors); !slices.Equal(got, e.Errors) {
					t.Errorf("%s (%s):\nerrors %s\nwant   %s", e.Rule, e.Shows, shortTexts(got), shortTexts(e.Errors))
				}
				if len(e.Errors) == 0 && !slices.Equal(res.Warnings, e.Warnings) {
					t.Errorf("%s (%s):\nwarnings %q\nwant     %q", e.Rule, e.Shows, res.Warnings, e.Warnings)
				}
			})
		}
	}
}

// TestAnnotationExamples: every catalogue annotation has an example value
// its entry accepts, a Route with all of them (naming one issuer) is
// valid, and no example names an annotation that is gone.
func TestAnnotationExamples(t *testing.T) {
	all := examples.Base()
	all.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}
	all.Annotations = map[string]string{}
	for _, a := range routecore.AnnotationCatalogue {
		v, err := examples.AnnotationExample(a.Key)
		if err != nil {
			t.Error(err)
			continue
		}
		if err := a.Validate(field.NewPath("metadata", "annotations").Key(a.Key), v); err != nil {
			t.Errorf("%s: example %q is refused: %v", a.Key, v, err)
		}
		// canary-by-header-pattern excludes canary-by-header-value.
		if a.Key != routecore.AnnCertIssuerName && a.Key != routecore.AnnCertClusterIssuer && a.Key != routecore.AnnCanaryByHeaderPattern {
			all.Annotations[a.Key] = v
		}
	}
	// The canary example names an alternate backend.
	all.Spec.AlternateBackends = []routecore.RouteTargetReference{{Kind: "Service", Name: "shop-canary"}}
	routecore.Default(all, nil, routecore.DefaultOptions{})
	if errs := routecore.ValidateRoute(all, routecore.ValidateOptions{}); len(errs) > 0 {
		t.Errorf("a Route with every example annotation is invalid: %v", errs)
	}
	if stale := examples.StaleAnnotations(); len(stale) > 0 {
		t.Errorf("examples of annotations that are gone: %q", stale)
	}
	if _, err := examples.AnnotationExample("haproxy.router.openshift.io/gone"); err == nil {
		t.Error("AnnotationExample of an unknown key: no error")
	}
}

func errorTexts(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// shortTexts quotes texts, cutting the middle out of long ones so that
// failures stay readable.
func shortTexts(texts []string) string {
	out := make([]string, len(texts))
	for i, s := range texts {
		if len(s) > 400 {
			s = fmt.Sprintf("%s…(%d bytes)…%s", s[:200], len(s), s[len(s)-150:])
		}
		out[i] = s
	}
	return fmt.Sprintf("%q", out)
}
