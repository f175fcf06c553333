package haproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
)

// Inputs are what Render needs besides the snapshot: the contents of the
// files outside it that the configuration copies, and the routes HAProxy
// refused. Render reads no file and fetches nothing: a FileLoader reads
// the files (and fetches CRLs), and the data plane runs it and watches for
// changes.
type Inputs struct {
	// Files are the files' contents, as a FileLoader read them.
	Files FileContents
	// refused are the routes HAProxy refused (nil: none).
	refused *refusals
}

// FileContents are the contents of the files outside the snapshots that
// the configuration copies into the working directory; nil when unused.
type FileContents struct {
	// DefaultCertificate is DEFAULT_CERTIFICATE_DIR's certificate and key
	// (the renderer holds DEFAULT_CERTIFICATE's or a generated one itself).
	DefaultCertificate []byte
	// DestinationCA is DEFAULT_DESTINATION_CA_PATH's certificates; nil too
	// when that file does not exist.
	DestinationCA []byte
	// ClientCA is ROUTER_MUTUAL_TLS_AUTH_CA's certificates, and ClientCRLs
	// the CRLs: ROUTER_MUTUAL_TLS_AUTH_CRL's and those fetched from the
	// bundle's distribution points (nil when there are none).
	ClientCA, ClientCRLs []byte
}

// equal reports whether c and o have the same contents.
func (c FileContents) equal(o FileContents) bool {
	return bytes.Equal(c.DefaultCertificate, o.DefaultCertificate) && bytes.Equal(c.DestinationCA, o.DestinationCA) &&
		bytes.Equal(c.ClientCA, o.ClientCA) && bytes.Equal(c.ClientCRLs, o.ClientCRLs)
}

// FileLoader reads the files a data-plane configuration names. A file
// that exists but cannot be read, or holds no PEM block of its kind (a
// half-written update), keeps the content last read; without one, it is
// an error naming the setting: reencrypt endpoints are not left
// unverified, nor clients unchecked, because a file is broken.
type FileLoader struct {
	cfg proxyconfig.Config
	// crls fetches the CRLs of the client CA bundle's distribution points
	// (the data plane runs it).
	crls *crlFetcher
	// last is what Load last returned; lastCRLFile is
	// ROUTER_MUTUAL_TLS_AUTH_CRL's content last read.
	last        FileContents
	lastCRLFile []byte
}

// NewFileLoader returns a loader for the files cfg names.
func NewFileLoader(cfg proxyconfig.Config) *FileLoader {
	return &FileLoader{cfg: cfg, crls: newCRLFetcher()}
}

// Load reads the files.
func (l *FileLoader) Load() (FileContents, error) {
	var out FileContents
	var err error
	if dir := l.cfg.DefaultCertificateDir; dir != "" && l.cfg.DefaultCertificate == "" && l.cfg.DefaultCertificatePath == "" {
		if out.DefaultCertificate, err = readDefaultCertificateDir(dir); err != nil {
			return FileContents{}, err
		}
	}
	if p := l.cfg.DefaultDestinationCAPath; p != "" {
		data, missing, err := readPEMFile("DEFAULT_DESTINATION_CA_PATH", p, pemCertificate, l.last.DestinationCA)
		switch {
		case missing:
		case err != nil:
			return FileContents{}, err
		default:
			out.DestinationCA = data
		}
	}
	if l.cfg.ClientAuthOn() {
		if out.ClientCA, out.ClientCRLs, err = l.clientAuth(); err != nil {
			return FileContents{}, err
		}
	}
	l.last = out
	return out, nil
}

// clientAuth reads the client CA bundle, hands it to the CRL fetcher, and
// returns it with the CRLs.
func (l *FileLoader) clientAuth() (ca, crls []byte, err error) {
	ca, _, err = readPEMFile("ROUTER_MUTUAL_TLS_AUTH_CA", l.cfg.MutualTLSAuthCA, pemCertificate, l.last.ClientCA)
	if err != nil {
		return nil, nil, err
	}
	l.crls.want(ca)
	if p := l.cfg.MutualTLSAuthCRL; p != "" {
		if crls, _, err = readPEMFile("ROUTER_MUTUAL_TLS_AUTH_CRL", p, pemCRL, l.lastCRLFile); err != nil {
			return nil, nil, err
		}
		l.lastCRLFile = crls
	}
	crls = append(bytes.Clone(crls), l.crls.current()...)
	if len(crls) == 0 {
		crls = nil
	}
	return ca, crls, nil
}

// Watches reports whether the configuration depends on files that can
// change while the router runs (DEFAULT_CERTIFICATE_DIR,
// DEFAULT_DESTINATION_CA_PATH, the client CA bundle and CRLs), which
// Changed checks.
func (l *FileLoader) Watches() bool {
	return l.cfg.DefaultCertificateDir != "" && l.cfg.DefaultCertificate == "" && l.cfg.DefaultCertificatePath == "" ||
		l.cfg.DefaultDestinationCAPath != "" || l.cfg.ClientAuthOn()
}

// Changed reports whether the files differ from rendered, the contents
// the last rendering used: rendering the same snapshot again picks the
// change up. A file that cannot be read is no change (rendering would fail
// on it; what is served stays).
func (l *FileLoader) Changed(rendered FileContents) bool {
	now, err := l.Load()
	return err == nil && !now.equal(rendered)
}

// PEM block types the router reads from files, with what they are called.
var (
	pemCertificate = pemType{"CERTIFICATE", "certificate"}
	pemCRL         = pemType{"X509 CRL", "certificate revocation list"}
)

type pemType struct{ block, name string }

// readPEMFile returns the PEM blocks of type typ in the file at path,
// concatenated, and whether the file is missing. A file that cannot be
// read, or holds no such block (a half-written update), yields last when
// there is one, so that what is loaded stays; else an error naming env.
func readPEMFile(env, path string, typ pemType, last []byte) (data []byte, missing bool, err error) {
	b, err := os.ReadFile(path)
	missing = errors.Is(err, fs.ErrNotExist)
	var blocks [][]byte
	if err == nil {
		if blocks = pemBlocks(string(b), typ.block); len(blocks) == 0 {
			err = fmt.Errorf("no PEM %s in it", typ.name)
		}
	}
	switch {
	case err == nil:
		return slices.Concat(blocks...), false, nil
	case last != nil:
		return last, missing, nil
	}
	return nil, missing, fmt.Errorf("%s %s: %w", env, path, err)
}
