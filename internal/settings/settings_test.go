package settings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/routeshift/routeshift/haproxy/exporter"
)

func TestDefaults(t *testing.T) {
	c := Defaults()
	d := c.DataPlane
	if c.Router.Name != "public" || !c.Router.UpdateStatus || !c.Router.Admission.ExtendedValidation || c.Router.Admission.AllowWildcardRoutes ||
		d.HTTPPort != 80 || d.HTTPSPort != 443 || d.SNIPort != 10444 || d.NoSNIPort != 10443 || d.MaxConnections != 20000 ||
		d.ReloadInterval != 5*time.Second || d.StrictSNI || d.Ciphers != "intermediate" || d.LoadBalanceAlgorithm != "leastconn" ||
		d.TCPBalanceScheme != "source" || d.ServerTimeout != 30*time.Second || d.TunnelTimeout != time.Hour ||
		d.SlowlorisHTTPKeepalive != 300*time.Second || d.BackendCheckInterval != 5*time.Second || c.Listen.Addr != "0.0.0.0:1936" ||
		c.Exporter.ServerThreshold != 500 || len(c.Exporter.Columns) != 16 || d.CompressionMIME != "text/html text/plain text/css" {
		t.Errorf("defaults differ from OpenShift's router's: %+v", c)
	}
}

// TestEnvironmentAndFlags: the environment sets values, flags win over it,
// and bad values name the variable, the flag and what to do.
func TestEnvironmentAndFlags(t *testing.T) {
	env := map[string]string{"ROUTER_SERVICE_HTTP_PORT": "8080", "ROUTER_ALLOWED_DOMAINS": "a.com, b.org", "RELOAD_INTERVAL": "2s",
		"ROUTE_LABELS": "shard=a", "PROJECT_LABELS": "team=x", "ROUTER_STRICT_SNI": "TRUE"}
	fs := pflag.NewFlagSet("router", pflag.ContinueOnError)
	parse := AddFlags(fs, func(k string) string { return env[k] })
	if err := fs.Parse([]string{"--allow-wildcard-routes", "--https-port"}); err == nil {
		t.Fatal("--https-port without a value should need one")
	}
	fs = pflag.NewFlagSet("router", pflag.ContinueOnError)
	parse = AddFlags(fs, func(k string) string { return env[k] })
	if err := fs.Parse([]string{"--https-port=8443", "--allow-wildcard-routes", "--http-port=9090", "--update-status=false"}); err != nil {
		t.Fatal(err)
	}
	c, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	if c.DataPlane.HTTPPort != 9090 || c.DataPlane.HTTPSPort != 8443 || !c.Router.Admission.AllowWildcardRoutes || !c.DataPlane.StrictSNI || c.Router.UpdateStatus ||
		c.DataPlane.ReloadInterval != 2*time.Second || strings.Join(c.Router.Admission.AllowedDomains, ",") != "a.com,b.org" ||
		c.Router.Admission.RouteSelector.String() != "shard=a" || c.Router.Admission.NamespaceSelector.String() != "team=x" {
		t.Errorf("config %+v", c)
	}

	bad := map[string]string{"ROUTER_SERVICE_HTTP_PORT": "eighty", "RELOAD_INTERVAL": "100ms", "ROUTER_LOAD_BALANCE_ALGORITHM": "fastest",
		"ROUTER_DEFAULT_SERVER_TIMEOUT": "30 seconds", "ROUTER_CANONICAL_HOSTNAME": "10.0.0.1", "ROUTER_H1_CASE_ADJUST": "Host, X Custom",
		"RESYNC_INTERVAL": "never", "ROUTER_CIPHERS": "AES128 SHA", "ROUTER_COOKIE_NAME": "a b", "ROUTER_SET_FORWARDED_HEADERS": "none",
		"ROUTER_DEFAULT_CLIENT_TIMEOUT": "0", "ROUTER_SERVICE_SNI_PORT": "70000", "ROUTER_MAX_CONNECTIONS": "0", "ROUTER_THREADS": "-1"}
	fs = pflag.NewFlagSet("router", pflag.ContinueOnError)
	parse = AddFlags(fs, func(k string) string { return bad[k] })
	_ = fs.Parse(nil)
	_, err = parse()
	for _, want := range []string{
		`ROUTER_SERVICE_HTTP_PORT (--http-port) "eighty": must be a port number from 1 to 65535`,
		`RELOAD_INTERVAL (--interval) "100ms": must be at least 1s`,
		`ROUTER_LOAD_BALANCE_ALGORITHM (--load-balance-algorithm) "fastest": use one of roundrobin, leastconn, source, random`,
		`ROUTER_DEFAULT_SERVER_TIMEOUT (--default-server-timeout) "30 seconds": must be a TimeUnit`,
		`ROUTER_CANONICAL_HOSTNAME (--router-canonical-hostname) "10.0.0.1": must be a DNS name, not an IP address`,
		`ROUTER_H1_CASE_ADJUST (--h1-case-adjust) "Host, X Custom": "X Custom" is not a header name`,
		`RESYNC_INTERVAL (--resync-interval) "never": must be a TimeUnit such as 30m`,
		`ROUTER_CIPHERS (--ciphers) "AES128 SHA": use modern, intermediate, old, or a ':'-separated OpenSSL cipher list`,
		`ROUTER_COOKIE_NAME (--cookie-name) "a b": must consist of letters, digits, '_' and '-'`,
		`ROUTER_DEFAULT_CLIENT_TIMEOUT (--default-client-timeout) "0": must be a TimeUnit`,
		`ROUTER_SERVICE_SNI_PORT (--sni-port) "70000": must be a port number from 1 to 65535`,
		`ROUTER_MAX_CONNECTIONS (--max-connections) "0": must be a whole number from 1 up`,
		`ROUTER_THREADS (--threads) "-1": must be a whole number from 0 to 4096`,
		`ROUTER_SET_FORWARDED_HEADERS (--set-forwarded-headers) "none": use one of append, replace, if-none, never`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nlacks %q", err, want)
		}
	}
}

// TestEveryOpenShiftVariable: each environment variable of OpenShift's router
// that routeshift implements has a setting (the ones with no meaning here
// are listed in the docs).
func TestEveryOpenShiftVariable(t *testing.T) {
	have := map[string]bool{}
	for _, s := range Table {
		if have[s.Env] {
			t.Errorf("%s is listed twice", s.Env)
		}
		have[s.Env] = true
		if s.Help == "" || s.Flag == "" || s.Example == "" || s.Parse == nil {
			t.Errorf("%s lacks help, a flag, an example or a parser", s.Env)
		}
	}
	for _, env := range []string{"DEFAULT_CERTIFICATE", "DEFAULT_CERTIFICATE_DIR", "DEFAULT_CERTIFICATE_PATH", "EXTENDED_VALIDATION",
		"NAMESPACE_LABELS", "PROJECT_LABELS", "ROUTER_ALLOWED_DOMAINS", "ROUTER_BACKEND_PROCESS_ENDPOINTS", "ROUTER_BIND_PORTS_AFTER_SYNC",
		"ROUTER_COOKIE_NAME", "ROUTER_COMPRESSION_MIME", "ROUTER_DENIED_DOMAINS", "ROUTER_ENABLE_COMPRESSION", "ROUTER_LISTEN_ADDR",
		"ROUTER_LOG_LEVEL", "ROUTER_MAX_CONNECTIONS", "ROUTER_METRICS_HAPROXY_SERVER_THRESHOLD", "ROUTER_METRICS_HAPROXY_EXPORTED",
		"ROUTER_METRICS_HAPROXY_BASE_SCRAPE_INTERVAL", "ROUTER_METRICS_HAPROXY_TIMEOUT", "ROUTER_METRICS_TYPE", "ROUTER_OVERRIDE_DOMAINS",
		"ROUTER_OVERRIDE_HOSTNAME", "ROUTER_SERVICE_HTTPS_PORT", "ROUTER_SERVICE_HTTP_PORT", "ROUTER_SERVICE_NAME", "ROUTER_CANONICAL_HOSTNAME",
		"ROUTER_SERVICE_NAMESPACE", "ROUTER_SERVICE_NO_SNI_PORT", "ROUTER_SERVICE_SNI_PORT", "ROUTER_SUBDOMAIN", "ROUTER_SYSLOG_ADDRESS",
		"ROUTER_SYSLOG_FORMAT", "ROUTER_TCP_BALANCE_SCHEME", "ROUTER_THREADS", "ROUTER_LOAD_BALANCE_ALGORITHM", "ROUTE_LABELS",
		"STATS_PASSWORD", "STATS_PORT", "STATS_USERNAME", "TEMPLATE_FILE", "RELOAD_INTERVAL", "ROUTER_USE_PROXY_PROTOCOL",
		"ROUTER_ALLOW_WILDCARD_ROUTES", "ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK", "ROUTER_STRICT_SNI", "ROUTER_CIPHERS",
		"ROUTER_BACKEND_CHECK_INTERVAL", "ROUTER_CLIENT_FIN_TIMEOUT", "ROUTER_DEFAULT_CLIENT_TIMEOUT", "ROUTER_DEFAULT_CONNECT_TIMEOUT",
		"ROUTER_DEFAULT_SERVER_FIN_TIMEOUT", "ROUTER_DEFAULT_SERVER_TIMEOUT", "ROUTER_DEFAULT_TUNNEL_TIMEOUT", "ROUTER_SLOWLORIS_HTTP_KEEPALIVE",
		"ROUTER_SLOWLORIS_TIMEOUT"} {
		if !have[env] {
			t.Errorf("OpenShift router variable %s has no setting", env)
		}
	}
}

// TestStatsCredentialFiles: STATS_USERNAME_FILE and STATS_PASSWORD_FILE
// replace the values given directly; a missing file names the variable.
func TestStatsCredentialFiles(t *testing.T) {
	dir := t.TempDir()
	user, pass := filepath.Join(dir, "user"), filepath.Join(dir, "pass")
	if err := os.WriteFile(user, []byte("admin\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pass, []byte("s3cret w0rd\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name               string
		env                map[string]string
		wantUser, wantPass string
		wantErr            string
	}{
		{"files", map[string]string{"STATS_USERNAME_FILE": user, "STATS_PASSWORD_FILE": pass}, "admin", "s3cret w0rd", ""},
		{"files win", map[string]string{"STATS_USERNAME": "x", "STATS_PASSWORD": "y", "STATS_USERNAME_FILE": user, "STATS_PASSWORD_FILE": pass},
			"admin", "s3cret w0rd", ""},
		{"values without files", map[string]string{"STATS_USERNAME": "x", "STATS_PASSWORD": "y"}, "x", "y", ""},
		{"missing file", map[string]string{"STATS_PASSWORD_FILE": filepath.Join(dir, "nope")}, "", "",
			`STATS_PASSWORD_FILE (--stats-password-file) "` + filepath.Join(dir, "nope") + `": reading it`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseEnv(t, c.env)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("error %v, want one with %q", err, c.wantErr)
				}
				return
			}
			if err != nil || cfg.DataPlane.StatsUsername != c.wantUser || cfg.DataPlane.StatsPassword != c.wantPass {
				t.Errorf("user %q, password %q, %v; want %q, %q", cfg.DataPlane.StatsUsername, cfg.DataPlane.StatsPassword, err, c.wantUser, c.wantPass)
			}
		})
	}
}

// TestBooleanSettings: exactly the settings that take true and false (and
// nothing else) count as switches, whose flags may be given alone.
func TestBooleanSettings(t *testing.T) {
	for _, s := range Table {
		var c Config
		takesBool := s.Parse(&c, "true") == nil && s.Parse(&c, "FALSE") == nil && s.Parse(&c, "maybe") != nil
		if takesBool != s.IsBool() {
			t.Errorf("%s: parses booleans %v, but IsBool %v (default %q): a switch's default must be true or false", s.Env, takesBool, s.IsBool(), s.Default)
		}
	}
}

// TestMetricsAuth: auto means basic with both stats credentials, else
// kubernetes; basic without them is refused with what to set.
func TestMetricsAuth(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr string
	}{
		{"default", nil, MetricsAuthKubernetes, ""},
		{"auto with credentials", map[string]string{"STATS_USERNAME": "u", "STATS_PASSWORD": "p"}, MetricsAuthBasic, ""},
		{"auto with a user only", map[string]string{"STATS_USERNAME": "u"}, MetricsAuthKubernetes, ""},
		{"kubernetes despite credentials", map[string]string{"STATS_USERNAME": "u", "STATS_PASSWORD": "p", "ROUTER_METRICS_AUTH": "kubernetes"}, MetricsAuthKubernetes, ""},
		{"none", map[string]string{"ROUTER_METRICS_AUTH": "none"}, MetricsAuthNone, ""},
		{"basic without credentials", map[string]string{"ROUTER_METRICS_AUTH": "basic", "STATS_USERNAME": "u"}, "",
			"ROUTER_METRICS_AUTH (--metrics-auth) basic: set STATS_USERNAME and STATS_PASSWORD"},
		{"unknown", map[string]string{"ROUTER_METRICS_AUTH": "token"}, "",
			`ROUTER_METRICS_AUTH (--metrics-auth) "token": use one of auto, kubernetes, basic, none`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := parseEnv(t, c.env)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("error %v, want one with %q", err, c.wantErr)
				}
				return
			}
			if err != nil || cfg.Listen.MetricsAuth != c.want {
				t.Errorf("MetricsAuth %q, %v; want %q", cfg.Listen.MetricsAuth, err, c.want)
			}
		})
	}
	if got := Defaults().Listen.MetricsAuth; got != MetricsAuthKubernetes {
		t.Errorf("Defaults().Listen.MetricsAuth = %q, want %q", got, MetricsAuthKubernetes)
	}
}

// TestExamplesParse: every setting's example is accepted by its own parser
// (a file the example names need not exist here; the rules between
// settings are TestEnvironmentAndFlags').
func TestExamplesParse(t *testing.T) {
	for _, s := range Table {
		t.Run(s.Env, func(t *testing.T) {
			c := Defaults()
			if err := s.Parse(&c, s.Example); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("example %q is refused: %v", s.Example, err)
			}
		})
	}
}

// TestExportedColumnsDefault: the default of ROUTER_METRICS_HAPROXY_EXPORTED
// is every column the exporter has a metric for.
func TestExportedColumnsDefault(t *testing.T) {
	if got, want := Defaults().Exporter.Columns, exporter.Columns(); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("default columns %v, want %v", got, want)
	}
}

// parseEnv parses the router settings from env alone, as AddFlags does
// when no flag is given.
func parseEnv(t *testing.T, env map[string]string) (Config, error) {
	t.Helper()
	fs := pflag.NewFlagSet("router", pflag.ContinueOnError)
	parse := AddFlags(fs, func(k string) string { return env[k] })
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	return parse()
}

// TestDrainSeconds: ROUTER_DRAIN_SECONDS is a whole number of seconds,
// 45 by default (OpenShift's router waits 45 s after SIGTERM).
func TestDrainSeconds(t *testing.T) {
	if got := Defaults().Listen.DrainPeriod; got != 45*time.Second {
		t.Errorf("default drain %v, want 45s", got)
	}
	tests := []struct {
		value   string
		want    time.Duration
		wantErr string
	}{
		{value: "0", want: 0},
		{value: "90", want: 90 * time.Second},
		{value: "45s", wantErr: `ROUTER_DRAIN_SECONDS (--drain-seconds) "45s": must be a whole number of seconds from 0 to 3600`},
		{value: "-1", wantErr: `ROUTER_DRAIN_SECONDS (--drain-seconds) "-1": must be a whole number of seconds from 0 to 3600`},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			fs := pflag.NewFlagSet("router", pflag.ContinueOnError)
			parse := AddFlags(fs, func(k string) string { return map[string]string{"ROUTER_DRAIN_SECONDS": tt.value}[k] })
			c, err := parse()
			switch {
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Errorf("error %v, want %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.wantErr == "" && c.Listen.DrainPeriod != tt.want:
				t.Errorf("drain %v, want %v", c.Listen.DrainPeriod, tt.want)
			}
		})
	}
}

// TestPublishSettings: ROUTER_PUBLISH_SERVICE names a Service as
// NAMESPACE/NAME or NAME in the router's namespace;
// ROUTER_PUBLISH_STATUS_ADDRESS is a host name or an IP address.
func TestPublishSettings(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		wantService string
		wantAddress string
		wantErr     string
	}{
		{name: "none", env: map[string]string{}},
		{name: "namespace/name", env: map[string]string{"ROUTER_PUBLISH_SERVICE": "edge/router"}, wantService: "edge/router"},
		{name: "name in ROUTER_SERVICE_NAMESPACE", env: map[string]string{"ROUTER_PUBLISH_SERVICE": "router", "ROUTER_SERVICE_NAMESPACE": "edge"},
			wantService: "edge/router"},
		{name: "name in POD_NAMESPACE", env: map[string]string{"ROUTER_PUBLISH_SERVICE": "router", "POD_NAMESPACE": "pods"},
			wantService: "pods/router"},
		{name: "name without a namespace", env: map[string]string{"ROUTER_PUBLISH_SERVICE": "router"},
			wantErr: `ROUTER_PUBLISH_SERVICE (--publish-service) "router": name the namespace (NAMESPACE/NAME), or set ROUTER_SERVICE_NAMESPACE`},
		{name: "not a Service name", env: map[string]string{"ROUTER_PUBLISH_SERVICE": "edge/Router_1"},
			wantErr: `ROUTER_PUBLISH_SERVICE (--publish-service) "edge/Router_1": must be NAMESPACE/NAME or NAME of a Service`},
		{name: "IP address", env: map[string]string{"ROUTER_PUBLISH_STATUS_ADDRESS": "203.0.113.7"}, wantAddress: "203.0.113.7"},
		{name: "IPv6 address", env: map[string]string{"ROUTER_PUBLISH_STATUS_ADDRESS": "2001:db8::7"}, wantAddress: "2001:db8::7"},
		{name: "host name", env: map[string]string{"ROUTER_PUBLISH_STATUS_ADDRESS": "lb.example.com"}, wantAddress: "lb.example.com"},
		{name: "neither", env: map[string]string{"ROUTER_PUBLISH_STATUS_ADDRESS": "lb example"},
			wantErr: `ROUTER_PUBLISH_STATUS_ADDRESS (--publish-status-address) "lb example": must be a DNS name or an IP address`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("router", pflag.ContinueOnError)
			c, err := AddFlags(fs, func(k string) string { return tt.env[k] })()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			service := ""
			if c.Router.PublishService.Name != "" {
				service = c.Router.PublishService.String()
			}
			if service != tt.wantService || c.Router.PublishStatusAddress != tt.wantAddress {
				t.Errorf("service %q, address %q; want %q, %q", service, c.Router.PublishStatusAddress, tt.wantService, tt.wantAddress)
			}
		})
	}
}

// TestSettingsCheckedTogether: once every setting is right on its own,
// the rules between data-plane settings are checked before the router
// starts, naming the setting to change; the defaults meet them.
func TestSettingsCheckedTogether(t *testing.T) {
	if err := Defaults().DataPlane.Validate(); err != nil {
		t.Errorf("the defaults are refused: %v", err)
	}
	_, err := parseEnv(t, map[string]string{"ROUTER_SERVICE_SNI_PORT": "80", "ROUTER_DISABLE_HTTP2": "false", "ROUTER_BUF_SIZE": "8192"})
	for _, want := range []string{"ROUTER_SERVICE_SNI_PORT: port 80 is also ROUTER_SERVICE_HTTP_PORT",
		"ROUTER_BUF_SIZE: 8192 is too small for HTTP/2 (ROUTER_DISABLE_HTTP2=false), which needs 16384"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nlacks %q", err, want)
		}
	}
	// A setting wrong on its own is reported once, in its own words,
	// without the rules between settings repeating it.
	_, err = parseEnv(t, map[string]string{"ROUTER_SERVICE_SNI_PORT": "0", "ROUTER_BUF_SIZE": "8192", "ROUTER_DISABLE_HTTP2": "false"})
	if err == nil || err.Error() != `ROUTER_SERVICE_SNI_PORT (--sni-port) "0": must be a port number from 1 to 65535` {
		t.Errorf("error %v, want only the SNI port's", err)
	}
}
