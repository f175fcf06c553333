package routecore

import (
	"strings"
	"testing"
)

const annotationKeyMsg = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

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
		{name: "a bad label is reported once",
			old: route(), new: route(func(r *Route) { r.Labels = map[string]string{"tier": "front end"} }),
			want: []string{`metadata.labels: Invalid value: "front end": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{name: "bad annotation keys are reported once each, in key order",
			old: route(), new: route(withAnnotation("z z", "1"), withAnnotation("a a", "2")),
			want: []string{
				`metadata.annotations: Invalid value: "a a": ` + annotationKeyMsg,
				`metadata.annotations: Invalid value: "z z": ` + annotationKeyMsg}},
		{name: "annotations over the size limit are reported once",
			old: route(), new: route(withAnnotation("example.com/blob", strings.Repeat("x", 256*1024))),
			want: []string{"metadata.annotations: Too long: may not be more than 262144 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 10 { // map order must not show
				sameMessages(t, ValidateRouteUpdate(tt.new, tt.old, ValidateOptions{}), tt.want)
			}
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
