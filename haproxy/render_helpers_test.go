package haproxy

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// Tiny constructors for render tests: routes and endpoints as the router's Store
// would serve them, and snapshots built with the PMap API.

var renderEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// testDataPlane is the default data plane in dir, on unprivileged ports.
func testDataPlane(dir string) proxyconfig.Config {
	cfg := settings.Defaults().DataPlane
	cfg.WorkingDir = dir
	cfg.HTTPPort, cfg.HTTPSPort, cfg.SNIPort, cfg.NoSNIPort = 18080, 18443, 20444, 20443
	return cfg
}

// newTestRenderer renders into a temporary working directory.
func newTestRenderer(t testing.TB, mods ...func(*proxyconfig.Config)) *Renderer {
	t.Helper()
	cfg := testDataPlane(renderWorkDir(t))
	for _, m := range mods {
		m(&cfg)
	}
	r, err := NewRenderer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// workDir is a temporary working directory. (t.TempDir has the test's
// name in it, which may hold characters the renderer refuses in paths.)
func renderWorkDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "render")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// served is an admitted plain-HTTP route to service NAME with weight 100,
// created age seconds after the epoch.
func served(ns, name, host string, mods ...func(*router.Route)) *router.Route {
	r := &router.Route{Namespace: ns, Name: name, UID: types.UID("uid-" + ns + "-" + name), Created: renderEpoch, Host: host,
		Backends: []router.Backend{{Service: types.NamespacedName{Namespace: ns, Name: name}, Weight: 100}}}
	for _, m := range mods {
		m(r)
	}
	return r
}

func atPath(p string) func(*router.Route) { return func(r *router.Route) { r.Path = p } }

func atExactPath(p string) func(*router.Route) {
	return func(r *router.Route) { r.Path, r.ExactPath = p, true }
}

func wildcardRoute(r *router.Route) { r.Wildcard = true }

func tlsRoute(term routecore.TLSTerminationType, policy routecore.InsecureEdgeTerminationPolicyType) func(*router.Route) {
	return func(r *router.Route) {
		r.TLS = &routecore.TLSConfig{Termination: term, InsecureEdgeTerminationPolicy: policy}
	}
}

func withOverrides(o routecore.Overrides) func(*router.Route) {
	return func(r *router.Route) { r.Overrides = o }
}

func createdAt(seconds int) func(*router.Route) {
	return func(r *router.Route) { r.Created = renderEpoch.Add(time.Duration(seconds) * time.Second) }
}

func withBackends(b ...router.Backend) func(*router.Route) {
	return func(r *router.Route) { r.Backends = b }
}

func svcWeight(ns, name string, w int32) router.Backend {
	return router.Backend{Service: types.NamespacedName{Namespace: ns, Name: name}, Weight: w}
}

// ownCert gives an edge or reencrypt route the test PKI's leaf.
func ownCert(t testing.TB) func(*router.Route) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	return func(r *router.Route) {
		r.TLS.Certificate, r.TLS.Key, r.TLS.CACertificate = string(p.Leaf.CertPEM), string(p.Leaf.KeyPEM), string(p.CA.CertPEM)
	}
}

// destCA gives a reencrypt route the test PKI's CA as destination CA.
func destCA(t testing.TB) func(*router.Route) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	return func(r *router.Route) { r.TLS.DestinationCACertificate = string(p.CA.CertPEM) }
}

// eps are ready endpoints of service ns/name on port 8080.
func eps(ns, name string, ips ...string) *router.ServiceEndpoints {
	s := &router.ServiceEndpoints{Service: types.NamespacedName{Namespace: ns, Name: name}}
	for _, ip := range ips {
		s.Endpoints = append(s.Endpoints, router.Endpoint{IP: ip, Port: 8080, PortName: "http"})
	}
	return s
}

// snapshotOf is a first snapshot of routes and services.
func snapshotOf(routes []*router.Route, services ...*router.ServiceEndpoints) router.Snapshot {
	var snap router.Snapshot
	snap.Version, snap.Synced = 1, true
	re, se := snap.Routes.Edit(), snap.Services.Edit()
	for _, r := range routes {
		re.Set(r.Key(), r)
	}
	for _, s := range services {
		se.Set(s.Service.Namespace+"/"+s.Service.Name, s)
	}
	snap.Routes, snap.Services = re.Freeze(), se.Freeze()
	return snap
}

// nextSnapshot is prev with routes and services set (or, for keys mapped
// to nil, deleted), with Changed naming them.
func nextSnapshot(prev router.Snapshot, routes map[string]*router.Route, services map[string]*router.ServiceEndpoints) router.Snapshot {
	next := prev
	next.Version++
	next.Changed = router.Changes{Routes: map[string]bool{}, Services: map[string]bool{}}
	re, se := prev.Routes.Edit(), prev.Services.Edit()
	for k, r := range routes {
		if r == nil {
			re.Delete(k)
		} else {
			re.Set(k, r)
		}
		next.Changed.Routes[k] = true
	}
	for k, s := range services {
		if s == nil {
			se.Delete(k)
		} else {
			se.Set(k, s)
		}
		next.Changed.Services[k] = true
	}
	next.Routes, next.Services = re.Freeze(), se.Freeze()
	return next
}

// testFiles are a test renderer's files as the data plane has them: read
// by one FileLoader (which keeps the last content of a half-written
// file), and the contents the last successful render used.
type testFiles struct {
	loader   *FileLoader
	rendered FileContents
}

// testFilesOf holds the testFiles of each test renderer.
var testFilesOf sync.Map // *Renderer -> *testFiles

func filesOf(r *Renderer) *testFiles {
	f, _ := testFilesOf.LoadOrStore(r, &testFiles{loader: NewFileLoader(r.cfg)})
	return f.(*testFiles)
}

// renderInputs reads r's files, as the data plane does before it renders.
func renderInputs(r *Renderer) (Inputs, error) {
	files, err := filesOf(r).loader.Load()
	return Inputs{Files: files}, err
}

// filesChanged reports whether r's files changed since its last render,
// as the data plane checks them.
func filesChanged(r *Renderer) bool {
	f := filesOf(r)
	return f.loader.Changed(f.rendered)
}

// render renders snap, failing the test on error.
func mustRender(t testing.TB, r *Renderer, snap router.Snapshot) *runtime.Output {
	t.Helper()
	in, err := renderInputs(r)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render(snap, in)
	if err != nil {
		t.Fatal(err)
	}
	filesOf(r).rendered = in.Files
	return out
}

// backendText is the rendered backend of one route.
func backendText(t testing.TB, out *runtime.Output, name string) string {
	t.Helper()
	for path, f := range out.Files {
		if !strings.HasPrefix(path, backendsDir+"/") {
			continue
		}
		text := string(f.Data)
		if i := strings.Index(text, "backend "+name+" "); i >= 0 {
			end := strings.Index(text[i+1:], "\nbackend ")
			if end < 0 {
				return text[i:]
			}
			return text[i : i+1+end+1]
		}
	}
	t.Fatalf("no backend %s in the output", name)
	return ""
}

// writeOutput writes every file of out under its working directory.
func writeOutput(t testing.TB, dir string, out *runtime.Output) {
	t.Helper()
	all := *out
	all.Changed = slices.Sorted(maps.Keys(out.Files))
	if err := runtime.WriteFiles(dir, &all); err != nil {
		t.Fatal(err)
	}
}

var haproxyLookup = sync.OnceValues(func() (string, error) { return exec.LookPath("haproxy") })

// haproxyCheck runs haproxy -c on out written to r's working directory:
// HAProxy must accept it without a warning or an alert the router would
// pass on as one. Without HAProxy the test is skipped, except in CI
// (CI=true), where it fails.
func haproxyCheck(t testing.TB, r *Renderer, out *runtime.Output) {
	t.Helper()
	msg := haproxyCheckWords(t, r, out)
	// What the router renders is checked without a word: a warning here
	// would be printed at every load.
	if words := complaints(msg); len(words) > 0 {
		t.Errorf("haproxy -c warns:\n%s", strings.Join(words, "\n"))
	}
}

// haproxyCheckWords writes out into r's working directory, checks it
// with haproxy -c (the test fails if HAProxy refuses it) and returns what
// HAProxy said.
func haproxyCheckWords(t testing.TB, r *Renderer, out *runtime.Output) string {
	t.Helper()
	bin, err := haproxyLookup()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("haproxy is required in CI: %v", err)
		}
		t.Skipf("haproxy not installed: %v", err)
	}
	dir := r.cfg.WorkingDir
	writeOutput(t, dir, out)
	args := []string{"-c"}
	for _, a := range out.ConfigArgs {
		args = append(args, "-f", filepath.Join(dir, a))
	}
	cmd := exec.Command(bin, args...)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		cfg, _ := os.ReadFile(filepath.Join(dir, configFile))
		t.Fatalf("haproxy -c: %v\n%s\nhaproxy.cfg:\n%s", err, msg, numbered(string(cfg)))
	}
	if testing.Verbose() {
		t.Logf("haproxy -c:\n%s", msg)
	}
	return string(msg)
}

// complaints are the lines of HAProxy's output the router logs as
// warnings or alerts (runtime.Message.Judge), the router not stopping it.
func complaints(output string) []string {
	var out []string
	for line := range strings.Lines(output) {
		if runtime.ParseMessage(line).Judge(false) >= runtime.LevelWarning {
			out = append(out, strings.TrimRight(line, "\n"))
		}
	}
	return out
}

func numbered(s string) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		fmt.Fprintf(&b, "%4d %s\n", i+1, line)
	}
	return b.String()
}

// assertLines checks that each of want is a line of text and none of
// unwanted is (lines compared without their indentation, with WORKDIR
// standing for workDir).
func assertLines(t testing.TB, what, text, workDir string, want, unwanted []string) {
	t.Helper()
	lines := map[string]bool{}
	for _, l := range strings.Split(strings.ReplaceAll(text, workDir, "WORKDIR"), "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, w := range want {
		if !lines[w] {
			t.Errorf("%s: no line %q in:\n%s", what, w, text)
		}
	}
	for _, u := range unwanted {
		if lines[u] {
			t.Errorf("%s: unwanted line %q in:\n%s", what, u, text)
		}
	}
}
