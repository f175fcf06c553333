package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// KeyType selects the private key algorithm of generated certificates.
type KeyType int

// Key types.
const (
	// ECDSAP256 is fast to generate and the default.
	ECDSAP256 KeyType = iota
	// RSA2048 is what most real-world certificates still use.
	RSA2048
)

// KeyPair is a certificate with its private key, parsed and PEM-encoded.
type KeyPair struct {
	Cert    *x509.Certificate
	Key     crypto.Signer
	CertPEM []byte
	KeyPEM  []byte
}

// Options describes a certificate to generate.
type Options struct {
	// CommonName of the subject.
	CommonName string
	// DNSNames and IPs are the subject alternative names.
	DNSNames []string
	IPs      []net.IP
	// Validity defaults to one year; NotBefore defaults to an hour ago.
	Validity  time.Duration
	NotBefore time.Time
	// KeyType defaults to ECDSAP256.
	KeyType KeyType
	// IsCA makes a certificate authority.
	IsCA bool
	// ClientAuth makes a client certificate (extended key usage client
	// authentication) instead of a serving one.
	ClientAuth bool
	// Organization is the subject's organization; the Kubernetes API
	// server reads a client certificate's organizations as its groups.
	Organization []string
	// SignatureAlgorithm overrides the default (tests of weak signatures).
	SignatureAlgorithm x509.SignatureAlgorithm
	// CRLDistributionPoints are the URLs of the CRL that would list the
	// certificate.
	CRLDistributionPoints []string
}

// NewCA returns a self-signed certificate authority.
func NewCA(commonName string) (*KeyPair, error) {
	return Generate(Options{CommonName: commonName, IsCA: true, Validity: 10 * 365 * 24 * time.Hour}, nil)
}

// Issue returns a serving certificate for opts signed by ca.
func (ca *KeyPair) Issue(opts Options) (*KeyPair, error) {
	return Generate(opts, ca)
}

// Generate creates a certificate from opts, signed by issuer, or self-signed
// when issuer is nil.
func Generate(opts Options, issuer *KeyPair) (*KeyPair, error) {
	key, err := newKey(opts.KeyType)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	notBefore := opts.NotBefore
	if notBefore.IsZero() {
		notBefore = time.Now().Add(-time.Hour).Truncate(time.Second)
	}
	validity := opts.Validity
	if validity == 0 {
		validity = 365 * 24 * time.Hour
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: opts.CommonName, Organization: opts.Organization},
		DNSNames:              opts.DNSNames,
		IPAddresses:           opts.IPs,
		NotBefore:             notBefore,
		NotAfter:              notBefore.Add(validity),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  opts.IsCA,
		SignatureAlgorithm:    opts.SignatureAlgorithm,
		CRLDistributionPoints: opts.CRLDistributionPoints,
	}
	switch {
	case opts.IsCA:
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
		tmpl.ExtKeyUsage = nil
	case opts.ClientAuth:
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	parent, signer := tmpl, key
	if issuer != nil {
		parent, signer = issuer.Cert, issuer.Key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		return nil, fmt.Errorf("creating certificate %q: %w", opts.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &KeyPair{
		Cert:    cert,
		Key:     key,
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func newKey(t KeyType) (crypto.Signer, error) {
	if t == RSA2048 {
		return rsa.GenerateKey(rand.Reader, 2048)
	}
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// RevocationList returns a PEM CRL of ca, numbered number, that revokes the
// given certificates and is valid until nextUpdate.
func (ca *KeyPair) RevocationList(number int64, nextUpdate time.Time, revoked ...*x509.Certificate) ([]byte, error) {
	tmpl := &x509.RevocationList{Number: big.NewInt(number), ThisUpdate: time.Now().Add(-time.Minute), NextUpdate: nextUpdate}
	for _, c := range revoked {
		tmpl.RevokedCertificateEntries = append(tmpl.RevokedCertificateEntries,
			x509.RevocationListEntry{SerialNumber: c.SerialNumber, RevocationTime: time.Now().Add(-time.Minute)})
	}
	der, err := x509.CreateRevocationList(rand.Reader, tmpl, ca.Cert, ca.Key)
	if err != nil {
		return nil, fmt.Errorf("creating a CRL of %q: %w", ca.Cert.Subject.CommonName, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: der}), nil
}
