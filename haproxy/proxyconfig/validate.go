package proxyconfig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Validate returns nil when every setting meets its rule (Settings) and
// the settings agree with each other, else every reason, each starting
// with the setting it concerns. It reads the error files
// (ROUTER_ERRORFILE_503, ROUTER_ERRORFILE_404), which must hold HTTP
// responses HAProxy can load.
func (c Config) Validate() error {
	var errs []error
	for _, s := range Settings {
		if err := s.Field.Check(&c); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, err))
		}
	}
	return errors.Join(append(errs, c.crossChecks()...)...)
}

// crossChecks are the rules between settings.
func (c Config) crossChecks() []error {
	var errs []error
	bad := func(setting, format string, args ...any) {
		errs = append(errs, fmt.Errorf(setting+": "+format, args...))
	}
	for _, p := range []struct{ env, path string }{{"ROUTER_ERRORFILE_503", c.ErrorFile503}, {"ROUTER_ERRORFILE_404", c.ErrorFile404}} {
		if p.path == "" {
			continue
		}
		if err := checkErrorFile(p.path, c.BufSize-c.MaxRewriteSize); err != nil {
			bad(p.env, "%w", err)
		}
	}
	if !c.DisableHTTP2 && c.BufSize < 16384 {
		bad("ROUTER_BUF_SIZE", "%d is too small for HTTP/2 (ROUTER_DISABLE_HTTP2=false), which needs 16384", c.BufSize)
	}
	if c.MaxRewriteSize > c.BufSize/2 {
		bad("ROUTER_MAX_REWRITE_SIZE", "%d is more than half of ROUTER_BUF_SIZE (%d)", c.MaxRewriteSize, c.BufSize)
	}
	if newest := slices.Index(TLSVersions, c.SSLMaxVersion); newest >= 0 && newest < slices.Index(TLSVersions, c.SSLMinVersion) {
		bad("SSL_MAX_VERSION", "%s is older than SSL_MIN_VERSION (%s)", c.SSLMaxVersion, c.SSLMinVersion)
	}
	ports := map[int]string{}
	for _, p := range []struct {
		env  string
		port int
	}{{"ROUTER_SERVICE_HTTP_PORT", c.HTTPPort}, {"ROUTER_SERVICE_HTTPS_PORT", c.HTTPSPort},
		{"ROUTER_SERVICE_SNI_PORT", c.SNIPort}, {"ROUTER_SERVICE_NO_SNI_PORT", c.NoSNIPort}, {"STATS_PORT", c.StatsPort}} {
		switch {
		case p.port == 0 && p.env == "STATS_PORT":
		case ports[p.port] != "":
			bad(p.env, "port %d is also %s", p.port, ports[p.port])
		default:
			ports[p.port] = p.env
		}
	}
	if c.ClientAuthOn() {
		if c.MutualTLSAuthCA == "" {
			bad("ROUTER_MUTUAL_TLS_AUTH_CA", "must name the PEM bundle of the certificate authorities "+
				"that issue client certificates when ROUTER_MUTUAL_TLS_AUTH is %s", c.MutualTLSAuth)
		}
		for _, p := range []struct{ env, path string }{{"ROUTER_MUTUAL_TLS_AUTH_CA", c.MutualTLSAuthCA}, {"ROUTER_MUTUAL_TLS_AUTH_CRL", c.MutualTLSAuthCRL}} {
			if err := absolutePath(p.path); err != nil {
				bad(p.env, "%w", err)
			}
		}
	}
	if c.EnableCompression && len(strings.Fields(c.CompressionMIME)) == 0 {
		bad("ROUTER_COMPRESSION_MIME", "must list at least one MIME type")
	}
	return errs
}

// ClientAuthOn reports whether TLS clients of edge and reencrypt routes are
// asked for a certificate (ROUTER_MUTUAL_TLS_AUTH optional or required).
func (c Config) ClientAuthOn() bool {
	return c.MutualTLSAuth == "optional" || c.MutualTLSAuth == "required"
}

// checkErrorFile checks that path names a complete HTTP response HAProxy
// can load: an absolute PathSafe path, a regular file no larger than limit
// bytes, starting with an HTTP/1.x status line.
func checkErrorFile(path string, limit int) error {
	if err := absolutePath(path); err != nil {
		return err
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

// AbsWorkingDir returns c with WorkingDir made absolute (Validate has
// checked that it can be).
func (c Config) AbsWorkingDir() Config {
	if dir, err := filepath.Abs(c.WorkingDir); err == nil {
		c.WorkingDir = dir
	}
	return c
}
