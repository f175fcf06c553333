package routecore

import (
	"reflect"
	"strings"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestRouteCertificateEach: each cert-manager annotation, on an edge Route
// with an Issuer, sets its own field of the Certificate and nothing else;
// an invalid value sets nothing.
func TestRouteCertificateEach(t *testing.T) {
	base := func(mods ...func(*cmapi.CertificateSpec)) cmapi.CertificateSpec {
		s := cmapi.CertificateSpec{IssuerRef: cmmeta.IssuerReference{Name: "ca", Kind: "Issuer"},
			DNSNames: []string{"www.example.com"}, SecretName: "r-route-tls"}
		for _, m := range mods {
			m(&s)
		}
		return s
	}
	hours := func(h int) *metav1.Duration { return &metav1.Duration{Duration: time.Duration(h) * time.Hour} }
	tests := []struct {
		key, value string
		want       cmapi.CertificateSpec
	}{
		{AnnCertIssuerKind, "ClusterIssuer", base(func(s *cmapi.CertificateSpec) { s.IssuerRef.Kind = "ClusterIssuer" })},
		{AnnCertIssuerGroup, "awspca.cert-manager.io", base(func(s *cmapi.CertificateSpec) { s.IssuerRef.Group = "awspca.cert-manager.io" })},
		{AnnCertCommonName, "www.example.com", base(func(s *cmapi.CertificateSpec) { s.CommonName = "www.example.com" })},
		{AnnCertAltNames, "shop.example.com,*.apps.example.com", base(func(s *cmapi.CertificateSpec) {
			s.DNSNames = []string{"www.example.com", "shop.example.com", "*.apps.example.com"}
		})},
		{AnnCertAltNames, "shop.example.com,www.example.com,shop.example.com", base(func(s *cmapi.CertificateSpec) {
			s.DNSNames = []string{"www.example.com", "shop.example.com"}
		})},
		{AnnCertAltNames, "a.example.com, b.example.com", base()},
		{AnnCertIPSANs, "10.0.0.1,2001:db8::1", base(func(s *cmapi.CertificateSpec) { s.IPAddresses = []string{"10.0.0.1", "2001:db8::1"} })},
		{AnnCertIPSANs, "10.0.0.300", base()},
		{AnnCertURISANs, "spiffe://example.com/web", base(func(s *cmapi.CertificateSpec) { s.URIs = []string{"spiffe://example.com/web"} })},
		{AnnCertEmailSANs, "ops@example.com,sec@example.com", base(func(s *cmapi.CertificateSpec) {
			s.EmailAddresses = []string{"ops@example.com", "sec@example.com"}
		})},
		{AnnCertDuration, "720h", base(func(s *cmapi.CertificateSpec) { s.Duration = hours(720) })},
		{AnnCertDuration, "90d", base()},
		{AnnCertRenewBefore, "240h", base(func(s *cmapi.CertificateSpec) { s.RenewBefore = hours(240) })},
		{AnnCertPrivateKeyAlgorithm, "Ed25519", base(func(s *cmapi.CertificateSpec) {
			s.PrivateKey = &cmapi.CertificatePrivateKey{Algorithm: cmapi.Ed25519KeyAlgorithm}
		})},
		{AnnCertPrivateKeyAlgorithm, "ecdsa", base()},
		{AnnCertPrivateKeySize, "4096", base(func(s *cmapi.CertificateSpec) { s.PrivateKey = &cmapi.CertificatePrivateKey{Size: 4096} })},
		{AnnCertPrivateKeyRotationPolicy, "Never", base(func(s *cmapi.CertificateSpec) {
			s.PrivateKey = &cmapi.CertificatePrivateKey{RotationPolicy: cmapi.RotationPolicyNever}
		})},
		{AnnCertRevisionHistoryLimit, "3", base(func(s *cmapi.CertificateSpec) { s.RevisionHistoryLimit = new(int32(3)) })},
		{AnnCertRevisionHistoryLimit, "0", base()},
		{AnnCertSubjectOrganizations, `Example Inc,"Example, Ltd"`, base(func(s *cmapi.CertificateSpec) {
			s.Subject = &cmapi.X509Subject{Organizations: []string{"Example Inc", "Example, Ltd"}}
		})},
		{AnnCertSubjectOrganizationalUnit, "Web,Ops", base(func(s *cmapi.CertificateSpec) {
			s.Subject = &cmapi.X509Subject{OrganizationalUnits: []string{"Web", "Ops"}}
		})},
		{AnnCertSubjectCountries, "DE", base(func(s *cmapi.CertificateSpec) { s.Subject = &cmapi.X509Subject{Countries: []string{"DE"}} })},
		{AnnCertSubjectProvinces, "Bavaria", base(func(s *cmapi.CertificateSpec) { s.Subject = &cmapi.X509Subject{Provinces: []string{"Bavaria"}} })},
		{AnnCertSubjectLocalities, "Munich", base(func(s *cmapi.CertificateSpec) { s.Subject = &cmapi.X509Subject{Localities: []string{"Munich"}} })},
		{AnnCertSubjectStreetAddresses, "Main Street 1", base(func(s *cmapi.CertificateSpec) {
			s.Subject = &cmapi.X509Subject{StreetAddresses: []string{"Main Street 1"}}
		})},
		{AnnCertSubjectPostalCodes, "80331", base(func(s *cmapi.CertificateSpec) { s.Subject = &cmapi.X509Subject{PostalCodes: []string{"80331"}} })},
		{AnnCertSubjectPostalCodes, `"80331`, base()},
		{AnnCertIssuerKind, "", base()},
		{AnnCertIssuerGroup, "AWS", base()},
		{AnnCertCommonName, strings.Repeat("c", 65), base()},
		{AnnCertURISANs, "shop/web", base()},
		{AnnCertEmailSANs, "Ops <ops@example.com>", base()},
		{AnnCertRenewBefore, "soon", base()},
		{AnnCertPrivateKeySize, "big", base()},
		{AnnCertPrivateKeyRotationPolicy, "never", base()},
		{AnnCertSubjectSerialNumber, "42", base(func(s *cmapi.CertificateSpec) { s.Subject = &cmapi.X509Subject{SerialNumber: "42"} })},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			got, ok := RouteCertificate(route(edge, annotated(AnnCertIssuer, "ca", tt.key, tt.value)))
			if !ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("RouteCertificate =\n%+v, %v\nwant\n%+v", got, ok, tt.want)
			}
		})
	}
}

// TestRouteCertificateIssuerAndNames: the issuer key decides the issuer's
// kind, the Route's name the Secret, and its host (or, for a wildcard
// Route, *.<its domain>) the first DNS name; a Route without host gets
// only the names its annotations give.
func TestRouteCertificateIssuerAndNames(t *testing.T) {
	tests := []struct {
		name   string
		route  *Route
		issuer cmmeta.IssuerReference
		dns    []string
		secret string
	}{
		{"issuer-name", route(edge, annotated(AnnCertIssuerName, "ca")), cmmeta.IssuerReference{Name: "ca", Kind: "Issuer"}, []string{"www.example.com"}, "r-route-tls"},
		{"cluster-issuer", route(edge, annotated(AnnCertClusterIssuer, "le")), cmmeta.IssuerReference{Name: "le", Kind: "ClusterIssuer"}, []string{"www.example.com"}, "r-route-tls"},
		{"the Route's name names the Secret", route(edge, func(r *Route) { r.Name = "shop" }, annotated(AnnCertIssuer, "ca")),
			cmmeta.IssuerReference{Name: "ca", Kind: "Issuer"}, []string{"www.example.com"}, "shop-route-tls"},
		{"wildcard Route", route(edge, func(r *Route) { r.Spec.Host, r.Spec.WildcardPolicy = "any.apps.example.com", WildcardPolicySubdomain }, annotated(AnnCertIssuer, "ca")),
			cmmeta.IssuerReference{Name: "ca", Kind: "Issuer"}, []string{"*.apps.example.com"}, "r-route-tls"},
		{"no host: the alt-names only", route(edge, func(r *Route) { r.Spec.Host, r.Spec.Subdomain = "", "shop" }, annotated(AnnCertIssuer, "ca", AnnCertAltNames, "shop.apps.example.com")),
			cmmeta.IssuerReference{Name: "ca", Kind: "Issuer"}, []string{"shop.apps.example.com"}, "r-route-tls"},
		{"no host, no alt-names", route(edge, func(r *Route) { r.Spec.Host = "" }, annotated(AnnCertIssuer, "ca", AnnCertCommonName, "shop")),
			cmmeta.IssuerReference{Name: "ca", Kind: "Issuer"}, nil, "r-route-tls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RouteCertificate(tt.route)
			if !ok || got.IssuerRef != tt.issuer || !reflect.DeepEqual(got.DNSNames, tt.dns) || got.SecretName != tt.secret {
				t.Errorf("RouteCertificate = issuer %+v, DNS names %q, Secret %q (%v); want %+v, %q, %q",
					got.IssuerRef, got.DNSNames, got.SecretName, ok, tt.issuer, tt.dns, tt.secret)
			}
		})
	}
}

// TestCertificateIssuerKey: the issuer keys are read in the order
// issuer, issuer-name, cluster-issuer; an empty value still names the key.
func TestCertificateIssuerKey(t *testing.T) {
	tests := []struct {
		annotations map[string]string
		want        string
	}{
		{nil, ""},
		{map[string]string{AnnCertDuration: "24h"}, ""},
		{map[string]string{AnnCertClusterIssuer: "le"}, AnnCertClusterIssuer},
		{map[string]string{AnnCertClusterIssuer: "le", AnnCertIssuerName: "ca"}, AnnCertIssuerName},
		{map[string]string{AnnCertClusterIssuer: "le", AnnCertIssuerName: "ca", AnnCertIssuer: "x"}, AnnCertIssuer},
		{map[string]string{AnnCertIssuer: ""}, AnnCertIssuer},
	}
	for _, tt := range tests {
		if got := CertificateIssuerKey(tt.annotations); got != tt.want {
			t.Errorf("CertificateIssuerKey(%v) = %q, want %q", tt.annotations, got, tt.want)
		}
	}
	if _, ok := RouteCertificate(route(edge, annotated(AnnCertDuration, "24h"))); ok {
		t.Error("RouteCertificate of a Route without an issuer: a Certificate")
	}
}

// TestIsCertManagerAnnotation: only the cert-manager.io group asks for
// certificates; its subgroups and look-alikes do not.
func TestIsCertManagerAnnotation(t *testing.T) {
	for key, want := range map[string]bool{
		AnnCertIssuer: true, "cert-manager.io/anything": true,
		"acme.cert-manager.io/http01-edit-in-place": false, "cert-manager.io": false, "xcert-manager.io/issuer": false,
		AnnBalance: false,
	} {
		if got := IsCertManagerAnnotation(key); got != want {
			t.Errorf("IsCertManagerAnnotation(%q) = %v, want %v", key, got, want)
		}
	}
	if got := CertificateSecretName("web"); got != "web-route-tls" {
		t.Errorf("CertificateSecretName(web) = %q", got)
	}
}
