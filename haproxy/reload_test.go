package haproxy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// TestReloadReasons: the reasons the renderer gives for each kind of change
// that needs a reload, most significant first, and none for the changes
// the runtime API applies (certificates_test.go has the certificate
// updates themselves). Every case starts from ns/r (plain HTTP, service
// ns/r with one endpoint) and ns/tls (edge with its own certificate,
// service ns/tls).
func TestReloadReasons(t *testing.T) {
	pki := newCA(t, "reasons CA")
	other := issue(t, pki, "tls.example.com")
	base := func() []*router.Route {
		return []*router.Route{served("ns", "r", "r.example.com"),
			served("ns", "tls", "tls.example.com", edgeRedirect, ownCert(t))}
	}
	one, two := eps("ns", "r", "10.0.0.1"), eps("ns", "r", "10.0.0.1", "10.0.0.2")
	var big []string // longer than fits on the acl line
	for i := range 70 {
		big = append(big, fmt.Sprintf("10.1.0.%d", i))
	}
	builtinBackend, err := builtinTemplates.ReadFile("templates/backend.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		cfg      func(*proxyconfig.Config)
		routes   map[string]*router.Route
		services map[string]*router.ServiceEndpoints
		want     []runtime.Reason
	}{
		{name: "an endpoint more: runtime API", services: map[string]*router.ServiceEndpoints{"ns/r": two}},
		{name: "an endpoint less: runtime API", services: map[string]*router.ServiceEndpoints{"ns/r": eps("ns", "r")}},
		{name: "route added", routes: map[string]*router.Route{"ns/new": served("ns", "new", "new.example.com")},
			want: []runtime.Reason{{Kind: ReasonBackendAdded, Subject: "backend be_http:ns:new"},
				{Kind: ReasonMaps, Subject: "conf/maps/http_prefix.map"}}},
		{name: "route removed", routes: map[string]*router.Route{"ns/r": nil},
			want: []runtime.Reason{{Kind: ReasonBackendRemoved, Subject: "backend be_http:ns:r"},
				{Kind: ReasonMaps, Subject: "conf/maps/http_prefix.map"}}},
		{name: "host changed", routes: map[string]*router.Route{"ns/r": served("ns", "r", "moved.example.com")},
			want: []runtime.Reason{{Kind: ReasonMaps, Subject: "conf/maps/http_prefix.map"}}},
		{name: "balance changed", routes: map[string]*router.Route{"ns/r": served("ns", "r", "r.example.com", withOverrides(routecore.Overrides{Balance: "random"}))},
			want: []runtime.Reason{{Kind: ReasonBackendSettings, Subject: "backend be_http:ns:r", Detail: "Balance"}}},
		{name: "health check interval changed",
			routes: map[string]*router.Route{"ns/r": served("ns", "r", "r.example.com", withOverrides(routecore.Overrides{HealthCheckInterval: 7 * time.Second}))},
			want:   []runtime.Reason{{Kind: ReasonServerOption, Subject: "backend be_http:ns:r"}}},
		{name: "appProtocol h2c added", services: map[string]*router.ServiceEndpoints{"ns/r": withAppProtocol("kubernetes.io/h2c", []*router.ServiceEndpoints{one})[0]},
			want: []runtime.Reason{{Kind: ReasonServerProtocol, Subject: "backend be_http:ns:r"}}},
		{name: "alternate service added",
			routes: map[string]*router.Route{"ns/r": served("ns", "r", "r.example.com", withBackends(svcWeight("ns", "r", 100), svcWeight("ns", "b", 100)))},
			want:   []runtime.Reason{{Kind: ReasonServices, Subject: "backend be_http:ns:r"}}},
		{name: "endpoint added with TEMPLATE_FILE", cfg: func(c *proxyconfig.Config) { c.TemplateFile = writeTempFile(t, "t.cfg", string(builtinBackend)) },
			services: map[string]*router.ServiceEndpoints{"ns/r": two},
			want:     []runtime.Reason{{Kind: ReasonSlotsAddedTemplate, Subject: "backend be_http:ns:r"}}},
		{name: "certificate changed: runtime API",
			routes: map[string]*router.Route{"ns/tls": served("ns", "tls", "tls.example.com", edgeRedirect, func(r *router.Route) {
				r.TLS.Certificate, r.TLS.Key = string(other.CertPEM), string(other.KeyPEM)
			})}},
		{name: "certificate removed: runtime API",
			routes: map[string]*router.Route{"ns/tls": served("ns", "tls", "tls.example.com", edgeRedirect)}},
		{name: "destination CA added",
			routes: map[string]*router.Route{"ns/r": served("ns", "r", "r.example.com", reencrypt, destCA(t))},
			want: []runtime.Reason{{Kind: ReasonBackendRemoved, Subject: "backend be_http:ns:r"},
				{Kind: ReasonBackendAdded, Subject: "backend be_secure:ns:r"},
				{Kind: ReasonDestinationCA + " added", Subject: "cacerts/ns_r.pem"},
				{Kind: ReasonMaps, Subject: "conf/maps/http_prefix.map"}, {Kind: ReasonMaps, Subject: "conf/maps/https_prefix.map"}}},
		{name: "long IP allowlist",
			routes: map[string]*router.Route{"ns/r": served("ns", "r", "r.example.com", withOverrides(routecore.Overrides{IPAllowlist: big}))},
			want: []runtime.Reason{{Kind: ReasonBackendSettings, Subject: "backend be_http:ns:r", Detail: "AllowList"},
				{Kind: ReasonAllowList + " added", Subject: "allowlists/ns_r.txt"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mods []func(*proxyconfig.Config)
			if tt.cfg != nil {
				mods = append(mods, tt.cfg)
			}
			r := newTestRenderer(t, mods...)
			snap := snapshotOf(base(), one, eps("ns", "tls", "10.0.0.9"))
			if first := mustRender(t, r, snap); !slices.Equal(first.Reasons, []runtime.Reason{{Kind: ReasonFirstConfiguration}}) {
				t.Fatalf("first rendering: reasons %v", first.Reasons)
			}
			out := mustRender(t, r, nextSnapshot(snap, tt.routes, tt.services))
			if !slices.Equal(out.Reasons, tt.want) {
				t.Errorf("reasons:\n  %v\nwant:\n  %v", out.Reasons, tt.want)
			}
			if tt.want == nil && len(out.Servers) == 0 && len(out.Certificates) == 0 {
				t.Error("no reload and no server or certificate update")
			}
		})
	}
}

// TestReloadReasonsFiles: the files beyond the snapshots give their own
// reasons: a renewed default certificate, a rotated destination CA.
func TestReloadReasonsFiles(t *testing.T) {
	dir := renderWorkDir(t)
	ca := filepath.Join(dir, "service-ca.crt")
	write := func(name string) {
		t.Helper()
		if err := os.WriteFile(ca, newCA(t, name).CertPEM, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("first CA")
	r := newTestRenderer(t, func(c *proxyconfig.Config) { c.DefaultDestinationCAPath = ca })
	snap := snapshotOf([]*router.Route{served("ns", "r", "r.example.com", reencrypt)}, eps("ns", "r", "10.0.0.1"))
	mustRender(t, r, snap)
	write("second CA")
	out := mustRender(t, r, nextSnapshot(snap, nil, nil))
	if want := []runtime.Reason{{Kind: ReasonDefaultCA, Subject: destCAFile}}; !slices.Equal(out.Reasons, want) {
		t.Errorf("reasons %v, want %v", out.Reasons, want)
	}
}
