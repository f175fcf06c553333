package routecore

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestSpecErrorAnatomy: each spec rule reports one error whose type, field
// path, bad value and detail are exactly those a client reads from the
// status causes; a wrong type or a bad value that is not the offending
// value (or its redacted stand-in) fails.
func TestSpecErrorAnatomy(t *testing.T) {
	long := strings.Repeat("n", 64)
	tests := []struct {
		name   string
		route  *Route
		typ    field.ErrorType
		field  string
		value  any
		detail string
	}{
		{"name of 64 characters", route(func(r *Route) { r.Name = long }),
			field.ErrorTypeInvalid, "metadata.name", long, "must be no more than 63 characters"},
		{"unqualified finalizer", route(func(r *Route) { r.Finalizers = []string{"cleanup"} }),
			field.ErrorTypeInvalid, "metadata.finalizers[0]", "cleanup", "name is neither a standard finalizer name nor is it fully qualified"},
		{"host not a DNS subdomain, labels not checked", route(withAnnotation(AllowNonDNSCompliantHostAnnotation, "true"), func(r *Route) { r.Spec.Host = "A.example.com" }),
			field.ErrorTypeInvalid, "spec.host", "A.example.com", dns952Msg},
		{"bad subdomain label: the label is the value", route(func(r *Route) { r.Spec.Host, r.Spec.Subdomain = "", "shop.E_U" }),
			field.ErrorTypeInvalid, "spec.subdomain", "E_U", labelMsg},
		{"path without a slash", route(func(r *Route) { r.Spec.Path = "api" }),
			field.ErrorTypeInvalid, "spec.path", "api", "path must begin with /"},
		{"path over the limit", route(func(r *Route) { r.Spec.Path = "/" + strings.Repeat("p", MaxPathLength) }),
			field.ErrorTypeTooLong, "spec.path", "", "may not be more than 2048 bytes"},
		{"weight 257 on spec.to", route(func(r *Route) { r.Spec.To.Weight = weight(257) }),
			field.ErrorTypeInvalid, "spec.to.weight", int32(257), "weight must be an integer between 0 and 256"},
		{"kind on spec.to", route(func(r *Route) { r.Spec.To.Kind = "Endpoints" }),
			field.ErrorTypeInvalid, "spec.to.kind", "Endpoints", "must reference a Service"},
		{"name missing on spec.to", route(func(r *Route) { r.Spec.To.Name = "" }),
			field.ErrorTypeRequired, "spec.to.name", "", ""},
		{"four alternate backends: a Required error", route(func(r *Route) {
			r.Spec.AlternateBackends = []RouteTargetReference{{Kind: "Service", Name: "a"}, {Kind: "Service", Name: "b"}, {Kind: "Service", Name: "c"}, {Kind: "Service", Name: "d"}}
		}), field.ErrorTypeRequired, "spec.alternateBackends", "", "cannot specify more than 3 alternate backends"},
		{"repeated alternate backend: kind and name are the value", route(func(r *Route) {
			r.Spec.AlternateBackends = []RouteTargetReference{{Kind: "Service", Name: "b"}, {Kind: "Service", Name: "b"}}
		}), field.ErrorTypeDuplicate, "spec.alternateBackends[1]", map[string]interface{}{"kind": "Service", "name": "b"}, ""},
		{"target port 0", route(func(r *Route) { r.Spec.Port = &RoutePort{TargetPort: intstr.FromInt32(0)} }),
			field.ErrorTypeRequired, "spec.port.targetPort", "", ""},
		{"termination not defaulted", route(withTLS(TLSConfig{})),
			field.ErrorTypeNotSupported, "spec.tls.termination", TLSTerminationType(""), `supported values: "edge", "passthrough", "reencrypt"`},
		{"edge with a destination CA: redacted", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, DestinationCACertificate: "PEM"})),
			field.ErrorTypeInvalid, "spec.tls.destinationCACertificate", "redacted destination ca certificate data", "edge termination does not support destination certificates"},
		{"passthrough with a key: redacted", route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough, Key: "PEM"})),
			field.ErrorTypeInvalid, "spec.tls.key", "redacted key data", "passthrough termination does not support certificates"},
		{"passthrough with an external certificate: the Secret's name", route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough, ExternalCertificate: &LocalObjectReference{Name: "web-tls"}})),
			field.ErrorTypeInvalid, "spec.tls.externalCertificate", "web-tls", "passthrough termination does not support certificates"},
		{"certificate and external certificate", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: "PEM", ExternalCertificate: &LocalObjectReference{Name: "web-tls"}})),
			field.ErrorTypeInvalid, "spec.tls.externalCertificate", "web-tls", "cannot specify both tls.certificate and tls.externalCertificate"},
		{"insecure policy on edge", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, InsecureEdgeTerminationPolicy: "Deny"})),
			field.ErrorTypeInvalid, "spec.tls.insecureEdgeTerminationPolicy", InsecureEdgeTerminationPolicyType("Deny"),
			"invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Allow, Redirect, or empty"},
		{"insecure policy Allow on passthrough", route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough, InsecureEdgeTerminationPolicy: InsecureEdgeTerminationPolicyAllow})),
			field.ErrorTypeInvalid, "spec.tls.insecureEdgeTerminationPolicy", InsecureEdgeTerminationPolicyAllow,
			"invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Redirect, or empty"},
		{"unknown wildcard policy", route(func(r *Route) { r.Spec.WildcardPolicy = "Any" }),
			field.ErrorTypeNotSupported, "spec.wildcardPolicy", WildcardPolicyType("Any"), `supported values: "None", "Subdomain"`},
		{"Subdomain policy without host", route(func(r *Route) {
			r.Spec.Host, r.Spec.Subdomain, r.Spec.WildcardPolicy = "", "shop", WildcardPolicySubdomain
		}),
			field.ErrorTypeInvalid, "spec.wildcardPolicy", WildcardPolicySubdomain, "host name not specified for wildcard policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateRoute(tt.route, ValidateOptions{SkipCertificateChecks: true})
			if len(errs) != 1 {
				t.Fatalf("want one error, got %q", messages(errs))
			}
			e := errs[0]
			if e.Type != tt.typ || e.Field != tt.field || e.Detail != tt.detail {
				t.Errorf("got type %q, field %q, detail %q; want %q, %q, %q", e.Type, e.Field, e.Detail, tt.typ, tt.field, tt.detail)
			}
			if tt.typ != field.ErrorTypeTooLong && !reflect.DeepEqual(e.BadValue, tt.value) {
				t.Errorf("bad value %#v (%T), want %#v (%T)", e.BadValue, e.BadValue, tt.value, tt.value)
			}
		})
	}
}

// TestSpecNameLength: on create a name is a DNS subdomain of at most 63
// characters, dots included; a name breaking both rules gets both errors,
// the subdomain rule's first.
func TestSpecNameLength(t *testing.T) {
	named := func(n string) *Route { return route(func(r *Route) { r.Name = n }) }
	tooLong := func(n string) string {
		return `metadata.name: Invalid value: "` + n + `": must be no more than 63 characters`
	}
	dotted63 := strings.Repeat("ab.", 21)[:62] + "z"
	dotted64 := strings.Repeat("ab.", 21) + "z"
	upper64 := "A" + strings.Repeat("a", 63)
	name254 := strings.Repeat("n", 254)
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"one character", named("a"), nil},
		{"63 characters with dots", named(dotted63), nil},
		{"64 characters with dots", named(dotted64), []string{tooLong(dotted64)}},
		{"64 characters, upper case first", named(upper64), []string{
			`metadata.name: Invalid value: "` + upper64 + `": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			tooLong(upper64)}},
		{"254 characters", named(name254), []string{
			`metadata.name: Invalid value: "` + name254 + `": must be no more than 253 characters`,
			tooLong(name254)}},
		{"unicode name", named("café"), []string{
			`metadata.name: Invalid value: "café": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{}), tt.want)
		})
	}
}

// TestSpecWildcardPolicyValues: the policy is exactly "", None or
// Subdomain (case matters); Subdomain needs a host. On update an unknown
// policy that also differs from the stored one is reported twice: not
// supported, and immutable.
func TestSpecWildcardPolicyValues(t *testing.T) {
	policy := func(p WildcardPolicyType) *Route { return route(func(r *Route) { r.Spec.WildcardPolicy = p }) }
	unsupported := func(p string) string {
		return `spec.wildcardPolicy: Unsupported value: "` + p + `": supported values: "None", "Subdomain"`
	}
	tests := []struct {
		name     string
		old, new *Route
		want     []string
	}{
		{"empty", nil, policy(""), nil},
		{"None", nil, policy(WildcardPolicyNone), nil},
		{"Subdomain with a host", nil, policy(WildcardPolicySubdomain), nil},
		{"lower-case none", nil, policy("none"), []string{unsupported("none")}},
		{"lower-case subdomain", nil, policy("subdomain"), []string{unsupported("subdomain")}},
		{"All", nil, policy("All"), []string{unsupported("All")}},
		{"unknown on update", policy(WildcardPolicyNone), policy("Any"), []string{
			unsupported("Any"), `spec.wildcardPolicy: Invalid value: "Any": field is immutable`}},
		{"unknown kept on update: reported, not immutable", policy("Any"), policy("Any"), []string{unsupported("Any")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.old == nil {
				sameMessages(t, ValidateRoute(tt.new, ValidateOptions{}), tt.want)
				return
			}
			sameMessages(t, ValidateRouteUpdate(tt.new, tt.old, ValidateOptions{}), tt.want)
		})
	}
}

// TestSpecTLSCombinedErrors: each TLS rule reports on its own field, in the
// order destination CA, external certificate, insecure policy; a
// termination that is not known, in any case spelling, stops the field
// rules but not the insecure policy rule.
func TestSpecTLSCombinedErrors(t *testing.T) {
	ext := &LocalObjectReference{Name: "web-tls"}
	const (
		destCA   = `spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": edge termination does not support destination certificates`
		both     = `spec.tls.externalCertificate: Invalid value: "web-tls": cannot specify both tls.certificate and tls.externalCertificate`
		policy   = `spec.tls.insecureEdgeTerminationPolicy: Invalid value: "Deny": invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Allow, Redirect, or empty`
		terminal = `spec.tls.termination: Unsupported value: "%s": supported values: "edge", "passthrough", "reencrypt"`
	)
	tests := []struct {
		name string
		tls  TLSConfig
		want []string
	}{
		{"edge: destination CA, both certificates, bad policy", TLSConfig{Termination: TLSTerminationEdge, Certificate: "c", DestinationCACertificate: "d",
			ExternalCertificate: ext, InsecureEdgeTerminationPolicy: "Deny"}, []string{destCA, both, policy}},
		{"reencrypt: both certificates only", TLSConfig{Termination: TLSTerminationReencrypt, Certificate: "c", DestinationCACertificate: "d",
			ExternalCertificate: ext}, []string{both}},
		{"passthrough: each field, not both certificates", TLSConfig{Termination: TLSTerminationPassthrough, Certificate: "c", ExternalCertificate: ext}, []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": passthrough termination does not support certificates`,
			`spec.tls.externalCertificate: Invalid value: "web-tls": passthrough termination does not support certificates`}},
		{"empty termination", TLSConfig{DestinationCACertificate: "d"}, []string{fmt.Sprintf(terminal, "")}},
		{"upper-case termination", TLSConfig{Termination: "EDGE", DestinationCACertificate: "d", Certificate: "c", ExternalCertificate: ext},
			[]string{fmt.Sprintf(terminal, "EDGE")}},
		{"capitalised passthrough with a bad policy", TLSConfig{Termination: "Passthrough", InsecureEdgeTerminationPolicy: "Deny"},
			[]string{fmt.Sprintf(terminal, "Passthrough"), policy}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(withTLS(tt.tls)), ValidateOptions{SkipCertificateChecks: true}), tt.want)
		})
	}
}

// TestSpecGeneratedName: the name the API server makes from generateName
// is the prefix cut to 58 characters and 5 more, so never over 63.
func TestSpecGeneratedName(t *testing.T) {
	tests := []struct {
		prefix string
		length int
	}{
		{"", 5},
		{"web-", 9},
		{strings.Repeat("g", 58), 63},
		{strings.Repeat("g", 59), 63},
		{strings.Repeat("g", 300), 63},
	}
	for _, tt := range tests {
		got := generatedName(tt.prefix)
		keep := tt.prefix[:min(len(tt.prefix), 58)]
		if len(got) != tt.length || got != keep+generatedNameSuffix {
			t.Errorf("generatedName(%d characters) = %q (%d), want %q (%d)", len(tt.prefix), got, len(got), keep+generatedNameSuffix, tt.length)
		}
	}
}

// TestSpecExternalCertificateSecretAnatomy: a missing Secret is NotFound,
// a Secret of any type but kubernetes.io/tls (empty included) is Invalid
// with the Secret's name as the value; both on the path given.
func TestSpecExternalCertificateSecretAnatomy(t *testing.T) {
	path := field.NewPath("spec", "tls", "externalCertificate", "name")
	tests := []struct {
		name   string
		secret *corev1.Secret
		typ    field.ErrorType
		value  any
	}{
		{"missing", nil, field.ErrorTypeNotFound, `secrets "web-tls" not found`},
		{"no type", &corev1.Secret{}, field.ErrorTypeInvalid, "web-tls"},
		{"basic auth", &corev1.Secret{Type: corev1.SecretTypeBasicAuth}, field.ErrorTypeInvalid, "web-tls"},
		{"TLS", &corev1.Secret{Type: corev1.SecretTypeTLS}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateExternalCertificateSecret(path, "web-tls", tt.secret)
			if tt.typ == "" {
				if err != nil {
					t.Fatalf("got %v, want none", err)
				}
				return
			}
			if err == nil || err.Type != tt.typ || err.Field != path.String() || !reflect.DeepEqual(err.BadValue, tt.value) {
				t.Fatalf("got %#v, want type %q on %s with value %#v", err, tt.typ, path, tt.value)
			}
			if tt.typ == field.ErrorTypeInvalid && err.Detail != `secret of type "kubernetes.io/tls" required` {
				t.Errorf("detail %q", err.Detail)
			}
		})
	}
}

// selfSignedPEM is an ECDSA certificate for www.example.com signed by its
// own key, which no route CA verifies, and that key.
func selfSignedPEM(t *testing.T) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "www.example.com"}, DNSNames: []string{"www.example.com"},
		NotBefore: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
}

// TestSpecSecretMaterialNeverInErrors: whatever is wrong with a Route's
// certificate material, no error (its value, detail or rendering) repeats
// any of it: the structural rules, the certificate checks and the
// cert-manager rules all show redacted stand-ins.
func TestSpecSecretMaterialNeverInErrors(t *testing.T) {
	p := testCerts(t)
	cert, key, otherKey, ca := string(p.Leaf.CertPEM), string(p.Leaf.KeyPEM), string(p.Other.KeyPEM), string(p.CA.CertPEM)
	selfCert, selfKey := selfSignedPEM(t)
	junkKey := "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LW1hdGVyaWFsLWp1bmstaW4tYS1rZXk=\n-----END PRIVATE KEY-----\n"
	sshKey := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEtc2VjcmV0LWJvZHk=\n-----END OPENSSH PRIVATE KEY-----\n"
	// The first body line of every PEM text stands for its content.
	var bodies []string
	for _, text := range []string{cert, key, otherKey, ca, selfCert, selfKey, junkKey, sshKey} {
		lines := strings.Split(text, "\n")
		bodies = append(bodies, lines[1])
	}
	tests := []struct {
		name  string
		route *Route
	}{
		{"edge, certificate no CA verifies, another's key", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: selfCert, Key: key, CACertificate: ca}))},
		{"reencrypt, mismatched key, a key as destination CA", route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt, Certificate: cert, Key: otherKey, DestinationCACertificate: selfKey}))},
		{"edge, key that does not parse", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: cert, Key: junkKey}))},
		{"edge, key of an unknown type", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: cert, Key: sshKey}))},
		{"edge, certificate and key swapped", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: key, Key: cert}))},
		{"passthrough with everything", route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough, Certificate: cert, Key: key, CACertificate: ca, DestinationCACertificate: ca}))},
		{"edge with a destination CA", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, DestinationCACertificate: selfCert}))},
		{"cert-manager issuer and a key of its own", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: cert, Key: otherKey}), withAnnotation(AnnCertIssuer, "ca"))},
		{"cert-manager issuer and a certificate of its own", route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt, Certificate: selfCert + selfKey}), withAnnotation(AnnCertIssuer, "ca"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			created := ValidateRoute(tt.route, ValidateOptions{})
			if len(created) == 0 {
				t.Fatal("no error: the case judges nothing")
			}
			for _, errs := range []field.ErrorList{created, ValidateRouteUpdate(tt.route, route(), ValidateOptions{}), ValidateCertificates(tt.route)} {
				for _, e := range errs {
					for _, b := range bodies {
						if text := e.Error() + "\n" + e.Detail + "\n" + fmt.Sprint(e.BadValue); strings.Contains(text, b) {
							t.Errorf("error on %s repeats certificate material: %q", e.Field, e.Error())
						}
					}
				}
			}
		})
	}
}
