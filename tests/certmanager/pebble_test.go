package certmanager

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestPebbleDirectory: pebble serves its ACME directory over HTTPS with a
// certificate that verifies against the CA bundle StartPebble returns, and
// only against it; its management API hands out the root it issues from.
func TestPebbleDirectory(t *testing.T) {
	p := framework.StartPebble(t, framework.PebbleOptions{})
	resp, err := p.Client().Get(p.DirectoryURL)
	if err != nil {
		t.Fatalf("GET %s trusting pebble's CA: %v", p.DirectoryURL, err)
	}
	defer resp.Body.Close()
	var dir map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&dir); err != nil {
		t.Fatalf("ACME directory is not JSON: %v", err)
	}
	for _, key := range []string{"newAccount", "newNonce", "newOrder", "revokeCert"} {
		if _, ok := dir[key].(string); !ok {
			t.Errorf("ACME directory has no %q URL: %v", key, dir)
		}
	}
	var unknown x509.UnknownAuthorityError
	if _, err := http.Get(p.DirectoryURL); !errors.As(err, &unknown) {
		t.Errorf("GET %s with the system's roots: got %v, want an unknown-authority error", p.DirectoryURL, err)
	}
	root, err := p.IssuingRoot()
	if err != nil {
		t.Fatal(err)
	}
	if block, _ := pem.Decode(root); block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("issuing root is not a PEM certificate: %q", root)
	}
}

// TestACMESolverServesToken: cert-manager's HTTP-01 solver, run with the
// arguments cert-manager gives its solver Pod, answers the challenge path
// for its domain and token with the key, and 404 for anything else.
func TestACMESolverServesToken(t *testing.T) {
	cp := framework.Cluster(t)
	framework.RequireTools(t, cp.BinDir, framework.CertManagerACMESolver)
	port, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	const domain, token, key = "app.example.test", "tok-3f9a", "tok-3f9a.thumbprint"
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, filepath.Join(cp.BinDir, framework.CertManagerACMESolver),
		"--listen-port="+strconv.Itoa(port), "--domain="+domain, "--token="+token, "--key="+key)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := framework.WaitHTTP(ctx, base+"/healthz", time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, host, path string
		status           int
		body             string
	}{
		{"challenge", domain, "/.well-known/acme-challenge/" + token, http.StatusOK, key},
		{"challenge with port in Host", domain + ":80", "/.well-known/acme-challenge/" + token, http.StatusOK, key},
		{"other token", domain, "/.well-known/acme-challenge/other", http.StatusNotFound, ""},
		{"other host", "other.example.test", "/.well-known/acme-challenge/" + token, http.StatusNotFound, ""},
		{"other path", domain, "/" + token, http.StatusNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := getWithHost(t, base+tc.path, tc.host)
			if status != tc.status || (tc.body != "" && body != tc.body) {
				t.Errorf("GET %s Host %s = %d %q, want %d %q", tc.path, tc.host, status, body, tc.status, tc.body)
			}
		})
	}
}

func getWithHost(t *testing.T, url, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
