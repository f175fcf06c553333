package haproxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/router"
)

// TestRenderReadsNoFile: the files the configuration names need not exist
// for Render: their contents arrive as its inputs, and what it writes is
// those contents.
func TestRenderReadsNoFile(t *testing.T) {
	pki, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	r := newTestRenderer(t, func(c *proxyconfig.Config) {
		c.DefaultDestinationCAPath = "/nonexistent/service-ca.crt"
		c.MutualTLSAuth, c.MutualTLSAuthCA = "required", "/nonexistent/client-ca.pem"
	})
	rt := served("ns", "r", "re.example.com", reencrypt, withBackends(svcWeight("ns", "web", 100)))
	snap := snapshotOf([]*router.Route{rt}, eps("ns", "web", "10.0.0.1"))
	files := FileContents{DestinationCA: pki.CA.CertPEM, ClientCA: pki.Leaf.CertPEM}
	out, err := r.Render(snap, Inputs{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{destCAFile: files.DestinationCA, clientCAFile: files.ClientCA} {
		if got := out.Files[path].Data; string(got) != string(want) {
			t.Errorf("%s: %d bytes, want the input's %d", path, len(got), len(want))
		}
	}
	if !strings.Contains(backendText(t, out, "be_secure:ns:r"), "ca-file "+filepath.Join(r.cfg.WorkingDir, destCAFile)) {
		t.Errorf("the reencrypt backend does not verify with the input CA:\n%s", backendText(t, out, "be_secure:ns:r"))
	}

	// Without the client CA among the inputs, clients cannot be checked:
	// an error, not a configuration that lets everyone in.
	snap.Version++
	if _, err := r.Render(snap, Inputs{Files: FileContents{DestinationCA: files.DestinationCA}}); err == nil || !strings.Contains(err.Error(), "ROUTER_MUTUAL_TLS_AUTH_CA") {
		t.Errorf("error %v, want one naming ROUTER_MUTUAL_TLS_AUTH_CA", err)
	}
}

// TestFileLoader: the loader reads the destination CA, keeps the last
// content of a half-written file, says nothing of a missing one, and
// refuses a broken file it has no content of yet.
func TestFileLoader(t *testing.T) {
	pki, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "service-ca.crt")
	cfg := testDataPlane(t.TempDir())
	cfg.DefaultDestinationCAPath = caFile
	write := func(data string) {
		t.Helper()
		if err := os.WriteFile(caFile, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := NewFileLoader(cfg)
	if !l.Watches() {
		t.Error("a loader of DEFAULT_DESTINATION_CA_PATH watches nothing")
	}
	write("-----BEGIN CERT")
	if _, err := l.Load(); err == nil || !strings.Contains(err.Error(), "DEFAULT_DESTINATION_CA_PATH "+caFile+": no PEM certificate in it") {
		t.Errorf("broken file, nothing read before: error %v", err)
	}
	write(string(pki.CA.CertPEM))
	first, err := l.Load()
	if err != nil || string(first.DestinationCA) != string(pki.CA.CertPEM) {
		t.Fatalf("CA %q, error %v", first.DestinationCA, err)
	}
	if l.Changed(first) {
		t.Error("Changed with the file as read")
	}
	write("-----BEGIN CERT")
	if got, err := l.Load(); err != nil || string(got.DestinationCA) != string(pki.CA.CertPEM) || l.Changed(first) {
		t.Errorf("half-written file: CA %q, error %v; want the last content kept", got.DestinationCA, err)
	}
	if err := os.Remove(caFile); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Load(); err != nil || got.DestinationCA != nil || !l.Changed(first) {
		t.Errorf("missing file: CA %q, error %v; want none, and a change", got.DestinationCA, err)
	}
	none := testDataPlane(t.TempDir())
	none.DefaultDestinationCAPath = ""
	if NewFileLoader(none).Watches() {
		t.Error("a loader of no file watches something")
	}
}
