package haproxy

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/router"
)

// TestRenderGlobalSettings: each router setting shows as its directive in
// haproxy.cfg.
func TestRenderGlobalSettings(t *testing.T) {
	cases := []struct {
		name     string
		cfg      func(*proxyconfig.Config)
		unsynced bool
		want     []string
		unwanted []string
	}{
		{name: "max connections", cfg: func(c *proxyconfig.Config) { c.MaxConnections = 1234 },
			want: []string{"maxconn 1234"}},
		{name: "threads", cfg: func(c *proxyconfig.Config) { c.Threads = 4 }, want: []string{"nbthread 4"}},
		{name: "header-name cases", cfg: func(c *proxyconfig.Config) { c.H1CaseAdjust = []string{"X-Request-ID", "Host"} },
			want: []string{"h1-case-adjust x-request-id X-Request-ID", "h1-case-adjust host Host", "option h1-case-adjust-bogus-client"}},
		{name: "no header-name cases", unwanted: []string{"option h1-case-adjust-bogus-client"}},
		{name: "no threads setting", unwanted: []string{"nbthread 0"}},
		{name: "modern ciphers", cfg: func(c *proxyconfig.Config) { c.Ciphers = "modern" },
			want: []string{"ssl-default-bind-ciphers " + proxyconfig.CipherList("modern"), "ssl-default-bind-options ssl-min-ver TLSv1.2"}},
		{name: "old ciphers", cfg: func(c *proxyconfig.Config) { c.Ciphers = "old" },
			want: []string{"ssl-default-bind-ciphers " + proxyconfig.CipherList("old")}},
		{name: "cipher list", cfg: func(c *proxyconfig.Config) { c.Ciphers = "ECDHE-RSA-AES128-GCM-SHA256:!aNULL" },
			want: []string{"ssl-default-bind-ciphers ECDHE-RSA-AES128-GCM-SHA256:!aNULL",
				"ssl-default-bind-ciphersuites TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"}},
		{name: "timeouts", cfg: func(c *proxyconfig.Config) {
			c.ConnectTimeout, c.ClientTimeout, c.ClientFinTimeout = time.Second, 2*time.Second, 3*time.Second
			c.ServerTimeout, c.ServerFinTimeout, c.TunnelTimeout = 4*time.Second, 5*time.Second, 6*time.Hour
			c.SlowlorisTimeout, c.SlowlorisHTTPKeepalive, c.InspectDelay = 7*time.Second, 8*time.Second, 9*time.Second
		}, want: []string{"timeout connect 1000ms", "timeout client 2000ms", "timeout client-fin 3000ms", "timeout server 4000ms",
			"timeout server-fin 5000ms", "timeout tunnel 21600000ms", "timeout http-request 7000ms", "timeout http-keep-alive 8000ms",
			"tcp-request inspect-delay 9000ms"}},
		{name: "compression", cfg: func(c *proxyconfig.Config) {
			c.EnableCompression, c.CompressionMIME = true, "text/html  application/json"
		},
			want: []string{"compression algo gzip", "compression type 'text/html' 'application/json'"}},
		{name: "no compression", unwanted: []string{"compression algo gzip"}},
		{name: "syslog", cfg: func(c *proxyconfig.Config) { c.SyslogAddress, c.LogLevel = "127.0.0.1:514", "info" },
			want: []string{"log '127.0.0.1:514' len 1024 local1 info", "log global", "option httplog", "option tcplog"}},
		{name: "syslog format", cfg: func(c *proxyconfig.Config) {
			c.SyslogAddress, c.SyslogFormat = "/dev/log", `%ci:%cp [%tr] %ft %b/%s %ST %{+Q}r it's`
		}, want: []string{"log '/dev/log' len 1024 local1 warning", `log-format '%ci:%cp [%tr] %ft %b/%s %ST %{+Q}r it'\''s'`}, unwanted: []string{"option httplog"}},
		{name: "no syslog", unwanted: []string{"log global", "option httplog"}},
		{name: "log facility and length", cfg: func(c *proxyconfig.Config) {
			c.SyslogAddress, c.LogFacility, c.LogMaxLength = "/dev/log", "local4", 8192
		},
			want: []string{"log '/dev/log' len 8192 local4 warning"}},
		{name: "TLS versions", cfg: func(c *proxyconfig.Config) { c.SSLMinVersion, c.SSLMaxVersion = "TLSv1.3", "TLSv1.3" },
			want: []string{"ssl-default-bind-options ssl-min-ver TLSv1.3 ssl-max-ver TLSv1.3"}},
		{name: "TLS 1.3 suites and curves", cfg: func(c *proxyconfig.Config) { c.CipherSuites, c.Curves = "TLS_AES_256_GCM_SHA384", "X25519:P-256" },
			want: []string{"ssl-default-bind-ciphersuites TLS_AES_256_GCM_SHA384", "ssl-default-bind-curves X25519:P-256"}},
		{name: "no curves", unwanted: []string{"ssl-default-bind-curves"}},
		{name: "buffers", cfg: func(c *proxyconfig.Config) { c.BufSize, c.MaxRewriteSize = 65536, 16384 },
			want: []string{"tune.bufsize 65536", "tune.maxrewrite 16384"}},
		{name: "default buffers", want: []string{"tune.bufsize 32768", "tune.maxrewrite 8192"}},
		{name: "hard stop after", cfg: func(c *proxyconfig.Config) { c.HardStopAfter = 90 * time.Minute },
			want: []string{"hard-stop-after 5400000ms"}},
		{name: "no hard stop", unwanted: []string{"hard-stop-after"}},
		{name: "options", cfg: func(c *proxyconfig.Config) {
			c.DontLogNull, c.HTTPIgnoreProbes, c.ContStats, c.AbortOnClose = true, true, true, true
		},
			want: []string{"option dontlognull", "option http-ignore-probes", "option contstats", "option abortonclose"}},
		{name: "no options", unwanted: []string{"option dontlognull", "option http-ignore-probes", "option contstats", "option abortonclose"}},
		{name: "IPv6 only", cfg: func(c *proxyconfig.Config) { c.IPMode, c.StatsPort = "v6", 11936 },
			want: []string{"bind :::18080 v6only", "bind :::18443 v6only", "bind :::11936 v6only", "bind 127.0.0.1:20444 ssl crt WORKDIR/certs/default.pem crt-list WORKDIR/conf/crt-list accept-proxy"}},
		{name: "IPv4 and IPv6", cfg: func(c *proxyconfig.Config) { c.IPMode = "v4v6" },
			want: []string{"bind :::18080 v4v6", "bind :::18443 v4v6"}},
		{name: "bind address wins over the IP mode", cfg: func(c *proxyconfig.Config) { c.IPMode, c.BindAddress = "v6", "127.0.0.1" },
			want: []string{"bind 127.0.0.1:18080"}},
		{name: "stats with authentication", cfg: func(c *proxyconfig.Config) {
			c.StatsPort, c.StatsUsername, c.StatsPassword = 11936, "admin", "p@ss w'rd"
		},
			want: []string{"listen stats from common", "bind :11936", "stats enable", `stats auth 'admin:p@ss w'\''rd'`, "monitor-uri /healthz"}},
		{name: "stats without authentication", cfg: func(c *proxyconfig.Config) { c.StatsPort, c.StatsUsername = 11936, "admin" },
			want: []string{"listen stats from common"}, unwanted: []string{"stats auth 'admin:'"}},
		{name: "no stats", unwanted: []string{"listen stats from common"}},
		{name: "PROXY protocol", cfg: func(c *proxyconfig.Config) { c.UseProxyProtocol = true },
			want: []string{"bind :18080 accept-proxy", "bind :18443 accept-proxy"}},
		{name: "bind address", cfg: func(c *proxyconfig.Config) { c.BindAddress = "::" },
			want: []string{"bind [::]:18080", "bind [::]:18443"}},
		{name: "strict SNI", cfg: func(c *proxyconfig.Config) { c.StrictSNI = true },
			want: []string{"bind 127.0.0.1:20444 ssl crt WORKDIR/certs/default.pem crt-list WORKDIR/conf/crt-list strict-sni accept-proxy"}},
		// The router holds incomplete snapshots back when the ports must
		// wait for the first sync (ROUTER_BIND_PORTS_AFTER_SYNC); every
		// snapshot that reaches the renderer opens them.
		{name: "unsynced snapshot: ports bound", unsynced: true,
			want: []string{"frontend fe_sni from common", "frontend public from common", "frontend public_ssl from common"}},
		{name: "balance defaults", cfg: func(c *proxyconfig.Config) { c.LoadBalanceAlgorithm, c.TCPBalanceScheme = "random", "roundrobin" },
			want: []string{"balance random", "balance roundrobin"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRenderer(t, func(cfg *proxyconfig.Config) {
				if c.cfg != nil {
					c.cfg(cfg)
				}
			})
			snap := snapshotOf([]*router.Route{served("ns", "r", "www.example.com")}, eps("ns", "r", "10.0.0.1"))
			snap.Synced = !c.unsynced
			out := mustRender(t, r, snap)
			assertLines(t, "haproxy.cfg", string(out.Files[configFile].Data), r.cfg.WorkingDir, c.want, c.unwanted)
			haproxyCheck(t, r, out)
		})
	}
}

func TestNewRendererRefuses(t *testing.T) {
	cases := []struct {
		name string
		cfg  func(*proxyconfig.Config)
		want string
	}{
		{"no working dir", func(c *proxyconfig.Config) { c.WorkingDir = "" }, "ROUTER_WORKING_DIR: must be set"},
		{"working dir with a space", func(c *proxyconfig.Config) { c.WorkingDir = "/var/lib/my router" }, "ROUTER_WORKING_DIR"},
		{"same port twice", func(c *proxyconfig.Config) { c.SNIPort = c.HTTPPort }, "ROUTER_SERVICE_SNI_PORT: port 18080 is also ROUTER_SERVICE_HTTP_PORT"},
		{"syslog address with a quote", func(c *proxyconfig.Config) { c.SyslogAddress = "x' y" }, "ROUTER_SYSLOG_ADDRESS"},
		{"log format with a line break", func(c *proxyconfig.Config) { c.SyslogFormat = "a\nb" }, "ROUTER_SYSLOG_FORMAT"},
		{"relative default certificate path", func(c *proxyconfig.Config) { c.DefaultCertificatePath = "tls.pem" }, "DEFAULT_CERTIFICATE_PATH"},
		{"missing default certificate file", func(c *proxyconfig.Config) { c.DefaultCertificatePath = "/nonexistent/tls.pem" }, "DEFAULT_CERTIFICATE_PATH"},
		{"default certificate without key", func(c *proxyconfig.Config) {
			c.DefaultCertificate = "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"
		}, "DEFAULT_CERTIFICATE"},
		{"default certificate dir without files", func(c *proxyconfig.Config) { c.DefaultCertificateDir = "/nonexistent" }, "DEFAULT_CERTIFICATE_DIR"},
		{"max TLS version below the min", func(c *proxyconfig.Config) { c.SSLMinVersion, c.SSLMaxVersion = "TLSv1.3", "TLSv1.2" },
			"SSL_MAX_VERSION: TLSv1.2 is older than SSL_MIN_VERSION (TLSv1.3)"},
		{"cipher suites with a space", func(c *proxyconfig.Config) { c.CipherSuites = "TLS_AES_256_GCM_SHA384 x" }, "ROUTER_CIPHERSUITES"},
		{"curves with a quote", func(c *proxyconfig.Config) { c.Curves = "X25519'" }, "ROUTER_CURVES"},
		{"HTTP/2 with small buffers", func(c *proxyconfig.Config) { c.DisableHTTP2, c.BufSize, c.MaxRewriteSize = false, 8192, 1024 },
			"ROUTER_BUF_SIZE: 8192 is too small for HTTP/2"},
		{"rewrite space over half the buffer", func(c *proxyconfig.Config) { c.BufSize, c.MaxRewriteSize = 16384, 9000 },
			"ROUTER_MAX_REWRITE_SIZE: 9000 is more than half of ROUTER_BUF_SIZE (16384)"},
		{"relative errorfile", func(c *proxyconfig.Config) { c.ErrorFile503 = "503.http" }, "ROUTER_ERRORFILE_503: \"503.http\" must be an absolute path"},
		{"missing errorfile", func(c *proxyconfig.Config) { c.ErrorFile404 = "/nonexistent/404.http" }, "ROUTER_ERRORFILE_404: reading it"},
		{"errorfile without a status line", func(c *proxyconfig.Config) { c.ErrorFile503 = writeTempFile(t, "503.http", "<h1>down</h1>") },
			"must hold a whole HTTP response"},
		{"errorfile larger than a buffer", func(c *proxyconfig.Config) {
			c.ErrorFile503 = writeTempFile(t, "503.http", "HTTP/1.0 503 Service Unavailable\r\n\r\n"+strings.Repeat("x", 30000))
		}, "HAProxy loads at most 24576"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := testDataPlane(t.TempDir())
			c.cfg(&cfg)
			_, err := NewRenderer(cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one with %q", err, c.want)
			}
		})
	}
}

// TestRenderErrorFiles: the errorfiles are in the defaults every proxy
// inherits, and the default backend answers with the one for its status.
func TestRenderErrorFiles(t *testing.T) {
	page503 := writeTempFile(t, "503.http", "HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/html\r\n\r\n<h1>down</h1>\n")
	page404 := writeTempFile(t, "404.http", "HTTP/1.0 404 Not Found\r\nContent-Type: text/html\r\n\r\n<h1>no such site</h1>\n")
	cases := []struct {
		name             string
		file503, file404 string
		want, unwanted   []string
	}{
		{"none: the router's own page", "", "", []string{"errorfile 503 'WORKDIR/conf/error-page-503.http'", "http-request deny deny_status 503"},
			[]string{"errorfile 404"}},
		{"503", page503, "", []string{"errorfile 503 '" + page503 + "'", "http-request deny deny_status 503"},
			[]string{"errorfile 404", "errorfile 503 'WORKDIR/conf/error-page-503.http'"}},
		{"404", "", page404, []string{"errorfile 503 'WORKDIR/conf/error-page-503.http'", "errorfile 404 '" + page404 + "'", "http-request deny deny_status 404"},
			nil},
		{"both", page503, page404, []string{"errorfile 503 '" + page503 + "'", "errorfile 404 '" + page404 + "'", "http-request deny deny_status 404"},
			[]string{"http-request deny deny_status 503"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRenderer(t, func(cfg *proxyconfig.Config) { cfg.ErrorFile503, cfg.ErrorFile404 = c.file503, c.file404 })
			out := mustRender(t, r, snapshotOf([]*router.Route{served("ns", "r", "www.example.com")}, eps("ns", "r", "10.0.0.1")))
			assertLines(t, "haproxy.cfg", string(out.Files[configFile].Data), r.cfg.WorkingDir, c.want, c.unwanted)
			if own, ok := out.Files[errorPage503File]; ok != (c.file503 == "") || ok && own.Mode != 0o644 {
				t.Errorf("%s written %v (mode %v), want it exactly when ROUTER_ERRORFILE_503 is unset", errorPage503File, ok, own.Mode)
			}
			haproxyCheck(t, r, out)
		})
	}
}

func TestRenderDefaultCertificate(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	keyAndCert := string(p.Leaf.KeyPEM) + string(p.Leaf.CertPEM)
	t.Run("DEFAULT_CERTIFICATE", func(t *testing.T) {
		r := newTestRenderer(t, func(c *proxyconfig.Config) {
			c.DefaultCertificate = "junk\n" + string(p.Leaf.CertPEM) + string(p.Leaf.KeyPEM)
		})
		out := mustRender(t, r, snapshotOf(nil))
		if f := out.Files[defaultCrtFile]; string(f.Data) != keyAndCert || f.Mode != 0o600 {
			t.Errorf("certs/default.pem (%o):\n%s", f.Mode, f.Data)
		}
		haproxyCheck(t, r, out)
	})
	t.Run("DEFAULT_CERTIFICATE_PATH", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "tls.pem")
		if err := os.WriteFile(file, []byte(keyAndCert), 0o600); err != nil {
			t.Fatal(err)
		}
		r := newTestRenderer(t, func(c *proxyconfig.Config) { c.DefaultCertificatePath = file })
		out := mustRender(t, r, snapshotOf(nil))
		if _, ok := out.Files[defaultCrtFile]; ok {
			t.Error("certs/default.pem written although the certificate is a file of its own")
		}
		assertLines(t, "haproxy.cfg", string(out.Files[configFile].Data), r.cfg.WorkingDir,
			[]string{"bind 127.0.0.1:20443 ssl crt " + file + " accept-proxy"}, nil)
		haproxyCheck(t, r, out)
	})
	t.Run("DEFAULT_CERTIFICATE_DIR, renewed", func(t *testing.T) {
		dir := t.TempDir()
		write := func(name string, data []byte) {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		write("tls.crt", p.Leaf.CertPEM)
		write("tls.key", p.Leaf.KeyPEM)
		r := newTestRenderer(t, func(c *proxyconfig.Config) { c.DefaultCertificateDir = dir })
		snap := snapshotOf(nil)
		out := mustRender(t, r, snap)
		if f := out.Files[defaultCrtFile]; string(f.Data) != keyAndCert || f.Mode != 0o600 {
			t.Errorf("certs/default.pem (%o):\n%s", f.Mode, f.Data)
		}
		// A renewed certificate (with its key in tls.crt this time).
		renewed, err := p.CA.Issue(certs.Options{CommonName: "renewed.example.com"})
		if err != nil {
			t.Fatal(err)
		}
		write("tls.crt", append(renewed.CertPEM, renewed.KeyPEM...))
		snap.Version++
		out = mustRender(t, r, snap)
		if out.Reload() || len(out.Changed) != 1 || out.Changed[0] != defaultCrtFile ||
			!slices.Equal(describeCertificateUpdates(r.cfg.WorkingDir, out), []string{"set certs/default.pem"}) {
			t.Errorf("after renewal: reload %v, changed %v, certificate updates %v; want certs/default.pem loaded through the runtime API",
				out.Reload(), out.Changed, out.Certificates)
		}
		if f := out.Files[defaultCrtFile]; string(f.Data) != string(renewed.KeyPEM)+string(renewed.CertPEM) {
			t.Errorf("renewed certs/default.pem:\n%s", f.Data)
		}
		haproxyCheck(t, r, out)
	})
	t.Run("generated once", func(t *testing.T) {
		r := newTestRenderer(t)
		snap := snapshotOf(nil)
		first := mustRender(t, r, snap).Files[defaultCrtFile]
		if first.Mode != 0o600 || len(pemBlocks(string(first.Data), privateKeyBlocks...)) != 1 || len(pemBlocks(string(first.Data), "CERTIFICATE")) != 1 {
			t.Errorf("generated certs/default.pem (%o):\n%s", first.Mode, first.Data)
		}
		snap.Version++
		if out := mustRender(t, r, snap); !bytes.Equal(out.Files[defaultCrtFile].Data, first.Data) || len(out.Changed) != 0 {
			t.Errorf("the generated certificate changed: %v", out.Changed)
		}
	})
}

// TestRenderDefaultCertificatePrecedence: DEFAULT_CERTIFICATE wins over
// DEFAULT_CERTIFICATE_PATH, which wins over DEFAULT_CERTIFICATE_DIR. Each
// source holds a certificate of its own common name; the one HAProxy is
// given (certs/default.pem, or the file named on the bind lines) tells
// which source won.
func TestRenderDefaultCertificatePrecedence(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	issue := func(cn string) *certs.KeyPair {
		kp, err := p.CA.Issue(certs.Options{CommonName: cn})
		if err != nil {
			t.Fatal(err)
		}
		return kp
	}
	content, fromPath, fromDir := issue("content.example.com"), issue("path.example.com"), issue("dir.example.com")
	files := renderWorkDir(t)
	pathFile := filepath.Join(files, "tls.pem")
	dir := filepath.Join(files, "dir")
	for name, data := range map[string][]byte{
		pathFile:                      append(slices.Clone(fromPath.KeyPEM), fromPath.CertPEM...),
		filepath.Join(dir, "tls.crt"): fromDir.CertPEM,
		filepath.Join(dir, "tls.key"): fromDir.KeyPEM,
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// commonName is the subject CN of the first certificate of a PEM file.
	commonName := func(data []byte) string {
		blocks := pemBlocks(string(data), "CERTIFICATE")
		if len(blocks) == 0 {
			return ""
		}
		b, _ := pem.Decode(blocks[0])
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return c.Subject.CommonName
	}
	cases := []struct {
		name                   string
		content, path, certDir bool
		wantCN                 string // of certs/default.pem; "" when not written
		wantFile               string // the file the bind lines name
	}{
		{"all three: DEFAULT_CERTIFICATE", true, true, true, "content.example.com", "WORKDIR/" + defaultCrtFile},
		{"content and path: DEFAULT_CERTIFICATE", true, true, false, "content.example.com", "WORKDIR/" + defaultCrtFile},
		{"content and dir: DEFAULT_CERTIFICATE", true, false, true, "content.example.com", "WORKDIR/" + defaultCrtFile},
		{"path and dir: DEFAULT_CERTIFICATE_PATH", false, true, true, "", pathFile},
		{"dir alone: DEFAULT_CERTIFICATE_DIR", false, false, true, "dir.example.com", "WORKDIR/" + defaultCrtFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newTestRenderer(t, func(cfg *proxyconfig.Config) {
				if c.content {
					cfg.DefaultCertificate = string(content.CertPEM) + string(content.KeyPEM)
				}
				if c.path {
					cfg.DefaultCertificatePath = pathFile
				}
				if c.certDir {
					cfg.DefaultCertificateDir = dir
				}
			})
			out := mustRender(t, r, snapshotOf(nil))
			f, written := out.Files[defaultCrtFile]
			if got := commonName(f.Data); written != (c.wantCN != "") || got != c.wantCN {
				t.Errorf("certs/default.pem written %v with CN %q, want %q", written, got, c.wantCN)
			}
			assertLines(t, "haproxy.cfg", string(out.Files[configFile].Data), r.cfg.WorkingDir,
				[]string{"bind 127.0.0.1:20443 ssl crt " + c.wantFile + " accept-proxy",
					"bind 127.0.0.1:20444 ssl crt " + c.wantFile + " crt-list WORKDIR/conf/crt-list accept-proxy"}, nil)
			haproxyCheck(t, r, out)
		})
	}
}

// TestRenderClientAuth: ROUTER_MUTUAL_TLS_AUTH asks TLS clients of the
// terminating frontends for certificates, verified against the router's
// copies of the CA bundle and the CRL file; the subject filter and the
// X-SSL-Client-* headers are in their routing, not in the plain HTTP
// frontend's.
func TestRenderClientAuth(t *testing.T) {
	ca := newCA(t, "clients")
	crl, err := ca.RevocationList(1, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	caFile, crlFile := writeTempFile(t, "ca.pem", string(ca.CertPEM)), writeTempFile(t, "ca.crl", string(crl))
	r := newTestRenderer(t, func(c *proxyconfig.Config) {
		c.MutualTLSAuth, c.MutualTLSAuthCA, c.MutualTLSAuthCRL, c.MutualTLSAuthFilter = "required", caFile, crlFile, "O=Acme"
	})
	out := mustRender(t, r, snapshotOf(nil))
	cfg := string(out.Files[configFile].Data)
	assertLines(t, "haproxy.cfg", cfg, r.cfg.WorkingDir, []string{
		"bind 127.0.0.1:20444 ssl crt WORKDIR/certs/default.pem crt-list WORKDIR/conf/crt-list verify required ca-file WORKDIR/conf/client-ca.pem crl-file WORKDIR/conf/client-crls.pem accept-proxy",
		"bind 127.0.0.1:20443 ssl crt WORKDIR/certs/default.pem verify required ca-file WORKDIR/conf/client-ca.pem crl-file WORKDIR/conf/client-crls.pem accept-proxy",
		"http-request deny unless { ssl_c_s_dn -m reg 'O=Acme' }",
		"http-request set-header X-SSL-Client-DN %{+Q}[ssl_c_s_dn]",
	}, nil)
	if n := strings.Count(cfg, "X-SSL-Client-DN"); n != 2 {
		t.Errorf("X-SSL-Client-DN set in %d frontends, want the 2 terminating ones", n)
	}
	if got := out.Files[clientCAFile].Data; !bytes.Equal(got, ca.CertPEM) {
		t.Errorf("%s = %q, want the CA bundle", clientCAFile, got)
	}
	if got := out.Files[clientCRLFile].Data; !bytes.Equal(got, crl) {
		t.Errorf("%s = %q, want the CRL file", clientCRLFile, got)
	}
	haproxyCheck(t, r, out)
}
