package routecore

import (
	"fmt"
	"testing"
)

// TestInsecureEdgeTerminationPolicy: edge and reencrypt routes take None,
// Allow or Redirect (or nothing); passthrough routes None or Redirect,
// since the router cannot serve their plain-HTTP side. Values are
// compared exactly.
func TestInsecureEdgeTerminationPolicy(t *testing.T) {
	const (
		terminating = "invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Allow, Redirect, or empty"
		passthrough = "invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Redirect, or empty"
	)
	tests := []struct {
		termination TLSTerminationType
		policy      InsecureEdgeTerminationPolicyType
		want        string
	}{
		{TLSTerminationEdge, "", ""},
		{TLSTerminationEdge, InsecureEdgeTerminationPolicyNone, ""},
		{TLSTerminationEdge, InsecureEdgeTerminationPolicyAllow, ""},
		{TLSTerminationEdge, InsecureEdgeTerminationPolicyRedirect, ""},
		{TLSTerminationEdge, "redirect", terminating},
		{TLSTerminationReencrypt, InsecureEdgeTerminationPolicyNone, ""},
		{TLSTerminationReencrypt, InsecureEdgeTerminationPolicyRedirect, ""},
		{TLSTerminationReencrypt, "Disable", terminating},
		{TLSTerminationPassthrough, "", ""},
		{TLSTerminationPassthrough, InsecureEdgeTerminationPolicyRedirect, ""},
		{TLSTerminationPassthrough, "Deny", passthrough},
		{TLSTerminationPassthrough, "none", passthrough},
	}
	for _, tt := range tests {
		t.Run(string(tt.termination)+"/"+string(tt.policy), func(t *testing.T) {
			var want []string
			if tt.want != "" {
				want = []string{`spec.tls.insecureEdgeTerminationPolicy: Invalid value: "` + string(tt.policy) + `": ` + tt.want}
			}
			sameMessages(t, ValidateRoute(route(withTLS(TLSConfig{Termination: tt.termination, InsecureEdgeTerminationPolicy: tt.policy})), ValidateOptions{}), want)
		})
	}
}

// TestTLSFieldsPerTermination: which certificate fields each termination
// takes; the certificate checks are off here, so that only the structure
// is judged.
func TestTLSFieldsPerTermination(t *testing.T) {
	ext := func(name string) *LocalObjectReference { return &LocalObjectReference{Name: name} }
	const unsupported = `spec.tls.termination: Unsupported value: "%s": supported values: "edge", "passthrough", "reencrypt"`
	tests := []struct {
		name string
		tls  TLSConfig
		want []string
	}{
		{"passthrough, certificate", TLSConfig{Termination: TLSTerminationPassthrough, Certificate: "c"},
			[]string{`spec.tls.certificate: Invalid value: "redacted certificate data": passthrough termination does not support certificates`}},
		{"passthrough, key", TLSConfig{Termination: TLSTerminationPassthrough, Key: "k"},
			[]string{`spec.tls.key: Invalid value: "redacted key data": passthrough termination does not support certificates`}},
		{"passthrough, CA", TLSConfig{Termination: TLSTerminationPassthrough, CACertificate: "ca"},
			[]string{`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": passthrough termination does not support certificates`}},
		{"passthrough, external certificate without a name", TLSConfig{Termination: TLSTerminationPassthrough, ExternalCertificate: ext("")}, nil},
		{"reencrypt, destination CA", TLSConfig{Termination: TLSTerminationReencrypt, DestinationCACertificate: "d"}, nil},
		{"reencrypt, everything", TLSConfig{Termination: TLSTerminationReencrypt, Certificate: "c", Key: "k", CACertificate: "ca", DestinationCACertificate: "d"}, nil},
		{"edge, external certificate and key", TLSConfig{Termination: TLSTerminationEdge, Key: "k", ExternalCertificate: ext("web-tls")}, nil},
		{"edge, external certificate without a name and a certificate", TLSConfig{Termination: TLSTerminationEdge, Certificate: "c", ExternalCertificate: ext("")}, nil},
		{"edge, certificate and external certificate", TLSConfig{Termination: TLSTerminationEdge, Certificate: "c", ExternalCertificate: ext("web-tls")},
			[]string{`spec.tls.externalCertificate: Invalid value: "web-tls": cannot specify both tls.certificate and tls.externalCertificate`}},
		{"unknown termination with certificates: only the termination", TLSConfig{Termination: "http", Certificate: "c", DestinationCACertificate: "d"},
			[]string{fmt.Sprintf(unsupported, "http")}},
		{"unknown termination, policy Allow", TLSConfig{Termination: "Edge", InsecureEdgeTerminationPolicy: InsecureEdgeTerminationPolicyAllow},
			[]string{fmt.Sprintf(unsupported, "Edge")}},
		{"unknown termination, unknown policy", TLSConfig{Termination: "tls", InsecureEdgeTerminationPolicy: "x"}, []string{
			fmt.Sprintf(unsupported, "tls"),
			`spec.tls.insecureEdgeTerminationPolicy: Invalid value: "x": invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Allow, Redirect, or empty`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(withTLS(tt.tls)), ValidateOptions{SkipCertificateChecks: true}), tt.want)
		})
	}
}

// TestValidateCertificates: the router's extended validation checks edge
// and reencrypt routes only, and the destination CA of reencrypt routes
// only.
func TestValidateCertificates(t *testing.T) {
	p := testCerts(t)
	cert, key, otherKey := string(p.Leaf.CertPEM), string(p.Leaf.KeyPEM), string(p.Other.KeyPEM)
	mismatch := `spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`
	badDest := `spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": failed to parse destination CA certificate: data does not contain any valid RSA or ECDSA certificates`
	tests := []struct {
		name string
		tls  *TLSConfig
		want []string
	}{
		{"no TLS", nil, nil},
		{"passthrough: not looked into", &TLSConfig{Termination: TLSTerminationPassthrough, Certificate: cert, Key: otherKey}, nil},
		{"edge, matching key", &TLSConfig{Termination: TLSTerminationEdge, Certificate: cert, Key: key}, nil},
		{"edge, other key", &TLSConfig{Termination: TLSTerminationEdge, Certificate: cert, Key: otherKey}, []string{mismatch}},
		{"reencrypt, other key", &TLSConfig{Termination: TLSTerminationReencrypt, Certificate: cert, Key: otherKey}, []string{mismatch}},
		{"edge: destination CA not read", &TLSConfig{Termination: TLSTerminationEdge, DestinationCACertificate: "junk"}, nil},
		{"reencrypt: destination CA read", &TLSConfig{Termination: TLSTerminationReencrypt, DestinationCACertificate: "junk"}, []string{badDest}},
		{"edge, no material", &TLSConfig{Termination: TLSTerminationEdge}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateCertificates(route(func(r *Route) { r.Spec.TLS = tt.tls })), tt.want)
		})
	}
}

// TestCertificatesOnUpdateEachField: a stored certificate that fails the
// checks is judged again as soon as the termination, the certificate, the
// key, the CA or the destination CA changes, and not for other changes of
// spec.tls.
func TestCertificatesOnUpdateEachField(t *testing.T) {
	p := testCerts(t)
	cert, otherKey, ca := string(p.Leaf.CertPEM), string(p.Other.KeyPEM), string(p.CA.CertPEM)
	stored := TLSConfig{Termination: TLSTerminationReencrypt, Certificate: cert, Key: otherKey}
	mismatch := []string{`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`}
	tests := []struct {
		name   string
		change func(*TLSConfig)
		want   []string
	}{
		{"nothing", func(*TLSConfig) {}, nil},
		{"insecure policy", func(c *TLSConfig) { c.InsecureEdgeTerminationPolicy = InsecureEdgeTerminationPolicyRedirect }, nil},
		{"termination", func(c *TLSConfig) { c.Termination = TLSTerminationEdge }, mismatch},
		{"certificate", func(c *TLSConfig) { c.Certificate = cert + "\n" }, mismatch},
		{"key", func(c *TLSConfig) { c.Key = otherKey + "\n" }, mismatch},
		{"CA", func(c *TLSConfig) { c.CACertificate = ca }, mismatch},
		{"destination CA", func(c *TLSConfig) { c.DestinationCACertificate = ca }, mismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			updated := stored
			tt.change(&updated)
			sameMessages(t, ValidateRouteUpdate(route(withTLS(updated)), route(withTLS(stored)), ValidateOptions{}), tt.want)
		})
	}
	sameMessages(t, ValidateRouteUpdate(route(withTLS(stored)), route(), ValidateOptions{}), mismatch)
	sameMessages(t, ValidateRouteUpdate(route(withTLS(stored)), route(withTLS(stored)), ValidateOptions{SkipCertificateChecks: true}), nil)
}
