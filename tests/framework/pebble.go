package framework

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/routeshift/routeshift/certs"
)

// The ACME test server and its DNS server, built by `make tools` from
// github.com/letsencrypt/pebble/v2.
const (
	pebbleBinary    = "pebble"
	challtestsrvBin = "pebble-challtestsrv"
)

// Pebble is Let's Encrypt's ACME test server running on loopback: its ACME
// API over HTTPS with a serving certificate from a CA made for this run, and
// HTTP-01 validation that resolves every name to 127.0.0.1 through its own
// DNS server (pebble-challtestsrv) and connects to HTTPPort there.
type Pebble struct {
	// DirectoryURL is the ACME directory, https://127.0.0.1:<port>/dir: an
	// ACME Issuer's spec.acme.server.
	DirectoryURL string
	// CABundle is the PEM CA of pebble's HTTPS certificate: an ACME Issuer's
	// spec.acme.caBundle.
	CABundle []byte
	// HTTPPort is the port on 127.0.0.1 HTTP-01 validation requests go to,
	// http://<name>:<HTTPPort>/.well-known/acme-challenge/<token>.
	HTTPPort int
	// DNSServer is host:port of the DNS server pebble resolves names with; it
	// answers 127.0.0.1 to every A query and nothing to AAAA. Pass it to
	// cert-manager's --acme-http01-solver-nameservers so its self check
	// resolves names the same way.
	DNSServer string
	// ManagementURL is pebble's management API (issuing roots, status).
	ManagementURL string
	// Process and DNS are pebble and pebble-challtestsrv.
	Process, DNS *Process

	client *http.Client
}

// PebbleOptions configure StartPebble.
type PebbleOptions struct {
	// HTTPPort is where HTTP-01 validation connects on 127.0.0.1, e.g. a
	// router's HTTP port (default: a free port).
	HTTPPort int
	// Validity of the certificates pebble issues (default pebble's 90 days).
	Validity time.Duration
	// Env is added to pebble's environment. StartPebble already sets
	// PEBBLE_VA_NOSLEEP=1 (validate at once) and PEBBLE_WFE_NONCEREJECT=0
	// (no deliberately rejected nonces).
	Env []string
}

// StartPebble runs pebble and its DNS server on free loopback ports, waits
// until its ACME directory answers over HTTPS, and stops both when t ends.
// Without the binaries it fails t under CI=true and skips it otherwise.
func StartPebble(t testing.TB, opts PebbleOptions) *Pebble {
	t.Helper()
	root, err := findRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	binDir := binDirOf(root)
	RequireTools(t, binDir, pebbleBinary, challtestsrvBin)
	p := &Pebble{HTTPPort: opts.HTTPPort}
	if p.HTTPPort == 0 {
		if p.HTTPPort, err = FreePort(); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.startDNS(t, filepath.Join(binDir, challtestsrvBin)); err != nil {
		t.Fatal(err)
	}
	if err := p.start(t, filepath.Join(binDir, pebbleBinary), opts); err != nil {
		t.Fatal(err)
	}
	return p
}

// startDNS runs pebble-challtestsrv as a DNS server only, answering
// 127.0.0.1 for every name, and waits until it resolves one.
func (p *Pebble) startDNS(t testing.TB, bin string) error {
	dnsPort, err := FreePort()
	if err != nil {
		return err
	}
	mgmtPort, err := FreePort()
	if err != nil {
		return err
	}
	p.DNSServer = "127.0.0.1:" + strconv.Itoa(dnsPort)
	p.DNS, err = startProcess(challtestsrvBin, bin,
		"-dnsserver", p.DNSServer,
		"-management", "127.0.0.1:"+strconv.Itoa(mgmtPort),
		"-defaultIPv4", "127.0.0.1", "-defaultIPv6", "",
		"-http01", "", "-https01", "", "-tlsalpn01", "", "-doh", "")
	if err != nil {
		return err
	}
	stopAtCleanup(t, p.DNS, true)
	return waitResolves(p.DNSServer, "pebble-check.example.test", p.DNS)
}

// waitResolves waits up to a minute until server answers 127.0.0.1 for name.
func waitResolves(server, name string, proc *Process) error {
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, server)
	}}
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		addrs, err := resolver.LookupHost(ctx, name)
		cancel()
		if err == nil && len(addrs) == 1 && addrs[0] == "127.0.0.1" {
			return nil
		}
		if exited, exitErr := proc.Exited(); exited {
			return fmt.Errorf("%s exited (%v):\n%s", proc.name, exitErr, proc.Output())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("DNS server %s does not resolve %s to 127.0.0.1 (got %v, %v):\n%s", server, name, addrs, err, proc.Output())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// start writes pebble's configuration and serving certificate, runs it and
// waits until the directory answers.
func (p *Pebble) start(t testing.TB, bin string, opts PebbleOptions) error {
	dir := t.TempDir()
	ports := make([]int, 3) // ACME API, management API, TLS-ALPN-01 validation
	for i := range ports {
		var err error
		if ports[i], err = FreePort(); err != nil {
			return err
		}
	}
	config, err := p.writeConfig(dir, ports, opts)
	if err != nil {
		return err
	}
	p.DirectoryURL = fmt.Sprintf("https://127.0.0.1:%d/dir", ports[0])
	p.ManagementURL = fmt.Sprintf("https://127.0.0.1:%d", ports[1])
	env := append([]string{"PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0"}, opts.Env...)
	p.Process, err = startProcessEnv(pebbleBinary, bin, env, "-config", config, "-dnsserver", p.DNSServer)
	if err != nil {
		return err
	}
	stopAtCleanup(t, p.Process, true)
	return waitHTTPClient(context.Background(), p.client, p.DirectoryURL, time.Minute, p.Process)
}

// writeConfig makes a CA and a serving certificate for 127.0.0.1 and
// localhost, and writes them and pebble's JSON configuration into dir.
func (p *Pebble) writeConfig(dir string, ports []int, opts PebbleOptions) (string, error) {
	ca, err := certs.NewCA("routeshift test pebble CA")
	if err != nil {
		return "", err
	}
	serving, err := ca.Issue(certs.Options{CommonName: "localhost", DNSNames: []string{"localhost"}, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		return "", err
	}
	p.CABundle = ca.CertPEM
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	p.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	files := map[string][]byte{"cert.pem": serving.CertPEM, "key.pem": serving.KeyPEM}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return "", err
		}
	}
	profile := map[string]any{"description": "routeshift tests"}
	if opts.Validity > 0 {
		profile["validityPeriod"] = int64(opts.Validity / time.Second)
	}
	config, err := json.MarshalIndent(map[string]any{"pebble": map[string]any{
		"listenAddress":           fmt.Sprintf("127.0.0.1:%d", ports[0]),
		"managementListenAddress": fmt.Sprintf("127.0.0.1:%d", ports[1]),
		"certificate":             filepath.Join(dir, "cert.pem"),
		"privateKey":              filepath.Join(dir, "key.pem"),
		"httpPort":                p.HTTPPort,
		"tlsPort":                 ports[2],
		"keyAlgorithm":            "ecdsa",
		"profiles":                map[string]any{"default": profile},
	}}, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "pebble-config.json")
	return path, os.WriteFile(path, config, 0o600)
}

// Client is an HTTP client that trusts CABundle, for pebble's ACME and
// management APIs.
func (p *Pebble) Client() *http.Client { return p.client }

// IssuingRoot returns the PEM root certificate pebble signs certificates
// with (made anew each time pebble starts): what a client verifying an
// issued certificate trusts.
func (p *Pebble) IssuingRoot() ([]byte, error) {
	resp, err := p.client.Get(p.ManagementURL + "/roots/0")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s/roots/0: %s: %s", p.ManagementURL, resp.Status, body)
	}
	return body, nil
}

// stopAtCleanup stops proc when t ends, failing t unless it stops cleanly,
// and logs its output when t failed. A program without a handler for
// SIGTERM, like pebble, stops cleanly by dying of it when diesOfSIGTERM.
func stopAtCleanup(t testing.TB, proc *Process, diesOfSIGTERM bool) {
	t.Cleanup(func() {
		err := proc.Stop()
		var exit *exec.ExitError
		if diesOfSIGTERM && errors.As(err, &exit) {
			if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.Signal() == syscall.SIGTERM {
				err = nil
			}
		}
		if err != nil {
			t.Errorf("stopping %s: %v\n%s", proc.name, err, tail(proc.Output()))
		} else if t.Failed() {
			t.Logf("%s output:\n%s", proc.name, tail(proc.Output()))
		}
	})
}
