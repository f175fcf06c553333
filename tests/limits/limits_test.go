// Package limits checks routecore's limits against the real HAProxy: a
// Route with every value that reaches haproxy.cfg at its limit renders
// (through routeshift render) to a configuration HAProxy loads and serves.
package limits

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/internal/cli"
	"github.com/routeshift/routeshift/internal/freeport"
	"github.com/routeshift/routeshift/routecore"
)

// haproxyPath is HAProxy 2.6 as the router runs it. Without it the tests
// below are skipped, except in CI (CI=true), where they fail.
func haproxyPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("haproxy")
	if err != nil {
		p, err = exec.LookPath("/usr/sbin/haproxy")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("HAProxy not found; install it (apt-get install -y haproxy)")
		}
		t.Skip("HAProxy not found; install it (apt-get install -y haproxy)")
	}
	return p
}

// atEveryLimit is an edge Route with every value that reaches haproxy.cfg
// at its limit.
func atEveryLimit() *routecore.Route {
	weight := int32(100)
	set := func(i, n int) routecore.RouteHTTPHeader {
		name := fmt.Sprintf("X-%02d-", i) + strings.Repeat("n", routecore.MaxHeaderNameLength-5)
		return routecore.RouteHTTPHeader{Name: name, Action: routecore.RouteHTTPHeaderActionUnion{
			Type: routecore.Set, Set: &routecore.RouteSetHTTPHeader{Value: strings.Repeat("v", n)}}}
	}
	var request, response []routecore.RouteHTTPHeader
	for i := range routecore.MaxHeaderActions {
		n := routecore.MaxHeaderValuesTotal / routecore.MaxHeaderActions
		if i == 0 {
			n += routecore.MaxHeaderValuesTotal % routecore.MaxHeaderActions
		}
		request, response = append(request, set(i, n)), append(response, set(i, n))
	}
	allowlist := make([]string, routecore.MaxAllowlistEntries)
	for i := range allowlist {
		allowlist[i] = fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)
	}
	return &routecore.Route{
		TypeMeta: metav1.TypeMeta{APIVersion: "route.openshift.io/v1", Kind: "Route"},
		ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: "demo", Annotations: map[string]string{
			routecore.AnnRewriteTarget: "/" + strings.Repeat("t", routecore.MaxRewriteTargetLength-1),
			routecore.AnnCookieName:    strings.Repeat("c", routecore.MaxCookieNameLength),
			routecore.AnnHSTSHeader:    "max-age=" + strings.Repeat("1", routecore.MaxHSTSHeaderLength-len("max-age=")),
			routecore.AnnIPAllowlist:   strings.Join(allowlist, " "),
		}},
		Spec: routecore.RouteSpec{
			Host: strings.Repeat("h", 63) + "." + strings.Repeat("o", 63) + "." + strings.Repeat("s", 63) + "." + strings.Repeat("t", 61),
			Path: "/" + strings.Repeat("p.", (routecore.MaxPathLength-1)/2) + strings.Repeat("q", (routecore.MaxPathLength-1)%2),
			To:   routecore.RouteTargetReference{Kind: "Service", Name: "web", Weight: &weight},
			TLS:  &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge},
			HTTPHeaders: &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{
				Request: request, Response: response}},
		},
	}
}

// TestLimitsLoadInHAProxy: a Route with every value at its limit is valid,
// admitted by the router, written into its maps and accepted by HAProxy
// (`routeshift render --check`, the router's own renderer and haproxy -c).
func TestLimitsLoadInHAProxy(t *testing.T) {
	haproxy := haproxyPath(t)
	r := atEveryLimit()
	if len(r.Spec.Host) != 253 || len(r.Spec.Path) != routecore.MaxPathLength {
		t.Fatalf("host %d and path %d bytes: not at their limits", len(r.Spec.Host), len(r.Spec.Path))
	}
	if errs := routecore.ValidateRoute(r, routecore.ValidateOptions{}); len(errs) > 0 {
		t.Fatalf("the Route at every limit is invalid: %v", errs.ToAggregate())
	}
	dir := t.TempDir()
	input := filepath.Join(dir, "route.json")
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "out")
	code := cli.Execute([]string{"render", "-f", input, "--dir", out, "--check", "--haproxy", haproxy}, nil, &stdout, &stderr)
	if code != 0 || stdout.String() != "demo/limits admitted\n" {
		t.Fatalf("render --check: exit %d, stdout %q, stderr %q", code, stdout.String(), tail(stderr.String()))
	}
	if !filesContain(t, out, r.Spec.Host+r.Spec.Path) {
		t.Errorf("no file in %s routes %s (host and path at their limits)", out, "https://"+r.Spec.Host+"/p.p.…")
	}
}

// TestHAProxyRefusesTheRewriteOfLongPaths is the measurement behind
// MaxPathLength: HAProxy refuses the whole configuration when the
// rewrite-target rule the router writes for spec.path (replace-path with
// ^<path>/?(.*)$) holds a path of 32,758 bytes, whatever its characters,
// and loads it one byte shorter: fifteen times the limit and more.
func TestHAProxyRefusesTheRewriteOfLongPaths(t *testing.T) {
	haproxy := haproxyPath(t)
	const accepted = 32757
	for _, unit := range []string{"a", ".", "é"} {
		path := func(n int) string {
			return "/" + strings.Repeat(unit, (n-1)/len(unit)) + strings.Repeat("b", (n-1)%len(unit))
		}
		for _, tt := range []struct {
			bytes int
			want  string
		}{{accepted, "Configuration file is valid"}, {accepted + 1, "regular expression is too large"}} {
			rule := "^" + regexp.QuoteMeta(path(tt.bytes)) + "/?(.*)$"
			got := haproxyCheck(t, haproxy, "  http-request replace-path '"+rule+`' '/\1'`)
			if !strings.Contains(got, tt.want) {
				t.Errorf("path of %d bytes of %q: want %q, HAProxy said %q", tt.bytes, unit, tt.want, tail(got))
			}
		}
	}
	if accepted < 15*routecore.MaxPathLength {
		t.Errorf("MaxPathLength %d keeps less than a fifteenfold margin below %d", routecore.MaxPathLength, accepted)
	}
}

// haproxyCheck runs haproxy -c on a configuration whose only backend has
// the given lines, with the router's default buffers, and returns its output.
func haproxyCheck(t *testing.T, haproxy, lines string) string {
	t.Helper()
	cfg := "global\n  tune.bufsize 32768\n  tune.maxrewrite 8192\ndefaults\n  mode http\n  timeout connect 1s\n  timeout client 1s\n  timeout server 1s\n" +
		"frontend f\n  bind 127.0.0.1:1\n  default_backend b\nbackend b\n" + lines + "\n"
	file := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(haproxy, "-c", "-f", file).CombinedOutput()
	return string(out)
}

// filesContain reports whether a file under dir contains s.
func filesContain(t *testing.T, dir, s string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || found {
			return err
		}
		b, err := os.ReadFile(p)
		found = bytes.Contains(b, []byte(s))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// tail keeps the end of long output, where HAProxy's verdict is.
func tail(s string) string {
	if len(s) > 600 {
		return "…" + s[len(s)-600:]
	}
	return s
}

// TestHAProxyServesHeaderActionsAtTheirLimits is the measurement behind
// MaxHeaderValuesTotal, MaxRewriteTargetLength and MaxCookieNameLength, on
// real requests through HAProxy with the router's default buffers: a
// request with 8 KiB of headers of its own gets 20 request and 20 response
// headers at their limits, its path rewritten to a target at its limit and
// the cookie at its limit, while a header of twice the values' limit makes
// HAProxy answer 500.
func TestHAProxyServesHeaderActionsAtTheirLimits(t *testing.T) {
	haproxy := haproxyPath(t)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %d", r.URL.Path, len(r.Header.Get("X-00-"+strings.Repeat("n", routecore.MaxHeaderNameLength-5))))
	}))
	defer backend.Close()
	r := atEveryLimit()
	var rules []string
	for _, h := range r.Spec.HTTPHeaders.Actions.Request {
		rules = append(rules, fmt.Sprintf("  http-request set-header %s %s", h.Name, h.Action.Set.Value))
	}
	for _, h := range r.Spec.HTTPHeaders.Actions.Response {
		rules = append(rules, fmt.Sprintf("  http-response set-header %s %s", h.Name, h.Action.Set.Value))
	}
	target := r.Annotations[routecore.AnnRewriteTarget]
	rules = append(rules, `  http-request replace-path ^/api/?(.*)$ `+target+`/\1`,
		"  cookie "+r.Annotations[routecore.AnnCookieName]+" insert indirect nocache httponly dynamic secure attr SameSite=None",
		"  dynamic-cookie-key k")
	bigHeaders := map[string]string{"X-Client": strings.Repeat("c", 8*1024)}
	status, body := haproxyServe(t, haproxy, backend.Listener.Addr().String(), strings.Join(rules, "\n"), "/api/x", bigHeaders)
	want := fmt.Sprintf("%s/x %d", target, routecore.MaxHeaderValuesTotal/routecore.MaxHeaderActions+routecore.MaxHeaderValuesTotal%routecore.MaxHeaderActions)
	if status != http.StatusOK || body != want {
		t.Errorf("at the limits: got %d %.80q, want 200 %.80q", status, body, want)
	}
	tooMuch := "  http-request set-header X-A " + strings.Repeat("v", 2*routecore.MaxHeaderValuesTotal)
	if status, _ := haproxyServe(t, haproxy, backend.Listener.Addr().String(), tooMuch, "/", nil); status != http.StatusInternalServerError {
		t.Errorf("a request header of %d bytes: got %d, want HAProxy's 500", 2*routecore.MaxHeaderValuesTotal, status)
	}
}

// haproxyServe runs HAProxy with one backend (rules, then the server at
// addr), sends it one request and returns the status and body.
func haproxyServe(t *testing.T, haproxy, addr, rules, path string, headers map[string]string) (int, string) {
	t.Helper()
	port, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("global\n  tune.bufsize 32768\n  tune.maxrewrite 8192\ndefaults\n  mode http\n  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\n"+
		"frontend f\n  bind 127.0.0.1:%d\n  default_backend b\nbackend b\n%s\n  server s %s\n", port, rules, addr)
	file := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(haproxy, "-db", "-f", file)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	// Wait for HAProxy to listen: connection refused until then.
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			return resp.StatusCode, string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("HAProxy did not answer: %v\n%s", err, tail(out.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
