package examples

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"sync"
	"time"

	"github.com/routeshift/routeshift/certs"
)

// pki is the certificate material of the examples, generated once per
// process; no message shows it (routecore redacts certificates and keys).
type pki struct {
	ca, otherCA, leaf, otherLeaf, sha1Leaf, expiredLeaf, wrongNameLeaf           string
	leafKey, otherLeafKey, rsaKey, sha1LeafKey, expiredLeafKey, wrongNameLeafKey string
	publicKey, unknownBlock, garbageKey                                          string
}

var newPKI = sync.OnceValues(func() (*pki, error) {
	var err error
	issue := func(issuer *certs.KeyPair, opts certs.Options) *certs.KeyPair {
		if err != nil {
			return nil
		}
		var kp *certs.KeyPair
		kp, err = certs.Generate(opts, issuer)
		return kp
	}
	named := func(name string) certs.Options { return certs.Options{CommonName: name, DNSNames: []string{name}} }
	ca := issue(nil, certs.Options{CommonName: "Example CA", IsCA: true})
	otherCA := issue(nil, certs.Options{CommonName: "Other CA", IsCA: true})
	leaf := issue(ca, named(Host))
	other := issue(ca, named("other.example.com"))
	sha1Opts := named(Host)
	sha1Opts.SignatureAlgorithm = x509.ECDSAWithSHA1
	sha1 := issue(ca, sha1Opts)
	expiredOpts := named(Host)
	expiredOpts.NotBefore, expiredOpts.Validity = time.Now().AddDate(-2, 0, 0), 365*24*time.Hour
	expired := issue(ca, expiredOpts)
	wrongName := issue(ca, named("shop.example.org"))
	rsa := issue(nil, certs.Options{CommonName: "rsa.example.com", KeyType: certs.RSA2048})
	if err != nil {
		return nil, fmt.Errorf("generating the example certificates: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(leaf.Cert.PublicKey)
	if err != nil {
		return nil, err
	}
	pemOf := func(typ string, der []byte) string {
		return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
	}
	return &pki{
		ca: string(ca.CertPEM), otherCA: string(otherCA.CertPEM),
		leaf: string(leaf.CertPEM), leafKey: string(leaf.KeyPEM),
		otherLeaf: string(other.CertPEM), otherLeafKey: string(other.KeyPEM),
		sha1Leaf: string(sha1.CertPEM), sha1LeafKey: string(sha1.KeyPEM),
		expiredLeaf: string(expired.CertPEM), expiredLeafKey: string(expired.KeyPEM),
		wrongNameLeaf: string(wrongName.CertPEM), wrongNameLeafKey: string(wrongName.KeyPEM),
		rsaKey:       string(rsa.KeyPEM),
		publicKey:    pemOf("PUBLIC KEY", pub),
		unknownBlock: pemOf("FOO", []byte("bar")),
		garbageKey:   pemOf("PRIVATE KEY", []byte("this is not DER")),
	}, nil
})

// KeyPair is a certificate and its private key, in PEM.
type KeyPair struct{ Certificate, Key string }

// KeyPairs are two certificates that one CA signed, for Host and for
// other.example.com, for examples that need valid certificate material.
func KeyPairs() (leaf, other KeyPair, err error) {
	p, err := newPKI()
	if err != nil {
		return KeyPair{}, KeyPair{}, err
	}
	return KeyPair{p.leaf, p.leafKey}, KeyPair{p.otherLeaf, p.otherLeafKey}, nil
}
