package haproxy

import (
	"slices"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// TestCertificateUpdates: the runtime API's certificate and crt-list
// changes for each kind of route change, in the order they are applied,
// and whether a reload is needed besides. Every case starts from ns/tls
// (edge with its own certificate, the whole host tls.example.com), ns/sub
// (edge with its own certificate on tls.example.com/sub: the crt-list
// entry of the host is ns/tls's) and ns/plain (edge on the default
// certificate, plain.example.com).
func TestCertificateUpdates(t *testing.T) {
	pki := newCA(t, "updates CA")
	withCert := func(kp *certs.KeyPair) func(*router.Route) {
		return func(r *router.Route) { r.TLS.Certificate, r.TLS.Key = string(kp.CertPEM), string(kp.KeyPEM) }
	}
	tlsLeaf, subLeaf, renewed := issue(t, pki, "tls.example.com"), issue(t, pki, "tls.example.com"), issue(t, pki, "tls.example.com")
	plainLeaf := issue(t, pki, "plain.example.com")
	base := func() []*router.Route {
		return []*router.Route{served("ns", "tls", "tls.example.com", edgeRedirect, withCert(tlsLeaf)),
			served("ns", "sub", "tls.example.com", atPath("/sub"), edgeRedirect, withCert(subLeaf)),
			served("ns", "plain", "plain.example.com", edgeRedirect)}
	}
	const alpn = " [alpn h2,http/1.1] "
	tests := []struct {
		name   string
		routes map[string]*router.Route
		want   []string
		reload bool
	}{
		{name: "certificate renewed: new content",
			routes: map[string]*router.Route{"ns/tls": served("ns", "tls", "tls.example.com", edgeRedirect, withCert(renewed))},
			want:   []string{"set certs/ns_tls.pem"}},
		{name: "certificate of a route without the crt-list entry renewed: nothing loaded",
			routes: map[string]*router.Route{"ns/sub": served("ns", "sub", "tls.example.com", atPath("/sub"), edgeRedirect, withCert(renewed))}},
		{name: "certificate added to a route",
			routes: map[string]*router.Route{"ns/plain": served("ns", "plain", "plain.example.com", edgeRedirect, withCert(plainLeaf))},
			want:   []string{"new certs/ns_plain.pem", "add-entry certs/ns_plain.pem" + alpn + "plain.example.com"}},
		{name: "certificate removed from a route",
			routes: map[string]*router.Route{"ns/tls": served("ns", "tls", "tls.example.com", edgeRedirect)},
			want: []string{"del-entry certs/ns_tls.pem", "del certs/ns_tls.pem", "new certs/ns_sub.pem",
				"add-entry certs/ns_sub.pem" + alpn + "tls.example.com"}},
		{name: "host changed: the entry moves, with a reload for the maps",
			routes: map[string]*router.Route{"ns/plain": served("ns", "plain", "moved.example.com", edgeRedirect, withCert(plainLeaf))},
			want:   []string{"new certs/ns_plain.pem", "add-entry certs/ns_plain.pem" + alpn + "moved.example.com"}, reload: true},
		{name: "host changed and certificate renewed",
			routes: map[string]*router.Route{"ns/tls": served("ns", "tls", "moved.example.com", edgeRedirect, withCert(renewed))},
			want: []string{"del-entry certs/ns_tls.pem", "new certs/ns_sub.pem", "set certs/ns_tls.pem",
				"add-entry certs/ns_tls.pem" + alpn + "moved.example.com", "add-entry certs/ns_sub.pem" + alpn + "tls.example.com"},
			reload: true},
		{name: "route removed: the next route of the host takes the entry",
			routes: map[string]*router.Route{"ns/tls": nil},
			want: []string{"del-entry certs/ns_tls.pem", "del certs/ns_tls.pem", "new certs/ns_sub.pem",
				"add-entry certs/ns_sub.pem" + alpn + "tls.example.com"},
			reload: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// HTTP/2 on: crt-list entries carry their options.
			r := newTestRenderer(t, func(c *proxyconfig.Config) { c.DisableHTTP2 = false })
			snap := snapshotOf(base(), eps("ns", "tls", "10.0.0.1"), eps("ns", "sub", "10.0.0.2"), eps("ns", "plain", "10.0.0.3"))
			if first := mustRender(t, r, snap); len(first.Certificates) != 0 {
				t.Fatalf("first rendering: certificate updates %v (HAProxy loads them when it starts)", first.Certificates)
			}
			out := mustRender(t, r, nextSnapshot(snap, tt.routes, nil))
			if got := describeCertificateUpdates(r.cfg.WorkingDir, out); !slices.Equal(got, tt.want) {
				t.Errorf("certificate updates:\n  %q\nwant:\n  %q", got, tt.want)
			}
			if out.Reload() != tt.reload {
				t.Errorf("reload %v (reasons %v), want %v", out.Reload(), out.Reasons, tt.reload)
			}
			for _, u := range out.Certificates {
				if u.Loads() && !strings.Contains(string(out.Files[u.File].Data), "BEGIN CERTIFICATE") {
					t.Errorf("%s: the files hold no certificate at %s", u.Name, u.File)
				}
			}
		})
	}
}

// describeCertificateUpdates writes the updates as "op name" with the
// working directory cut from names and entries.
func describeCertificateUpdates(workDir string, out *runtime.Output) []string {
	ops := map[runtime.CertificateOp]string{runtime.CertificateSet: "set", runtime.CertificateNew: "new",
		runtime.CertificateDelete: "del", runtime.CrtListAdd: "add-entry", runtime.CrtListDelete: "del-entry"}
	var got []string
	for _, u := range out.Certificates {
		what := u.Name
		if u.Op == runtime.CrtListAdd {
			what = u.Entry
		}
		if u.CrtList != "" && u.CrtList != workDir+"/"+crtListFile {
			what += " in " + u.CrtList
		}
		got = append(got, ops[u.Op]+" "+strings.ReplaceAll(what, workDir+"/", ""))
	}
	return got
}

// TestCertificateOnly: which changes of a rendered route are of its
// certificate alone (checked by the runtime API, not probed), and which
// route a certificate file belongs to.
func TestCertificateOnly(t *testing.T) {
	pki := newCA(t, "certificate-only CA")
	first, second := issue(t, pki, "tls.example.com"), issue(t, pki, "tls.example.com")
	withCert := func(kp *certs.KeyPair) func(*router.Route) {
		return func(r *router.Route) { r.TLS.Certificate, r.TLS.Key = string(kp.CertPEM), string(kp.KeyPEM) }
	}
	r := newTestRenderer(t)
	mustRender(t, r, snapshotOf([]*router.Route{served("ns", "tls", "tls.example.com", edgeRedirect, withCert(first)),
		served("ns", "plain", "plain.example.com")}))
	tests := []struct {
		name string
		rt   *router.Route
		want bool
	}{
		{"certificate and key renewed", served("ns", "tls", "tls.example.com", edgeRedirect, withCert(second)), true},
		{"certificate removed", served("ns", "tls", "tls.example.com", edgeRedirect), true},
		{"certificate renewed and host changed", served("ns", "tls", "moved.example.com", edgeRedirect, withCert(second)), false},
		{"certificate renewed and policy changed", served("ns", "tls", "tls.example.com", tlsRoute(routecore.TLSTerminationEdge, ""), withCert(second)), false},
		{"plain route changed", served("ns", "plain", "other.example.com"), false},
		{"route not rendered yet", served("ns", "new", "new.example.com", edgeRedirect, withCert(second)), false},
	}
	for _, tt := range tests {
		if got := r.certificateOnly(tt.rt); got != tt.want {
			t.Errorf("%s: certificateOnly = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := r.routeOfCertificate("certs/ns_tls.pem"); got == nil || got.Key() != "ns/tls" {
		t.Errorf("routeOfCertificate(certs/ns_tls.pem) = %v, want ns/tls", got)
	}
	for _, file := range []string{defaultCrtFile, "certs/ns_plain.pem", "cacerts/ns_tls.pem"} {
		if got := r.routeOfCertificate(file); got != nil {
			t.Errorf("routeOfCertificate(%s) = %s, want none", file, got.Key())
		}
	}
}
