// Package proxyconfig holds the settings of the HAProxy data plane: how
// HAProxy is configured and run (Config), how each setting's text becomes
// its field (Settings), and every rule those values must meet, alone and
// together (Config.Validate). The settings table (internal/settings) names
// each setting's flag, default and help and parses it with Settings; the
// renderer and the process manager (haproxy/, haproxy/runtime/) read a
// validated Config and import nothing of the settings table.
//
// It imports only routecore (the enumerations data-plane settings share
// with route annotations) and internal/settingfield (the kinds of value a
// setting may have).
package proxyconfig

import (
	"time"

	"github.com/routeshift/routeshift/routecore"
)

// Config is how HAProxy is configured and run. Every field comes from a
// router setting (Settings); Validate checks them, and the renderer
// (haproxy.NewRenderer) refuses a Config that fails it.
type Config struct {
	WorkingDir   string
	TemplateFile string
	// BindAddress is the address the public frontends listen on ("" = all).
	BindAddress string
	HTTPPort    int
	HTTPSPort   int
	// HTTPSRedirectPort is the port written into redirects to HTTPS
	// (0: none, so clients use 443); set when clients reach the HTTPS
	// frontend on another port.
	HTTPSRedirectPort int
	// SNIPort and NoSNIPort are internal loopback ports between the TLS
	// frontend and the terminating frontends.
	SNIPort   int
	NoSNIPort int

	// IPMode is v4, v6 or v4v6: the address family of the public
	// listeners when BindAddress is empty.
	IPMode string

	MaxConnections   int
	Threads          int
	Ciphers          string
	StrictSNI        bool
	UseProxyProtocol bool
	// DisableHTTP2 keeps clients on HTTP/1.1; otherwise TLS clients of
	// routes with their own certificate may use HTTP/2.
	DisableHTTP2 bool
	// CipherSuites are the TLS 1.3 suites ("" for the built-in list);
	// Curves the key-exchange groups ("" for OpenSSL's).
	CipherSuites string
	Curves       string
	// SSLMinVersion and SSLMaxVersion bound the TLS versions clients may
	// use (TLSv1.0 ... TLSv1.3; SSLMaxVersion "" for no bound).
	SSLMinVersion string
	SSLMaxVersion string
	// MaxBodySize is the largest request body of HTTP routes, in bytes
	// (0: no limit); a route's max-body-size annotation overrides it.
	MaxBodySize int64
	// BufSize and MaxRewriteSize are HAProxy's buffer size and the part of
	// it kept for header rewrites, in bytes.
	BufSize        int
	MaxRewriteSize int
	// HardStopAfter bounds how long the workers of replaced
	// configurations may keep serving their open connections (0: until
	// the connections end).
	HardStopAfter time.Duration

	ClientTimeout          time.Duration
	ClientFinTimeout       time.Duration
	ConnectTimeout         time.Duration
	ServerTimeout          time.Duration
	ServerFinTimeout       time.Duration
	TunnelTimeout          time.Duration
	SlowlorisHTTPKeepalive time.Duration
	SlowlorisTimeout       time.Duration
	InspectDelay           time.Duration
	BackendCheckInterval   time.Duration

	LoadBalanceAlgorithm    routecore.BalanceAlgorithm
	TCPBalanceScheme        routecore.BalanceAlgorithm
	CookieName              string
	BackendProcessEndpoints EndpointOrder

	EnableCompression bool
	CompressionMIME   string

	// ForwardedHeaders is append, replace, if-none or never: what the
	// router does with X-Forwarded-* headers clients send, unless a route
	// says otherwise.
	ForwardedHeaders routecore.ForwardedHeadersPolicy
	// H1CaseAdjust are header names as HTTP/1 peers that wrongly expect a
	// case must receive them (ROUTER_H1_CASE_ADJUST): in responses to
	// clients, and in requests of routes that ask for it.
	H1CaseAdjust []string

	// ErrorFile503 and ErrorFile404 are HTTP responses HAProxy serves
	// instead of its own 503 and 404 pages; ErrorFile404 also makes
	// requests no route matches answer 404.
	ErrorFile503 string
	ErrorFile404 string

	// DontLogNull, HTTPIgnoreProbes, ContStats and AbortOnClose turn on
	// the HAProxy options of the same names.
	DontLogNull      bool
	HTTPIgnoreProbes bool
	ContStats        bool
	AbortOnClose     bool

	SyslogAddress string
	SyslogFormat  string
	LogLevel      SyslogLevel
	LogFacility   string
	LogMaxLength  int

	StatsPort     int
	StatsUsername string
	StatsPassword string

	// DefaultCertificate is PEM (DEFAULT_CERTIFICATE); else
	// DefaultCertificatePath names a PEM file; else DefaultCertificateDir
	// holds tls.crt (and tls.key); else a self-signed one is generated.
	DefaultCertificate       string
	DefaultCertificatePath   string
	DefaultCertificateDir    string
	DefaultDestinationCAPath string

	// MutualTLSAuth is none, optional or required: whether TLS clients of
	// edge and reencrypt routes are asked for a certificate, and must give
	// one, verified against MutualTLSAuthCA (a PEM bundle, read again
	// every 10 seconds) and the CRLs of MutualTLSAuthCRL (a PEM file, read
	// likewise) and of the distribution points the bundle's certificates
	// name. MutualTLSAuthFilter, when set, is a regular expression the
	// certificate's subject (/C=../O=../CN=..) must match.
	MutualTLSAuth       string
	MutualTLSAuthCA     string
	MutualTLSAuthCRL    string
	MutualTLSAuthFilter string

	ReloadInterval time.Duration
	// StandbyBackends is how many standby backends of each kind the
	// configuration declares, from which HAProxy serves new routes until
	// the reload that loads their own backends (0: none; see
	// runtime.StandbyRoute). Not with TemplateFile.
	StandbyBackends int
}

// TLSVersions are the TLS versions clients may be held to (SSL_MIN_VERSION
// and SSL_MAX_VERSION), oldest first, as HAProxy's ssl-min-ver and
// ssl-max-ver write them.
var TLSVersions = []string{"TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3"}
