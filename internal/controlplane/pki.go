package controlplane

import (
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/routeshift/routeshift/certs"
)

// pki is the control plane's certificates and keys, as files in Dir: a CA
// that signs the API server's serving certificate and the admin's client
// certificate (the API server trusts it for client certificates), and the
// key pair that signs service-account tokens.
type pki struct {
	Dir                         string
	CA, Serving, Admin, Signing *certs.KeyPair
}

// File names in pki.Dir.
const (
	caFile         = "ca.crt"
	servingCert    = "apiserver.crt"
	servingKey     = "apiserver.key"
	signingCert    = "service-account.crt"
	signingKey     = "service-account.key"
	adminUser      = "routeshift-local-admin"
	pkiValidity    = 10 * 365 * 24 * time.Hour
	mastersGroup   = "system:masters"
	loopbackDomain = "localhost"
)

// newPKI makes the certificates and writes them into dir (mode 0700; keys
// 0600), replacing what an earlier run left there.
func newPKI(dir string) (*pki, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if _, err := dataDir(dir); err != nil {
		return nil, err
	}
	p := &pki{Dir: dir}
	var err error
	if p.CA, err = certs.NewCA("routeshift local CA"); err != nil {
		return nil, err
	}
	if p.Serving, err = p.CA.Issue(certs.Options{CommonName: "kube-apiserver", DNSNames: []string{loopbackDomain},
		IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, Validity: pkiValidity}); err != nil {
		return nil, err
	}
	if p.Admin, err = p.CA.Issue(certs.Options{CommonName: adminUser, Organization: []string{mastersGroup},
		ClientAuth: true, Validity: pkiValidity}); err != nil {
		return nil, err
	}
	if p.Signing, err = certs.Generate(certs.Options{CommonName: "service-account-signer", Validity: pkiValidity}, nil); err != nil {
		return nil, err
	}
	return p, p.write()
}

func (p *pki) write() error {
	for name, data := range map[string][]byte{
		caFile: p.CA.CertPEM, servingCert: p.Serving.CertPEM, servingKey: p.Serving.KeyPEM,
		signingCert: p.Signing.CertPEM, signingKey: p.Signing.KeyPEM,
	} {
		if err := os.WriteFile(p.path(name), data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

func (p *pki) path(name string) string { return filepath.Join(p.Dir, name) }
