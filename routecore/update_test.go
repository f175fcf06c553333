package routecore

import (
	"strings"
	"testing"
)

// TestValidateRouteUpdate pins the update rules: immutability, and the
// ratchets that keep stored routes editable.
func TestValidateRouteUpdate(t *testing.T) {
	long64 := strings.Repeat("a", 64)
	tests := []struct {
		name     string
		old, new *Route
		want     []string
	}{
		{name: "no change", old: route(), new: route()},
		{name: "host changed to a valid host", old: route(), new: route(func(r *Route) { r.Spec.Host = "new.example.com" })},
		{name: "the subdomain rule always applies",
			old: route(func(r *Route) { r.Spec.Host = long64 + ".example.com" }), new: route(func(r *Route) { r.Spec.Host = "UPPER.example.org" }),
			want: []string{`spec.host: Invalid value: "UPPER.example.org": host must conform to DNS 952 subdomain conventions`}},
		{name: "empty and None wildcard policies are the same",
			old: route(func(r *Route) { r.Spec.WildcardPolicy = "" }), new: route()},
		{name: "changed path with a space",
			old: route(func(r *Route) { r.Spec.Path = "/a b" }), new: route(func(r *Route) { r.Spec.Path = "/c d" }),
			want: []string{`spec.path: Invalid value: "/c d": cannot contain # or spaces`}},
		{name: "name is immutable",
			old: route(), new: route(func(r *Route) { r.Name = "other" }),
			want: []string{`metadata.name: Invalid value: "other": field is immutable`}},
		{name: "changed bad annotation value",
			old: route(withAnnotation(AnnTimeout, "5 minutes")), new: route(withAnnotation(AnnTimeout, "6 minutes")),
			want: []string{`metadata.annotations[haproxy.router.openshift.io/timeout]: Invalid value: "6 minutes": ` + timeUnitDetail}},
		{name: "weight rules still apply",
			old: route(), new: route(func(r *Route) { r.Spec.To.Weight = weight(300) }),
			want: []string{"spec.to.weight: Invalid value: 300: weight must be an integer between 0 and 256"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRouteUpdate(tt.new, tt.old, ValidateOptions{}), tt.want)
		})
	}
}

// TestCertificatesOnUpdate: stored certificates are not re-judged unless they
// change.
func TestCertificatesOnUpdate(t *testing.T) {
	p := testCerts(t)
	mismatched := withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: string(p.Leaf.CertPEM), Key: string(p.Other.KeyPEM)})
	mismatch := []string{`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`}

	sameMessages(t, ValidateRouteUpdate(route(mismatched, func(r *Route) { r.Spec.Path = "/x" }), route(mismatched), ValidateOptions{}), nil)
	sameMessages(t, ValidateRouteUpdate(route(mismatched), route(withTLS(TLSConfig{Termination: TLSTerminationEdge})), ValidateOptions{}), mismatch)
	sameMessages(t, ValidateRouteUpdate(route(mismatched), route(), ValidateOptions{}), mismatch)
}
