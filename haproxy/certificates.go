package haproxy

import (
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/router"
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
	// dir is DEFAULT_CERTIFICATE_DIR, which the FileLoader reads again
	// for every render so that a renewed certificate is picked up.
	dir string
}

// newDefaultCertificate resolves the default certificate: DEFAULT_CERTIFICATE
// (PEM), else DEFAULT_CERTIFICATE_PATH (used as it is), else
// DEFAULT_CERTIFICATE_DIR (tls.crt, plus tls.key when the certificate file
// holds no key), else a self-signed certificate generated now.
func newDefaultCertificate(cfg proxyconfig.Config) (*defaultCertificate, error) {
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
		if _, err := readDefaultCertificateDir(d.dir); err != nil {
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
// certificate is a file outside the working directory; in holds
// DEFAULT_CERTIFICATE_DIR's.
func (d *defaultCertificate) content(in FileContents) ([]byte, error) {
	if d.dir == "" {
		return d.pem, nil
	}
	if in.DefaultCertificate == nil {
		return nil, fmt.Errorf("DEFAULT_CERTIFICATE_DIR %s: not read (no FileLoader ran)", d.dir)
	}
	return in.DefaultCertificate, nil
}

// readDefaultCertificateDir reads the certificate and key of
// DEFAULT_CERTIFICATE_DIR dir: tls.crt, plus tls.key when tls.crt holds no
// key.
func readDefaultCertificateDir(dir string) ([]byte, error) {
	crt, err := os.ReadFile(filepath.Join(dir, "tls.crt"))
	if err != nil {
		return nil, fmt.Errorf("DEFAULT_CERTIFICATE_DIR: %w", err)
	}
	key := crt
	if len(pemBlocks(string(crt), privateKeyBlocks...)) == 0 {
		if key, err = os.ReadFile(filepath.Join(dir, "tls.key")); err != nil {
			return nil, fmt.Errorf("DEFAULT_CERTIFICATE_DIR: tls.crt holds no key: %w", err)
		}
	}
	out := certificateFile(string(key), string(crt), "")
	if out == nil {
		return nil, fmt.Errorf("DEFAULT_CERTIFICATE_DIR %s: needs a PEM certificate in tls.crt and its key in tls.crt or tls.key", dir)
	}
	return out, nil
}

// Certificates change through HAProxy's runtime API, never by a reload:
// the crt-list holds one entry per SNI name (the winner of its key), and
// HAProxy has loaded exactly the certificates of those entries and the
// default certificate. Going from one rendering to the next, the entries
// whose line changed are deleted, the certificates no entry uses any more
// are deleted, the certificates of the new entries are created, those kept
// are given their new content, and the new entries are added.

// crtListKeys are the crt-list keys the routes about to change (updated or
// removed) have or will have.
func (r *Renderer) crtListKeys(updates map[string]*routeRender, removed []string) []string {
	keys := map[string]bool{}
	add := func(rr *routeRender) {
		for i := range rr.entries {
			if rr.entries[i].m == crtList {
				keys[rr.entries[i].key] = true
			}
		}
	}
	for k, rr := range updates {
		add(rr)
		if prev := r.routes[k]; prev != nil {
			add(prev)
		}
	}
	for _, k := range removed {
		add(r.routes[k])
	}
	return slices.Sorted(maps.Keys(keys))
}

// crtListValues are the crt-list values (certificate file and options)
// of keys now, "" for a key without an entry.
func (r *Renderer) crtListValues(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		if e := r.keyed[crtList].winner(k); e != nil {
			out[i] = e.value
		}
	}
	return out
}

// certificateUpdates are the runtime API's changes from the crt-list values
// of keys before to after, with the certificate files' content going from
// the current files to next's, and the default certificate's.
func (r *Renderer) certificateUpdates(keys, before, after []string, next *fileEdit) []runtime.CertificateUpdate {
	list := r.abs(crtListFile)
	loaded, kept := map[string]bool{}, map[string]bool{}
	var dels, adds, certs []runtime.CertificateUpdate
	for i, k := range keys {
		if before[i] != "" {
			loaded[crtListCertificate(before[i])] = true
		}
		if after[i] != "" {
			kept[crtListCertificate(after[i])] = true
		}
		if before[i] == after[i] {
			continue
		}
		if before[i] != "" {
			dels = append(dels, runtime.CertificateUpdate{Op: runtime.CrtListDelete, Name: crtListCertificate(before[i]), CrtList: list})
		}
		if after[i] != "" {
			adds = append(adds, runtime.CertificateUpdate{Op: runtime.CrtListAdd, Name: crtListCertificate(after[i]), CrtList: list, Entry: after[i] + " " + k})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(loaded)) {
		if !kept[name] {
			certs = append(certs, runtime.CertificateUpdate{Op: runtime.CertificateDelete, Name: name})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(kept)) {
		rel := strings.TrimPrefix(name, r.cfg.WorkingDir+"/")
		switch {
		case !loaded[name]:
			certs = append(certs, runtime.CertificateUpdate{Op: runtime.CertificateNew, Name: name, File: rel})
		case r.differs(next, rel):
			certs = append(certs, runtime.CertificateUpdate{Op: runtime.CertificateSet, Name: name, File: rel})
		}
	}
	if _, ok := r.files[defaultCrtFile]; ok && r.differs(next, defaultCrtFile) {
		certs = append(certs, runtime.CertificateUpdate{Op: runtime.CertificateSet, Name: r.defaultCert.path, File: defaultCrtFile})
	}
	return slices.Concat(dels, certs, adds)
}

// crtListCertificate is the certificate file of a crt-list value: its first
// word (paths in the working directory have no spaces).
func crtListCertificate(value string) string {
	file, _, _ := strings.Cut(value, " ")
	return file
}

// runtimeFile reports whether changes of the file at path reach HAProxy
// through the runtime API (certificateUpdates) rather than a reload: the
// crt-list and the certificates.
func runtimeFile(path string) bool {
	return path == crtListFile || strings.HasPrefix(path, routeCertsDir+"/")
}

// certificateOnly reports whether route value rt differs from the value
// last rendered for its key only in its certificate, key or CA
// certificate. Such a change reaches HAProxy through the runtime API,
// which checks the certificate itself (it refuses what it cannot load and
// keeps serving the old one), so it needs no probe.
func (r *Renderer) certificateOnly(rt *router.Route) bool {
	prev := r.routes[rt.Key()]
	if prev == nil || prev.route.TLS == nil || rt.TLS == nil {
		return false
	}
	a, b := *prev.route, *rt
	at, bt := *a.TLS, *b.TLS
	at.Certificate, at.Key, at.CACertificate = "", "", ""
	bt.Certificate, bt.Key, bt.CACertificate = "", "", ""
	a.TLS, b.TLS = &at, &bt
	return reflect.DeepEqual(a, b)
}

// routeOfCertificate is the route whose certificate file is file (relative
// to the working directory), as last rendered; nil for another file.
func (r *Renderer) routeOfCertificate(file string) *router.Route {
	name, ok := strings.CutPrefix(file, routeCertsDir+"/")
	if !ok {
		return nil
	}
	ns, rest, _ := strings.Cut(strings.TrimSuffix(name, ".pem"), "_")
	if rr := r.routes[router.Key(ns, rest)]; rr != nil {
		if _, ok := rr.files[file]; ok {
			return rr.route
		}
	}
	return nil
}
