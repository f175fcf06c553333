package proxyconfig

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"

	"golang.org/x/net/http/httpguts"

	"github.com/routeshift/routeshift/internal/settingfield"
	"github.com/routeshift/routeshift/routecore"
)

// Setting is one data-plane setting: the environment variable that names
// it and its field of Config.
type Setting struct {
	Name  string
	Field settingfield.Field[Config]
}

// MinReloadInterval is the shortest RELOAD_INTERVAL: reloads any closer
// together would keep HAProxy's old workers piling up.
const MinReloadInterval = time.Second

// Settings lists every data-plane setting. A setting's rule concerns its
// own value; rules between settings are Validate's.
var Settings = []Setting{
	{"ROUTER_BIND_ADDRESS", text(func(c *Config) *string { return &c.BindAddress }, bindAddress)},
	{"ROUTER_IP_V4_V6_MODE", settingfield.OneOf(func(c *Config) *string { return &c.IPMode }, IPModes...)},
	{"ROUTER_SERVICE_HTTP_PORT", settingfield.Port(func(c *Config) *int { return &c.HTTPPort }, false)},
	{"ROUTER_SERVICE_HTTPS_PORT", settingfield.Port(func(c *Config) *int { return &c.HTTPSPort }, false)},
	{"ROUTER_HTTPS_REDIRECT_PORT", settingfield.Port(func(c *Config) *int { return &c.HTTPSRedirectPort }, true)},
	{"ROUTER_SERVICE_SNI_PORT", settingfield.Port(func(c *Config) *int { return &c.SNIPort }, false)},
	{"ROUTER_SERVICE_NO_SNI_PORT", settingfield.Port(func(c *Config) *int { return &c.NoSNIPort }, false)},
	{"ROUTER_USE_PROXY_PROTOCOL", settingfield.Bool(func(c *Config) *bool { return &c.UseProxyProtocol })},

	{"DEFAULT_CERTIFICATE", text(func(c *Config) *string { return &c.DefaultCertificate }, nil)},
	{"DEFAULT_CERTIFICATE_PATH", text(func(c *Config) *string { return &c.DefaultCertificatePath }, absolutePath)},
	{"DEFAULT_CERTIFICATE_DIR", text(func(c *Config) *string { return &c.DefaultCertificateDir }, nil)},
	{"DEFAULT_DESTINATION_CA_PATH", text(func(c *Config) *string { return &c.DefaultDestinationCAPath }, absolutePath)},
	{"ROUTER_CIPHERS", text(func(c *Config) *string { return &c.Ciphers }, func(v string) error {
		if err := ValidateCiphers(v); err != nil {
			return errors.New(err.Detail)
		}
		return nil
	})},
	{"ROUTER_DISABLE_HTTP2", settingfield.Bool(func(c *Config) *bool { return &c.DisableHTTP2 })},
	{"ROUTER_CIPHERSUITES", text(func(c *Config) *string { return &c.CipherSuites }, nameList)},
	{"ROUTER_CURVES", text(func(c *Config) *string { return &c.Curves }, nameList)},
	{"SSL_MIN_VERSION", settingfield.OneOf(func(c *Config) *string { return &c.SSLMinVersion }, TLSVersions...)},
	{"SSL_MAX_VERSION", settingfield.OneOf(func(c *Config) *string { return &c.SSLMaxVersion }, append([]string{""}, TLSVersions...)...)},
	{"ROUTER_MUTUAL_TLS_AUTH", settingfield.OneOf(func(c *Config) *string { return &c.MutualTLSAuth }, MutualTLSAuthModes...)},
	{"ROUTER_MUTUAL_TLS_AUTH_CA", text(func(c *Config) *string { return &c.MutualTLSAuthCA }, nil)},
	{"ROUTER_MUTUAL_TLS_AUTH_CRL", text(func(c *Config) *string { return &c.MutualTLSAuthCRL }, nil)},
	{"ROUTER_MUTUAL_TLS_AUTH_FILTER", text(func(c *Config) *string { return &c.MutualTLSAuthFilter }, subjectFilter)},
	{"ROUTER_STRICT_SNI", settingfield.Bool(func(c *Config) *bool { return &c.StrictSNI })},

	{"ROUTER_MAX_CONNECTIONS", settingfield.Int(func(c *Config) *int { return &c.MaxConnections }, 1, 1<<30, "a whole number from 1 up")},
	{"ROUTER_THREADS", settingfield.Int(func(c *Config) *int { return &c.Threads }, 0, 4096, "a whole number from 0 to 4096")},
	{"ROUTER_MAX_BODY_SIZE", settingfield.New(parseBodySize, nil)},
	{"ROUTER_BUF_SIZE", settingfield.Int(func(c *Config) *int { return &c.BufSize }, 2048, 1<<20, "a number of bytes from 2048 to 1048576")},
	{"ROUTER_MAX_REWRITE_SIZE", settingfield.Int(func(c *Config) *int { return &c.MaxRewriteSize }, 0, 1<<19, "a number of bytes from 0 to 524288")},

	{"ROUTER_DEFAULT_CLIENT_TIMEOUT", timeUnit(func(c *Config) *time.Duration { return &c.ClientTimeout })},
	{"ROUTER_CLIENT_FIN_TIMEOUT", timeUnit(func(c *Config) *time.Duration { return &c.ClientFinTimeout })},
	{"ROUTER_DEFAULT_CONNECT_TIMEOUT", timeUnit(func(c *Config) *time.Duration { return &c.ConnectTimeout })},
	{"ROUTER_DEFAULT_SERVER_TIMEOUT", timeUnit(func(c *Config) *time.Duration { return &c.ServerTimeout })},
	{"ROUTER_DEFAULT_SERVER_FIN_TIMEOUT", timeUnit(func(c *Config) *time.Duration { return &c.ServerFinTimeout })},
	{"ROUTER_DEFAULT_TUNNEL_TIMEOUT", timeUnit(func(c *Config) *time.Duration { return &c.TunnelTimeout })},
	{"ROUTER_SLOWLORIS_HTTP_KEEPALIVE", timeUnit(func(c *Config) *time.Duration { return &c.SlowlorisHTTPKeepalive })},
	{"ROUTER_SLOWLORIS_TIMEOUT", timeUnit(func(c *Config) *time.Duration { return &c.SlowlorisTimeout })},
	{"ROUTER_INSPECT_DELAY", timeUnit(func(c *Config) *time.Duration { return &c.InspectDelay })},
	{"ROUTER_HARD_STOP_AFTER", settingfield.TimeUnit(func(c *Config) *time.Duration { return &c.HardStopAfter }, true)},
	{"ROUTER_BACKEND_CHECK_INTERVAL", timeUnit(func(c *Config) *time.Duration { return &c.BackendCheckInterval })},

	{"ROUTER_LOAD_BALANCE_ALGORITHM", settingfield.OneOf(func(c *Config) *routecore.BalanceAlgorithm { return &c.LoadBalanceAlgorithm }, routecore.BalanceAlgorithms...)},
	{"ROUTER_TCP_BALANCE_SCHEME", settingfield.OneOf(func(c *Config) *routecore.BalanceAlgorithm { return &c.TCPBalanceScheme }, routecore.BalanceAlgorithms...)},
	{"ROUTER_COOKIE_NAME", text(func(c *Config) *string { return &c.CookieName }, func(v string) error {
		if err := routecore.ValidateCookieName(v); v != "" && err != nil {
			return errors.New(err.Detail)
		}
		return nil
	})},
	{"ROUTER_BACKEND_PROCESS_ENDPOINTS", settingfield.OneOf(func(c *Config) *EndpointOrder { return &c.BackendProcessEndpoints }, EndpointOrders...)},

	{"ROUTER_ENABLE_COMPRESSION", settingfield.Bool(func(c *Config) *bool { return &c.EnableCompression })},
	{"ROUTER_COMPRESSION_MIME", text(func(c *Config) *string { return &c.CompressionMIME }, noControl)},
	{"ROUTER_SET_FORWARDED_HEADERS", settingfield.OneOf(func(c *Config) *routecore.ForwardedHeadersPolicy { return &c.ForwardedHeaders }, routecore.ForwardedHeadersPolicies...)},
	{"ROUTER_H1_CASE_ADJUST", settingfield.New(parseHeaderNames, checkHeaderNames)},
	{"ROUTER_ERRORFILE_503", text(func(c *Config) *string { return &c.ErrorFile503 }, nil)},
	{"ROUTER_ERRORFILE_404", text(func(c *Config) *string { return &c.ErrorFile404 }, nil)},
	{"ROUTER_DONT_LOG_NULL", settingfield.Bool(func(c *Config) *bool { return &c.DontLogNull })},
	{"ROUTER_HTTP_IGNORE_PROBES", settingfield.Bool(func(c *Config) *bool { return &c.HTTPIgnoreProbes })},
	{"ROUTER_HAPROXY_CONTSTATS", settingfield.Bool(func(c *Config) *bool { return &c.ContStats })},
	{"ROUTER_ABORT_ON_CLOSE", settingfield.Bool(func(c *Config) *bool { return &c.AbortOnClose })},

	{"ROUTER_SYSLOG_ADDRESS", text(func(c *Config) *string { return &c.SyslogAddress }, syslogAddress)},
	{"ROUTER_SYSLOG_FORMAT", text(func(c *Config) *string { return &c.SyslogFormat }, noControl)},
	{"ROUTER_LOG_FACILITY", settingfield.OneOf(func(c *Config) *string { return &c.LogFacility }, LogFacilities...)},
	{"ROUTER_LOG_MAX_LENGTH", settingfield.Int(func(c *Config) *int { return &c.LogMaxLength }, 80, 65535, "a number of bytes from 80 to 65535")},
	{"ROUTER_LOG_LEVEL", settingfield.OneOf(func(c *Config) *SyslogLevel { return &c.LogLevel }, SyslogLevels...)},

	{"STATS_PORT", settingfield.Port(func(c *Config) *int { return &c.StatsPort }, true)},
	{"STATS_USERNAME", text(func(c *Config) *string { return &c.StatsUsername }, statsUsername)},
	{"STATS_PASSWORD", text(func(c *Config) *string { return &c.StatsPassword }, noControl)},

	{"ROUTER_WORKING_DIR", text(func(c *Config) *string { return &c.WorkingDir }, workingDir)},
	{"TEMPLATE_FILE", text(func(c *Config) *string { return &c.TemplateFile }, nil)},
	{"RELOAD_INTERVAL", settingfield.Interval(func(c *Config) *time.Duration { return &c.ReloadInterval }, MinReloadInterval, "5s")},
	{"ROUTER_BLUEPRINT_ROUTE_POOL_SIZE", settingfield.Int(func(c *Config) *int { return &c.StandbyBackends }, 0, 1000, "a whole number from 0 to 1000")},
}

// parseBodySize reads a size as the max-body-size annotation takes it;
// empty is no limit.
func parseBodySize(c *Config, v string) error {
	if v == "" {
		c.MaxBodySize = 0
		return nil
	}
	n, err := routecore.ParseBodySize(v)
	if err != nil {
		return err
	}
	c.MaxBodySize = n
	return nil
}

func text(get func(*Config) *string, check func(string) error) settingfield.Field[Config] {
	return settingfield.Text(get, check)
}

func timeUnit(get func(*Config) *time.Duration) settingfield.Field[Config] {
	return settingfield.TimeUnit(get, false)
}

// PathSafe reports whether a file path from the router's settings can be
// printed into haproxy.cfg as it is, also inside converter arguments such
// as map_str(...): letters, digits and / . _ - + @ only.
func PathSafe(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("/._-+@", c) >= 0) {
			return false
		}
	}
	return true
}

// absolutePath accepts empty (not set) or an absolute PathSafe path.
func absolutePath(v string) error {
	if v != "" && (!filepath.IsAbs(v) || !PathSafe(v)) {
		return fmt.Errorf("%q must be an absolute path of letters, digits and / . _ - + @ only", v)
	}
	return nil
}

// workingDir is a path, made absolute, that is PathSafe.
func workingDir(v string) error {
	if v == "" {
		return errors.New("must be set")
	}
	if dir, err := filepath.Abs(v); err != nil || !PathSafe(dir) {
		return fmt.Errorf("%q must be a path of letters, digits and / . _ - + @ only", v)
	}
	return nil
}

func bindAddress(v string) error {
	if v != "" && net.ParseIP(v) == nil {
		return fmt.Errorf("%q is not an IP address", v)
	}
	return nil
}

// nameList is a ':'-separated list of OpenSSL names (ROUTER_CIPHERSUITES,
// ROUTER_CURVES).
func nameList(v string) error {
	if strings.IndexFunc(v, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(":_-", r))
	}) >= 0 {
		return fmt.Errorf("%q must be a ':'-separated list of names of letters, digits, '_' and '-'", v)
	}
	return nil
}

// noControl refuses the C0 controls and DEL, which would end a line of
// haproxy.cfg.
func noControl(v string) error {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] == 0x7f {
			return errors.New("must not contain control characters")
		}
	}
	return nil
}

func syslogAddress(v string) error {
	if noControl(v) != nil || strings.ContainsAny(v, " '\"#") {
		return fmt.Errorf("%q must not contain spaces, quotes, '#' or control characters", v)
	}
	return nil
}

func statsUsername(v string) error {
	if err := noControl(v); err != nil {
		return err
	}
	if strings.Contains(v, ":") {
		return errors.New("must not contain ':'")
	}
	return nil
}

// subjectFilter is a regular expression HAProxy (PCRE2) and Go (RE2) both
// read, without control characters.
func subjectFilter(v string) error {
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return errors.New("must not contain control characters")
	}
	if _, err := regexp.Compile(v); err != nil {
		return fmt.Errorf("not a regular expression: %v", err)
	}
	return nil
}

// parseHeaderNames reads a comma-separated list of HTTP header names, as
// ROUTER_H1_CASE_ADJUST writes them; checkHeaderNames is their rule:
// distinct header names (tokens).
func parseHeaderNames(c *Config, v string) error {
	var names []string
	for f := range strings.SplitSeq(v, ",") {
		if name := strings.TrimSpace(f); name != "" {
			names = append(names, name)
		}
	}
	c.H1CaseAdjust = names
	return nil
}

func checkHeaderNames(c *Config) error {
	seen := map[string]bool{}
	for _, name := range c.H1CaseAdjust {
		if !httpguts.ValidHeaderFieldName(name) {
			return fmt.Errorf("%q is not a header name (letters, digits and !#$%%&'*+-.^_`|~)", name)
		}
		if seen[strings.ToLower(name)] {
			return fmt.Errorf("%q is listed twice", name)
		}
		seen[strings.ToLower(name)] = true
	}
	return nil
}
