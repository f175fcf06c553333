package haproxy

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/routeshift/routeshift/haproxy/dataplane"
)

// Cipher profiles (Mozilla's server-side TLS recommendations, in OpenSSL
// names for HAProxy 2.6). TLS 1.2 stays the minimum for every profile, as
// in OpenShift: "modern" keeps only the forward-secret AEAD TLS 1.2 suites.
var (
	tls13Suites    = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"
	cipherProfiles = map[string]string{ // keyed by dataplane.CipherProfiles
		"modern": "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:" +
			"ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305",
		"intermediate": "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:" +
			"ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:" +
			"DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305",
		"old": "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:" +
			"ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:" +
			"DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305:" +
			"ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256:ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:" +
			"ECDHE-ECDSA-AES256-SHA384:ECDHE-RSA-AES256-SHA384:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA:" +
			"DHE-RSA-AES128-SHA256:DHE-RSA-AES256-SHA256:AES128-GCM-SHA256:AES256-GCM-SHA384:" +
			"AES128-SHA256:AES256-SHA256:AES128-SHA:AES256-SHA:DES-CBC3-SHA",
	}
)

// maxHAProxyTimeout is the largest timeout HAProxy accepts.
const maxHAProxyTimeout = 2147483647 * time.Millisecond

// haproxyTime prints a duration as HAProxy milliseconds, rounding up and
// clipping to HAProxy's maximum.
func haproxyTime(d time.Duration) string {
	d = min(d, maxHAProxyTimeout)
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return strconv.FormatInt(int64(max(ms, 1)), 10) + "ms"
}

// checkDataPlaneConfig returns cfg with WorkingDir made absolute, or every
// reason it cannot be rendered. A setting's own syntax, range or list of
// values is checked once, by its parser in internal/settings (which fills
// every field); this checks what those parsers do not: settings against
// each other and against the file system, and the text of free-form
// settings the renderer writes into haproxy.cfg.
func checkDataPlaneConfig(cfg dataplane.Config) (dataplane.Config, error) {
	var errs []error
	bad := func(setting, format string, args ...any) {
		errs = append(errs, fmt.Errorf(setting+": "+format, args...))
	}
	if cfg.WorkingDir == "" {
		bad("ROUTER_WORKING_DIR", "must be set")
	} else if dir, err := filepath.Abs(cfg.WorkingDir); err != nil || !pathSafe(dir) {
		bad("ROUTER_WORKING_DIR", "%q must be a path of letters, digits and / . _ - + @ only", cfg.WorkingDir)
	} else {
		cfg.WorkingDir = dir
	}
	for _, p := range []struct{ env, path string }{
		{"DEFAULT_CERTIFICATE_PATH", cfg.DefaultCertificatePath},
		{"DEFAULT_DESTINATION_CA_PATH", cfg.DefaultDestinationCAPath},
	} {
		if p.path != "" && (!filepath.IsAbs(p.path) || !pathSafe(p.path)) {
			bad(p.env, "%q must be an absolute path of letters, digits and / . _ - + @ only", p.path)
		}
	}
	for _, p := range []struct{ env, path string }{{"ROUTER_ERRORFILE_503", cfg.ErrorFile503}, {"ROUTER_ERRORFILE_404", cfg.ErrorFile404}} {
		if p.path == "" {
			continue
		}
		if err := checkErrorFile(p.path, cfg.BufSize-cfg.MaxRewriteSize); err != nil {
			bad(p.env, "%v", err)
		}
	}
	if !cfg.DisableHTTP2 && cfg.BufSize < 16384 {
		bad("ROUTER_BUF_SIZE", "%d is too small for HTTP/2 (ROUTER_DISABLE_HTTP2=false), which needs 16384", cfg.BufSize)
	}
	if cfg.MaxRewriteSize > cfg.BufSize/2 {
		bad("ROUTER_MAX_REWRITE_SIZE", "%d is more than half of ROUTER_BUF_SIZE (%d)", cfg.MaxRewriteSize, cfg.BufSize)
	}
	if cfg.SSLMaxVersion != "" && slices.Index(dataplane.TLSVersions, cfg.SSLMaxVersion) < slices.Index(dataplane.TLSVersions, cfg.SSLMinVersion) {
		bad("SSL_MAX_VERSION", "%s is older than SSL_MIN_VERSION (%s)", cfg.SSLMaxVersion, cfg.SSLMinVersion)
	}
	for _, l := range []struct{ env, v string }{{"ROUTER_CIPHERSUITES", cfg.CipherSuites}, {"ROUTER_CURVES", cfg.Curves}} {
		if strings.IndexFunc(l.v, func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(":_-", r))
		}) >= 0 {
			bad(l.env, "%q must be a ':'-separated list of names of letters, digits, '_' and '-'", l.v)
		}
	}
	if cfg.BindAddress != "" && net.ParseIP(cfg.BindAddress) == nil {
		bad("ROUTER_BIND_ADDRESS", "%q is not an IP address", cfg.BindAddress)
	}
	ports := map[int]string{}
	for _, p := range []struct {
		env  string
		port int
	}{{"ROUTER_SERVICE_HTTP_PORT", cfg.HTTPPort}, {"ROUTER_SERVICE_HTTPS_PORT", cfg.HTTPSPort},
		{"ROUTER_SERVICE_SNI_PORT", cfg.SNIPort}, {"ROUTER_SERVICE_NO_SNI_PORT", cfg.NoSNIPort}, {"STATS_PORT", cfg.StatsPort}} {
		switch {
		case p.port == 0 && p.env == "STATS_PORT":
		case ports[p.port] != "":
			bad(p.env, "port %d is also %s", p.port, ports[p.port])
		default:
			ports[p.port] = p.env
		}
	}
	errs = append(errs, checkClientAuth(cfg.MutualTLSAuth, cfg.MutualTLSAuthCA, cfg.MutualTLSAuthCRL)...)
	if cfg.EnableCompression && len(strings.Fields(cfg.CompressionMIME)) == 0 {
		bad("ROUTER_COMPRESSION_MIME", "must list at least one MIME type")
	}
	for _, s := range []struct{ env, v string }{{"ROUTER_COMPRESSION_MIME", cfg.CompressionMIME}, {"ROUTER_SYSLOG_FORMAT", cfg.SyslogFormat},
		{"STATS_USERNAME", cfg.StatsUsername}, {"STATS_PASSWORD", cfg.StatsPassword}} {
		if hasControl(s.v) {
			bad(s.env, "must not contain control characters")
		}
	}
	if cfg.SyslogAddress != "" && (hasControl(cfg.SyslogAddress) || strings.ContainsAny(cfg.SyslogAddress, " '\"#")) {
		bad("ROUTER_SYSLOG_ADDRESS", "%q must not contain spaces, quotes, '#' or control characters", cfg.SyslogAddress)
	}
	if strings.Contains(cfg.StatsUsername, ":") {
		bad("STATS_USERNAME", "must not contain ':'")
	}
	return cfg, errors.Join(errs...)
}

// checkErrorFile checks that path names a complete HTTP response HAProxy
// can load: an absolute path of safe characters, a regular file no larger
// than limit bytes, starting with an HTTP/1.x status line.
func checkErrorFile(path string, limit int) error {
	if !filepath.IsAbs(path) || !pathSafe(path) {
		return fmt.Errorf("%q must be an absolute path of letters, digits and / . _ - + @ only", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading it: %w", err)
	}
	if len(b) > limit {
		return fmt.Errorf("%s is %d bytes; HAProxy loads at most %d (ROUTER_BUF_SIZE less ROUTER_MAX_REWRITE_SIZE)", path, len(b), limit)
	}
	if !bytes.HasPrefix(b, []byte("HTTP/1.0 ")) && !bytes.HasPrefix(b, []byte("HTTP/1.1 ")) {
		return fmt.Errorf("%s must hold a whole HTTP response, starting with a status line such as \"HTTP/1.0 503 Service Unavailable\"", path)
	}
	return nil
}
