package proxyconfig

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/routecore"
)

// valid is a Config every rule accepts.
func valid(t *testing.T) Config {
	return Config{
		WorkingDir: t.TempDir(), IPMode: "v4", HTTPPort: 80, HTTPSPort: 443, SNIPort: 10444, NoSNIPort: 10443,
		MaxConnections: 20000, Ciphers: "intermediate", DisableHTTP2: true, SSLMinVersion: "TLSv1.2",
		BufSize: 32768, MaxRewriteSize: 8192, ClientTimeout: 30 * time.Second, ClientFinTimeout: time.Second,
		ConnectTimeout: 5 * time.Second, ServerTimeout: 30 * time.Second, ServerFinTimeout: time.Second, TunnelTimeout: time.Hour,
		SlowlorisHTTPKeepalive: 300 * time.Second, SlowlorisTimeout: 10 * time.Second, InspectDelay: 5 * time.Second,
		BackendCheckInterval: 5 * time.Second, LoadBalanceAlgorithm: "leastconn", TCPBalanceScheme: "source",
		ForwardedHeaders: "append", CompressionMIME: "text/html", LogFacility: "local1", LogMaxLength: 1024, LogLevel: "warning",
		MutualTLSAuth: "none", ReloadInterval: 5 * time.Second, StandbyBackends: 10,
	}
}

func TestValidateAcceptsValid(t *testing.T) {
	c := valid(t)
	if err := c.Validate(); err != nil {
		t.Fatalf("a valid Config is refused: %v", err)
	}
	c.HTTPSRedirectPort, c.StatsPort, c.HardStopAfter, c.Threads = 0, 0, 0, 0
	c.SSLMaxVersion, c.CookieName, c.BindAddress = "TLSv1.3", "SERVERID", "::1"
	c.H1CaseAdjust = []string{"Host", "X-Request-ID"}
	c.MutualTLSAuth, c.MutualTLSAuthCA, c.MutualTLSAuthFilter = "optional", "/etc/ca.pem", "^/O=Acme/CN=[a-z]+$"
	if err := c.Validate(); err != nil {
		t.Errorf("optional settings at their edges are refused: %v", err)
	}
}

// TestSettingRules: each setting's own rule, as Validate words it: the
// setting's name, then what is wrong.
func TestSettingRules(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"port 0", func(c *Config) { c.HTTPPort = 0 }, "ROUTER_SERVICE_HTTP_PORT: must be a port number from 1 to 65535"},
		{"port above 65535", func(c *Config) { c.NoSNIPort = 65536 }, "ROUTER_SERVICE_NO_SNI_PORT: must be a port number from 1 to 65535"},
		{"redirect port negative", func(c *Config) { c.HTTPSRedirectPort = -1 }, "ROUTER_HTTPS_REDIRECT_PORT: must be a port number, or 0"},
		{"stats port above 65535", func(c *Config) { c.StatsPort = 70000 }, "STATS_PORT: must be a port number, or 0"},
		{"IP mode", func(c *Config) { c.IPMode = "v5" }, "ROUTER_IP_V4_V6_MODE: use one of v4, v6, v4v6"},
		{"bind address", func(c *Config) { c.BindAddress = "localhost" }, `ROUTER_BIND_ADDRESS: "localhost" is not an IP address`},
		{"ciphers", func(c *Config) { c.Ciphers = "AES128 SHA" }, "ROUTER_CIPHERS: use modern, intermediate, old, or a ':'-separated OpenSSL cipher list"},
		{"no ciphers", func(c *Config) { c.Ciphers = "" }, "ROUTER_CIPHERS: use modern"},
		{"cipher suites", func(c *Config) { c.CipherSuites = "TLS_AES_256_GCM_SHA384 x" }, `ROUTER_CIPHERSUITES: "TLS_AES_256_GCM_SHA384 x" must be a ':'-separated list`},
		{"curves", func(c *Config) { c.Curves = "X25519'" }, `ROUTER_CURVES: "X25519'" must be a ':'-separated list of names of letters, digits, '_' and '-'`},
		{"min TLS version", func(c *Config) { c.SSLMinVersion = "TLSv1.4" }, "SSL_MIN_VERSION: use one of TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3"},
		{"max TLS version", func(c *Config) { c.SSLMaxVersion = "SSLv3" }, "SSL_MAX_VERSION: use one of , TLSv1.0"},
		{"mutual TLS", func(c *Config) { c.MutualTLSAuth = "yes" }, "ROUTER_MUTUAL_TLS_AUTH: use one of none, optional, required"},
		{"filter with a line break", func(c *Config) { c.MutualTLSAuthFilter = "a\nb" }, "ROUTER_MUTUAL_TLS_AUTH_FILTER: must not contain control characters"},
		{"filter not a regexp", func(c *Config) { c.MutualTLSAuthFilter = "(" }, "ROUTER_MUTUAL_TLS_AUTH_FILTER: not a regular expression"},
		{"no connections", func(c *Config) { c.MaxConnections = 0 }, "ROUTER_MAX_CONNECTIONS: must be a whole number from 1 up"},
		{"threads", func(c *Config) { c.Threads = 4097 }, "ROUTER_THREADS: must be a whole number from 0 to 4096"},
		{"small buffer", func(c *Config) { c.BufSize, c.MaxRewriteSize = 2047, 1000 }, "ROUTER_BUF_SIZE: must be a number of bytes from 2048 to 1048576"},
		{"rewrite size", func(c *Config) { c.MaxRewriteSize = -1 }, "ROUTER_MAX_REWRITE_SIZE: must be a number of bytes from 0 to 524288"},
		{"zero timeout", func(c *Config) { c.ServerTimeout = 0 }, "ROUTER_DEFAULT_SERVER_TIMEOUT: must be a TimeUnit"},
		{"nanosecond timeout", func(c *Config) { c.ConnectTimeout = time.Nanosecond }, "ROUTER_DEFAULT_CONNECT_TIMEOUT: must be a TimeUnit"},
		{"timeout too large", func(c *Config) { c.TunnelTimeout = 30 * 24 * time.Hour }, "ROUTER_DEFAULT_TUNNEL_TIMEOUT: " + routecore.ErrTimeUnitTooLarge.Error()},
		{"negative hard stop", func(c *Config) { c.HardStopAfter = -time.Second }, "ROUTER_HARD_STOP_AFTER: must be a TimeUnit"},
		{"balance", func(c *Config) { c.LoadBalanceAlgorithm = "fastest" }, "ROUTER_LOAD_BALANCE_ALGORITHM: use one of roundrobin, leastconn, source, random"},
		{"TCP balance", func(c *Config) { c.TCPBalanceScheme = "" }, "ROUTER_TCP_BALANCE_SCHEME: use one of"},
		{"cookie name", func(c *Config) { c.CookieName = "a b" }, "ROUTER_COOKIE_NAME: must consist of letters, digits, '_' and '-'"},
		{"endpoint order", func(c *Config) { c.BackendProcessEndpoints = "random" }, "ROUTER_BACKEND_PROCESS_ENDPOINTS: use one of , shuffle"},
		{"MIME types with a tab", func(c *Config) { c.CompressionMIME = "text/html\ttext/css" }, "ROUTER_COMPRESSION_MIME: must not contain control characters"},
		{"forwarded headers", func(c *Config) { c.ForwardedHeaders = "none" }, "ROUTER_SET_FORWARDED_HEADERS: use one of append, replace, if-none, never"},
		{"header name", func(c *Config) { c.H1CaseAdjust = []string{"Host", "X Custom"} }, `ROUTER_H1_CASE_ADJUST: "X Custom" is not a header name`},
		{"header twice", func(c *Config) { c.H1CaseAdjust = []string{"Host", "host"} }, `ROUTER_H1_CASE_ADJUST: "host" is listed twice`},
		{"syslog address", func(c *Config) { c.SyslogAddress = "x' y" }, `ROUTER_SYSLOG_ADDRESS: "x' y" must not contain spaces, quotes, '#' or control characters`},
		{"log format", func(c *Config) { c.SyslogFormat = "a\nb" }, "ROUTER_SYSLOG_FORMAT: must not contain control characters"},
		{"facility", func(c *Config) { c.LogFacility = "local8" }, "ROUTER_LOG_FACILITY: use one of kern, user"},
		{"log length", func(c *Config) { c.LogMaxLength = 79 }, "ROUTER_LOG_MAX_LENGTH: must be a number of bytes from 80 to 65535"},
		{"log level", func(c *Config) { c.LogLevel = "verbose" }, "ROUTER_LOG_LEVEL: use one of emerg, alert, crit, err, warning, notice, info, debug"},
		{"stats user with a colon", func(c *Config) { c.StatsUsername = "a:b" }, "STATS_USERNAME: must not contain ':'"},
		{"stats user with DEL", func(c *Config) { c.StatsUsername = "a\x7f" }, "STATS_USERNAME: must not contain control characters"},
		{"stats password", func(c *Config) { c.StatsPassword = "p\nw" }, "STATS_PASSWORD: must not contain control characters"},
		{"no working dir", func(c *Config) { c.WorkingDir = "" }, "ROUTER_WORKING_DIR: must be set"},
		{"working dir with a space", func(c *Config) { c.WorkingDir = "/var/lib/my router" }, `ROUTER_WORKING_DIR: "/var/lib/my router" must be a path of letters`},
		{"relative certificate path", func(c *Config) { c.DefaultCertificatePath = "tls.pem" }, `DEFAULT_CERTIFICATE_PATH: "tls.pem" must be an absolute path`},
		{"CA path with a quote", func(c *Config) { c.DefaultDestinationCAPath = "/etc/ca'.pem" }, `DEFAULT_DESTINATION_CA_PATH: "/etc/ca'.pem" must be an absolute path`},
		{"reload interval", func(c *Config) { c.ReloadInterval = 999 * time.Millisecond }, "RELOAD_INTERVAL: must be at least 1s"},
		{"standby backends", func(c *Config) { c.StandbyBackends = 1001 }, "ROUTER_BLUEPRINT_ROUTE_POOL_SIZE: must be a whole number from 0 to 1000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := valid(t)
			c.mod(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("Validate() = %v, want %q", err, c.want)
			}
			if n := len(strings.Split(err.Error(), "\n")); n != 1 {
				t.Errorf("one wrong setting gave %d errors: %v", n, err)
			}
		})
	}
}

// TestCrossRules: the rules between settings, each naming the setting to
// change.
func TestCrossRules(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("503.http", "HTTP/1.0 503 Service Unavailable\r\n\r\ndown")
	cases := []struct {
		name string
		mod  func(*Config)
		want string // "" when accepted
	}{
		{"same port twice", func(c *Config) { c.SNIPort = c.HTTPPort }, "ROUTER_SERVICE_SNI_PORT: port 80 is also ROUTER_SERVICE_HTTP_PORT"},
		{"stats on the HTTPS port", func(c *Config) { c.StatsPort = 443 }, "STATS_PORT: port 443 is also ROUTER_SERVICE_HTTPS_PORT"},
		{"stats port 0 twice is none", func(c *Config) { c.StatsPort = 0 }, ""},
		{"max TLS below min", func(c *Config) { c.SSLMinVersion, c.SSLMaxVersion = "TLSv1.3", "TLSv1.2" },
			"SSL_MAX_VERSION: TLSv1.2 is older than SSL_MIN_VERSION (TLSv1.3)"},
		{"max TLS equal to min", func(c *Config) { c.SSLMinVersion, c.SSLMaxVersion = "TLSv1.3", "TLSv1.3" }, ""},
		{"HTTP/2 with small buffers", func(c *Config) { c.DisableHTTP2, c.BufSize, c.MaxRewriteSize = false, 8192, 1024 },
			"ROUTER_BUF_SIZE: 8192 is too small for HTTP/2 (ROUTER_DISABLE_HTTP2=false), which needs 16384"},
		{"HTTP/1 with small buffers", func(c *Config) { c.BufSize, c.MaxRewriteSize = 8192, 1024 }, ""},
		{"rewrite space over half", func(c *Config) { c.BufSize, c.MaxRewriteSize = 16384, 8193 },
			"ROUTER_MAX_REWRITE_SIZE: 8193 is more than half of ROUTER_BUF_SIZE (16384)"},
		{"rewrite space exactly half", func(c *Config) { c.BufSize, c.MaxRewriteSize = 16384, 8192 }, ""},
		{"client auth without a CA", func(c *Config) { c.MutualTLSAuth = "required" },
			"ROUTER_MUTUAL_TLS_AUTH_CA: must name the PEM bundle of the certificate authorities that issue client certificates when ROUTER_MUTUAL_TLS_AUTH is required"},
		{"client auth with a relative CRL", func(c *Config) {
			c.MutualTLSAuth, c.MutualTLSAuthCA, c.MutualTLSAuthCRL = "optional", "/ca.pem", "ca.crl"
		},
			`ROUTER_MUTUAL_TLS_AUTH_CRL: "ca.crl" must be an absolute path`},
		{"a relative CA without client auth", func(c *Config) { c.MutualTLSAuthCA = "ca.pem" }, ""},
		{"compression without types", func(c *Config) { c.EnableCompression, c.CompressionMIME = true, " " },
			"ROUTER_COMPRESSION_MIME: must list at least one MIME type"},
		{"errorfile", func(c *Config) { c.ErrorFile503 = good }, ""},
		{"relative errorfile", func(c *Config) { c.ErrorFile503 = "503.http" }, `ROUTER_ERRORFILE_503: "503.http" must be an absolute path`},
		{"missing errorfile", func(c *Config) { c.ErrorFile404 = filepath.Join(dir, "404.http") }, "ROUTER_ERRORFILE_404: reading it"},
		{"errorfile without a status line", func(c *Config) { c.ErrorFile503 = write("bad.http", "<h1>down</h1>") },
			"must hold a whole HTTP response"},
		{"errorfile larger than a buffer", func(c *Config) {
			c.ErrorFile503 = write("big.http", "HTTP/1.0 503 Service Unavailable\r\n\r\n"+strings.Repeat("x", 30000))
		}, "HAProxy loads at most 24576 (ROUTER_BUF_SIZE less ROUTER_MAX_REWRITE_SIZE)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := valid(t)
			c.mod(&cfg)
			err := cfg.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Validate() = %v, want %q", err, c.want)
			}
		})
	}
}

// TestValidateReportsEvery: every wrong setting is reported, not only the
// first, and a missing error file stays recognisable.
func TestValidateReportsEvery(t *testing.T) {
	c := valid(t)
	c.HTTPPort, c.LogLevel, c.ErrorFile404 = 0, "loud", "/nonexistent/404.http"
	err := c.Validate()
	for _, want := range []string{"ROUTER_SERVICE_HTTP_PORT:", "ROUTER_LOG_LEVEL:", "ROUTER_ERRORFILE_404:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, lacks %s", err, want)
		}
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing error file is not fs.ErrNotExist: %v", err)
	}
}

// TestSetAgreesWithValidate: text a setting accepts gives a value Validate
// accepts, and text it refuses is refused with the words Validate uses
// for the same value; so a Config set in code meets the same rules as
// one read from flags.
func TestSetAgreesWithValidate(t *testing.T) {
	samples := []string{"", "0", "1", "-1", "80", "65535", "65536", "4096", "1<<30", "true", "FALSE", "yes", "30s", "0s", "5000ms",
		"1h", "24d", "25d", "999ms", "1500us", "v4", "v4v6", "TLSv1.3", "none", "required", "modern", "AES128 SHA",
		"X25519:P-256", "leastconn", "shuffle", "append", "Host,X-Request-ID", "Host, host", "local1", "warning", "a:b",
		"/var/lib/routeshift", "relative", "/with space", "10.0.0.1", "::1", "(", "^/CN=a$", "text/html text/css", "SERVERID"}
	seen := map[string]bool{}
	for _, s := range Settings {
		if seen[s.Name] {
			t.Errorf("%s is listed twice", s.Name)
		}
		seen[s.Name] = true
		for _, v := range samples {
			c := valid(t)
			err := s.Field.Set(&c, v)
			check := s.Field.Check(&c)
			if err == nil && check != nil {
				t.Errorf("%s: %q is accepted, but the value it sets is refused: %v", s.Name, v, check)
			}
			if err != nil && check != nil && err.Error() != check.Error() && !errors.Is(err, routecore.ErrTimeUnitTooLarge) {
				t.Errorf("%s: %q: Set says %q, Check says %q", s.Name, v, err, check)
			}
		}
	}
}

// TestCipherProfiles: every profile ROUTER_CIPHERS accepts has its own
// cipher list, and a list given in full stands for itself.
func TestCipherProfiles(t *testing.T) {
	lists := map[string]bool{}
	for _, p := range CipherProfiles {
		list := CipherList(p)
		if list == p || list == "" || lists[list] || ValidateCiphers(list) != nil {
			t.Errorf("profile %s has list %q: want a list of its own that ROUTER_CIPHERS would accept", p, list)
		}
		lists[list] = true
	}
	if len(cipherLists) != len(CipherProfiles) {
		t.Errorf("%d cipher lists for %d profiles", len(cipherLists), len(CipherProfiles))
	}
	if got := CipherList("ECDHE-RSA-AES128-GCM-SHA256"); got != "ECDHE-RSA-AES128-GCM-SHA256" {
		t.Errorf("CipherList of a list = %q", got)
	}
}

func TestPathSafe(t *testing.T) {
	for path, want := range map[string]bool{"/var/lib/routeshift": true, "a/b_c-d.e+f@g": true, "": false, "/a b": false,
		"/a'b": false, "/a\"b": false, "/a#b": false, "/a\nb": false, "/é": false, "/a,b": false, "/a)b": false} {
		if got := PathSafe(path); got != want {
			t.Errorf("PathSafe(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestAbsWorkingDir(t *testing.T) {
	c := Config{WorkingDir: "router"}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.AbsWorkingDir().WorkingDir; got != filepath.Join(wd, "router") {
		t.Errorf("AbsWorkingDir() = %q, want %q", got, filepath.Join(wd, "router"))
	}
	if c.WorkingDir != "router" {
		t.Error("AbsWorkingDir changed its receiver")
	}
}
