package routecore

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDefaultTermination: a known termination in any case becomes lower
// case, whatever else is set; an empty one becomes edge unless a
// destination CA is set; an unknown one is left for validation.
func TestDefaultTermination(t *testing.T) {
	tests := []struct {
		in            TLSTerminationType
		destinationCA bool
		want          TLSTerminationType
	}{
		{"edge", false, TLSTerminationEdge},
		{"EDGE", false, TLSTerminationEdge},
		{"ReEnCrypt", false, TLSTerminationReencrypt},
		{"Passthrough", false, TLSTerminationPassthrough},
		{"Edge", true, TLSTerminationEdge},
		{"REENCRYPT", true, TLSTerminationReencrypt},
		{"", false, TLSTerminationEdge},
		{"", true, ""},
		{"re-encrypt", false, "re-encrypt"},
		{"edge ", false, "edge "},
		{"Bogus", true, "Bogus"},
	}
	for _, tt := range tests {
		r := route(withTLS(TLSConfig{Termination: tt.in}))
		if tt.destinationCA {
			r.Spec.TLS.DestinationCACertificate = "ca"
		}
		Default(r, nil, DefaultOptions{})
		if r.Spec.TLS.Termination != tt.want {
			t.Errorf("Default(termination %q, destination CA %v) = %q, want %q", tt.in, tt.destinationCA, r.Spec.TLS.Termination, tt.want)
		}
	}
	// No TLS section: none is added.
	r := route()
	Default(r, nil, DefaultOptions{})
	if r.Spec.TLS != nil {
		t.Errorf("Default added %+v", r.Spec.TLS)
	}
}

// TestDefaultWeightsAreSeparate: every defaulted backend gets a weight of
// DefaultWeight of its own, so changing one leaves the others alone.
func TestDefaultWeightsAreSeparate(t *testing.T) {
	if DefaultWeight != 100 {
		t.Fatalf("DefaultWeight = %d, want 100", DefaultWeight)
	}
	r := &Route{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"}, Spec: RouteSpec{
		Host: "h.example.com", To: RouteTargetReference{Name: "a"},
		AlternateBackends: []RouteTargetReference{{Name: "b"}, {Name: "c", Kind: "Other"}},
	}}
	Default(r, nil, DefaultOptions{})
	*r.Spec.To.Weight = 1
	for i, b := range r.Spec.AlternateBackends {
		if b.Weight == nil || *b.Weight != DefaultWeight {
			t.Errorf("alternateBackends[%d].weight = %v, want its own %d", i, b.Weight, DefaultWeight)
		}
	}
	if r.Spec.AlternateBackends[0].Weight == r.Spec.AlternateBackends[1].Weight {
		t.Error("two backends share one weight")
	}
	if k := r.Spec.AlternateBackends[1].Kind; k != "Other" {
		t.Errorf("a given kind became %q", k)
	}
}

// TestDefaultOnUpdate: on update an empty host takes the stored one,
// whatever else the new Route says (a subdomain, a route suffix), and no
// host is generated nor marked generated.
func TestDefaultOnUpdate(t *testing.T) {
	old := route(func(r *Route) { r.Spec.Host = "stored.example.com" })
	tests := []struct {
		name     string
		in       *Route
		old      *Route
		wantHost string
	}{
		{"empty host, subdomain given", route(func(r *Route) { r.Spec.Host, r.Spec.Subdomain = "", "shop" }), old, "stored.example.com"},
		{"empty host, wildcard Subdomain", route(func(r *Route) { r.Spec.Host, r.Spec.WildcardPolicy = "", WildcardPolicySubdomain }), old, "stored.example.com"},
		{"stored host empty too", route(func(r *Route) { r.Spec.Host = "" }), route(func(r *Route) { r.Spec.Host = "" }), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Default(tt.in, tt.old, DefaultOptions{RouteSuffix: "apps.example.com"})
			if tt.in.Spec.Host != tt.wantHost {
				t.Errorf("host = %q, want %q", tt.in.Spec.Host, tt.wantHost)
			}
			if _, ok := tt.in.Annotations[HostGeneratedAnnotation]; ok {
				t.Errorf("host marked generated on update: %v", tt.in.Annotations)
			}
		})
	}
}
