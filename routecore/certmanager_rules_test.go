package routecore

import "testing"

// TestCertManagerRuleBoundaries pins the limits cert-manager puts on a
// Certificate, at their edges: a duration of at least an hour, a
// renew-before of at least 5 minutes and below the duration (90 days when
// none is given), and the key sizes of each algorithm.
func TestCertManagerRuleBoundaries(t *testing.T) {
	ann := func(k string) string { return "metadata.annotations[" + k + "]: " }
	withIssuer := func(kv ...string) *Route {
		return route(edge, annotated(append([]string{AnnCertIssuer, "ca"}, kv...)...))
	}
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"duration of an hour", withIssuer(AnnCertDuration, "1h"), nil},
		{"duration under an hour", withIssuer(AnnCertDuration, "59m59s"),
			[]string{ann(AnnCertDuration) + `Invalid value: "59m59s": certificate duration must be greater than 1h0m0s`}},
		{"negative duration", withIssuer(AnnCertDuration, "-2160h"),
			[]string{ann(AnnCertDuration) + `Invalid value: "-2160h": certificate duration must be greater than 1h0m0s`}},
		{"renew-before of 5 minutes", withIssuer(AnnCertRenewBefore, "5m"), nil},
		{"renew-before under 5 minutes", withIssuer(AnnCertRenewBefore, "4m59s"),
			[]string{ann(AnnCertRenewBefore) + `Invalid value: "4m59s": certificate renewBefore must be greater than 5m0s`}},
		{"renew-before just under the default duration", withIssuer(AnnCertRenewBefore, "2159h59m"), nil},
		{"renew-before of the default duration", withIssuer(AnnCertRenewBefore, "2160h"),
			[]string{ann(AnnCertRenewBefore) + `Invalid value: "2160h": certificate duration 2160h0m0s must be greater than renewBefore 2160h0m0s`}},
		{"renew-before just under the given duration", withIssuer(AnnCertDuration, "2h", AnnCertRenewBefore, "119m"), nil},
		{"renew-before over the given duration", withIssuer(AnnCertDuration, "2h", AnnCertRenewBefore, "3h"),
			[]string{ann(AnnCertRenewBefore) + `Invalid value: "3h": certificate duration 2h0m0s must be greater than renewBefore 3h0m0s`}},
		{"short duration, renew-before over it", withIssuer(AnnCertDuration, "30m", AnnCertRenewBefore, "1h"), []string{
			ann(AnnCertDuration) + `Invalid value: "30m": certificate duration must be greater than 1h0m0s`,
			ann(AnnCertRenewBefore) + `Invalid value: "1h": certificate duration 30m0s must be greater than renewBefore 1h0m0s`}},
		{"unreadable renew-before: its own error only", withIssuer(AnnCertDuration, "2h", AnnCertRenewBefore, "soon"),
			[]string{ann(AnnCertRenewBefore) + `Invalid value: "soon": must be a duration such as 2160h or 90m (cert-manager reads it with Go's time.ParseDuration: time: invalid duration "soon")`}},
		{"RSA by default: 2048", withIssuer(AnnCertPrivateKeySize, "2048"), nil},
		{"RSA by default: 8192", withIssuer(AnnCertPrivateKeySize, "8192"), nil},
		{"RSA by default: 2047", withIssuer(AnnCertPrivateKeySize, "2047"),
			[]string{ann(AnnCertPrivateKeySize) + `Invalid value: "2047": must be between 2048 and 8192 for rsa keyAlgorithm`}},
		{"RSA: 8193", withIssuer(AnnCertPrivateKeyAlgorithm, "RSA", AnnCertPrivateKeySize, "8193"),
			[]string{ann(AnnCertPrivateKeySize) + `Invalid value: "8193": must be between 2048 and 8192 for rsa keyAlgorithm`}},
		{"ECDSA: 256", withIssuer(AnnCertPrivateKeyAlgorithm, "ECDSA", AnnCertPrivateKeySize, "256"), nil},
		{"ECDSA: 521", withIssuer(AnnCertPrivateKeyAlgorithm, "ECDSA", AnnCertPrivateKeySize, "521"), nil},
		{"ECDSA: 512", withIssuer(AnnCertPrivateKeyAlgorithm, "ECDSA", AnnCertPrivateKeySize, "512"),
			[]string{ann(AnnCertPrivateKeySize) + `Unsupported value: "512": supported values: "256", "384", "521"`}},
		{"Ed25519: any size", withIssuer(AnnCertPrivateKeyAlgorithm, "Ed25519", AnnCertPrivateKeySize, "9999"), nil},
		{"unknown algorithm: its own error only", withIssuer(AnnCertPrivateKeyAlgorithm, "DSA", AnnCertPrivateKeySize, "1"),
			[]string{ann(AnnCertPrivateKeyAlgorithm) + `Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"`}},
		{"unreadable size: its own error only", withIssuer(AnnCertPrivateKeyAlgorithm, "ECDSA", AnnCertPrivateKeySize, "big"),
			[]string{ann(AnnCertPrivateKeySize) + `Invalid value: "big": must be a whole number of bits`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{}), tt.want)
		})
	}
}

// TestCertManagerIssuerRules: a Route names one issuer, and its kind and
// group go with an Issuer only: cert-manager's own kinds without a group,
// any kind of another group.
func TestCertManagerIssuerRules(t *testing.T) {
	ann := func(k string) string { return "metadata.annotations[" + k + "]: " }
	tests := []struct {
		name string
		kv   []string
		want []string
	}{
		{"all three issuer keys", []string{AnnCertIssuer, "ca", AnnCertIssuerName, "ca2", AnnCertClusterIssuer, "le"}, []string{
			ann(AnnCertIssuerName) + `Invalid value: "ca2": cannot be set with cert-manager.io/issuer: name one issuer`,
			ann(AnnCertClusterIssuer) + `Invalid value: "le": cannot be set with cert-manager.io/issuer: name one issuer`}},
		{"issuer-name and cluster-issuer", []string{AnnCertIssuerName, "ca", AnnCertClusterIssuer, "le"},
			[]string{ann(AnnCertClusterIssuer) + `Invalid value: "le": cannot be set with cert-manager.io/issuer-name: name one issuer`}},
		{"settings without an issuer name the first in catalogue order", []string{AnnCertRenewBefore, "24h", AnnCertAltNames, "a.example.com"},
			[]string{ann(AnnCertIssuer) + "Required value: cert-manager.io/alt-names needs an issuer: set cert-manager.io/issuer (or cert-manager.io/cluster-issuer)"}},
		{"kind ClusterIssuer with issuer", []string{AnnCertIssuer, "ca", AnnCertIssuerKind, "ClusterIssuer"}, nil},
		{"group alone", []string{AnnCertIssuer, "ca", AnnCertIssuerGroup, "awspca.cert-manager.io"}, nil},
		{"kind of cert-manager's group, named", []string{AnnCertIssuer, "ca", AnnCertIssuerKind, "Issuer", AnnCertIssuerGroup, "cert-manager.io"}, nil},
		{"other kind with an empty group", []string{AnnCertIssuer, "ca", AnnCertIssuerKind, "Vault", AnnCertIssuerGroup, ""}, []string{
			ann(AnnCertIssuerGroup) + `Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			ann(AnnCertIssuerKind) + `Invalid value: "Vault": must be one of Issuer or ClusterIssuer`}},
		{"cluster-issuer with an empty kind", []string{AnnCertClusterIssuer, "le", AnnCertIssuerKind, ""}, []string{
			ann(AnnCertIssuerKind) + `Invalid value: "": must not be empty`,
			ann(AnnCertIssuerKind) + `Invalid value: "": cannot be set with cert-manager.io/cluster-issuer, which names a ClusterIssuer of cert-manager.io`}},
		{"cluster-issuer with a group", []string{AnnCertClusterIssuer, "le", AnnCertIssuerGroup, "awspca.cert-manager.io"},
			[]string{ann(AnnCertIssuerGroup) + `Invalid value: "awspca.cert-manager.io": cannot be set with cert-manager.io/cluster-issuer, which names a ClusterIssuer of cert-manager.io`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(edge, annotated(tt.kv...)), ValidateOptions{}), tt.want)
		})
	}
}

// TestCertManagerRouteRules: the Route must be able to serve what
// cert-manager issues: TLS that the router terminates, no key of its own,
// cert-manager's Secret as its only external certificate, and a name to
// certify: the host, or any name an annotation gives.
func TestCertManagerRouteRules(t *testing.T) {
	noHost := func(r *Route) { r.Spec.Host, r.Spec.Subdomain = "", "shop" }
	external := func(name string) func(*Route) {
		return withTLS(TLSConfig{Termination: TLSTerminationEdge, ExternalCertificate: &LocalObjectReference{Name: name}})
	}
	needsName := "spec.host: Required value: cert-manager.io/issuer asks for a certificate, which needs a name: set spec.host or cert-manager.io/alt-names"
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"no host, a common name", route(edge, noHost, annotated(AnnCertIssuer, "ca", AnnCertCommonName, "shop")), nil},
		{"no host, an IP address", route(edge, noHost, annotated(AnnCertIssuer, "ca", AnnCertIPSANs, "10.0.0.1")), nil},
		{"no host, a URI", route(edge, noHost, annotated(AnnCertIssuer, "ca", AnnCertURISANs, "spiffe://example.com/web")), nil},
		{"no host, an email address", route(edge, noHost, annotated(AnnCertIssuer, "ca", AnnCertEmailSANs, "ops@example.com")), nil},
		{"no host, an empty common name", route(edge, noHost, annotated(AnnCertIssuer, "ca", AnnCertCommonName, "")), []string{needsName}},
		{"external certificate without a name", route(external(""), annotated(AnnCertIssuer, "ca")), nil},
		{"key and another external certificate", route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt, Key: "k",
			ExternalCertificate: &LocalObjectReference{Name: "mine"}}), annotated(AnnCertIssuer, "ca")), []string{
			`spec.tls.key: Invalid value: "redacted key data": cannot be combined with cert-manager.io/issuer: remove key and certificate to serve cert-manager's certificate, or the annotation to keep them`,
			`spec.tls.externalCertificate.name: Invalid value: "mine": cert-manager fills Secret r-route-tls for cert-manager.io/issuer: name that Secret, or remove the annotation`}},
		{"a certificate without a key", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: "c"}), annotated(AnnCertIssuer, "ca")),
			[]string{`spec.tls.certificate: Invalid value: "redacted certificate data": cannot be combined with cert-manager.io/issuer: remove the certificate to serve cert-manager's, or the annotation to keep it`}},
		{"a certificate and its key: named once, on the key", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: "c", Key: "k"}), annotated(AnnCertClusterIssuer, "le")),
			[]string{`spec.tls.key: Invalid value: "redacted key data": cannot be combined with cert-manager.io/cluster-issuer: remove key and certificate to serve cert-manager's certificate, or the annotation to keep them`}},
		{"a CA certificate alone is no certificate of its own", route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt, CACertificate: "ca", DestinationCACertificate: "d"}), annotated(AnnCertIssuer, "ca")), nil},
		{"passthrough: only the termination is named", route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough}), noHost, annotated(AnnCertIssuer, "ca")),
			[]string{`spec.tls.termination: Invalid value: "passthrough": cert-manager.io/issuer asks for a certificate, which the router serves only on edge and reencrypt routes: it does not terminate TLS of passthrough routes`}},
		{"no TLS, asked by issuer-name", route(annotated(AnnCertIssuerName, "ca")),
			[]string{"spec.tls: Required value: cert-manager.io/issuer-name asks for a certificate, which only a TLS route serves: add tls: {termination: edge} (or reencrypt)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{SkipCertificateChecks: true}), tt.want)
		})
	}
}

// TestCertManagerRulesOnUpdate: the rules across annotations run again
// only when a cert-manager annotation or spec.tls (termination, key,
// certificate, external certificate) changed, so stored Routes stay
// editable.
func TestCertManagerRulesOnUpdate(t *testing.T) {
	noTLS := route(annotated(AnnCertIssuer, "ca"))
	inlineKey := withTLS(TLSConfig{Termination: TLSTerminationEdge, Key: "k", Certificate: "c"})
	keyErr := `spec.tls.key: Invalid value: "redacted key data": cannot be combined with cert-manager.io/issuer: remove key and certificate to serve cert-manager's certificate, or the annotation to keep them`
	tests := []struct {
		name     string
		old, new *Route
		want     []string
	}{
		{"stored without TLS, label added", noTLS, route(annotated(AnnCertIssuer, "ca"), func(r *Route) { r.Labels = map[string]string{"a": "b"} }), nil},
		{"stored without TLS, issuer changed", noTLS, route(annotated(AnnCertIssuer, "ca2")),
			[]string{"spec.tls: Required value: cert-manager.io/issuer asks for a certificate, which only a TLS route serves: add tls: {termination: edge} (or reencrypt)"}},
		{"stored with a key, certificate changed", route(inlineKey, annotated(AnnCertIssuer, "ca")),
			route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Key: "k", Certificate: "c2"}), annotated(AnnCertIssuer, "ca")), []string{keyErr}},
		{"stored with a key, termination changed", route(inlineKey, annotated(AnnCertIssuer, "ca")),
			route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt, Key: "k", Certificate: "c"}), annotated(AnnCertIssuer, "ca")), []string{keyErr}},
		{"stored with a key, annotation added", route(inlineKey, annotated(AnnCertIssuer, "ca")),
			route(inlineKey, annotated(AnnCertIssuer, "ca", AnnCertDuration, "24h")), []string{keyErr}},
		{"stored with a key, insecure policy changed", route(inlineKey, annotated(AnnCertIssuer, "ca")),
			route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Key: "k", Certificate: "c", InsecureEdgeTerminationPolicy: InsecureEdgeTerminationPolicyRedirect}), annotated(AnnCertIssuer, "ca")), nil},
		{"stored with a key, an annotation removed", route(inlineKey, annotated(AnnCertIssuer, "ca", AnnCertDuration, "24h")),
			route(inlineKey, annotated(AnnCertIssuer, "ca")), nil},
		{"TLS removed", route(edge, annotated(AnnCertIssuer, "ca")), route(annotated(AnnCertIssuer, "ca")),
			[]string{"spec.tls: Required value: cert-manager.io/issuer asks for a certificate, which only a TLS route serves: add tls: {termination: edge} (or reencrypt)"}},
		{"external certificate renamed", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, ExternalCertificate: &LocalObjectReference{Name: "a"}}), annotated(AnnCertIssuer, "ca")),
			route(withTLS(TLSConfig{Termination: TLSTerminationEdge, ExternalCertificate: &LocalObjectReference{Name: "b"}}), annotated(AnnCertIssuer, "ca")),
			[]string{`spec.tls.externalCertificate.name: Invalid value: "b": cert-manager fills Secret r-route-tls for cert-manager.io/issuer: name that Secret, or remove the annotation`}},
		{"external certificate added", route(edge, annotated(AnnCertIssuer, "ca")),
			route(withTLS(TLSConfig{Termination: TLSTerminationEdge, ExternalCertificate: &LocalObjectReference{Name: "b"}}), annotated(AnnCertIssuer, "ca")),
			[]string{`spec.tls.externalCertificate.name: Invalid value: "b": cert-manager fills Secret r-route-tls for cert-manager.io/issuer: name that Secret, or remove the annotation`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRouteUpdate(tt.new, tt.old, ValidateOptions{SkipCertificateChecks: true}), tt.want)
		})
	}
}
