package routecore

import "testing"

// TestRouterOptions: with the router's options (annotation values and
// certificates skipped) a Route is judged on its structure alone: bad
// values, cert-manager rules and certificates pass, bad keys and the
// spec's rules do not.
func TestRouterOptions(t *testing.T) {
	p := testCerts(t)
	router := ValidateOptions{SkipAnnotationValues: true, SkipCertificateChecks: true}
	mismatched := withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: string(p.Leaf.CertPEM), Key: string(p.Other.KeyPEM)})
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"bad annotation values", route(withAnnotation(AnnTimeout, "soon"), withAnnotation(AnnBalance, "fast"), withAnnotation("routeshift.io/x", "a\nb")), nil},
		{"cert-manager rules broken", route(withAnnotation(AnnCertDuration, "1m"), withAnnotation(AnnCertIssuer, "Bad_Name")), nil},
		{"certificate and key that do not match", route(mismatched), nil},
		{"a bad annotation key", route(withAnnotation("bad key", "1")),
			[]string{`metadata.annotations: Invalid value: "bad key": ` + annotationKeyMsg}},
		{"annotations over the size limit", route(withAnnotation("example.com/blob", string(make([]byte, 256*1024)))),
			[]string{"metadata.annotations: Too long: may not be more than 262144 bytes"}},
		{"the spec's rules", route(withAnnotation(AnnTimeout, "soon"), func(r *Route) { r.Spec.Path = "api"; r.Spec.To.Weight = weight(300) }), []string{
			`spec.path: Invalid value: "api": path must begin with /`,
			"spec.to.weight: Invalid value: 300: weight must be an integer between 0 and 256"}},
		{"passthrough with a certificate", route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough, Certificate: "c"})),
			[]string{`spec.tls.certificate: Invalid value: "redacted certificate data": passthrough termination does not support certificates`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, router), tt.want)
		})
	}
}
