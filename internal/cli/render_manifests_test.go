package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRenderOtherKinds: render skips what it does not read (the
// Deployment and ConfigMap beside the Routes, a Knative Route), counts it
// and lists it with -v.
func TestRenderOtherKinds(t *testing.T) {
	summary := "summary: 2 routes judged: 2 admitted, 0 rejected, 0 ignored; 3 objects of other kinds skipped\n"
	tests := []struct {
		name, wantStderr string
		args             []string
	}{
		{name: "summary only", wantStderr: summary},
		{name: "-v lists them", args: []string{"-v"}, wantStderr: "skipped: <stdin>, document 2 (line 9): apps/v1 Deployment web\n" +
			"skipped: <stdin>, document 4 (line 18), item 0: v1 ConfigMap settings\n" +
			"skipped: <stdin>, document 5 (line 27): serving.knative.dev/v1 Route knative\n" + summary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(t, corpus(t, "app.yaml"), append([]string{"render", "-f", "-", "-n", "shop"}, tt.args...)...)
			if stdout != "shop/web admitted\nshop/api admitted\n" || stderr != tt.wantStderr || code != 0 {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant stderr:\n%s", code, stdout, stderr, tt.wantStderr)
			}
		})
	}
}

// TestRenderAsStored: without the webhook's defaulting, a Route stored
// without a host gets ROUTER_SUBDOMAIN's host or NoHostValue, as a router
// judges Routes created before the webhook; an invalid host is InvalidHost
// either way.
func TestRenderAsStored(t *testing.T) {
	stdin := "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: hostless, namespace: ns}\nspec: {to: {name: web}}\n---\n" +
		routeDoc("ns", "upper", "WWW.example.com", "")
	invalid := `ns/upper: host name validation errors: spec.host: Invalid value: "WWW.example.com": host must conform to DNS 952 subdomain conventions, ` +
		`spec.host: Invalid value: "WWW.example.com": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')` + "\n"
	tests := []struct {
		name               string
		env                map[string]string
		args               []string
		wantOut, wantHosts string
		wantErr            string
	}{
		{name: "defaulted as the webhook would", wantOut: "ns/hostless admitted\nns/upper rejected InvalidHost\n",
			wantErr: invalid + "summary: 2 routes judged: 1 admitted, 1 rejected, 0 ignored; 0 objects of other kinds skipped\n"},
		{name: "as stored", args: []string{"--as-stored"}, wantOut: "ns/hostless rejected NoHostValue\nns/upper rejected InvalidHost\n",
			wantErr: "ns/hostless: no host value was defined for the route\n" + invalid +
				"summary: 2 routes judged: 0 admitted, 2 rejected, 0 ignored; 0 objects of other kinds skipped\n"},
		{name: "as stored, with ROUTER_SUBDOMAIN", args: []string{"--as-stored"}, env: map[string]string{"ROUTER_SUBDOMAIN": "${name}-${namespace}.apps.example.com"},
			wantOut: "ns/hostless admitted\nns/upper rejected InvalidHost\n",
			wantErr: invalid + "summary: 2 routes judged: 1 admitted, 1 rejected, 0 ignored; 0 objects of other kinds skipped\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			stdout, stderr, code := run(t, stdin, append([]string{"render", "-f", "-"}, tt.args...)...)
			if stdout != tt.wantOut || stderr != tt.wantErr || code != 0 {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant stdout:\n%s\nwant stderr:\n%s", code, stdout, stderr, tt.wantOut, tt.wantErr)
			}
		})
	}
	t.Setenv("ROUTER_SUBDOMAIN", "${name}-${namespace}.apps.example.com")
	stdout, _, _ := run(t, stdin, "render", "-f", "-", "--as-stored", "-o", "yaml")
	if !strings.Contains(stdout, "    host: hostless-ns.apps.example.com\n") || strings.Contains(stdout, "openshift.io/host.generated") {
		t.Errorf("the stored Route's status does not name ROUTER_SUBDOMAIN's host, or it was defaulted:\n%s", stdout)
	}
}

// TestRenderCheckMessage: when HAProxy refuses the configuration, --check
// prints HAProxy's own words, not "exit status 1".
func TestRenderCheckMessage(t *testing.T) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("haproxy is required in CI: %v", err)
		}
		t.Skipf("haproxy not installed: %v", err)
	}
	template := writeFile(t, "backend.tmpl", "{{define \"backend\"}}backend {{.Name}}\n  this-is-not-a-directive\n{{end}}\n")
	dir := t.TempDir()
	_, stderr, code := run(t, routeDoc("ns", "web", "www.example.com", ""), "render", "-f", "-", "--dir", dir, "--check", "--template", template)
	for _, want := range []string{
		"error: haproxy -c refuses the configuration in " + dir + ":\n[ALERT]",
		"unknown keyword 'this-is-not-a-directive' in 'backend' section",
	} {
		if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "exit status") || strings.Contains(stderr, "[NOTICE]") {
			t.Errorf("exit %d, stderr:\n%s\nwant it to hold %q, and neither \"exit status\" nor HAProxy's notices", code, stderr, want)
		}
	}
	stdout, stderr, code := run(t, routeDoc("ns", "web", "www.example.com", ""), "render", "-f", "-", "--dir", t.TempDir(), "--check")
	if code != 0 || stdout != "ns/web admitted\n" {
		t.Errorf("the built-in configuration: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// interruptAfter is a context that reports itself canceled after n
// checks, as it would be when SIGINT or SIGTERM arrives in the middle of
// the work.
type interruptAfter struct {
	context.Context
	n atomic.Int64
}

func (c *interruptAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestRenderInterrupted: SIGINT and SIGTERM (which cancel the command's
// context) stop render while it waits for its input and while it judges
// Routes; it prints no verdicts and exits non-zero.
func TestRenderInterrupted(t *testing.T) {
	input := manyRoutes(1000)
	tests := []struct {
		name  string
		stdin func(t *testing.T) io.Reader
		ctx   func(t *testing.T) context.Context
	}{
		{name: "waiting for standard input", stdin: func(t *testing.T) io.Reader {
			r, w := io.Pipe() // nobody writes
			t.Cleanup(func() { w.Close() })
			return r
		}, ctx: func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}},
		{name: "judging Routes", stdin: func(*testing.T) io.Reader { return strings.NewReader(input) },
			ctx: func(*testing.T) context.Context {
				c := &interruptAfter{Context: context.Background()}
				c.n.Store(500)
				return c
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			root := newRoot(tt.stdin(t), &stdout, &stderr)
			root.SetArgs([]string{"render", "-f", "-", "--dir", filepath.Join(t.TempDir(), "out")})
			done := make(chan error, 1)
			go func() { done <- root.ExecuteContext(tt.ctx(t)) }()
			select {
			case err := <-done:
				if !errors.Is(err, errInterrupted) || stdout.Len() > 0 {
					t.Errorf("error %v, stdout:\n%s\nwant %v and no verdicts", err, stdout.String(), errInterrupted)
				}
			case <-time.After(time.Minute):
				t.Fatal("render did not stop within a minute of being interrupted")
			}
		})
	}
}
