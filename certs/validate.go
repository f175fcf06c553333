package certs

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	encasn1 "encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RouteTLS is the certificate material of a route, as plain strings so that
// this package does not depend on the route types.
type RouteTLS struct {
	Certificate              string
	Key                      string
	CACertificate            string
	DestinationCACertificate string
}

// Values shown instead of certificate material in errors: keys and
// certificates never appear in messages or logs.
const (
	redactedCertificate   = "redacted certificate data"
	redactedKey           = "redacted key data"
	redactedCA            = "redacted ca certificate data"
	redactedDestinationCA = "redacted destination ca certificate data"
)

// PEM block types the router understands; anything else is refused so that
// HAProxy never sees a file it cannot load. EC PARAMETERS is dropped silently,
// as openssl writes it before EC keys.
var (
	privateKeyTypes = []string{"RSA PRIVATE KEY", "EC PRIVATE KEY", "ECDSA PRIVATE KEY", "PRIVATE KEY"}
	knownTypes      = append([]string{"CERTIFICATE", "PUBLIC KEY", "RSA PUBLIC KEY", "DSA PUBLIC KEY", "ECDSA PUBLIC KEY"}, privateKeyTypes...)
)

// ValidateRouteTLS runs the router's extended certificate checks on a route's
// TLS material and returns one field error per problem, with the router's
// message texts: every PEM block is of a known type, the CA certificates and
// destination CA parse, no CA-signed certificate uses SHA1, MD2 or MD5, the
// certificate parses and verifies against the CA (hostname and validity
// dates are not checked), the key field holds only private keys, and a
// private key is present and matches the certificate. Each field is decoded
// once.
func ValidateRouteTLS(in RouteTLS, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	caPath, certPath := fldPath.Child("caCertificate"), fldPath.Child("certificate")
	keyPath, destPath := fldPath.Child("key"), fldPath.Child("destinationCACertificate")

	var roots []*x509.Certificate
	if in.CACertificate != "" {
		var err *field.Error
		roots, err = parseCAField(in.CACertificate, caPath, redactedCA, "failed to parse CA certificate")
		errs = appendIf(errs, err)
	}
	if in.Certificate != "" || in.Key != "" {
		errs = append(errs, validateCertificateAndKey(in, roots, certPath, keyPath)...)
	}
	if in.DestinationCACertificate != "" {
		_, err := parseCAField(in.DestinationCACertificate, destPath, redactedDestinationCA, "failed to parse destination CA certificate")
		errs = appendIf(errs, err)
	}
	return errs
}

func appendIf(errs field.ErrorList, err *field.Error) field.ErrorList {
	if err != nil {
		return append(errs, err)
	}
	return errs
}

// parseCAField parses a field that must hold only CA certificates and
// checks their signature algorithms.
func parseCAField(data string, path *field.Path, redacted, what string) ([]*x509.Certificate, *field.Error) {
	blocks, err := decode(data, path, redacted)
	if err != nil {
		return nil, err
	}
	if other := typesExcept(blocks, "CERTIFICATE"); other != "" {
		return nil, field.Invalid(path, redacted, fmt.Sprintf("field contains invalid types %s, expecting only CERTIFICATE", other))
	}
	certs, perr := parseCertificates(blocks)
	if perr != nil {
		return nil, field.Invalid(path, redacted, fmt.Sprintf("%s: %v", what, perr))
	}
	if werr := checkSignatureAlgorithms(certs); werr != nil {
		return nil, field.Invalid(path, redacted, werr.Error())
	}
	return certs, nil
}

// validateCertificateAndKey checks the serving certificate (leaf first, then
// any chain), its signature algorithms and its verification against the CA,
// and its private key, which may be in the key field or bundled into the
// certificate field. The key field's block types are checked even when
// there is no usable certificate; the key is matched only against one.
func validateCertificateAndKey(in RouteTLS, roots []*x509.Certificate, certPath, keyPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	var chain []*x509.Certificate
	var keyBlocks []*pem.Block
	if in.Certificate != "" {
		var err *field.Error
		chain, keyBlocks, err = parseCertificateField(in.Certificate, certPath)
		if err != nil {
			errs = append(errs, err)
		} else if werr := checkSignatureAlgorithms(chain); werr != nil {
			// Checked before verifying, as the router does: Go refuses to
			// verify SHA1 and MD5 signatures, which would turn this message
			// into "certificate signed by unknown authority".
			errs = append(errs, field.Invalid(certPath, redactedCertificate, werr.Error()))
		} else if verr := verify(chain, roots); verr != nil {
			errs = append(errs, field.Invalid(certPath, redactedCertificate, "error verifying certificate: "+verr.Error()))
		}
	}

	if in.Key != "" {
		fromKeyField, err := decode(in.Key, keyPath, redactedKey)
		if err != nil {
			return append(errs, err)
		}
		if other := typesExcept(fromKeyField, privateKeyTypes...); other != "" {
			return append(errs, field.Invalid(keyPath, redactedKey, fmt.Sprintf("field contains invalid types %s, expecting only PRIVATE KEY", other)))
		}
		keyBlocks = append(fromKeyField, keyBlocks...)
	}
	if chain == nil {
		return errs
	}
	if len(keyBlocks) == 0 {
		return append(errs, field.Invalid(keyPath, "", "no key specified"))
	}
	if merr := keyMatches(keyBlocks[0], chain[0]); merr != nil {
		errs = append(errs, field.Invalid(keyPath, redactedKey, merr.Error()))
	}
	return errs
}

// parseCertificateField decodes the certificate field into its certificates
// (at least one) and the private keys bundled with them.
func parseCertificateField(data string, certPath *field.Path) ([]*x509.Certificate, []*pem.Block, *field.Error) {
	blocks, err := decode(data, certPath, redactedCertificate)
	if err != nil {
		return nil, nil, err
	}
	var certBlocks, keyBlocks []*pem.Block
	for _, b := range blocks {
		if slices.Contains(privateKeyTypes, b.Type) {
			keyBlocks = append(keyBlocks, b)
		} else {
			certBlocks = append(certBlocks, b)
		}
	}
	if other := typesExcept(certBlocks, "CERTIFICATE"); other != "" {
		return nil, nil, field.Invalid(certPath, redactedCertificate, fmt.Sprintf("field contains invalid types %s, expecting only CERTIFICATE", other))
	}
	chain, perr := parseCertificates(certBlocks)
	if perr != nil {
		return nil, nil, field.Invalid(certPath, redactedCertificate, "invalid/empty certificate data: "+perr.Error())
	}
	return chain, keyBlocks, nil
}

// decode splits PEM data into blocks, dropping EC PARAMETERS and non-PEM
// text, and refuses block types the router does not know.
func decode(data string, path *field.Path, redacted string) ([]*pem.Block, *field.Error) {
	var blocks []*pem.Block
	rest := []byte(data)
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return blocks, nil
		}
		switch {
		case b.Type == "EC PARAMETERS":
		case !slices.Contains(knownTypes, b.Type):
			return nil, field.Invalid(path, redacted, "unrecognized PEM block "+b.Type)
		default:
			blocks = append(blocks, b)
		}
	}
}

// typesExcept lists, comma-separated and in order of appearance, the block
// types other than the allowed ones.
func typesExcept(blocks []*pem.Block, allowed ...string) string {
	var other []string
	for _, b := range blocks {
		if !slices.Contains(allowed, b.Type) && !slices.Contains(other, b.Type) {
			other = append(other, b.Type)
		}
	}
	return strings.Join(other, ", ")
}

// errNoCertificates is the message OpenShift users know for a CA field
// without certificates.
var errNoCertificates = errors.New("data does not contain any valid RSA or ECDSA certificates")

func parseCertificates(blocks []*pem.Block) ([]*x509.Certificate, error) {
	certs := make([]*x509.Certificate, 0, len(blocks))
	for _, b := range blocks {
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, errNoCertificates
	}
	return certs, nil
}

// verify checks the leaf against the CA certificates, with the rest of the
// chain as intermediates. The CA certificates are roots: an intermediate CA
// given there ends the chain, so it need not be an intermediate as well
// (adding it to both pools made Go check the leaf's signature twice). Host
// names and validity dates are not checked: verification uses copies of the
// certificates that are valid at all times, so that an expired or not yet
// valid leaf, intermediate or CA, or a CA certificate renewed after the leaf
// was issued, does not fail it; the result does not depend on the clock.
// Without CA certificates any issuer is accepted.
func verify(chain, roots []*x509.Certificate) error {
	if len(roots) == 0 {
		return nil
	}
	opts := x509.VerifyOptions{
		Roots:         x509.NewCertPool(),
		Intermediates: x509.NewCertPool(),
		CurrentTime:   chain[0].NotBefore,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	}
	for _, c := range roots {
		opts.Roots.AddCert(alwaysValid(c))
	}
	for _, c := range chain[1:] {
		opts.Intermediates.AddCert(alwaysValid(c))
	}
	_, err := alwaysValid(chain[0]).Verify(opts)
	return err
}

// endOfTime is the latest time an X.509 certificate can express.
var endOfTime = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// alwaysValid returns a shallow copy of c whose validity period covers all
// times. Signatures are checked over the raw DER, which the copy shares, so
// only the dates are ignored.
func alwaysValid(c *x509.Certificate) *x509.Certificate {
	cp := *c
	cp.NotBefore, cp.NotAfter = time.Time{}, endOfTime
	return &cp
}

// checkSignatureAlgorithms refuses CA-signed certificates with SHA1, MD2 or
// MD5 signatures; self-signed roots are fine, their signature is never
// checked by clients.
func checkSignatureAlgorithms(certs []*x509.Certificate) error {
	for _, c := range certs {
		if selfSigned(c) {
			continue
		}
		switch c.SignatureAlgorithm {
		case x509.SHA1WithRSA, x509.ECDSAWithSHA1, x509.DSAWithSHA1:
			return errors.New("router does not support CA-signed certs using SHA1")
		case x509.MD2WithRSA:
			return errors.New("router does not support CA-signed certs using MD2")
		case x509.MD5WithRSA:
			return errors.New("router does not support CA-signed certs using MD5")
		}
	}
	return nil
}

// selfSigned reports whether c issued itself: its issuer is its subject,
// and it names no other key as its authority (a CA can share a
// certificate's name, not its key).
func selfSigned(c *x509.Certificate) bool {
	return bytes.Equal(c.RawIssuer, c.RawSubject) &&
		(len(c.AuthorityKeyId) == 0 || bytes.Equal(c.AuthorityKeyId, c.SubjectKeyId))
}

// keyMatches parses a private key block and compares its public half with
// the certificate's, with the messages Go's tls.X509KeyPair uses.
func keyMatches(block *pem.Block, leaf *x509.Certificate) error {
	if certKey, ok := leaf.PublicKey.(*rsa.PublicKey); ok {
		if keyPub, ok := rsaPublicKey(block.Bytes); ok {
			if keyPub.E != certKey.E || keyPub.N.Cmp(certKey.N) != 0 {
				return errors.New("tls: private key does not match public key")
			}
			return nil
		}
	}
	key, err := parsePrivateKey(block)
	if err != nil {
		return errors.New("tls: failed to parse private key")
	}
	pub := key.Public()
	if reflect.TypeOf(pub) != reflect.TypeOf(leaf.PublicKey) {
		return errors.New("tls: private key type does not match public key type")
	}
	if eq, ok := pub.(interface{ Equal(crypto.PublicKey) bool }); !ok || !eq.Equal(leaf.PublicKey) {
		return errors.New("tls: private key does not match public key")
	}
	return nil
}

// oidRSAEncryption identifies RSA keys in PKCS #8.
var oidRSAEncryption = encasn1.ObjectIdentifier{1, 2, 840, 113549, 1, 1, 1}

// rsaPublicKey reads the public half of a two-prime RSA private key, in
// PKCS #1 form or wrapped in PKCS #8, and checks that its primes multiply to
// its modulus. It reports false for anything else, which the caller then
// parses in full.
//
// x509.Parse*PrivateKey also precomputes and cross-checks the CRT values,
// which costs about 0.1 ms per 2048-bit key: more than the rest of a route's
// validation together. Matching the public half is what OpenSSL (and so
// HAProxy) checks when it pairs a key with a certificate; p·q = n adds a
// guard against a damaged key that a Go parse would also catch.
func rsaPublicKey(der []byte) (*rsa.PublicKey, bool) {
	in := cryptobyte.String(der)
	var seq, algo cryptobyte.String
	var version int
	if !in.ReadASN1(&seq, asn1.SEQUENCE) || !seq.ReadASN1Integer(&version) {
		return nil, false
	}
	if seq.PeekASN1Tag(asn1.SEQUENCE) { // PKCS #8: unwrap the PKCS #1 key
		var oid encasn1.ObjectIdentifier
		var inner cryptobyte.String
		if version != 0 || !seq.ReadASN1(&algo, asn1.SEQUENCE) || !algo.ReadASN1ObjectIdentifier(&oid) ||
			!oid.Equal(oidRSAEncryption) || !seq.ReadASN1(&inner, asn1.OCTET_STRING) {
			return nil, false
		}
		return rsaPublicKey(inner)
	}
	n, d, p, q := new(big.Int), new(big.Int), new(big.Int), new(big.Int)
	var e int
	if version != 0 || !seq.ReadASN1Integer(n) || !seq.ReadASN1Integer(&e) || !seq.ReadASN1Integer(d) ||
		!seq.ReadASN1Integer(p) || !seq.ReadASN1Integer(q) {
		return nil, false
	}
	if e < 3 || d.Sign() <= 0 || p.Sign() <= 0 || q.Sign() <= 0 || new(big.Int).Mul(p, q).Cmp(n) != 0 {
		return nil, false
	}
	return &rsa.PublicKey{N: n, E: e}, true
}

// parsePrivateKey parses a private key as tls.X509KeyPair does, whatever
// the block's label says: PKCS #1, then PKCS #8, then SEC 1.
func parsePrivateKey(block *pem.Block) (crypto.Signer, error) {
	if key, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return key, nil
	}
	if key, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		switch key := key.(type) {
		case *rsa.PrivateKey, *ecdsa.PrivateKey, ed25519.PrivateKey:
			return key.(crypto.Signer), nil
		}
		return nil, errors.New("unknown private key type in PKCS#8 wrapping")
	}
	key, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	return key, nil
}
