package local

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/tests/framework"
)

// staleVersion is the VERSION of a data directory of another release.
const staleVersion = "routeshift-local/0 etcd/3.5 kubernetes/1.30"

// TestLocalErrors: what stops `routeshift local` at start says what to do,
// before anything is started (no API server; the data directory is left as
// it was, unless --clean was asked for).
func TestLocalErrors(t *testing.T) {
	bins := filepath.Dir(binDir(t))
	bin, err := framework.BuildRouteshift(t)
	if err != nil {
		t.Fatal(err)
	}
	// taken is a port something listens on, on 127.0.0.1.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	free, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	// ephemeral is a free port the kernel may give to client sockets.
	ephemeral, low, high := ephemeralPort(t)
	ports := func(http, https int) []string {
		return []string{"--http-port", strconv.Itoa(http), "--https-port", strconv.Itoa(https)}
	}
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	staleDir := func(t *testing.T, dir string) {
		write(t, filepath.Join(dir, "VERSION"), staleVersion+"\n")
		write(t, filepath.Join(dir, "etcd", "member", "snap", "db"), "old data")
	}
	tests := []struct {
		name string
		// setup prepares the data directory and returns extra arguments.
		setup func(t *testing.T, dataDir string) []string
		// wrap, when set, runs the command line inside another command.
		wrap []string
		// env replaces variables of the environment.
		env  []string
		want string
		// after checks the data directory afterwards.
		after func(t *testing.T, dataDir string)
	}{
		{name: "HTTP port in use",
			setup: func(*testing.T, string) []string { return ports(taken, free) },
			want:  fmt.Sprintf("error: port %d on 127.0.0.1 (--http-port) is in use: stop the program using it, or choose another port with --http-port", taken)},
		{name: "HTTPS port in use",
			setup: func(*testing.T, string) []string { return ports(free, taken) },
			want:  fmt.Sprintf("error: port %d on 127.0.0.1 (--https-port) is in use: stop the program using it, or choose another port with --https-port", taken)},
		{name: "HTTP port in the ephemeral range",
			setup: func(*testing.T, string) []string { return ports(ephemeral, free) },
			want: fmt.Sprintf("error: --http-port %d is in this machine's ephemeral port range %d-%d (/proc/sys/net/ipv4/ip_local_port_range), from which the API server's own connections take their local ports, so HAProxy could find it taken: choose a port below %d with --http-port, or keep it out of the range with 'sudo sysctl -w net.ipv4.ip_local_reserved_ports=%d'",
				ephemeral, low, high, low, ephemeral)},
		{name: "HTTPS port in the ephemeral range",
			setup: func(*testing.T, string) []string { return ports(free, ephemeral) },
			want:  fmt.Sprintf("error: --https-port %d is in this machine's ephemeral port range %d-%d", ephemeral, low, high)},
		{name: "the same port twice",
			setup: func(*testing.T, string) []string { return ports(free, free) },
			want:  fmt.Sprintf("error: --http-port and --https-port are both %d: choose two ports", free)},
		{name: "--haproxy names a missing file",
			setup: func(*testing.T, string) []string {
				return append(ports(free, taken), "--haproxy", "/nonexistent/sbin/haproxy")
			},
			want: "error: --haproxy /nonexistent/sbin/haproxy: stat /nonexistent/sbin/haproxy: no such file or directory: pass the path of HAProxy 2.6 or newer, or install it with 'sudo apt-get install -y haproxy'"},
		{name: "no HAProxy in PATH",
			setup: func(*testing.T, string) []string { return ports(free, taken) },
			env:   []string{"PATH=/nonexistent"},
			want:  "error: HAProxy is not installed (no haproxy in PATH): install HAProxy 2.6 or newer with 'sudo apt-get install -y haproxy' (Debian 12, Ubuntu 24.04 or newer), or pass its path with --haproxy"},
		{name: "binaries not built",
			setup: func(*testing.T, string) []string { return append(ports(free, taken), "--bin-dir", "/nonexistent/bin") },
			want:  "error: etcd, kube-apiserver, kube-controller-manager and kubectl not found in /nonexistent/bin: run 'make tools' in the routeshift repository (it builds them into bin/), or pass --bin-dir"},
		{name: "data of another version",
			setup: func(t *testing.T, dir string) []string { staleDir(t, dir); return ports(free, taken) },
			want:  "holds data of \"" + staleVersion + "\", not \"routeshift-local/",
			after: func(t *testing.T, dir string) {
				if _, err := os.Stat(filepath.Join(dir, "etcd", "member", "snap", "db")); err != nil {
					t.Errorf("the data was touched: %v", err)
				}
			}},
		{name: "data without a VERSION",
			setup: func(t *testing.T, dir string) []string {
				write(t, filepath.Join(dir, "etcd", "member", "snap", "db"), "old data")
				return ports(free, taken)
			},
			want: "holds cluster data without a VERSION file (from another program, or damaged): run 'routeshift local --clean' to delete it and start afresh, or use another --data-dir"},
		{name: "another routeshift local uses the data",
			setup: func(t *testing.T, dir string) []string {
				write(t, filepath.Join(dir, "routeshift.pid"), strconv.Itoa(os.Getpid()))
				return append(ports(free, free), "--clean")
			},
			want: fmt.Sprintf("error: another routeshift local (pid %d) is using ", os.Getpid()),
			after: func(t *testing.T, dir string) {
				if _, err := os.Stat(filepath.Join(dir, "routeshift.pid")); err != nil {
					t.Errorf("--clean deleted the data of a running routeshift local: %v", err)
				}
			}},
		{name: "--clean resets a stale data directory",
			setup: func(t *testing.T, dir string) []string {
				staleDir(t, dir)
				return append(ports(taken, free), "--clean")
			},
			want: fmt.Sprintf("port %d on 127.0.0.1 (--http-port) is in use", taken),
			after: func(t *testing.T, dir string) {
				if _, err := os.Stat(filepath.Join(dir, "etcd")); !os.IsNotExist(err) {
					t.Errorf("the old cluster data is still there (%v)", err)
				}
				version, err := os.ReadFile(filepath.Join(dir, "VERSION"))
				if err != nil || !strings.HasPrefix(string(version), "routeshift-local/") || strings.Contains(string(version), staleVersion) {
					t.Errorf("VERSION after --clean: %q (%v), want the current version", version, err)
				}
			}},
		// A network namespace of its own has only a loopback interface.
		{name: "no address for the demo backend",
			setup: func(*testing.T, string) []string { return ports(free, taken) },
			wrap:  []string{"unshare", "--map-root-user", "--net"},
			want:  "error: the demo backend: this machine has no non-loopback IPv4 address for backends on it (Kubernetes refuses loopback endpoints): bring up a network interface"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dataDir := filepath.Join(t.TempDir(), "data")
			args := append([]string{bin, "local", "--data-dir", dataDir}, tt.setup(t, dataDir)...)
			if tt.wrap != nil {
				if out, err := exec.Command(tt.wrap[0], append(tt.wrap[1:], "true")...).CombinedOutput(); err != nil {
					if os.Getenv("CI") == "true" {
						t.Fatalf("%s: %v\n%s", strings.Join(tt.wrap, " "), err, out)
					}
					t.Skipf("%s: %v\n%s", strings.Join(tt.wrap, " "), err, out)
				}
				args = append(tt.wrap, args...)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, args[0], args[1:]...)
			cmd.Env = append(os.Environ(), "ROUTESHIFT_BIN="+bins)
			cmd.Env = append(cmd.Env, tt.env...)
			out, err := cmd.CombinedOutput()
			if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1", err)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Errorf("output:\n%s\nwant it to contain %q", out, tt.want)
			}
			if strings.Contains(string(out), "==> starting") {
				t.Errorf("routeshift local started something before failing:\n%s", out)
			}
			if tt.after != nil {
				tt.after(t, dataDir)
			}
		})
	}
}

// ephemeralPort returns a port nothing listens on inside the kernel's
// ephemeral port range and not reserved out of it, with the range.
func ephemeralPort(t *testing.T) (port, low, high int) {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscan(string(b), &low, &high); err != nil {
		t.Fatal(err)
	}
	reserved, _ := os.ReadFile("/proc/sys/net/ipv4/ip_local_reserved_ports")
	for p := low + (high-low)/2; p <= high; p++ {
		if strings.Contains(","+strings.TrimSpace(string(reserved))+",", ","+strconv.Itoa(p)+",") {
			continue
		}
		if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p))); err == nil {
			l.Close()
			return p, low, high
		}
	}
	t.Fatalf("no free port in the ephemeral range %d-%d", low, high)
	return 0, 0, 0
}
