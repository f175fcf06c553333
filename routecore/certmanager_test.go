package routecore

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	cmutil "github.com/cert-manager/cert-manager/pkg/util"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// edge is a TLS-terminating route without certificate material.
func edge(r *Route) { r.Spec.TLS = &TLSConfig{Termination: TLSTerminationEdge} }

func annotated(kv ...string) func(*Route) {
	return func(r *Route) {
		if r.Annotations == nil {
			r.Annotations = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			r.Annotations[kv[i]] = kv[i+1]
		}
	}
}

// TestCertManagerAnnotations pins every cert-manager annotation, accepted
// and refused, on an edge Route with an Issuer, to the message a user reads.
func TestCertManagerAnnotations(t *testing.T) {
	const dnsMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	ann := func(k string) string { return "metadata.annotations[" + k + "]" }
	tests := []struct {
		key, value string
		want       []string
	}{
		{AnnCertIssuer, "Bad_Issuer", []string{ann(AnnCertIssuer) + `: Invalid value: "Bad_Issuer": ` + dnsMsg}},
		{AnnCertIssuerKind, "Issuer", nil},
		{AnnCertIssuerKind, "ClusterIssuer", nil},
		{AnnCertIssuerKind, "AWSPCAIssuer", []string{ann(AnnCertIssuerKind) + `: Invalid value: "AWSPCAIssuer": must be one of Issuer or ClusterIssuer (did you forget to set cert-manager.io/issuer-group?)`}},
		{AnnCertIssuerGroup, "cert-manager.io", nil},
		{AnnCertIssuerGroup, "awspca.cert-manager.io", nil},
		{AnnCertIssuerGroup, "AWS", []string{ann(AnnCertIssuerGroup) + `: Invalid value: "AWS": ` + dnsMsg}},
		{AnnCertCommonName, strings.Repeat("c", 64), nil},
		{AnnCertAltNames, "a.example.com,*.b.example.com", nil},
		{AnnCertIPSANs, "10.0.0.1,2001:db8::1", nil},
		{AnnCertURISANs, "spiffe://cluster.local/ns/shop/sa/web", nil},
		{AnnCertEmailSANs, "ops@example.com,sec@example.com", nil},
		{AnnCertEmailSANs, "ops", []string{ann(AnnCertEmailSANs) + `: Invalid value: "ops": invalid email address: mail: missing '@' or angle-addr`}},
		{AnnCertDuration, "2160h", nil},
		{AnnCertDuration, "30m", []string{ann(AnnCertDuration) + `: Invalid value: "30m": certificate duration must be greater than 1h0m0s`}},
		{AnnCertRenewBefore, "360h", nil},
		{AnnCertRenewBefore, "2160h", []string{ann(AnnCertRenewBefore) + `: Invalid value: "2160h": certificate duration 2160h0m0s must be greater than renewBefore 2160h0m0s`}},
		{AnnCertPrivateKeyAlgorithm, "ECDSA", nil},
		{AnnCertPrivateKeyAlgorithm, "Ed25519", nil},
		{AnnCertPrivateKeySize, "4096", nil},
		{AnnCertPrivateKeySize, "big", []string{ann(AnnCertPrivateKeySize) + `: Invalid value: "big": must be a whole number of bits`}},
		{AnnCertPrivateKeyRotationPolicy, "Never", nil},
		{AnnCertRevisionHistoryLimit, "3", nil},
		{AnnCertRevisionHistoryLimit, "many", []string{ann(AnnCertRevisionHistoryLimit) + `: Invalid value: "many": must be a whole number from 1 up`}},
		{AnnCertSubjectOrganizations, `Example Inc,"Example, Ltd"`, nil},
		{AnnCertSubjectOrganizationalUnit, "Web,Ops", nil},
		{AnnCertSubjectCountries, "DE,FR", nil},
		{AnnCertSubjectProvinces, "Bavaria", nil},
		{AnnCertSubjectLocalities, "Munich", nil},
		{AnnCertSubjectStreetAddresses, "Main Street 1", nil},
		{AnnCertSubjectPostalCodes, "80331", nil},
		{AnnCertSubjectSerialNumber, "1234", nil},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			r := route(edge, annotated(AnnCertIssuer, "ca", tt.key, tt.value))
			if tt.key == AnnCertIssuer {
				r.Annotations[AnnCertIssuer] = tt.value
			}
			sameMessages(t, ValidateRoute(r, ValidateOptions{}), tt.want)
		})
	}
}

// TestCertManagerRules pins the rules across annotations and with the
// rest of the Route.
func TestCertManagerRules(t *testing.T) {
	ann := func(k string) string { return "metadata.annotations[" + k + "]" }
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{name: "issuer on edge", route: route(edge, annotated(AnnCertIssuer, "ca"))},
		{name: "issuer-name alias on reencrypt", route: route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt}), annotated(AnnCertIssuerName, "ca"))},
		{name: "cluster-issuer", route: route(edge, annotated(AnnCertClusterIssuer, "letsencrypt"))},
		{name: "external issuer", route: route(edge, annotated(AnnCertIssuer, "pca", AnnCertIssuerKind, "AWSPCAIssuer", AnnCertIssuerGroup, "awspca.cert-manager.io"))},
		{name: "issuer and cluster-issuer", route: route(edge, annotated(AnnCertIssuer, "ca", AnnCertClusterIssuer, "letsencrypt")),
			want: []string{ann(AnnCertClusterIssuer) + `: Invalid value: "letsencrypt": cannot be set with cert-manager.io/issuer: name one issuer`}},
		{name: "issuer and its alias", route: route(edge, annotated(AnnCertIssuer, "ca", AnnCertIssuerName, "ca")),
			want: []string{ann(AnnCertIssuerName) + `: Invalid value: "ca": cannot be set with cert-manager.io/issuer: name one issuer`}},
		{name: "cluster-issuer with kind and group", route: route(edge, annotated(AnnCertClusterIssuer, "le", AnnCertIssuerKind, "ClusterIssuer", AnnCertIssuerGroup, "cert-manager.io")),
			want: []string{
				ann(AnnCertIssuerKind) + `: Invalid value: "ClusterIssuer": cannot be set with cert-manager.io/cluster-issuer, which names a ClusterIssuer of cert-manager.io`,
				ann(AnnCertIssuerGroup) + `: Invalid value: "cert-manager.io": cannot be set with cert-manager.io/cluster-issuer, which names a ClusterIssuer of cert-manager.io`}},
		{name: "other kind in cert-manager's group", route: route(edge, annotated(AnnCertIssuer, "ca", AnnCertIssuerKind, "Vault", AnnCertIssuerGroup, "cert-manager.io")),
			want: []string{ann(AnnCertIssuerKind) + `: Invalid value: "Vault": must be one of Issuer or ClusterIssuer`}},
		{name: "certificate settings without an issuer", route: route(edge, annotated(AnnCertDuration, "2160h")),
			want: []string{ann(AnnCertIssuer) + ": Required value: cert-manager.io/duration needs an issuer: set cert-manager.io/issuer (or cert-manager.io/cluster-issuer)"}},
		{name: "renew-before within the default duration", route: route(edge, annotated(AnnCertIssuer, "ca", AnnCertRenewBefore, "2159h"))},
		{name: "renew-before beyond the given duration", route: route(edge, annotated(AnnCertIssuer, "ca", AnnCertDuration, "24h", AnnCertRenewBefore, "24h")),
			want: []string{ann(AnnCertRenewBefore) + `: Invalid value: "24h": certificate duration 24h0m0s must be greater than renewBefore 24h0m0s`}},
		{name: "unreadable duration: renew-before still has its minimum", route: route(edge, annotated(AnnCertIssuer, "ca", AnnCertDuration, "90d", AnnCertRenewBefore, "1m")), want: []string{
			ann(AnnCertDuration) + `: Invalid value: "90d": must be a duration such as 2160h or 90m (cert-manager reads it with Go's time.ParseDuration: time: unknown unit "d" in duration "90d")`,
			ann(AnnCertRenewBefore) + `: Invalid value: "1m": certificate renewBefore must be greater than 5m0s`}},
		{name: "unreadable duration: renew-before not compared with it", route: route(edge, annotated(AnnCertIssuer, "ca", AnnCertDuration, "90d", AnnCertRenewBefore, "9000h")), want: []string{
			ann(AnnCertDuration) + `: Invalid value: "90d": must be a duration such as 2160h or 90m (cert-manager reads it with Go's time.ParseDuration: time: unknown unit "d" in duration "90d")`}},
		{name: "ECDSA sizes", route: route(edge, annotated(AnnCertIssuer, "ca", AnnCertPrivateKeyAlgorithm, "ECDSA", AnnCertPrivateKeySize, "2048")),
			want: []string{ann(AnnCertPrivateKeySize) + `: Unsupported value: "2048": supported values: "256", "384", "521"`}},
		{name: "Ed25519 ignores the size", route: route(edge, annotated(AnnCertIssuer, "ca", AnnCertPrivateKeyAlgorithm, "Ed25519", AnnCertPrivateKeySize, "1"))},
		{name: "no TLS", route: route(annotated(AnnCertIssuer, "ca")),
			want: []string{"spec.tls: Required value: cert-manager.io/issuer asks for a certificate, which only a TLS route serves: add tls: {termination: edge} (or reencrypt)"}},
		{name: "passthrough", route: route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough}), annotated(AnnCertClusterIssuer, "le")),
			want: []string{`spec.tls.termination: Invalid value: "passthrough": cert-manager.io/cluster-issuer asks for a certificate, which the router serves only on edge and reencrypt routes: it does not terminate TLS of passthrough routes`}},
		{name: "inline key", route: route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Key: "k", Certificate: "c"}), annotated(AnnCertIssuer, "ca")),
			want: []string{`spec.tls.key: Invalid value: "redacted key data": cannot be combined with cert-manager.io/issuer: remove key and certificate to serve cert-manager's certificate, or the annotation to keep them`}},
		{name: "inline certificate, its key bundled", route: route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Certificate: "c\nk"}), annotated(AnnCertIssuer, "ca")),
			want: []string{`spec.tls.certificate: Invalid value: "redacted certificate data": cannot be combined with cert-manager.io/issuer: remove the certificate to serve cert-manager's, or the annotation to keep it`}},
		{name: "cert-manager's Secret as external certificate", route: route(withTLS(TLSConfig{Termination: TLSTerminationEdge, ExternalCertificate: &LocalObjectReference{Name: "r-route-tls"}}), annotated(AnnCertIssuer, "ca"))},
		{name: "another external certificate", route: route(withTLS(TLSConfig{Termination: TLSTerminationEdge, ExternalCertificate: &LocalObjectReference{Name: "mine"}}), annotated(AnnCertIssuer, "ca")),
			want: []string{`spec.tls.externalCertificate.name: Invalid value: "mine": cert-manager fills Secret r-route-tls for cert-manager.io/issuer: name that Secret, or remove the annotation`}},
		{name: "no name to certify", route: route(edge, func(r *Route) { r.Spec.Host, r.Spec.Subdomain = "", "shop" }, annotated(AnnCertIssuer, "ca")),
			want: []string{"spec.host: Required value: cert-manager.io/issuer asks for a certificate, which needs a name: set spec.host or cert-manager.io/alt-names"}},
		{name: "subdomain route with alt-names", route: route(edge, func(r *Route) { r.Spec.Host, r.Spec.Subdomain = "", "shop" }, annotated(AnnCertIssuer, "ca", AnnCertAltNames, "shop.apps.example.com"))},
		{name: "the router skips annotation rules", route: route(annotated(AnnCertIssuer, "ca"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Certificates are not what these cases are about.
			opts := ValidateOptions{SkipCertificateChecks: true, SkipAnnotationValues: tt.name == "the router skips annotation rules"}
			sameMessages(t, ValidateRoute(tt.route, opts), tt.want)
		})
	}
}

// TestCertManagerRulesRatchet: a stored Route that breaks the rules (the
// openshift-routes add-on writes keys into annotated Routes) stays
// editable until its annotations or TLS change.
func TestCertManagerRulesRatchet(t *testing.T) {
	old := route(withTLS(TLSConfig{Termination: TLSTerminationEdge, Key: "k", Certificate: "c"}), annotated(AnnCertIssuerName, "ca"))
	if errs := ValidateRouteUpdate(route(withTLS(*old.Spec.TLS), annotated(AnnCertIssuerName, "ca"), func(r *Route) { r.Labels = map[string]string{"a": "b"} }), old, ValidateOptions{SkipCertificateChecks: true}); len(errs) > 0 {
		t.Errorf("unchanged: %v", errs)
	}
	changed := route(withTLS(*old.Spec.TLS), annotated(AnnCertIssuerName, "other"))
	if errs := ValidateRouteUpdate(changed, old, ValidateOptions{SkipCertificateChecks: true}); len(errs) != 1 {
		t.Errorf("annotation changed: want the key refused, got %v", errs)
	}
}

// TestRouteCertificate: the Certificate spec of an annotated Route, whole.
func TestRouteCertificate(t *testing.T) {
	hours := func(h int) *metav1.Duration { return &metav1.Duration{Duration: time.Duration(h) * time.Hour} }
	tests := []struct {
		name   string
		route  *Route
		want   cmapi.CertificateSpec
		wanted bool
	}{
		{name: "no issuer", route: route(edge, annotated(AnnCertDuration, "2160h"))},
		{name: "issuer", route: route(edge, annotated(AnnCertIssuer, "ca")), wanted: true,
			want: cmapi.CertificateSpec{DNSNames: []string{"www.example.com"}, SecretName: "r-route-tls",
				IssuerRef: cmmeta.IssuerReference{Name: "ca", Kind: "Issuer"}}},
		{name: "cluster issuer, wildcard route", route: route(edge, func(r *Route) {
			r.Spec.Host, r.Spec.WildcardPolicy = "wildcard.apps.example.com", WildcardPolicySubdomain
		}, annotated(AnnCertClusterIssuer, "le")), wanted: true,
			want: cmapi.CertificateSpec{DNSNames: []string{"*.apps.example.com"}, SecretName: "r-route-tls",
				IssuerRef: cmmeta.IssuerReference{Name: "le", Kind: "ClusterIssuer"}}},
		{name: "every annotation", route: route(edge, annotated(
			AnnCertIssuerName, "pca", AnnCertIssuerKind, "AWSPCAIssuer", AnnCertIssuerGroup, "awspca.cert-manager.io",
			AnnCertCommonName, "www.example.com", AnnCertAltNames, "www.example.com,shop.example.com",
			AnnCertIPSANs, "10.0.0.1", AnnCertURISANs, "spiffe://example.com/web", AnnCertEmailSANs, "ops@example.com",
			AnnCertDuration, "720h", AnnCertRenewBefore, "240h", AnnCertPrivateKeyAlgorithm, "ECDSA", AnnCertPrivateKeySize, "384",
			AnnCertPrivateKeyRotationPolicy, "Never", AnnCertRevisionHistoryLimit, "3",
			AnnCertSubjectOrganizations, `Example Inc,"Example, Ltd"`, AnnCertSubjectOrganizationalUnit, "Web",
			AnnCertSubjectCountries, "DE", AnnCertSubjectProvinces, "Bavaria", AnnCertSubjectLocalities, "Munich",
			AnnCertSubjectStreetAddresses, "Main Street 1", AnnCertSubjectPostalCodes, "80331", AnnCertSubjectSerialNumber, "42",
		)), wanted: true,
			want: cmapi.CertificateSpec{
				IssuerRef:  cmmeta.IssuerReference{Name: "pca", Kind: "AWSPCAIssuer", Group: "awspca.cert-manager.io"},
				CommonName: "www.example.com", DNSNames: []string{"www.example.com", "shop.example.com"},
				IPAddresses: []string{"10.0.0.1"}, URIs: []string{"spiffe://example.com/web"}, EmailAddresses: []string{"ops@example.com"},
				Duration: hours(720), RenewBefore: hours(240),
				PrivateKey:           &cmapi.CertificatePrivateKey{Algorithm: "ECDSA", Size: 384, RotationPolicy: "Never"},
				RevisionHistoryLimit: new(int32(3)),
				Subject: &cmapi.X509Subject{Organizations: []string{"Example Inc", "Example, Ltd"}, OrganizationalUnits: []string{"Web"},
					Countries: []string{"DE"}, Provinces: []string{"Bavaria"}, Localities: []string{"Munich"},
					StreetAddresses: []string{"Main Street 1"}, PostalCodes: []string{"80331"}, SerialNumber: "42"},
				SecretName: "r-route-tls",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs := ValidateRoute(tt.route, ValidateOptions{}); tt.wanted && len(errs) > 0 {
				t.Fatalf("the Route is invalid: %v", errs)
			}
			got, wanted := RouteCertificate(tt.route)
			if wanted != tt.wanted || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("RouteCertificate = %+v, %v\nwant %+v, %v", got, wanted, tt.want, tt.wanted)
			}
		})
	}
}

// TestSplitCSVAsCertManager: a subject annotation is split exactly as
// cert-manager splits it, values and errors.
func TestSplitCSVAsCertManager(t *testing.T) {
	for _, v := range []string{
		"Acme", "Acme,Widgets", `"Acme, Inc.",Widgets`, " spaced , values ", `"unterminated`,
		"", "a\nb", `"a""b"`, "a,,b", `x"y`,
	} {
		got, gotErr := splitCSV(v)
		want, wantErr := cmutil.SplitWithEscapeCSV(v)
		if !slices.Equal(got, want) || (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("splitCSV(%q) = %q, %v; cert-manager: %q, %v", v, got, gotErr, want, wantErr)
		}
	}
}
