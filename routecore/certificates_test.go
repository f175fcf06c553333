package routecore

import "testing"

// TestCertificateChecks: the certs package's checks reach users as field
// errors, only for edge and reencrypt, and can be turned off.
func TestCertificateChecks(t *testing.T) {
	p := testCerts(t)
	cert, key, otherKey, ca := string(p.Leaf.CertPEM), string(p.Leaf.KeyPEM), string(p.Other.KeyPEM), string(p.CA.CertPEM)
	mismatch := `spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`
	tests := []struct {
		name string
		tls  TLSConfig
		skip bool
		want []string
	}{
		{name: "edge with matching certificate, key and CA", tls: TLSConfig{Termination: TLSTerminationEdge, Certificate: cert, Key: key, CACertificate: ca}},
		{name: "reencrypt with destination CA", tls: TLSConfig{Termination: TLSTerminationReencrypt, Certificate: cert, Key: key, DestinationCACertificate: ca}},
		{name: "key of another certificate", tls: TLSConfig{Termination: TLSTerminationEdge, Certificate: cert, Key: otherKey},
			want: []string{mismatch}},
		{name: "checks turned off", skip: true, tls: TLSConfig{Termination: TLSTerminationEdge, Certificate: cert, Key: otherKey}},
		{name: "reencrypt destination CA that is not PEM", tls: TLSConfig{Termination: TLSTerminationReencrypt, DestinationCACertificate: "junk"},
			want: []string{`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": failed to parse destination CA certificate: data does not contain any valid RSA or ECDSA certificates`}},
		{name: "passthrough reports the structural error only", tls: TLSConfig{Termination: TLSTerminationPassthrough, Certificate: "junk"},
			want: []string{`spec.tls.certificate: Invalid value: "redacted certificate data": passthrough termination does not support certificates`}},
		{name: "edge reports the destination CA structural error only", tls: TLSConfig{Termination: TLSTerminationEdge, DestinationCACertificate: "junk"},
			want: []string{`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": edge termination does not support destination certificates`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(withTLS(tt.tls)), ValidateOptions{SkipCertificateChecks: tt.skip}), tt.want)
		})
	}
}

// TestCertificateShapes: the shapes of certificate material a Route may
// carry: the key bundled after the certificate, the chain up to its CA in
// the certificate field, the key first; and what is refused.
func TestCertificateShapes(t *testing.T) {
	p := testCerts(t)
	cert, key, ca := string(p.Leaf.CertPEM), string(p.Leaf.KeyPEM), string(p.CA.CertPEM)
	tests := []struct {
		name string
		tls  TLSConfig
		want []string
	}{
		{"key bundled in the certificate", TLSConfig{Termination: TLSTerminationEdge, Certificate: cert + key}, nil},
		{"chain in the certificate", TLSConfig{Termination: TLSTerminationEdge, Certificate: cert + ca, Key: key, CACertificate: ca}, nil},
		{"key before the certificate", TLSConfig{Termination: TLSTerminationReencrypt, Certificate: key + cert}, nil},
		{"the CA first in the chain", TLSConfig{Termination: TLSTerminationEdge, Certificate: ca + cert, Key: key},
			[]string{`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`}},
		{"two keys bundled, the first another's", TLSConfig{Termination: TLSTerminationEdge, Certificate: cert + string(p.Other.KeyPEM) + key},
			[]string{`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(withTLS(tt.tls)), ValidateOptions{}), tt.want)
		})
	}
}
