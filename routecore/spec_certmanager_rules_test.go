package routecore

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestSpecCertManagerErrorAnatomy: each rule across the cert-manager
// annotations and the Route reports one error of the given type, on the
// annotation or spec field it names, with the offending value (certificate
// material redacted).
func TestSpecCertManagerErrorAnatomy(t *testing.T) {
	ann := func(k string) string { return "metadata.annotations[" + k + "]" }
	tests := []struct {
		name   string
		route  *Route
		typ    field.ErrorType
		field  string
		value  any
		detail string
	}{
		{"no issuer", route(edge, annotated(AnnCertPrivateKeyRotationPolicy, "Never")),
			field.ErrorTypeRequired, ann(AnnCertIssuer), "",
			"cert-manager.io/private-key-rotation-policy needs an issuer: set cert-manager.io/issuer (or cert-manager.io/cluster-issuer)"},
		{"second issuer", route(edge, annotated(AnnCertIssuerName, "ca", AnnCertClusterIssuer, "le")),
			field.ErrorTypeInvalid, ann(AnnCertClusterIssuer), "le", "cannot be set with cert-manager.io/issuer-name: name one issuer"},
		{"group with a cluster issuer", route(edge, annotated(AnnCertClusterIssuer, "le", AnnCertIssuerGroup, "cert-manager.io")),
			field.ErrorTypeInvalid, ann(AnnCertIssuerGroup), "cert-manager.io",
			"cannot be set with cert-manager.io/cluster-issuer, which names a ClusterIssuer of cert-manager.io"},
		{"other kind in cert-manager's group", route(edge, annotated(AnnCertIssuer, "ca", AnnCertIssuerKind, "Vault", AnnCertIssuerGroup, "cert-manager.io")),
			field.ErrorTypeInvalid, ann(AnnCertIssuerKind), "Vault", "must be one of Issuer or ClusterIssuer"},
		{"short duration", route(edge, annotated(AnnCertIssuer, "ca", AnnCertDuration, "30m")),
			field.ErrorTypeInvalid, ann(AnnCertDuration), "30m", "certificate duration must be greater than 1h0m0s"},
		{"RSA size", route(edge, annotated(AnnCertIssuer, "ca", AnnCertPrivateKeySize, "1024")),
			field.ErrorTypeInvalid, ann(AnnCertPrivateKeySize), "1024", "must be between 2048 and 8192 for rsa keyAlgorithm"},
		{"ECDSA size", route(edge, annotated(AnnCertIssuer, "ca", AnnCertPrivateKeyAlgorithm, "ECDSA", AnnCertPrivateKeySize, "2048")),
			field.ErrorTypeNotSupported, ann(AnnCertPrivateKeySize), "2048", `supported values: "256", "384", "521"`},
		{"common name of 65", route(edge, annotated(AnnCertIssuer, "ca", AnnCertCommonName, strings.Repeat("c", 65))),
			field.ErrorTypeTooLong, ann(AnnCertCommonName), nil, "may not be more than 64 bytes"},
		{"no TLS", route(annotated(AnnCertIssuer, "ca")),
			field.ErrorTypeRequired, "spec.tls", "",
			"cert-manager.io/issuer asks for a certificate, which only a TLS route serves: add tls: {termination: edge} (or reencrypt)"},
		{"passthrough", route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough}), annotated(AnnCertIssuer, "ca")),
			field.ErrorTypeInvalid, "spec.tls.termination", TLSTerminationPassthrough,
			"cert-manager.io/issuer asks for a certificate, which the router serves only on edge and reencrypt routes: it does not terminate TLS of passthrough routes"},
		{"a key of its own", route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt, Key: "PEM"}), annotated(AnnCertIssuer, "ca")),
			field.ErrorTypeInvalid, "spec.tls.key", "redacted key data",
			"cannot be combined with cert-manager.io/issuer: remove key and certificate to serve cert-manager's certificate, or the annotation to keep them"},
		{"another external certificate", route(withTLS(TLSConfig{Termination: TLSTerminationEdge, ExternalCertificate: &LocalObjectReference{Name: "mine"}}), annotated(AnnCertClusterIssuer, "le")),
			field.ErrorTypeInvalid, "spec.tls.externalCertificate.name", "mine",
			"cert-manager fills Secret r-route-tls for cert-manager.io/cluster-issuer: name that Secret, or remove the annotation"},
		{"no name to certify", route(edge, func(r *Route) { r.Spec.Host, r.Spec.Subdomain = "", "shop" }, annotated(AnnCertIssuerName, "ca")),
			field.ErrorTypeRequired, "spec.host", "",
			"cert-manager.io/issuer-name asks for a certificate, which needs a name: set spec.host or cert-manager.io/alt-names"},
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
			if tt.value != nil && !reflect.DeepEqual(e.BadValue, tt.value) {
				t.Errorf("bad value %#v (%T), want %#v (%T)", e.BadValue, e.BadValue, tt.value, tt.value)
			}
		})
	}
}

// TestSpecCertManagerRuleScope: the rules across annotations start from
// the catalogue's cert-manager keys only (a key cert-manager reads on
// Ingresses alone asks for nothing), are off with the annotation value
// checks, and the Secret cert-manager fills is named after the Route,
// dots and all.
func TestSpecCertManagerRuleScope(t *testing.T) {
	twoIssuersOnPassthrough := route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough, Key: "k"}),
		annotated(AnnCertIssuer, "ca", AnnCertClusterIssuer, "le", AnnCertDuration, "1m"))
	tests := []struct {
		name  string
		route *Route
		opts  ValidateOptions
		want  []string
	}{
		{"an Ingress-only key alone", route(annotated("cert-manager.io/usages", "server auth")), ValidateOptions{}, nil},
		{"an Ingress-only key with a catalogue key", route(annotated("cert-manager.io/usages", "server auth", AnnCertCommonName, "web")), ValidateOptions{},
			[]string{"metadata.annotations[cert-manager.io/issuer]: Required value: cert-manager.io/common-name needs an issuer: set cert-manager.io/issuer (or cert-manager.io/cluster-issuer)"}},
		{"annotation checks off", twoIssuersOnPassthrough, ValidateOptions{SkipAnnotationValues: true}, []string{
			`spec.tls.key: Invalid value: "redacted key data": passthrough termination does not support certificates`}},
		{"annotation checks on", twoIssuersOnPassthrough, ValidateOptions{}, []string{
			`metadata.annotations[cert-manager.io/cluster-issuer]: Invalid value: "le": cannot be set with cert-manager.io/issuer: name one issuer`,
			`metadata.annotations[cert-manager.io/duration]: Invalid value: "1m": certificate duration must be greater than 1h0m0s`,
			`spec.tls.termination: Invalid value: "passthrough": cert-manager.io/issuer asks for a certificate, which the router serves only on edge and reencrypt routes: it does not terminate TLS of passthrough routes`,
			`spec.tls.key: Invalid value: "redacted key data": passthrough termination does not support certificates`}},
		{"dotted Route name, its Secret", route(func(r *Route) { r.Name = "web.v2" },
			withTLS(TLSConfig{Termination: TLSTerminationEdge, ExternalCertificate: &LocalObjectReference{Name: "web.v2-route-tls"}}), annotated(AnnCertIssuer, "ca")), ValidateOptions{}, nil},
		{"dotted Route name, the dashed Secret", route(func(r *Route) { r.Name = "web.v2" },
			withTLS(TLSConfig{Termination: TLSTerminationEdge, ExternalCertificate: &LocalObjectReference{Name: "web-v2-route-tls"}}), annotated(AnnCertIssuer, "ca")), ValidateOptions{},
			[]string{`spec.tls.externalCertificate.name: Invalid value: "web-v2-route-tls": cert-manager fills Secret web.v2-route-tls for cert-manager.io/issuer: name that Secret, or remove the annotation`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, tt.opts), tt.want)
		})
	}
}

// TestSpecCertManagerKindAndGroup: an empty kind is refused once, by its own
// rule; cert-manager's group, named or empty, allows Issuer and
// ClusterIssuer only; another group any kind.
func TestSpecCertManagerKindAndGroup(t *testing.T) {
	ann := func(k string) string { return "metadata.annotations[" + k + "]: " }
	tests := []struct {
		name string
		kv   []string
		want []string
	}{
		{"empty kind with an issuer", []string{AnnCertIssuer, "ca", AnnCertIssuerKind, ""},
			[]string{ann(AnnCertIssuerKind) + `Invalid value: "": must not be empty`}},
		{"kind Issuer with cert-manager's group", []string{AnnCertIssuerName, "ca", AnnCertIssuerKind, "Issuer", AnnCertIssuerGroup, "cert-manager.io"}, nil},
		{"kind ClusterIssuer with issuer-name", []string{AnnCertIssuerName, "ca", AnnCertIssuerKind, "ClusterIssuer"}, nil},
		{"lower-case kind", []string{AnnCertIssuer, "ca", AnnCertIssuerKind, "issuer"},
			[]string{ann(AnnCertIssuerKind) + `Invalid value: "issuer": must be one of Issuer or ClusterIssuer (did you forget to set cert-manager.io/issuer-group?)`}},
		{"any kind of another group", []string{AnnCertIssuerName, "vault", AnnCertIssuerKind, "VaultIssuer", AnnCertIssuerGroup, "vault.example.com"}, nil},
		{"group alone with issuer-name", []string{AnnCertIssuerName, "pca", AnnCertIssuerGroup, "awspca.cert-manager.io"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(edge, annotated(tt.kv...)), ValidateOptions{}), tt.want)
		})
	}
}

// TestSpecEqualTLS: for the cert-manager rules, spec.tls is unchanged when
// its termination, key, certificate and external certificate (present or
// not, and its name) are; the CA certificates and the insecure policy do
// not count.
func TestSpecEqualTLS(t *testing.T) {
	base := TLSConfig{Termination: TLSTerminationEdge, Key: "k", Certificate: "c", CACertificate: "ca",
		ExternalCertificate: &LocalObjectReference{Name: "s"}}
	with := func(change func(*TLSConfig)) *TLSConfig {
		c := base
		ext := *base.ExternalCertificate
		c.ExternalCertificate = &ext
		change(&c)
		return &c
	}
	tests := []struct {
		name string
		a, b *TLSConfig
		want bool
	}{
		{"both absent", nil, nil, true},
		{"one absent", nil, with(func(*TLSConfig) {}), false},
		{"the other absent", with(func(*TLSConfig) {}), nil, false},
		{"equal copies", with(func(*TLSConfig) {}), with(func(*TLSConfig) {}), true},
		{"CA certificate", with(func(*TLSConfig) {}), with(func(c *TLSConfig) { c.CACertificate = "ca2" }), true},
		{"destination CA", with(func(*TLSConfig) {}), with(func(c *TLSConfig) { c.DestinationCACertificate = "d" }), true},
		{"insecure policy", with(func(*TLSConfig) {}), with(func(c *TLSConfig) { c.InsecureEdgeTerminationPolicy = InsecureEdgeTerminationPolicyRedirect }), true},
		{"termination", with(func(*TLSConfig) {}), with(func(c *TLSConfig) { c.Termination = TLSTerminationReencrypt }), false},
		{"key", with(func(*TLSConfig) {}), with(func(c *TLSConfig) { c.Key = "k2" }), false},
		{"certificate", with(func(*TLSConfig) {}), with(func(c *TLSConfig) { c.Certificate = "c2" }), false},
		{"external certificate name", with(func(*TLSConfig) {}), with(func(c *TLSConfig) { c.ExternalCertificate.Name = "t" }), false},
		{"external certificate removed", with(func(*TLSConfig) {}), with(func(c *TLSConfig) { c.ExternalCertificate = nil }), false},
		{"external certificate without a name, or none", with(func(c *TLSConfig) { c.ExternalCertificate.Name = "" }), with(func(c *TLSConfig) { c.ExternalCertificate = nil }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := equalTLS(tt.a, tt.b); got != tt.want {
				t.Errorf("equalTLS = %v, want %v", got, tt.want)
			}
			if got := equalTLS(tt.b, tt.a); got != tt.want {
				t.Errorf("equalTLS, reversed = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSpecCertManagerRulesOnUpdateOtherChanges: a stored Route that breaks
// the cert-manager rules stays editable while neither a cert-manager
// annotation nor the TLS fields they depend on change: other annotations,
// the CA certificates and the host may.
func TestSpecCertManagerRulesOnUpdateOtherChanges(t *testing.T) {
	stored := func(mods ...func(*Route)) *Route {
		return route(append([]func(*Route){withTLS(TLSConfig{Termination: TLSTerminationEdge, Key: "k", Certificate: "c"}),
			annotated(AnnCertIssuer, "ca", AnnCertDuration, "30m")}, mods...)...)
	}
	keyErr := `spec.tls.key: Invalid value: "redacted key data": cannot be combined with cert-manager.io/issuer: remove key and certificate to serve cert-manager's certificate, or the annotation to keep them`
	durationErr := `metadata.annotations[cert-manager.io/duration]: Invalid value: "30m": certificate duration must be greater than 1h0m0s`
	tests := []struct {
		name string
		new  *Route
		want []string
	}{
		{"another annotation added", stored(annotated(AnnTimeout, "5s")), nil},
		{"CA certificate added", stored(func(r *Route) { r.Spec.TLS.CACertificate = "ca" }), nil},
		{"host changed", stored(func(r *Route) { r.Spec.Host = "shop.example.com" }), nil},
		{"duration changed, still short", stored(annotated(AnnCertDuration, "45m")),
			[]string{`metadata.annotations[cert-manager.io/duration]: Invalid value: "45m": certificate duration must be greater than 1h0m0s`, keyErr}},
		{"empty external certificate added", stored(func(r *Route) { r.Spec.TLS.ExternalCertificate = &LocalObjectReference{} }), []string{durationErr, keyErr}},
		{"a cert-manager key added", stored(annotated(AnnCertCommonName, "web")), []string{durationErr, keyErr}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRouteUpdate(tt.new, stored(), ValidateOptions{SkipCertificateChecks: true}), tt.want)
		})
	}
}

// TestSpecRouteCertificateWildcardNames: for a wildcardPolicy Subdomain
// Route the certificate covers *.<the host's domain> (the first label
// replaced), once even when alt-names repeats it; a None Route its host.
func TestSpecRouteCertificateWildcardNames(t *testing.T) {
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"two labels", route(edge, func(r *Route) { r.Spec.Host, r.Spec.WildcardPolicy = "www.example", WildcardPolicySubdomain }, annotated(AnnCertIssuer, "ca")),
			[]string{"*.example"}},
		{"alt-names repeating the wildcard", route(edge, func(r *Route) { r.Spec.Host, r.Spec.WildcardPolicy = "a.apps.example.com", WildcardPolicySubdomain },
			annotated(AnnCertIssuer, "ca", AnnCertAltNames, "*.apps.example.com,apps.example.com")), []string{"*.apps.example.com", "apps.example.com"}},
		{"None keeps the first label", route(edge, func(r *Route) { r.Spec.Host = "a.apps.example.com" }, annotated(AnnCertIssuer, "ca")),
			[]string{"a.apps.example.com"}},
		{"empty policy keeps the first label", route(edge, func(r *Route) { r.Spec.Host, r.Spec.WildcardPolicy = "a.apps.example.com", "" }, annotated(AnnCertIssuer, "ca")),
			[]string{"a.apps.example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs := ValidateRoute(tt.route, ValidateOptions{}); len(errs) > 0 {
				t.Fatalf("the Route is invalid: %q", messages(errs))
			}
			got, ok := RouteCertificate(tt.route)
			if !ok || !reflect.DeepEqual(got.DNSNames, tt.want) {
				t.Errorf("DNS names %q (%v), want %q", got.DNSNames, ok, tt.want)
			}
		})
	}
}

// TestSpecSplitCSVMessages: a subject annotation is exactly one line of
// CSV; each way of failing has its own message, naming the value.
func TestSpecSplitCSVMessages(t *testing.T) {
	tests := []struct {
		value string
		want  []string
		err   string
	}{
		{"a", []string{"a"}, ""},
		{` a , "b,c" `, nil, `failed to parse " a , \"b,c\" " as CSV: parse error on line 1, column 6: bare " in non-quoted-field`},
		{`a,"b,c"`, []string{"a", "b,c"}, ""},
		{" a , b ", []string{" a ", " b "}, ""},
		{"a\n", []string{"a"}, ""},
		{"a\nb", nil, `refusing to use "a\nb" as input as it parses as multiple lines of CSV`},
		{"\n", nil, `no values found after parsing "\n"`},
		{`"a`, nil, `failed to parse "\"a" as CSV: parse error on line 1, column 3: extraneous or missing " in quoted-field`},
	}
	for _, tt := range tests {
		got, err := splitCSV(tt.value)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if !reflect.DeepEqual(got, tt.want) || gotErr != tt.err {
			t.Errorf("splitCSV(%q) = %q, %q; want %q, %q", tt.value, got, gotErr, tt.want, tt.err)
		}
	}
}
