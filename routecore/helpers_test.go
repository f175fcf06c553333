package routecore

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/internal/fixtures"
)

// route returns a valid, defaulted route "r" in namespace "ns" for host
// www.example.com, changed by mods.
func route(mods ...func(*Route)) *Route {
	w := DefaultWeight
	r := &Route{
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"},
		Spec: RouteSpec{
			Host:           "www.example.com",
			To:             RouteTargetReference{Kind: "Service", Name: "service-name", Weight: &w},
			WildcardPolicy: WildcardPolicyNone,
		},
	}
	for _, m := range mods {
		m(r)
	}
	return r
}

func weight(w int32) *int32 { return &w }

func withTLS(t TLSConfig) func(*Route) {
	return func(r *Route) { r.Spec.TLS = &t }
}

func withAnnotation(k, v string) func(*Route) {
	return func(r *Route) {
		if r.Annotations == nil {
			r.Annotations = map[string]string{}
		}
		r.Annotations[k] = v
	}
}

// messages renders an error list the way kubectl shows each cause.
func messages(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// sameMessages fails the test unless got renders exactly as want.
func sameMessages(t *testing.T, got field.ErrorList, want []string) {
	t.Helper()
	g := messages(got)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n got: %q\nwant: %q", g, want)
	}
}

// testCerts returns the shared test certificates.
func testCerts(t testing.TB) fixtures.PKI {
	t.Helper()
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
