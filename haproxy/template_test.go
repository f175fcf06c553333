package haproxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/router"
)

func writeTemplate(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "haproxy-config.template")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestTemplateFileReplacesBackend(t *testing.T) {
	file := writeTemplate(t, `{{define "backend"}}backend {{.Name}} from {{.Defaults}}
  # route {{.Route}}
{{- range .Servers}}
  server {{.Name}} {{.Endpoint}}{{if .Enabled}} weight {{.Weight}}{{else}} disabled{{end}}
{{- end}}
{{end}}`)
	r := newTestRenderer(t, func(c *proxyconfig.Config) { c.TemplateFile = file })
	snap := snapshotOf([]*router.Route{served("ns", "r", "www.example.com")}, eps("ns", "r", "10.0.0.1"))
	out := mustRender(t, r, snap)
	want := "backend be_http:ns:r from http_route\n  # route ns/r\n  server s0 10.0.0.1:8080 weight 1\n"
	if got := backendText(t, out, "be_http:ns:r"); got != want {
		t.Errorf("backend:\n%s\nwant:\n%s", got, want)
	}
	// The built-in haproxy.cfg stays.
	if !strings.Contains(string(out.Files[configFile].Data), "frontend public from common") {
		t.Error("the built-in haproxy.cfg template is gone")
	}
	haproxyCheck(t, r, out)

	// The router cannot know the options a custom template gives servers,
	// so a service that grows is loaded anew rather than added to.
	snap = nextSnapshot(snap, nil, map[string]*router.ServiceEndpoints{"ns/r": eps("ns", "r", "10.0.0.1", "10.0.0.2")})
	if out = mustRender(t, r, snap); !out.Reload() || out.Servers != nil {
		t.Errorf("growing with TEMPLATE_FILE: reload %v, servers %+v; want a reload", out.Reload(), out.Servers)
	}
}

// TestTemplateFileSeesServices: a custom template gets the route's services
// with their weights and each slot's service; a service name no Service
// can have is left out rather than printed.
func TestTemplateFileSeesServices(t *testing.T) {
	file := writeTemplate(t, `{{define "backend"}}backend {{.Name}} from {{.Defaults}}
{{- range .Services}}
  # service {{.Namespace}}/{{.Name}} weight {{.Weight}}
{{- end}}
{{- range .Servers}}
  server {{.Name}} {{.Endpoint}}{{if .Enabled}} weight {{.Weight}}{{else}} disabled{{end}} # {{.Service}}
{{- end}}
{{end}}`)
	r := newTestRenderer(t, func(c *proxyconfig.Config) { c.TemplateFile = file })
	rt := served("ns", "r", "www.example.com", withBackends(svcWeight("ns", "a", 20), svcWeight("ns", "b", 10), svcWeight("ns", "Bad Name\n", 5)))
	out := mustRender(t, r, snapshotOf([]*router.Route{rt}, eps("ns", "a", "10.0.0.1"), eps("ns", "b", "10.0.0.2")))
	want := "backend be_http:ns:r from http_route\n" +
		"  # service ns/a weight 20\n  # service ns/b weight 10\n" +
		"  server s0 10.0.0.1:8080 weight 256 # ns/a\n  server s1 10.0.0.2:8080 weight 128 # ns/b\n"
	got := backendText(t, out, "be_http:ns:r")
	if !strings.HasPrefix(got, want) || strings.Contains(got, "Bad") {
		t.Errorf("backend:\n%s\nwant it to start with:\n%s(and no invalid service name)", got, want)
	}
	haproxyCheck(t, r, out)
}

func TestTemplateFileReplacesConfig(t *testing.T) {
	file := writeTemplate(t, `# custom
global
  maxconn {{.Global.MaxConn}}
defaults http_route
  mode http
  timeout connect 5s
  timeout client 5s
  timeout server 5s
defaults tcp_route
  mode tcp
  timeout connect 5s
  timeout client 5s
  timeout server 5s
`)
	r := newTestRenderer(t, func(c *proxyconfig.Config) { c.TemplateFile = file })
	out := mustRender(t, r, snapshotOf([]*router.Route{served("ns", "r", "www.example.com")}))
	if got := string(out.Files[configFile].Data); !strings.HasPrefix(got, "# custom\nglobal\n  maxconn 20000\n") {
		t.Errorf("haproxy.cfg:\n%s", got)
	}
}

func TestTemplateFileErrors(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"syntax error", "global\n  maxconn {{.Global.MaxConn\n", []string{"TEMPLATE_FILE", "haproxy-config.template:3: unclosed action started at", "haproxy-config.template:2"}},
		{"unknown field", "global\n  maxconn {{.Global.MaxConnections}}\n", []string{"TEMPLATE_FILE", "haproxy-config.template:2:", "MaxConnections"}},
		{"unknown field in the backend", `{{define "backend"}}backend {{.Nmae}}{{end}}`, []string{"TEMPLATE_FILE", "haproxy-config.template:1:", "Nmae"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := testDataPlane(t.TempDir())
			cfg.TemplateFile = writeTemplate(t, c.text)
			_, err := NewRenderer(cfg)
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v, want one with %q", err, w)
				}
			}
		})
	}
}

// TestTemplateFailsForOneRoute: a template that fails on one route makes
// Render fail with the template's and the route's names, and keeps nothing
// of that snapshot.
func TestTemplateFailsForOneRoute(t *testing.T) {
	file := writeTemplate(t, `{{define "backend"}}backend {{.Name}} from {{.Defaults}}
{{- if eq .Route "ns/bad"}}{{index .Servers 9}}{{end}}
{{- range .Servers}}
  server {{.Name}} {{.Endpoint}}{{if .Enabled}} weight {{.Weight}}{{else}} disabled{{end}}
{{- end}}
{{end}}`)
	r := newTestRenderer(t, func(c *proxyconfig.Config) { c.TemplateFile = file })
	good := snapshotOf([]*router.Route{served("ns", "good", "good.example.com")})
	mustRender(t, r, good)
	bad := nextSnapshot(good, map[string]*router.Route{"ns/bad": served("ns", "bad", "bad.example.com")}, nil)
	in, err := renderInputs(r)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Render(bad, in)
	if err == nil || !strings.Contains(err.Error(), "ns/bad") || !strings.Contains(err.Error(), `"backend"`) {
		t.Fatalf("error %v, want one naming the route and the template", err)
	}
	// The next snapshot drops the bad route: compared with the last good
	// output, only the new route shows.
	fixed := nextSnapshot(bad, map[string]*router.Route{"ns/bad": nil, "ns/other": served("ns", "other", "other.example.com")}, nil)
	out := mustRender(t, r, fixed)
	if strings.Contains(strings.Join(out.Changed, " "), "bad") || len(out.Removed) != 0 {
		t.Errorf("changed %v, removed %v", out.Changed, out.Removed)
	}
	if _, ok := r.routes["ns/bad"]; ok {
		t.Error("the failed route was kept")
	}
	if !strings.Contains(string(out.Files[mapFiles[httpPrefix]].Data), "other.example.com/ be_http:ns:other") {
		t.Error("the new route is not routed")
	}
}
