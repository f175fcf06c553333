package certs

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fixtures holds the certificates shared by the tests of this package. They
// are generated once per test binary: RSA key generation is slow.
type fixtures struct {
	// rsaCA (RSA 2048) signs rsaLeaf (RSA 2048), otherRSA is an unrelated
	// RSA 2048 key pair (self-signed).
	rsaCA, rsaLeaf, otherRSA *KeyPair
	// ecCA (ECDSA P-256) signs ecLeaf (ECDSA P-256).
	ecCA, ecLeaf *KeyPair
	// otherCA is unrelated to everything; impostorCA has the subject of
	// rsaCA but another key.
	otherCA, impostorCA *KeyPair
	// intermediate is an ECDSA CA signed by rsaCA; chainLeaf is signed by
	// intermediate.
	intermediate, chainLeaf *KeyPair
	// Leaves signed by rsaCA: expired a year ago, valid only from next
	// month, and issued a day before rsaCA's own notBefore.
	expiredLeaf, futureLeaf, backdatedLeaf *KeyPair
	// renewedCA is rsaCA re-issued with the same key and subject half an
	// hour after rsaLeaf's notBefore (a CA certificate renewal).
	renewedCA string
	// namelessLeaf, signed by ecCA, has no DNS names nor IP addresses and
	// a common name that is no host name.
	namelessLeaf *KeyPair
	// Weak signatures: sha1Leaf (SHA1WithRSA by rsaCA), ecdsaSHA1Leaf
	// (ECDSAWithSHA1 by ecCA), sha1Intermediate (an SHA1WithRSA CA
	// signed by rsaCA), sha1Root (a self-signed SHA1WithRSA root) and
	// sha1RootLeaf (SHA256WithRSA by sha1Root).
	// sha1Namesake is an SHA1WithRSA leaf whose issuer, namesakeCA, has
	// the leaf's own name: issuer = subject, yet CA-signed.
	sha1Leaf, ecdsaSHA1Leaf, sha1Intermediate, sha1Root, sha1RootLeaf, namesakeCA, sha1Namesake *KeyPair
	// md5Leaf is signed by rsaCA and patched to claim MD5WithRSA; its
	// signature no longer verifies. md5LeafPEM is its certificate.
	md5Leaf    *KeyPair
	md5LeafPEM string
}

var (
	fixturesOnce sync.Once
	sharedFix    *fixtures
	fixturesErr  error
)

// testFixtures returns the shared fixtures, generating them on first use.
func testFixtures(tb testing.TB) *fixtures {
	tb.Helper()
	fixturesOnce.Do(func() { sharedFix, fixturesErr = newFixtures() })
	if fixturesErr != nil {
		tb.Fatalf("generating fixtures: %v", fixturesErr)
	}
	return sharedFix
}

func newFixtures() (*fixtures, error) {
	f := &fixtures{}
	var err error
	issue := func(dst **KeyPair, issuer *KeyPair, opts Options) {
		if err != nil {
			return
		}
		*dst, err = Generate(opts, issuer)
	}
	now := time.Now().Truncate(time.Second)

	issue(&f.rsaCA, nil, Options{CommonName: "Test RSA Root CA", KeyType: RSA2048, IsCA: true, Validity: 10 * 365 * 24 * time.Hour})
	issue(&f.rsaLeaf, f.rsaCA, Options{CommonName: "www.example.com", DNSNames: []string{"www.example.com"}, KeyType: RSA2048})
	issue(&f.otherRSA, nil, Options{CommonName: "other.example.com", DNSNames: []string{"other.example.com"}, KeyType: RSA2048})
	issue(&f.ecCA, nil, Options{CommonName: "Test ECDSA Root CA", IsCA: true})
	issue(&f.ecLeaf, f.ecCA, Options{CommonName: "ec.example.com", DNSNames: []string{"ec.example.com"}})
	issue(&f.otherCA, nil, Options{CommonName: "Unrelated CA", IsCA: true})
	issue(&f.impostorCA, nil, Options{CommonName: "Test RSA Root CA", IsCA: true})
	issue(&f.intermediate, f.rsaCA, Options{CommonName: "Test Intermediate CA", IsCA: true})
	issue(&f.chainLeaf, f.intermediate, Options{CommonName: "chain.example.com", DNSNames: []string{"chain.example.com"}})
	issue(&f.expiredLeaf, f.rsaCA, Options{CommonName: "expired.example.com", NotBefore: now.AddDate(-2, 0, 0), Validity: 365 * 24 * time.Hour})
	issue(&f.futureLeaf, f.rsaCA, Options{CommonName: "future.example.com", NotBefore: now.AddDate(0, 1, 0)})
	issue(&f.namelessLeaf, f.ecCA, Options{CommonName: "not a host name"})
	issue(&f.sha1Leaf, f.rsaCA, Options{CommonName: "sha1.example.com", SignatureAlgorithm: x509.SHA1WithRSA})
	issue(&f.ecdsaSHA1Leaf, f.ecCA, Options{CommonName: "ecdsa-sha1.example.com", SignatureAlgorithm: x509.ECDSAWithSHA1})
	issue(&f.sha1Intermediate, f.rsaCA, Options{CommonName: "SHA1 Intermediate CA", IsCA: true, SignatureAlgorithm: x509.SHA1WithRSA})
	issue(&f.sha1Root, nil, Options{CommonName: "SHA1 Root CA", KeyType: RSA2048, IsCA: true, SignatureAlgorithm: x509.SHA1WithRSA})
	issue(&f.sha1RootLeaf, f.sha1Root, Options{CommonName: "sha1-root.example.com", SignatureAlgorithm: x509.SHA256WithRSA})
	issue(&f.namesakeCA, nil, Options{CommonName: "namesake.example.com", KeyType: RSA2048, IsCA: true})
	issue(&f.sha1Namesake, f.namesakeCA, Options{CommonName: "namesake.example.com", SignatureAlgorithm: x509.SHA1WithRSA})
	issue(&f.md5Leaf, f.rsaCA, Options{CommonName: "md5.example.com", SignatureAlgorithm: x509.SHA256WithRSA})
	if err != nil {
		return nil, err
	}
	// A leaf issued (by notBefore) before its CA: what a CA renewal
	// looks like to the verifier.
	if f.backdatedLeaf, err = f.rsaCA.Issue(Options{CommonName: "backdated.example.com", NotBefore: f.rsaCA.Cert.NotBefore.Add(-24 * time.Hour)}); err != nil {
		return nil, err
	}
	if f.renewedCA, err = renew(f.rsaCA, f.rsaLeaf.Cert.NotBefore.Add(30*time.Minute)); err != nil {
		return nil, err
	}
	if f.md5LeafPEM, err = patchToMD5(f.md5Leaf.Cert.Raw); err != nil {
		return nil, err
	}
	// Go leaves out the authority key ID when issuer and subject are
	// equal; tools such as OpenSSL write it: re-sign the namesake with it.
	tmpl := *f.sha1Namesake.Cert
	tmpl.AuthorityKeyId = f.namesakeCA.Cert.SubjectKeyId
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, f.namesakeCA.Cert, f.sha1Namesake.Key.Public(), f.namesakeCA.Key)
	if err != nil {
		return nil, err
	}
	if f.sha1Namesake.Cert, err = x509.ParseCertificate(der); err != nil {
		return nil, err
	}
	f.sha1Namesake.CertPEM = []byte(pemString("CERTIFICATE", der))
	return f, nil
}

// renew re-issues the self-signed CA ca with the same key and subject, valid
// from notBefore, and returns it PEM-encoded.
func renew(ca *KeyPair, notBefore time.Time) (string, error) {
	tmpl := *ca.Cert
	tmpl.SerialNumber = new(big.Int).Add(ca.Cert.SerialNumber, big.NewInt(1))
	tmpl.NotBefore, tmpl.NotAfter = notBefore, notBefore.AddDate(10, 0, 0)
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, ca.Key.Public(), ca.Key)
	if err != nil {
		return "", err
	}
	return pemString("CERTIFICATE", der), nil
}

// DER encodings (tag, length, value) of the signature algorithm OIDs
// sha256WithRSAEncryption (1.2.840.113549.1.1.11) and md5WithRSAEncryption
// (1.2.840.113549.1.1.4). They have the same length, so one can replace the
// other in place without touching any enclosing length.
var (
	oidSHA256WithRSA = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b}
	oidMD5WithRSA    = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x04}
)

// patchToMD5 turns a SHA256WithRSA certificate into one that claims an
// MD5WithRSA signature, PEM-encoded. Go refuses to sign with MD5 (see
// TestGenerateErrors), so the trick is to generate a SHA256WithRSA
// certificate and rewrite, in its DER, both signature algorithm
// identifiers: the one inside tbsCertificate and the outer one next to the
// signature (Go's parser rejects a certificate whose two identifiers
// differ). Both OIDs encode to 11 bytes, so no length changes. The result
// parses and reports MD5WithRSA; its signature, computed over the unpatched
// tbsCertificate, no longer verifies, which does not matter since the
// router refuses weak algorithms from the declared identifier alone.
func patchToMD5(der []byte) (string, error) {
	if n := bytes.Count(der, oidSHA256WithRSA); n != 2 {
		return "", fmt.Errorf("found %d sha256WithRSAEncryption identifiers, want 2", n)
	}
	patched := bytes.ReplaceAll(der, oidSHA256WithRSA, oidMD5WithRSA)
	c, err := x509.ParseCertificate(patched)
	if err != nil {
		return "", fmt.Errorf("parsing patched certificate: %w", err)
	}
	if c.SignatureAlgorithm != x509.MD5WithRSA {
		return "", fmt.Errorf("patched certificate reports %v, want MD5-RSA", c.SignatureAlgorithm)
	}
	return pemString("CERTIFICATE", patched), nil
}

func pemString(typ string, der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

// cat concatenates PEM (or other) texts into one field value.
func cat(parts ...string) string { return strings.Join(parts, "") }

func certPEM(kp *KeyPair) string { return string(kp.CertPEM) }

// keyPEM is the PKCS#8 "PRIVATE KEY" encoding Generate produces.
func keyPEM(kp *KeyPair) string { return string(kp.KeyPEM) }

// pkcs1Key is an RSA key as "RSA PRIVATE KEY" (PKCS#1).
func pkcs1Key(kp *KeyPair) string {
	return pemString("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(kp.Key.(*rsa.PrivateKey)))
}

// sec1Key is an ECDSA key in SEC1 form under the given block type, as
// openssl ecparam -genkey writes it ("EC PRIVATE KEY").
func sec1Key(kp *KeyPair, typ string) string {
	der, err := x509.MarshalECPrivateKey(kp.Key.(*ecdsa.PrivateKey))
	if err != nil {
		panic(err)
	}
	return pemString(typ, der)
}

// publicKey is the certificate's public key as a "PUBLIC KEY" block.
func publicKey(kp *KeyPair) string {
	der, err := x509.MarshalPKIXPublicKey(kp.Cert.PublicKey)
	if err != nil {
		panic(err)
	}
	return pemString("PUBLIC KEY", der)
}

// relabel changes the type of the (single) PEM block in s.
func relabel(s, typ string) string {
	b, _ := pem.Decode([]byte(s))
	return pemString(typ, b.Bytes)
}

// truncate cuts the DER inside the (single) PEM block in s in half.
func truncate(s string) string {
	b, _ := pem.Decode([]byte(s))
	return pemString(b.Type, b.Bytes[:len(b.Bytes)/2])
}

// crlf converts s to CRLF line endings.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

var (
	// ecParameters is what openssl ecparam -genkey writes before an EC
	// key: the OID of prime256v1.
	ecParameters = pemString("EC PARAMETERS", []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07})
	fooBlock     = pemString("FOO", []byte("bar"))
	// Well-formed PEM around bytes that are not DER.
	garbageCert = pemString("CERTIFICATE", []byte("this is not DER"))
	garbageKey  = pemString("PRIVATE KEY", []byte("this is not DER"))
)

type validateCase struct {
	name string
	in   RouteTLS
	// want is the expected error list, each rendered with Error().
	want []string
}

func validateCases(f *fixtures) []validateCase {
	rsaCert, rsaKey, rsaCA := certPEM(f.rsaLeaf), keyPEM(f.rsaLeaf), certPEM(f.rsaCA)
	ecCert, ecKey, ecCA := certPEM(f.ecLeaf), keyPEM(f.ecLeaf), certPEM(f.ecCA)
	return []validateCase{
		// Accepted.
		{name: "empty", in: RouteTLS{}},
		{name: "RSA 2048 certificate and PKCS#8 key", in: RouteTLS{Certificate: rsaCert, Key: rsaKey}},
		{name: "ECDSA certificate and PKCS#8 key", in: RouteTLS{Certificate: ecCert, Key: ecKey}},
		{name: "RSA certificate, key and the RSA CA that signed it", in: RouteTLS{Certificate: rsaCert, Key: rsaKey, CACertificate: rsaCA}},
		{name: "ECDSA certificate, key and the ECDSA CA that signed it", in: RouteTLS{Certificate: ecCert, Key: ecKey, CACertificate: ecCA}},
		{name: "RSA key as PKCS#1 RSA PRIVATE KEY", in: RouteTLS{Certificate: rsaCert, Key: pkcs1Key(f.rsaLeaf), CACertificate: rsaCA}},
		{name: "ECDSA key as SEC1 EC PRIVATE KEY", in: RouteTLS{Certificate: ecCert, Key: sec1Key(f.ecLeaf, "EC PRIVATE KEY")}},
		{name: "ECDSA key as SEC1 ECDSA PRIVATE KEY", in: RouteTLS{Certificate: ecCert, Key: sec1Key(f.ecLeaf, "ECDSA PRIVATE KEY")}},
		// tls.X509KeyPair ignores the label of a key block: so does the router.
		{name: "PKCS#8 key labelled RSA PRIVATE KEY", in: RouteTLS{Certificate: rsaCert, Key: relabel(rsaKey, "RSA PRIVATE KEY")}},
		{name: "SEC1 key labelled PRIVATE KEY", in: RouteTLS{Certificate: ecCert, Key: sec1Key(f.ecLeaf, "PRIVATE KEY")}},
		{name: "EC PARAMETERS before the key dropped", in: RouteTLS{Certificate: ecCert, Key: cat(ecParameters, sec1Key(f.ecLeaf, "EC PRIVATE KEY"))}},
		{name: "EC PARAMETERS in every field dropped", in: RouteTLS{Certificate: cat(ecParameters, ecCert), Key: cat(ecParameters, ecKey), CACertificate: cat(ecCA, ecParameters), DestinationCACertificate: cat(ecParameters, ecCA)}},
		{name: "key bundled after the certificate", in: RouteTLS{Certificate: cat(rsaCert, rsaKey), CACertificate: rsaCA}},
		{name: "key bundled before the certificate", in: RouteTLS{Certificate: cat(ecKey, ecCert)}},
		{name: "key bundled with a chain", in: RouteTLS{Certificate: cat(certPEM(f.chainLeaf), keyPEM(f.chainLeaf), certPEM(f.intermediate)), CACertificate: rsaCA}},
		{name: "wrong key bundled, right key in key field", in: RouteTLS{Certificate: cat(rsaCert, keyPEM(f.otherRSA)), Key: rsaKey}},
		{name: "two keys in key field, first one matches", in: RouteTLS{Certificate: rsaCert, Key: cat(rsaKey, keyPEM(f.otherRSA))}},
		{name: "chain leaf and intermediate verifies to the root CA", in: RouteTLS{Certificate: cat(certPEM(f.chainLeaf), certPEM(f.intermediate)), Key: keyPEM(f.chainLeaf), CACertificate: rsaCA}},
		{name: "intermediate given in caCertificate with the root", in: RouteTLS{Certificate: certPEM(f.chainLeaf), Key: keyPEM(f.chainLeaf), CACertificate: cat(certPEM(f.intermediate), rsaCA)}},
		{name: "intermediate alone in caCertificate acts as root", in: RouteTLS{Certificate: certPEM(f.chainLeaf), Key: keyPEM(f.chainLeaf), CACertificate: certPEM(f.intermediate)}},
		{name: "expired leaf accepted", in: RouteTLS{Certificate: certPEM(f.expiredLeaf), Key: keyPEM(f.expiredLeaf), CACertificate: rsaCA}},
		{name: "not yet valid leaf accepted", in: RouteTLS{Certificate: certPEM(f.futureLeaf), Key: keyPEM(f.futureLeaf), CACertificate: rsaCA}},
		{name: "leaf valid before its CA accepted", in: RouteTLS{Certificate: certPEM(f.backdatedLeaf), Key: keyPEM(f.backdatedLeaf), CACertificate: rsaCA}},
		{name: "CA certificate renewed after the leaf was issued", in: RouteTLS{Certificate: rsaCert, Key: rsaKey, CACertificate: f.renewedCA}},
		{name: "hostname not checked: leaf without names", in: RouteTLS{Certificate: certPEM(f.namelessLeaf), Key: keyPEM(f.namelessLeaf), CACertificate: ecCA}},
		{name: "self-signed certificate without CA", in: RouteTLS{Certificate: certPEM(f.otherRSA), Key: keyPEM(f.otherRSA)}},
		{name: "CA-signed certificate without its CA", in: RouteTLS{Certificate: certPEM(f.chainLeaf), Key: keyPEM(f.chainLeaf)}},
		{name: "self-signed SHA1 root as CA", in: RouteTLS{Certificate: certPEM(f.sha1RootLeaf), Key: keyPEM(f.sha1RootLeaf), CACertificate: certPEM(f.sha1Root)}},
		{name: "self-signed SHA1 root in the certificate chain", in: RouteTLS{Certificate: cat(certPEM(f.sha1RootLeaf), certPEM(f.sha1Root)), Key: keyPEM(f.sha1RootLeaf), CACertificate: certPEM(f.sha1Root)}},
		{name: "self-signed SHA1 root as certificate", in: RouteTLS{Certificate: certPEM(f.sha1Root), Key: keyPEM(f.sha1Root)}},
		{name: "self-signed SHA1 root as destination CA", in: RouteTLS{DestinationCACertificate: certPEM(f.sha1Root)}},
		{name: "destination CA alone", in: RouteTLS{DestinationCACertificate: cat(rsaCA, ecCA)}},
		{name: "caCertificate alone", in: RouteTLS{CACertificate: rsaCA}},
		{name: "key alone", in: RouteTLS{Key: rsaKey}},
		{name: "CRLF line endings", in: RouteTLS{Certificate: crlf(rsaCert), Key: crlf(rsaKey), CACertificate: crlf(rsaCA), DestinationCACertificate: crlf(ecCA)}},
		{name: "text around PEM blocks dropped", in: RouteTLS{
			Certificate:   cat("Bag Attributes\n    friendlyName: www\nsubject=/CN=www.example.com\n", rsaCert, "\ntrailing words\n"),
			Key:           cat("Key Attributes: <No Attributes>\n", rsaKey),
			CACertificate: cat("# our CA\n", rsaCA, "-----BEGIN CERTIFICATE-----\nno end line\n"),
		}},
		{name: "everything valid", in: RouteTLS{Certificate: cat(certPEM(f.chainLeaf), certPEM(f.intermediate)), Key: keyPEM(f.chainLeaf), CACertificate: rsaCA, DestinationCACertificate: cat(ecCA, certPEM(f.otherCA))}},

		// Unknown PEM block types.
		{name: "unknown block in caCertificate", in: RouteTLS{Certificate: rsaCert, Key: rsaKey, CACertificate: cat(rsaCA, fooBlock)}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": unrecognized PEM block FOO`,
		}},
		{name: "unknown block in certificate", in: RouteTLS{Certificate: cat(rsaCert, fooBlock), Key: rsaKey}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": unrecognized PEM block FOO`,
		}},
		{name: "unknown block in key", in: RouteTLS{Certificate: rsaCert, Key: cat(fooBlock, rsaKey)}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": unrecognized PEM block FOO`,
		}},
		{name: "unknown block in key without certificate", in: RouteTLS{Key: cat(rsaKey, fooBlock)}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": unrecognized PEM block FOO`,
		}},
		{name: "unknown block in destinationCACertificate", in: RouteTLS{DestinationCACertificate: cat(ecCA, fooBlock)}, want: []string{
			`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": unrecognized PEM block FOO`,
		}},
		{name: "unknown blocks in all four fields", in: RouteTLS{Certificate: cat(fooBlock, rsaCert), Key: cat(rsaKey, fooBlock), CACertificate: fooBlock, DestinationCACertificate: fooBlock}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": unrecognized PEM block FOO`,
			`spec.tls.certificate: Invalid value: "redacted certificate data": unrecognized PEM block FOO`,
			`spec.tls.key: Invalid value: "redacted key data": unrecognized PEM block FOO`,
			`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": unrecognized PEM block FOO`,
		}},
		{name: "encrypted key refused", in: RouteTLS{Certificate: rsaCert, Key: relabel(rsaKey, "ENCRYPTED PRIVATE KEY")}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": unrecognized PEM block ENCRYPTED PRIVATE KEY`,
		}},
		{name: "CRL in caCertificate refused", in: RouteTLS{CACertificate: cat(rsaCA, pemString("X509 CRL", []byte{0x30, 0x00}))}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": unrecognized PEM block X509 CRL`,
		}},
		{name: "openssl TRUSTED CERTIFICATE refused", in: RouteTLS{Certificate: relabel(rsaCert, "TRUSTED CERTIFICATE"), Key: rsaKey}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": unrecognized PEM block TRUSTED CERTIFICATE`,
		}},

		// Missing or misplaced keys.
		{name: "no key", in: RouteTLS{Certificate: rsaCert, CACertificate: rsaCA}, want: []string{
			`spec.tls.key: Invalid value: "": no key specified`,
		}},
		{name: "non-PEM text as key", in: RouteTLS{Certificate: rsaCert, Key: "test"}, want: []string{
			`spec.tls.key: Invalid value: "": no key specified`,
		}},
		{name: "key without end line", in: RouteTLS{Certificate: ecCert, Key: strings.Replace(ecKey, "-----END PRIVATE KEY-----", "", 1)}, want: []string{
			`spec.tls.key: Invalid value: "": no key specified`,
		}},
		{name: "certificate in key field", in: RouteTLS{Certificate: rsaCert, Key: rsaCert}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": field contains invalid types CERTIFICATE, expecting only PRIVATE KEY`,
		}},
		{name: "certificate and public key next to the key", in: RouteTLS{Certificate: rsaCert, Key: cat(rsaKey, rsaCert, publicKey(f.rsaLeaf), rsaCA)}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": field contains invalid types CERTIFICATE, PUBLIC KEY, expecting only PRIVATE KEY`,
		}},
		{name: "public key in certificate field", in: RouteTLS{Certificate: cat(rsaCert, publicKey(f.rsaLeaf)), Key: rsaKey}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": field contains invalid types PUBLIC KEY, expecting only CERTIFICATE`,
		}},
		{name: "public key in certificate field, certificate in key field", in: RouteTLS{Certificate: cat(rsaCert, publicKey(f.rsaLeaf)), Key: cat(rsaKey, rsaCert)}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": field contains invalid types PUBLIC KEY, expecting only CERTIFICATE`,
			`spec.tls.key: Invalid value: "redacted key data": field contains invalid types CERTIFICATE, expecting only PRIVATE KEY`,
		}},

		// Certificates that do not parse.
		{name: "only a key in certificate field", in: RouteTLS{Certificate: rsaKey, Key: rsaKey}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": invalid/empty certificate data: data does not contain any valid RSA or ECDSA certificates`,
		}},
		{name: "non-PEM text as certificate", in: RouteTLS{Certificate: "hello", Key: rsaKey}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": invalid/empty certificate data: data does not contain any valid RSA or ECDSA certificates`,
		}},
		{name: "certificate block that is not DER", in: RouteTLS{Certificate: garbageCert, Key: rsaKey}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": invalid/empty certificate data: x509: malformed certificate`,
		}},
		{name: "truncated certificate", in: RouteTLS{Certificate: truncate(rsaCert), Key: rsaKey}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": invalid/empty certificate data: x509: malformed certificate`,
		}},

		// CA certificates that do not parse.
		{name: "caCertificate without certificates", in: RouteTLS{Certificate: rsaCert, Key: rsaKey, CACertificate: "not a certificate"}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": failed to parse CA certificate: data does not contain any valid RSA or ECDSA certificates`,
		}},
		{name: "caCertificate with only EC PARAMETERS", in: RouteTLS{CACertificate: ecParameters}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": failed to parse CA certificate: data does not contain any valid RSA or ECDSA certificates`,
		}},
		{name: "caCertificate block that is not DER", in: RouteTLS{Certificate: rsaCert, Key: rsaKey, CACertificate: cat(rsaCA, garbageCert)}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": failed to parse CA certificate: x509: malformed certificate`,
		}},
		{name: "private key in caCertificate", in: RouteTLS{Certificate: rsaCert, Key: rsaKey, CACertificate: cat(rsaCA, keyPEM(f.rsaCA))}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": field contains invalid types PRIVATE KEY, expecting only CERTIFICATE`,
		}},
		{name: "keys in caCertificate listed once each in order", in: RouteTLS{CACertificate: cat(publicKey(f.rsaCA), rsaCA, pkcs1Key(f.rsaCA), publicKey(f.ecCA))}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": field contains invalid types PUBLIC KEY, RSA PRIVATE KEY, expecting only CERTIFICATE`,
		}},
		// The certificate is then checked as if no CA had been given.
		{name: "unparsable caCertificate and a certificate of another CA", in: RouteTLS{Certificate: ecCert, Key: ecKey, CACertificate: garbageCert}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": failed to parse CA certificate: x509: malformed certificate`,
		}},

		// Verification against the CA.
		{name: "certificate not signed by the given CA", in: RouteTLS{Certificate: rsaCert, Key: rsaKey, CACertificate: certPEM(f.otherCA)}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": error verifying certificate: x509: certificate signed by unknown authority`,
		}},
		{name: "certificate signed by another CA with the same name", in: RouteTLS{Certificate: rsaCert, Key: rsaKey, CACertificate: certPEM(f.impostorCA)}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": error verifying certificate: x509: certificate signed by unknown authority (possibly because of "x509: signature algorithm specifies an RSA public key, but have public key of type *ecdsa.PublicKey" while trying to verify candidate authority certificate "Test RSA Root CA")`,
		}},
		{name: "chain without its intermediate", in: RouteTLS{Certificate: certPEM(f.chainLeaf), Key: keyPEM(f.chainLeaf), CACertificate: rsaCA}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": error verifying certificate: x509: certificate signed by unknown authority`,
		}},
		{name: "unknown CA and mismatched key both reported", in: RouteTLS{Certificate: ecCert, Key: rsaKey, CACertificate: rsaCA}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": error verifying certificate: x509: certificate signed by unknown authority`,
			`spec.tls.key: Invalid value: "redacted key data": tls: private key type does not match public key type`,
		}},
		{name: "chain with the intermediate first", in: RouteTLS{Certificate: cat(certPEM(f.intermediate), certPEM(f.chainLeaf)), Key: keyPEM(f.chainLeaf), CACertificate: rsaCA}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`,
		}},

		// Weak signatures.
		{name: "CA-signed SHA1 leaf with its CA", in: RouteTLS{Certificate: certPEM(f.sha1Leaf), Key: keyPEM(f.sha1Leaf), CACertificate: rsaCA}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": router does not support CA-signed certs using SHA1`,
		}},
		{name: "CA-signed SHA1 leaf without CA", in: RouteTLS{Certificate: certPEM(f.sha1Leaf), Key: keyPEM(f.sha1Leaf)}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": router does not support CA-signed certs using SHA1`,
		}},
		{name: "CA-signed SHA1 leaf named like its CA", in: RouteTLS{Certificate: certPEM(f.sha1Namesake), Key: keyPEM(f.sha1Namesake), CACertificate: certPEM(f.namesakeCA)}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": router does not support CA-signed certs using SHA1`,
		}},
		{name: "CA-signed ECDSA SHA1 leaf", in: RouteTLS{Certificate: certPEM(f.ecdsaSHA1Leaf), Key: keyPEM(f.ecdsaSHA1Leaf), CACertificate: ecCA}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": router does not support CA-signed certs using SHA1`,
		}},
		{name: "SHA1 leaf with a wrong key", in: RouteTLS{Certificate: certPEM(f.sha1Leaf), Key: ecKey, CACertificate: rsaCA}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": router does not support CA-signed certs using SHA1`,
			`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`,
		}},
		{name: "SHA1 intermediate in caCertificate", in: RouteTLS{Certificate: rsaCert, Key: rsaKey, CACertificate: cat(certPEM(f.sha1Intermediate), rsaCA)}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": router does not support CA-signed certs using SHA1`,
		}},
		{name: "SHA1 intermediate in the certificate chain", in: RouteTLS{Certificate: cat(ecCert, certPEM(f.sha1Intermediate)), Key: ecKey}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": router does not support CA-signed certs using SHA1`,
		}},
		{name: "CA-signed MD5 leaf with its CA", in: RouteTLS{Certificate: f.md5LeafPEM, Key: keyPEM(f.md5Leaf), CACertificate: rsaCA}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": router does not support CA-signed certs using MD5`,
		}},
		{name: "CA-signed MD5 leaf without CA", in: RouteTLS{Certificate: f.md5LeafPEM, Key: keyPEM(f.md5Leaf)}, want: []string{
			`spec.tls.certificate: Invalid value: "redacted certificate data": router does not support CA-signed certs using MD5`,
		}},

		// Keys that do not match.
		{name: "key of another RSA certificate", in: RouteTLS{Certificate: rsaCert, Key: keyPEM(f.otherRSA), CACertificate: rsaCA}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`,
		}},
		{name: "key of another ECDSA certificate", in: RouteTLS{Certificate: ecCert, Key: keyPEM(f.ecCA)}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`,
		}},
		{name: "ECDSA key for RSA certificate", in: RouteTLS{Certificate: rsaCert, Key: ecKey}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: private key type does not match public key type`,
		}},
		{name: "RSA key for ECDSA certificate", in: RouteTLS{Certificate: ecCert, Key: pkcs1Key(f.rsaLeaf)}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: private key type does not match public key type`,
		}},
		{name: "key block that is not DER", in: RouteTLS{Certificate: rsaCert, Key: garbageKey}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: failed to parse private key`,
		}},
		{name: "truncated key", in: RouteTLS{Certificate: rsaCert, Key: truncate(pkcs1Key(f.rsaLeaf))}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: failed to parse private key`,
		}},
		{name: "bundled key that is not DER", in: RouteTLS{Certificate: cat(ecCert, relabel(garbageKey, "EC PRIVATE KEY"))}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: failed to parse private key`,
		}},
		{name: "only the first key counts", in: RouteTLS{Certificate: rsaCert, Key: cat(keyPEM(f.otherRSA), rsaKey)}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`,
		}},
		{name: "key field wins over a bundled key", in: RouteTLS{Certificate: cat(rsaCert, rsaKey), Key: keyPEM(f.otherRSA)}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`,
		}},
		{name: "key of the CA", in: RouteTLS{Certificate: rsaCert, Key: keyPEM(f.rsaCA), CACertificate: rsaCA}, want: []string{
			`spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`,
		}},

		// Destination CA.
		{name: "destinationCACertificate without certificates", in: RouteTLS{DestinationCACertificate: "garbage"}, want: []string{
			`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": failed to parse destination CA certificate: data does not contain any valid RSA or ECDSA certificates`,
		}},
		{name: "destinationCACertificate block that is not DER", in: RouteTLS{DestinationCACertificate: cat(ecCA, garbageCert)}, want: []string{
			`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": failed to parse destination CA certificate: x509: malformed certificate`,
		}},
		{name: "private key in destinationCACertificate", in: RouteTLS{DestinationCACertificate: cat(ecCA, ecKey)}, want: []string{
			`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": field contains invalid types PRIVATE KEY, expecting only CERTIFICATE`,
		}},
		{name: "CA-signed SHA1 destinationCACertificate", in: RouteTLS{DestinationCACertificate: cat(rsaCA, certPEM(f.sha1Leaf))}, want: []string{
			`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": router does not support CA-signed certs using SHA1`,
		}},
		{name: "CA-signed MD5 destinationCACertificate", in: RouteTLS{DestinationCACertificate: f.md5LeafPEM}, want: []string{
			`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": router does not support CA-signed certs using MD5`,
		}},

		// Several problems at once, in field order.
		{name: "one problem in each field", in: RouteTLS{Certificate: certPEM(f.sha1Leaf), Key: keyPEM(f.otherRSA), CACertificate: cat(rsaCA, keyPEM(f.rsaCA)), DestinationCACertificate: garbageCert}, want: []string{
			`spec.tls.caCertificate: Invalid value: "redacted ca certificate data": field contains invalid types PRIVATE KEY, expecting only CERTIFICATE`,
			`spec.tls.certificate: Invalid value: "redacted certificate data": router does not support CA-signed certs using SHA1`,
			`spec.tls.key: Invalid value: "redacted key data": tls: private key type does not match public key type`,
			`spec.tls.destinationCACertificate: Invalid value: "redacted destination ca certificate data": failed to parse destination CA certificate: x509: malformed certificate`,
		}},
	}
}

// redactedValues are the only values errors may show: certificate and key
// material never appears in messages.
var redactedValues = []any{redactedCertificate, redactedKey, redactedCA, redactedDestinationCA, ""}

func TestValidateRouteTLS(t *testing.T) {
	f := testFixtures(t)
	names := map[string]bool{}
	for _, tc := range validateCases(f) {
		if names[tc.name] {
			t.Fatalf("duplicate case name %q", tc.name)
		}
		names[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidateRouteTLS(tc.in, field.NewPath("spec", "tls"))
			got := make([]string, 0, len(errs))
			for _, err := range errs {
				got = append(got, err.Error())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors:\n\t%s\nwant:\n\t%s", strings.Join(quoteAll(got), "\n\t"), strings.Join(quoteAll(tc.want), "\n\t"))
			}
			for _, err := range errs {
				if err.Type != field.ErrorTypeInvalid {
					t.Errorf("%s: type %s, want %s", err.Field, err.Type, field.ErrorTypeInvalid)
				}
				if !slices.Contains(redactedValues, err.BadValue) {
					t.Errorf("%s: value %q is not redacted", err.Field, err.BadValue)
				}
				if strings.Contains(err.Detail, "-----") {
					t.Errorf("%s: detail shows PEM data: %s", err.Field, err.Detail)
				}
			}
		})
	}
}

// quoteAll renders nil and empty lists visibly.
func quoteAll(s []string) []string {
	if len(s) == 0 {
		return []string{"(none)"}
	}
	return s
}

func TestValidateRouteTLSPath(t *testing.T) {
	f := testFixtures(t)
	errs := ValidateRouteTLS(RouteTLS{Certificate: certPEM(f.ecLeaf), CACertificate: "x", DestinationCACertificate: "x"}, field.NewPath("route").Index(3).Child("tls"))
	var got []string
	for _, err := range errs {
		got = append(got, err.Field)
	}
	want := []string{"route[3].tls.caCertificate", "route[3].tls.key", "route[3].tls.destinationCACertificate"}
	if !slices.Equal(got, want) {
		t.Errorf("fields = %q, want %q", got, want)
	}
}

// TestFixtures checks that the fixtures are what the cases above claim, so
// that an accepted case cannot pass for the wrong reason.
func TestFixtures(t *testing.T) {
	f := testFixtures(t)
	now := time.Now()
	pool := func(certs ...*x509.Certificate) *x509.CertPool {
		p := x509.NewCertPool()
		for _, c := range certs {
			p.AddCert(c)
		}
		return p
	}
	verifyErr := func(leaf *x509.Certificate, opts x509.VerifyOptions) error {
		_, err := leaf.Verify(opts)
		return err
	}

	if f.expiredLeaf.Cert.NotAfter.After(now) {
		t.Errorf("expired leaf is valid until %v", f.expiredLeaf.Cert.NotAfter)
	}
	if err := verifyErr(f.expiredLeaf.Cert, x509.VerifyOptions{Roots: pool(f.rsaCA.Cert)}); err == nil {
		t.Errorf("Go accepts the expired leaf today")
	}
	if f.futureLeaf.Cert.NotBefore.Before(now) {
		t.Errorf("future leaf is valid from %v", f.futureLeaf.Cert.NotBefore)
	}
	if err := verifyErr(f.futureLeaf.Cert, x509.VerifyOptions{Roots: pool(f.rsaCA.Cert)}); err == nil {
		t.Errorf("Go accepts the future leaf today")
	}
	if !f.backdatedLeaf.Cert.NotBefore.Before(f.rsaCA.Cert.NotBefore) {
		t.Errorf("backdated leaf (%v) is not older than its CA (%v)", f.backdatedLeaf.Cert.NotBefore, f.rsaCA.Cert.NotBefore)
	}
	if c := f.namelessLeaf.Cert; len(c.DNSNames)+len(c.IPAddresses)+len(c.EmailAddresses)+len(c.URIs) != 0 {
		t.Errorf("nameless leaf has names")
	}
	renewed, err := x509.ParseCertificate(mustDecode(t, f.renewedCA).Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !renewed.NotBefore.After(f.rsaLeaf.Cert.NotBefore) || !bytes.Equal(renewed.RawSubject, f.rsaCA.Cert.RawSubject) || bytes.Equal(renewed.Raw, f.rsaCA.Cert.Raw) {
		t.Errorf("renewed CA is not a newer certificate for rsaCA's name")
	}
	// Go itself accepts the leaf with the renewed CA today.
	if err := verifyErr(f.rsaLeaf.Cert, x509.VerifyOptions{Roots: pool(renewed)}); err != nil {
		t.Errorf("Go refuses the leaf with the renewed CA: %v", err)
	}
	if err := verifyErr(f.chainLeaf.Cert, x509.VerifyOptions{Roots: pool(f.rsaCA.Cert)}); err == nil {
		t.Errorf("chain leaf verifies without its intermediate")
	}
	if !bytes.Equal(f.impostorCA.Cert.RawSubject, f.rsaCA.Cert.RawSubject) {
		t.Errorf("impostor CA has another name")
	}
	for _, c := range []struct {
		name       string
		cert       *x509.Certificate
		alg        x509.SignatureAlgorithm
		selfSigned bool
	}{
		{"sha1Leaf", f.sha1Leaf.Cert, x509.SHA1WithRSA, false},
		{"ecdsaSHA1Leaf", f.ecdsaSHA1Leaf.Cert, x509.ECDSAWithSHA1, false},
		{"sha1Intermediate", f.sha1Intermediate.Cert, x509.SHA1WithRSA, false},
		{"sha1Root", f.sha1Root.Cert, x509.SHA1WithRSA, true},
		{"sha1RootLeaf", f.sha1RootLeaf.Cert, x509.SHA256WithRSA, false},
		{"md5Leaf before patching", f.md5Leaf.Cert, x509.SHA256WithRSA, false},
		{"rsaLeaf", f.rsaLeaf.Cert, x509.SHA256WithRSA, false},
		{"rsaCA", f.rsaCA.Cert, x509.SHA256WithRSA, true},
		{"sha1Namesake", f.sha1Namesake.Cert, x509.SHA1WithRSA, false},
	} {
		if c.cert.SignatureAlgorithm != c.alg || selfSigned(c.cert) != c.selfSigned {
			t.Errorf("%s: %v self-signed %v, want %v self-signed %v", c.name, c.cert.SignatureAlgorithm, selfSigned(c.cert), c.alg, c.selfSigned)
		}
	}
	md5, err := x509.ParseCertificate(mustDecode(t, f.md5LeafPEM).Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if md5.SignatureAlgorithm != x509.MD5WithRSA || selfSigned(md5) {
		t.Errorf("patched leaf: %v, self-signed %v", md5.SignatureAlgorithm, selfSigned(md5))
	}
	if _, ok := f.md5Leaf.Key.(*ecdsa.PrivateKey); !ok {
		t.Errorf("MD5 leaf key is %T, want ECDSA (see patchToMD5)", f.md5Leaf.Key)
	}
	if !f.sha1Intermediate.Cert.IsCA || !f.intermediate.Cert.IsCA {
		t.Errorf("intermediates are not CAs")
	}
}

func mustDecode(t *testing.T, s string) *pem.Block {
	t.Helper()
	b, _ := pem.Decode([]byte(s))
	if b == nil {
		t.Fatalf("no PEM block in %q", s)
	}
	return b
}

// BenchmarkValidateRouteTLS validates an edge route with an RSA 2048 leaf,
// its PKCS#8 key and the RSA 2048 CA that signed it, all valid.
func BenchmarkValidateRouteTLS(b *testing.B) {
	f := testFixtures(b)
	in := RouteTLS{Certificate: certPEM(f.rsaLeaf), Key: keyPEM(f.rsaLeaf), CACertificate: certPEM(f.rsaCA)}
	path := field.NewPath("spec", "tls")
	if errs := ValidateRouteTLS(in, path); len(errs) != 0 {
		b.Fatalf("route does not validate: %v", errs.ToAggregate())
	}
	b.ReportAllocs()
	for b.Loop() {
		if errs := ValidateRouteTLS(in, path); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}
