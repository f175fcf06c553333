package haproxy

import (
	"github.com/routeshift/routeshift/haproxy/runtime"
)

// Client-certificate authentication (ROUTER_MUTUAL_TLS_AUTH) on the
// terminating frontends: the router keeps copies of the client CA bundle
// and of the CRLs (ROUTER_MUTUAL_TLS_AUTH_CRL's and those fetched from the
// bundle's distribution points; the FileLoader reads and fetches them) in
// its working directory, and HAProxy loads them from there; a change of
// either changes the copy, which HAProxy reloads.

// clientAuthOn reports whether clients are asked for certificates.
func (r *Renderer) clientAuthOn() bool { return r.cfg.ClientAuthOn() }

// setClientAuthFiles puts the copies into next (or takes them out).
func setClientAuthFiles(next *fileEdit, ca, crls []byte) {
	for _, f := range []struct {
		path string
		data []byte
	}{{clientCAFile, ca}, {clientCRLFile, crls}} {
		if f.data != nil {
			next.set(f.path, runtime.File{Data: f.data, Mode: 0o644})
		} else if _, ok := next.files[f.path]; ok {
			next.delete(f.path)
		}
	}
}

// clientAuthData is what the terminating frontends print; nil when clients
// are not asked for certificates. crls says whether there is a CRL file.
func (r *Renderer) clientAuthData(crls bool) *ClientAuthData {
	if !r.clientAuthOn() {
		return nil
	}
	d := &ClientAuthData{Verify: r.cfg.MutualTLSAuth, CAFile: r.abs(clientCAFile)}
	if crls {
		d.CRLFile = r.abs(clientCRLFile)
	}
	if f := r.cfg.MutualTLSAuthFilter; f != "" {
		d.Filter, _ = quote(f)
	}
	return d
}
