package routecore

import (
	"encoding/csv"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// cert-manager annotations on Routes: the keys cert-manager's ingress-shim
// reads on Ingresses, so that teams can copy them, plus issuer-name, the
// issuer key of cert-manager's openshift-routes add-on.
const (
	AnnCertIssuer                    = cmapi.IngressIssuerNameAnnotationKey
	AnnCertIssuerName                = cmapi.IssuerNameAnnotationKey
	AnnCertClusterIssuer             = cmapi.IngressClusterIssuerNameAnnotationKey
	AnnCertIssuerKind                = cmapi.IssuerKindAnnotationKey
	AnnCertIssuerGroup               = cmapi.IssuerGroupAnnotationKey
	AnnCertCommonName                = cmapi.CommonNameAnnotationKey
	AnnCertAltNames                  = cmapi.AltNamesAnnotationKey
	AnnCertIPSANs                    = cmapi.IPSANAnnotationKey
	AnnCertURISANs                   = cmapi.URISANAnnotationKey
	AnnCertEmailSANs                 = cmapi.EmailsAnnotationKey
	AnnCertDuration                  = cmapi.DurationAnnotationKey
	AnnCertRenewBefore               = cmapi.RenewBeforeAnnotationKey
	AnnCertPrivateKeyAlgorithm       = cmapi.PrivateKeyAlgorithmAnnotationKey
	AnnCertPrivateKeySize            = cmapi.PrivateKeySizeAnnotationKey
	AnnCertPrivateKeyRotationPolicy  = cmapi.PrivateKeyRotationPolicyAnnotationKey
	AnnCertRevisionHistoryLimit      = cmapi.RevisionHistoryLimitAnnotationKey
	AnnCertSubjectOrganizations      = cmapi.SubjectOrganizationsAnnotationKey
	AnnCertSubjectOrganizationalUnit = cmapi.SubjectOrganizationalUnitsAnnotationKey
	AnnCertSubjectCountries          = cmapi.SubjectCountriesAnnotationKey
	AnnCertSubjectProvinces          = cmapi.SubjectProvincesAnnotationKey
	AnnCertSubjectLocalities         = cmapi.SubjectLocalitiesAnnotationKey
	AnnCertSubjectStreetAddresses    = cmapi.SubjectStreetAddressesAnnotationKey
	AnnCertSubjectPostalCodes        = cmapi.SubjectPostalCodesAnnotationKey
	AnnCertSubjectSerialNumber       = cmapi.SubjectSerialNumberAnnotationKey
)

// certManagerIngressOnly are annotations cert-manager reads on Ingresses
// that routeshift does not read on Routes; a warning says so, without
// suggesting another key.
var certManagerIngressOnly = []string{cmapi.UsagesAnnotationKey, cmapi.RenewBeforePercentageAnnotationKey,
	cmapi.PrivateKeyEncodingAnnotationKey, cmapi.IngressSecretTemplate}

// issuerKeys are the annotations that name a Route's issuer; exactly one
// may be set.
var issuerKeys = []string{AnnCertIssuer, AnnCertIssuerName, AnnCertClusterIssuer}

// Limits cert-manager's webhook applies to Certificates (its validation
// package is internal to cert-manager).
const (
	minRSAKeySize, maxRSAKeySize = 2048, 8192
	maxCommonNameLength          = 64
)

// ecdsaKeySizes are the ECDSA key sizes cert-manager accepts.
var ecdsaKeySizes = []string{"256", "384", "521"}

// certificateCatalogue is the cert-manager part of AnnotationCatalogue.
var certificateCatalogue = []Annotation{
	certEntry(AnnCertIssuer, "Name of a cert-manager Issuer in the Route's namespace that issues the Route's certificate; the router serves it from a Secret the Route names in spec.tls.externalCertificate. Edge and reencrypt Routes only.",
		"no certificate from cert-manager", issuerName, func(v string, s *cmapi.CertificateSpec) {
			s.IssuerRef = cmmeta.IssuerReference{Name: v, Kind: cmapi.IssuerKind}
		}),
	certEntry(AnnCertIssuerName, "Same as cert-manager.io/issuer (the key of cert-manager's openshift-routes add-on).",
		"no certificate from cert-manager", issuerName, func(v string, s *cmapi.CertificateSpec) {
			s.IssuerRef = cmmeta.IssuerReference{Name: v, Kind: cmapi.IssuerKind}
		}),
	certEntry(AnnCertClusterIssuer, "Name of a cert-manager ClusterIssuer that issues the Route's certificate, instead of an Issuer.",
		"no certificate from cert-manager", issuerName, func(v string, s *cmapi.CertificateSpec) {
			s.IssuerRef = cmmeta.IssuerReference{Name: v, Kind: cmapi.ClusterIssuerKind}
		}),
	certEntry(AnnCertIssuerKind, "Kind of the issuer named by cert-manager.io/issuer: Issuer or ClusterIssuer, or any kind of the external issuer group in cert-manager.io/issuer-group.",
		"Issuer", nonEmpty, func(v string, s *cmapi.CertificateSpec) { s.IssuerRef.Kind = v }),
	certEntry(AnnCertIssuerGroup, "API group of an external issuer (for example awspca.cert-manager.io).",
		"cert-manager.io", dnsSubdomain, func(v string, s *cmapi.CertificateSpec) { s.IssuerRef.Group = v }),
	certEntry(AnnCertCommonName, "Common name of the certificate's subject; at most 64 characters.",
		"none", commonName, func(v string, s *cmapi.CertificateSpec) { s.CommonName = v }),
	certEntry(AnnCertAltNames, "Comma-separated DNS names the certificate covers besides spec.host (wildcards like *.example.com allowed).",
		"spec.host only (*.<domain> for wildcardPolicy Subdomain)", list(dnsName), func(v string, s *cmapi.CertificateSpec) {
			s.DNSNames = append(s.DNSNames, strings.Split(v, ",")...)
		}),
	certEntry(AnnCertIPSANs, "Comma-separated IP addresses the certificate covers.",
		"none", list(ipAddress), func(v string, s *cmapi.CertificateSpec) { s.IPAddresses = strings.Split(v, ",") }),
	certEntry(AnnCertURISANs, "Comma-separated URIs the certificate covers (for example spiffe://cluster.local/ns/shop/sa/web).",
		"none", list(uri), func(v string, s *cmapi.CertificateSpec) { s.URIs = strings.Split(v, ",") }),
	certEntry(AnnCertEmailSANs, "Comma-separated email addresses the certificate covers.",
		"none", list(emailAddress), func(v string, s *cmapi.CertificateSpec) { s.EmailAddresses = strings.Split(v, ",") }),
	certEntry(AnnCertDuration, "Lifetime of the certificate, as Go durations are written (2160h, 90m); at least 1h.",
		"the issuer's, else 2160h (90 days)", duration, func(v string, s *cmapi.CertificateSpec) {
			d, _ := time.ParseDuration(v)
			s.Duration = &metav1.Duration{Duration: d}
		}),
	certEntry(AnnCertRenewBefore, "How long before expiry cert-manager renews the certificate (360h); at least 5m and less than the duration.",
		"a third of the duration", duration, func(v string, s *cmapi.CertificateSpec) {
			d, _ := time.ParseDuration(v)
			s.RenewBefore = &metav1.Duration{Duration: d}
		}),
	certEntry(AnnCertPrivateKeyAlgorithm, "Algorithm of the private key: RSA, ECDSA or Ed25519.",
		"RSA", oneOf(string(cmapi.RSAKeyAlgorithm), string(cmapi.ECDSAKeyAlgorithm), string(cmapi.Ed25519KeyAlgorithm)), func(v string, s *cmapi.CertificateSpec) {
			privateKey(s).Algorithm = cmapi.PrivateKeyAlgorithm(v)
		}),
	certEntry(AnnCertPrivateKeySize, "Size of the private key in bits: 2048 to 8192 for RSA, 256, 384 or 521 for ECDSA (ignored for Ed25519).",
		"2048 for RSA, 256 for ECDSA", keySize, func(v string, s *cmapi.CertificateSpec) {
			privateKey(s).Size, _ = strconv.Atoi(v)
		}),
	certEntry(AnnCertPrivateKeyRotationPolicy, "Always makes a new private key at every renewal; Never keeps the first one.",
		"Always", oneOf(string(cmapi.RotationPolicyAlways), string(cmapi.RotationPolicyNever)), func(v string, s *cmapi.CertificateSpec) {
			privateKey(s).RotationPolicy = cmapi.PrivateKeyRotationPolicy(v)
		}),
	certEntry(AnnCertRevisionHistoryLimit, "Number of CertificateRequests cert-manager keeps for the certificate; at least 1.",
		"1", revisionHistoryLimit, func(v string, s *cmapi.CertificateSpec) {
			n, _ := strconv.ParseInt(v, 10, 32)
			s.RevisionHistoryLimit = new(int32(n))
		}),
	subjectEntry(AnnCertSubjectOrganizations, "organizations", func(x *cmapi.X509Subject, v []string) { x.Organizations = v }),
	subjectEntry(AnnCertSubjectOrganizationalUnit, "organizational units", func(x *cmapi.X509Subject, v []string) { x.OrganizationalUnits = v }),
	subjectEntry(AnnCertSubjectCountries, "countries", func(x *cmapi.X509Subject, v []string) { x.Countries = v }),
	subjectEntry(AnnCertSubjectProvinces, "provinces", func(x *cmapi.X509Subject, v []string) { x.Provinces = v }),
	subjectEntry(AnnCertSubjectLocalities, "localities", func(x *cmapi.X509Subject, v []string) { x.Localities = v }),
	subjectEntry(AnnCertSubjectStreetAddresses, "street addresses", func(x *cmapi.X509Subject, v []string) { x.StreetAddresses = v }),
	subjectEntry(AnnCertSubjectPostalCodes, "postal codes", func(x *cmapi.X509Subject, v []string) { x.PostalCodes = v }),
	certEntry(AnnCertSubjectSerialNumber, "Serial number attribute of the certificate's subject.",
		"none", func(string) *field.Error { return nil }, func(v string, s *cmapi.CertificateSpec) { subject(s).SerialNumber = v }),
}

// certEntry is a catalogue entry of a cert-manager annotation.
func certEntry(key, help, def string, validate func(string) *field.Error, apply func(string, *cmapi.CertificateSpec)) Annotation {
	return Annotation{Key: key, Help: help, Default: def, OnlyFor: onlyTLSTerminating, validate: validate, certificate: apply}
}

// subjectEntry is the entry of a subject attribute list, which cert-manager
// reads as one line of CSV (so values may hold quoted commas).
func subjectEntry(key, what string, set func(*cmapi.X509Subject, []string)) Annotation {
	return certEntry(key, "Comma-separated "+what+" of the certificate's subject (one line of CSV: quote a value that holds a comma).", "none",
		func(v string) *field.Error {
			if _, err := splitCSV(v); err != nil {
				return field.Invalid(nil, v, err.Error())
			}
			return nil
		},
		func(v string, s *cmapi.CertificateSpec) {
			values, _ := splitCSV(v)
			set(subject(s), values)
		})
}

// splitCSV reads a subject annotation as cert-manager does: exactly one
// line of CSV, so a value may hold a quoted comma.
func splitCSV(v string) ([]string, error) {
	records, err := csv.NewReader(strings.NewReader(v)).ReadAll()
	switch {
	case err != nil:
		return nil, fmt.Errorf("failed to parse %q as CSV: %w", v, err)
	case len(records) == 0:
		return nil, fmt.Errorf("no values found after parsing %q", v)
	case len(records) > 1:
		return nil, fmt.Errorf("refusing to use %q as input as it parses as multiple lines of CSV", v)
	}
	return records[0], nil
}

func privateKey(s *cmapi.CertificateSpec) *cmapi.CertificatePrivateKey {
	if s.PrivateKey == nil {
		s.PrivateKey = &cmapi.CertificatePrivateKey{}
	}
	return s.PrivateKey
}

func subject(s *cmapi.CertificateSpec) *cmapi.X509Subject {
	if s.Subject == nil {
		s.Subject = &cmapi.X509Subject{}
	}
	return s.Subject
}

func issuerName(v string) *field.Error {
	if msgs := nameIsDNSSubdomain(v, false); len(msgs) > 0 {
		return field.Invalid(nil, v, strings.Join(msgs, "; "))
	}
	return nil
}

func dnsSubdomain(v string) *field.Error {
	if msgs := dns1123SubdomainErrors(v); len(msgs) > 0 {
		return field.Invalid(nil, v, strings.Join(msgs, "; "))
	}
	return nil
}

func nonEmpty(v string) *field.Error {
	if v == "" {
		return field.Invalid(nil, v, "must not be empty")
	}
	return nil
}

func commonName(v string) *field.Error {
	if len(v) > maxCommonNameLength {
		return field.TooLong(nil, v, maxCommonNameLength)
	}
	return nil
}

// list checks each entry of a comma-separated list, split as cert-manager
// splits it (no spaces trimmed).
func list(entry func(string) *field.Error) func(string) *field.Error {
	return func(v string) *field.Error {
		for e := range strings.SplitSeq(v, ",") {
			if err := entry(e); err != nil {
				return err
			}
		}
		return nil
	}
}

func dnsName(v string) *field.Error {
	msgs := dns1123SubdomainErrors(v)
	if strings.HasPrefix(v, "*.") {
		msgs = validation.IsWildcardDNS1123Subdomain(v)
	}
	if len(msgs) > 0 {
		return field.Invalid(nil, v, strings.Join(msgs, "; ")+" (separate names with commas only)")
	}
	return nil
}

func ipAddress(v string) *field.Error {
	if net.ParseIP(v) == nil {
		return field.Invalid(nil, v, "invalid IP address")
	}
	return nil
}

func uri(v string) *field.Error {
	if u, err := url.Parse(v); err != nil || u.Scheme == "" {
		return field.Invalid(nil, v, "must be an absolute URI such as spiffe://cluster.local/ns/shop/sa/web")
	}
	return nil
}

// emailAddress is cert-manager's rule for email SANs.
func emailAddress(v string) *field.Error {
	e, err := mail.ParseAddress(v)
	switch {
	case err != nil:
		return field.Invalid(nil, v, fmt.Sprintf("invalid email address: %s", err))
	case e.Address != v:
		return field.Invalid(nil, v, "invalid email address: make sure the supplied value only contains the email address itself")
	}
	return nil
}

// duration parses a duration as cert-manager's ingress-shim does.
func duration(v string) *field.Error {
	if _, err := time.ParseDuration(v); err != nil {
		return field.Invalid(nil, v, "must be a duration such as 2160h or 90m (cert-manager reads it with Go's time.ParseDuration: "+err.Error()+")")
	}
	return nil
}

func keySize(v string) *field.Error {
	if n, err := strconv.Atoi(v); err != nil || n < 1 {
		return field.Invalid(nil, v, "must be a whole number of bits")
	}
	return nil
}

func revisionHistoryLimit(v string) *field.Error {
	n, err := strconv.ParseInt(v, 10, 32)
	switch {
	case err != nil:
		return field.Invalid(nil, v, "must be a whole number from 1 up")
	case n < 1:
		return field.Invalid(nil, v, "must not be less than 1")
	}
	return nil
}

// CertificateSecretName is the Secret cert-manager fills with the
// certificate of a Route named name, which the Route names in
// spec.tls.externalCertificate.
func CertificateSecretName(name string) string { return name + "-route-tls" }

// RouteCertificate is the cert-manager Certificate spec a Route's
// cert-manager annotations ask for: the issuer, the Route's host (or
// *.<domain> for wildcardPolicy Subdomain) and cert-manager.io/alt-names as
// DNS names, CertificateSecretName as the Secret, and every other field an
// annotation sets. It reports false when the Route names no issuer. The
// Route is expected to be valid (ValidateRoute); invalid values are left out.
func RouteCertificate(route *Route) (cmapi.CertificateSpec, bool) {
	var spec cmapi.CertificateSpec
	if CertificateIssuerKey(route.Annotations) == "" {
		return spec, false
	}
	if host := route.Spec.Host; host != "" {
		if route.Spec.WildcardPolicy == WildcardPolicySubdomain {
			_, domain, _ := strings.Cut(host, ".")
			host = "*." + domain
		}
		spec.DNSNames = []string{host}
	}
	for i := range AnnotationCatalogue {
		a := &AnnotationCatalogue[i]
		if v, ok := route.Annotations[a.Key]; ok && a.certificate != nil && a.validate(v) == nil {
			a.certificate(v, &spec)
		}
	}
	spec.DNSNames = unique(spec.DNSNames)
	spec.SecretName = CertificateSecretName(route.Name)
	return spec, true
}

// unique drops repeated strings, keeping the first of each.
func unique(list []string) []string {
	seen := make(map[string]bool, len(list))
	return slices.DeleteFunc(list, func(s string) bool {
		dup := seen[s]
		seen[s] = true
		return dup
	})
}

// IsCertManagerAnnotation reports whether key is in cert-manager's
// cert-manager.io annotation group, whose keys ask for certificates.
func IsCertManagerAnnotation(key string) bool { return strings.HasPrefix(key, "cert-manager.io/") }

// CertificateIssuerKey is the first issuer annotation set (issuer,
// issuer-name, cluster-issuer), or "".
func CertificateIssuerKey(annotations map[string]string) string {
	for _, k := range issuerKeys {
		if _, ok := annotations[k]; ok {
			return k
		}
	}
	return ""
}

// certManager checks what the cert-manager annotations say together and
// with the rest of the Route: exactly one issuer, kind and group, durations,
// key size and algorithm, and a Route that can serve the certificate (TLS,
// not passthrough, no certificate or key of its own, no other external
// certificate, a name to certify). Values that fail their own check are
// left to it. On update the rules run only when the annotations or
// spec.tls changed.
func (c *check) certManager() field.ErrorList {
	ann := c.route.Annotations
	set := certificateKeysSet(ann)
	if len(set) == 0 || c.opts.SkipAnnotationValues || !c.certManagerChanged() {
		return nil
	}
	issuers := slices.DeleteFunc(slices.Clone(issuerKeys), func(k string) bool { _, ok := ann[k]; return !ok })
	if len(issuers) == 0 {
		return field.ErrorList{field.Required(annotationsPath.Key(AnnCertIssuer), fmt.Sprintf(
			"%s needs an issuer: set %s (or %s)", set[0], AnnCertIssuer, AnnCertClusterIssuer))}
	}
	var errs field.ErrorList
	for _, k := range issuers[1:] {
		errs = append(errs, field.Invalid(annotationsPath.Key(k), ann[k], fmt.Sprintf("cannot be set with %s: name one issuer", issuers[0])))
	}
	errs = append(errs, issuerKindAndGroup(ann)...)
	errs = append(errs, certificateDurations(ann)...)
	errs = append(errs, certificateKeySize(ann)...)
	return append(errs, c.certificateRoute(issuers[0])...)
}

// certManagerChanged reports whether a cert-manager annotation or
// spec.tls differs from the stored Route (always true on create).
func (c *check) certManagerChanged() bool {
	if c.creating() {
		return true
	}
	for _, k := range certificateKeysSet(c.route.Annotations) {
		if ov, ok := c.old.Annotations[k]; !ok || ov != c.route.Annotations[k] {
			return true
		}
	}
	return !equalTLS(c.route.Spec.TLS, c.old.Spec.TLS)
}

func equalTLS(a, b *TLSConfig) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Termination == b.Termination && a.Key == b.Key && a.Certificate == b.Certificate &&
		(a.ExternalCertificate == nil) == (b.ExternalCertificate == nil) &&
		(a.ExternalCertificate == nil || a.ExternalCertificate.Name == b.ExternalCertificate.Name)
}

// certificateKeysSet are the cert-manager catalogue keys set, in
// catalogue order.
func certificateKeysSet(ann map[string]string) []string {
	var keys []string
	for i := range certificateCatalogue {
		if _, ok := ann[certificateCatalogue[i].Key]; ok {
			keys = append(keys, certificateCatalogue[i].Key)
		}
	}
	return keys
}

// issuerKindAndGroup: a ClusterIssuer has no kind or group annotation
// (as cert-manager's ingress-shim says), and without an external group the
// kind is Issuer or ClusterIssuer.
func issuerKindAndGroup(ann map[string]string) field.ErrorList {
	kind, kindSet := ann[AnnCertIssuerKind]
	group, groupSet := ann[AnnCertIssuerGroup]
	var errs field.ErrorList
	if _, ok := ann[AnnCertClusterIssuer]; ok {
		for _, k := range []string{AnnCertIssuerKind, AnnCertIssuerGroup} {
			if v, ok := ann[k]; ok {
				errs = append(errs, field.Invalid(annotationsPath.Key(k), v, fmt.Sprintf("cannot be set with %s, which names a ClusterIssuer of cert-manager.io", AnnCertClusterIssuer)))
			}
		}
		return errs
	}
	if kindSet && kind != "" && (!groupSet || group == "" || group == cmapi.SchemeGroupVersion.Group) && kind != cmapi.IssuerKind && kind != cmapi.ClusterIssuerKind {
		msg := "must be one of Issuer or ClusterIssuer"
		if !groupSet {
			msg += fmt.Sprintf(" (did you forget to set %s?)", AnnCertIssuerGroup)
		}
		errs = append(errs, field.Invalid(annotationsPath.Key(AnnCertIssuerKind), kind, msg))
	}
	return errs
}

// certificateDurations applies cert-manager's rules: a duration of at
// least an hour, renew-before of at least 5 minutes and less than the
// duration (the default duration when none is set). A renew-before is
// compared with no duration that cannot be read (its own error says so).
func certificateDurations(ann map[string]string) field.ErrorList {
	total, totalKnown := cmapi.DefaultCertificateDuration, true
	var errs field.ErrorList
	if v, ok := ann[AnnCertDuration]; ok {
		d, err := time.ParseDuration(v)
		total, totalKnown = d, err == nil
		if totalKnown && d < cmapi.MinimumCertificateDuration {
			errs = append(errs, field.Invalid(annotationsPath.Key(AnnCertDuration), v,
				fmt.Sprintf("certificate duration must be greater than %s", cmapi.MinimumCertificateDuration)))
		}
	}
	v, ok := ann[AnnCertRenewBefore]
	renew, err := time.ParseDuration(v)
	switch {
	case !ok || err != nil:
	case renew < cmapi.MinimumRenewBefore:
		errs = append(errs, field.Invalid(annotationsPath.Key(AnnCertRenewBefore), v,
			fmt.Sprintf("certificate renewBefore must be greater than %s", cmapi.MinimumRenewBefore)))
	case totalKnown && renew >= total:
		errs = append(errs, field.Invalid(annotationsPath.Key(AnnCertRenewBefore), v,
			fmt.Sprintf("certificate duration %s must be greater than renewBefore %s", total, renew)))
	}
	return errs
}

// certificateKeySize applies cert-manager's key sizes per algorithm.
func certificateKeySize(ann map[string]string) field.ErrorList {
	v, ok := ann[AnnCertPrivateKeySize]
	size, err := strconv.Atoi(v)
	if !ok || err != nil || size < 1 {
		return nil
	}
	path := annotationsPath.Key(AnnCertPrivateKeySize)
	switch cmapi.PrivateKeyAlgorithm(ann[AnnCertPrivateKeyAlgorithm]) {
	case "", cmapi.RSAKeyAlgorithm:
		if size < minRSAKeySize || size > maxRSAKeySize {
			return field.ErrorList{field.Invalid(path, v, fmt.Sprintf("must be between %d and %d for rsa keyAlgorithm", minRSAKeySize, maxRSAKeySize))}
		}
	case cmapi.ECDSAKeyAlgorithm:
		if !slices.Contains(ecdsaKeySizes, v) {
			return field.ErrorList{field.NotSupported(path, v, ecdsaKeySizes)}
		}
	}
	return nil
}

// certificateRoute checks that the Route can serve the certificate its
// issuer annotation (key) asks for.
func (c *check) certificateRoute(key string) field.ErrorList {
	spec, tlsPath := &c.route.Spec, specPath.Child("tls")
	tls := spec.TLS
	switch {
	case tls == nil:
		return field.ErrorList{field.Required(tlsPath, fmt.Sprintf(
			"%s asks for a certificate, which only a TLS route serves: add tls: {termination: edge} (or reencrypt)", key))}
	case tls.Termination == TLSTerminationPassthrough:
		return field.ErrorList{field.Invalid(tlsPath.Child("termination"), tls.Termination, fmt.Sprintf(
			"%s asks for a certificate, which the router serves only on edge and reencrypt routes: it does not terminate TLS of passthrough routes", key))}
	}
	var errs field.ErrorList
	// A certificate of its own (its key in key or bundled with it) is what
	// the router would serve instead of cert-manager's.
	switch {
	case tls.Key != "":
		errs = append(errs, field.Invalid(tlsPath.Child("key"), "redacted key data", fmt.Sprintf(
			"cannot be combined with %s: remove key and certificate to serve cert-manager's certificate, or the annotation to keep them", key)))
	case tls.Certificate != "":
		errs = append(errs, field.Invalid(tlsPath.Child("certificate"), "redacted certificate data", fmt.Sprintf(
			"cannot be combined with %s: remove the certificate to serve cert-manager's, or the annotation to keep it", key)))
	}
	if ext := tls.ExternalCertificate; ext != nil && ext.Name != "" && ext.Name != CertificateSecretName(c.route.Name) {
		errs = append(errs, field.Invalid(tlsPath.Child("externalCertificate", "name"), ext.Name, fmt.Sprintf(
			"cert-manager fills Secret %s for %s: name that Secret, or remove the annotation", CertificateSecretName(c.route.Name), key)))
	}
	if spec.Host == "" && !slices.ContainsFunc([]string{AnnCertCommonName, AnnCertAltNames, AnnCertIPSANs, AnnCertURISANs, AnnCertEmailSANs},
		func(k string) bool { return c.route.Annotations[k] != "" }) {
		errs = append(errs, field.Required(specPath.Child("host"), fmt.Sprintf(
			"%s asks for a certificate, which needs a name: set spec.host or %s", key, AnnCertAltNames)))
	}
	return errs
}
