package haproxy

import (
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy/dataplane"
)

// privateKeyBlocks are the PEM block types HAProxy loads as private keys.
var privateKeyBlocks = []string{"RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY"}

// pemBlocks re-encodes the PEM blocks of data whose type is one of types,
// in order, without headers and without the text around them: whatever a
// route's certificate field holds, the file HAProxy reads contains only
// canonical PEM of the expected kinds.
func pemBlocks(data string, types ...string) [][]byte {
	var out [][]byte
	rest := []byte(data)
	for {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return out
		}
		if slices.Contains(types, b.Type) {
			out = append(out, pem.EncodeToMemory(&pem.Block{Type: b.Type, Bytes: b.Bytes}))
		}
	}
}

// certificateFile is the content of a certificate file HAProxy serves: the
// first private key, then the certificates, then the CA certificates. It
// returns nil when there is no key or no certificate. Whether key and
// certificate belong together is admission's check (EXTENDED_VALIDATION).
func certificateFile(key, certificate, caCertificate string) []byte {
	keys := pemBlocks(key, privateKeyBlocks...)
	chain := pemBlocks(certificate, "CERTIFICATE")
	if len(keys) == 0 || len(chain) == 0 {
		return nil
	}
	out := slices.Concat(append([][]byte{keys[0]}, chain...), pemBlocks(caCertificate, "CERTIFICATE"))
	return slices.Concat(out...)
}

// defaultCertificate is where the certificate served to clients no route
// claims comes from.
type defaultCertificate struct {
	// path is what haproxy.cfg names: certs/default.pem in the working
	// directory, or DEFAULT_CERTIFICATE_PATH as it is.
	path string
	// pem is the content of certs/default.pem (DEFAULT_CERTIFICATE or a
	// generated certificate); nil when dir or an outside path is used.
	pem []byte
	// dir is DEFAULT_CERTIFICATE_DIR, read again at every render so that
	// a renewed certificate is picked up.
	dir string
}

// newDefaultCertificate resolves the default certificate: DEFAULT_CERTIFICATE
// (PEM), else DEFAULT_CERTIFICATE_PATH (used as it is), else
// DEFAULT_CERTIFICATE_DIR (tls.crt, plus tls.key when the certificate file
// holds no key), else a self-signed certificate generated now.
func newDefaultCertificate(cfg dataplane.Config) (*defaultCertificate, error) {
	d := &defaultCertificate{path: filepath.Join(cfg.WorkingDir, defaultCrtFile)}
	switch {
	case cfg.DefaultCertificate != "":
		if d.pem = certificateFile(cfg.DefaultCertificate, cfg.DefaultCertificate, ""); d.pem == nil {
			return nil, errors.New("DEFAULT_CERTIFICATE: needs a PEM private key and certificate")
		}
	case cfg.DefaultCertificatePath != "":
		if _, err := os.Stat(cfg.DefaultCertificatePath); err != nil {
			return nil, fmt.Errorf("DEFAULT_CERTIFICATE_PATH: %w", err)
		}
		d.path = cfg.DefaultCertificatePath
	case cfg.DefaultCertificateDir != "":
		d.dir = cfg.DefaultCertificateDir
		if _, err := d.content(); err != nil {
			return nil, err
		}
	default:
		kp, err := certs.Generate(certs.Options{CommonName: "routeshift default certificate", Validity: 5 * 365 * 24 * time.Hour}, nil)
		if err != nil {
			return nil, fmt.Errorf("generating the default certificate: %w", err)
		}
		d.pem = certificateFile(string(kp.KeyPEM), string(kp.CertPEM), "")
	}
	return d, nil
}

// content is what certs/default.pem holds, nil when the default
// certificate is a file outside the working directory.
func (d *defaultCertificate) content() ([]byte, error) {
	if d.dir == "" {
		return d.pem, nil
	}
	crt, err := os.ReadFile(filepath.Join(d.dir, "tls.crt"))
	if err != nil {
		return nil, fmt.Errorf("DEFAULT_CERTIFICATE_DIR: %w", err)
	}
	key := crt
	if len(pemBlocks(string(crt), privateKeyBlocks...)) == 0 {
		if key, err = os.ReadFile(filepath.Join(d.dir, "tls.key")); err != nil {
			return nil, fmt.Errorf("DEFAULT_CERTIFICATE_DIR: tls.crt holds no key: %w", err)
		}
	}
	out := certificateFile(string(key), string(crt), "")
	if out == nil {
		return nil, fmt.Errorf("DEFAULT_CERTIFICATE_DIR %s: needs a PEM certificate in tls.crt and its key in tls.crt or tls.key", d.dir)
	}
	return out, nil
}
