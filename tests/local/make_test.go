package local

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// repoRoot is the directory holding the repository's Makefile.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; dir != "/"; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "Makefile")); err == nil {
			return dir
		}
	}
	t.Fatalf("no Makefile in %s or above", wd)
	return ""
}

// TestMakeHAProxyVersion: `make haproxy` (which `make run` and `make
// tools` run) accepts the HAProxy first in PATH only from version 2.6, and
// says what to do otherwise. The installed HAProxy passes; the others are
// scripts printing what `haproxy -v` of those versions prints.
func TestMakeHAProxyVersion(t *testing.T) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		t.Fatal("HAProxy is not installed: run 'make haproxy'")
	}
	root := repoRoot(t)
	tests := []struct {
		name    string
		version string // first line of `haproxy -v`; "" runs the installed HAProxy
		wantOK  bool
		want    string
	}{
		{name: "installed", wantOK: true, want: "HAProxy version "},
		{name: "2.4 (Ubuntu 22.04)", version: "HA-Proxy version 2.4.22-0ubuntu0.22.04.3 2023/08/14 - https://haproxy.org/",
			want: "is HAProxy 2.4; routeshift needs 2.6 or newer: install a newer HAProxy ('sudo apt-get install -y haproxy' on Debian 12 or Ubuntu 24.04 and newer"},
		{name: "1.8", version: "HA-Proxy version 1.8.19-1+deb10u3 2020/08/01",
			want: "is HAProxy 1.8; routeshift needs 2.6 or newer"},
		{name: "2.6", version: "HAProxy version 2.6.12-1+deb12u1 2023/12/16 - https://haproxy.org/", wantOK: true, want: "HAProxy version 2.6.12"},
		{name: "2.10 is newer than 2.6", version: "HAProxy version 2.10.1 2024/06/01", wantOK: true, want: "HAProxy version 2.10.1"},
		{name: "3.0", version: "HAProxy version 3.0.5-1 2024/09/19 - https://haproxy.org/", wantOK: true, want: "HAProxy version 3.0.5"},
		{name: "not HAProxy", version: "Segmentation fault",
			want: "-v printed 'Segmentation fault', not a HAProxy version: reinstall HAProxy >= 2.6 ('sudo apt-get install -y haproxy')"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := os.Getenv("PATH")
			if tt.version != "" {
				dir := t.TempDir()
				script := "#!/bin/sh\necho '" + tt.version + "'\n"
				if err := os.WriteFile(filepath.Join(dir, "haproxy"), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
				path = dir + string(os.PathListSeparator) + path
			}
			cmd := exec.Command("make", "-s", "--no-print-directory", "-C", root, "haproxy")
			cmd.Env = append(os.Environ(), "PATH="+path)
			out, err := cmd.CombinedOutput()
			if (err == nil) != tt.wantOK || !strings.Contains(string(out), tt.want) {
				t.Errorf("make haproxy: err=%v\n%s\nwant success=%v and output containing %q", err, out, tt.wantOK, tt.want)
			}
		})
	}
}

// TestMakeBuildVersion: `make build` stamps the binary with the release in
// VERSION and the checkout's git commit; `routeshift version` (text, JSON)
// and `routeshift --version` report them with the Go version and the
// Kubernetes client library's version from go.mod.
func TestMakeBuildVersion(t *testing.T) {
	root := repoRoot(t)
	output := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	release, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	commit := output("git", "rev-parse", "HEAD")
	clientGo := output("go", "list", "-m", "-f", "{{.Version}}", "k8s.io/client-go")
	bin := t.TempDir()
	if out, err := exec.Command("make", "-s", "--no-print-directory", "-C", root, "build", "BIN="+bin).CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	routeshift := filepath.Join(bin, "routeshift")

	var info struct{ Version, Commit, GoVersion, KubernetesClient, Platform string }
	if err := json.Unmarshal([]byte(output(routeshift, "version", "-o", "json")), &info); err != nil {
		t.Fatal(err)
	}
	want := struct{ Version, Commit, GoVersion, KubernetesClient, Platform string }{
		strings.TrimSpace(string(release)), commit, runtime.Version(), clientGo, runtime.GOOS + "/" + runtime.GOARCH}
	if info != want {
		t.Errorf("routeshift version -o json: %+v\nwant %+v", info, want)
	}
	text := output(routeshift, "version")
	for _, line := range []string{"routeshift " + want.Version, "git commit:        " + commit,
		"Go version:        " + want.GoVersion, "Kubernetes client: " + clientGo + " (k8s.io/client-go)"} {
		if !strings.Contains(text, line) {
			t.Errorf("routeshift version prints\n%s\nwithout the line %q", text, line)
		}
	}
	if flag := output(routeshift, "--version"); flag != text {
		t.Errorf("routeshift --version prints\n%s\nnot what routeshift version prints:\n%s", flag, text)
	}
}
