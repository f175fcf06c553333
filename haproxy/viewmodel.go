package haproxy

// The HAProxy configuration is printed by Go text/templates
// (templates/*.tmpl, embedded) from the data types of this file. The
// renderer decides everything beforehand (defaults, annotation values,
// weights, server slots, quoting); the templates only print.
//
// Two templates make up the configuration:
//
//   - "haproxy.cfg" receives a *ConfigData and prints conf/haproxy.cfg:
//     global, defaults, frontends, the default 503 backend and the stats
//     listener.
//   - "backend" receives a *BackendData and prints one route's backend; the
//     backends are collected into conf/backends/NNN.cfg.
//
// TEMPLATE_FILE replaces the built-in templates: the file is parsed after
// them, so its top-level text (outside any {{define}}), unless only white
// space, becomes "haproxy.cfg", and a {{define "backend"}} in it replaces
// the backend template. A file that only defines "backend" keeps the built-in
// "haproxy.cfg". The named templates the built-in "haproxy.cfg" uses
// ("http-routing", "passthrough-routing") can be redefined the same way.
//
// The lookup maps (conf/maps/*.map) and the crt-list of route certificates
// are data, not configuration, and are not templated; ConfigData.Maps
// names them.
//
// Contract for custom templates:
//
//   - Every string field is ready to print as one configuration word:
//     values that come from routes are validated or single-quoted with
//     HAProxy's quoting, and never contain line breaks.
//   - A route's server slots (BackendData.Servers) must each be printed as
//     one "server" line named ServerData.Name. The built-in template prints
//     ServerDefaults.Options and ServerData.Options, which are also the
//     options of servers the runtime API adds; with a custom template a
//     backend that needs more slots is reloaded instead. Between reloads the router
//     changes a slot's address, port, weight and state through HAProxy's
//     runtime API, so nothing else in the configuration may depend on them.
//   - Backends must be named BackendData.Name: the lookup maps hold these
//     names. "haproxy.cfg" must define the defaults sections they inherit
//     (BackendData.Defaults: http_route and tcp_route).
//   - Values of the plain-HTTP maps are backend names or
//     RoutingData.Redirect, which asks for a redirect to https.

import (
	"strconv"
	"strings"
)

// ConfigData is the data of the "haproxy.cfg" template.
type ConfigData struct {
	// WorkingDir is the absolute working directory (ROUTER_WORKING_DIR).
	WorkingDir string
	Global     GlobalData
	Defaults   DefaultsData
	// HTTP is the plain-HTTP frontend and HTTPS the TLS frontend on the
	// HTTPS port, which inspects SNI.
	HTTP  *HTTPFrontend
	HTTPS *TLSFrontend
	// Terminating are the TLS-terminating frontends on loopback that
	// HTTPS hands connections to: the one for connections with SNI, then
	// the one for connections without.
	Terminating []TerminatingFrontend
	// Stats is the statistics listener; nil when STATS_PORT is 0.
	Stats *StatsData
	// Maps are the absolute paths of the lookup maps.
	Maps MapPaths
	// DefaultBackend answers requests no route matches.
	DefaultBackend string
	// DefaultStatus is the status DefaultBackend answers with, from the
	// errorfile of Defaults.ErrorFiles: 404 with ROUTER_ERRORFILE_404,
	// else 503, the page routes without an available endpoint answer with
	// too.
	DefaultStatus int
	// DynamicCookieKey is the key HAProxy derives servers' cookies from
	// (the router sets it again through the runtime API after adding a
	// server).
	DynamicCookieKey string
}

// GlobalData is the global section.
type GlobalData struct {
	MaxConn int
	// Threads is nbthread; 0 leaves HAProxy's default (one per CPU).
	Threads int
	// AdminSocket is the runtime API socket (level admin, with
	// expose-fd listeners for hitless reloads).
	AdminSocket string
	// Syslog is nil when ROUTER_SYSLOG_ADDRESS is empty.
	Syslog *SyslogData
	// SSLBindOptions is the value of ssl-default-bind-options.
	SSLBindOptions string
	// Ciphers (TLS 1.2 and older) and CipherSuites (TLS 1.3) are the
	// cipher lists of ROUTER_CIPHERS and ROUTER_CIPHERSUITES; either may
	// be empty. Curves is ROUTER_CURVES, or empty.
	Ciphers, CipherSuites, Curves string
	// BufSize and MaxRewrite are tune.bufsize and tune.maxrewrite.
	BufSize, MaxRewrite int
	// HardStopAfter is the hard-stop-after time, or empty for none.
	HardStopAfter string
	// ServerStateFile is the absolute path of the servers' state the
	// router saves before each reload, which the new worker starts from
	// (load-server-state-from-file in the defaults).
	ServerStateFile string
	// SpreadChecks is the percentage by which health-check intervals are
	// randomly spread, so that checks do not fall due together;
	// MaxSpreadChecks bounds how long after a start or reload any server's
	// first check comes, whatever the check intervals.
	SpreadChecks    int
	MaxSpreadChecks string
	// H1CaseAdjust are the header names of ROUTER_H1_CASE_ADJUST: HAProxy
	// writes HTTP/1 header names in lower case, and these in the case
	// given, in responses to clients and in the requests of routes with
	// BackendData.H1AdjustCase.
	H1CaseAdjust []H1CaseAdjust
}

// H1CaseAdjust is one header name: From in lower case, To as written to
// HTTP/1 peers. Both are HTTP tokens, safe to print.
type H1CaseAdjust struct {
	From, To string
}

// SyslogData says where HAProxy logs go.
type SyslogData struct {
	Address, Facility, Level string
	// MaxLength is the longest log line, in bytes.
	MaxLength int
	// Format is the quoted log-format of request logs; empty means
	// "option httplog".
	Format string
}

// DefaultsData is what every proxy inherits (defaults section "common").
type DefaultsData struct {
	MaxConn  int
	Timeouts Timeouts
	// Compression is nil unless ROUTER_ENABLE_COMPRESSION.
	Compression *CompressionData
	// HTTPBalance and TCPBalance are the balance algorithms of the route
	// defaults sections (http_route, tcp_route).
	HTTPBalance, TCPBalance string
	// CheckTimeout bounds health checks.
	CheckTimeout string
	// Options are HAProxy options (dontlognull, http-ignore-probes,
	// contstats, abortonclose) turned on by the router's settings.
	Options []string
	// ErrorFiles replace HAProxy's error pages: 503 is the router's own
	// page (conf/error-page-503.http) or ROUTER_ERRORFILE_503; 404 is
	// ROUTER_ERRORFILE_404, when set.
	ErrorFiles []ErrorFile
}

// ErrorFile is an HTTP response HAProxy serves for a status.
type ErrorFile struct {
	Status int
	// Path is quoted.
	Path string
}

// Timeouts are HAProxy time values, ready to print.
type Timeouts struct {
	Connect, Client, ClientFin, Server, ServerFin, HTTPRequest, HTTPKeepAlive, Tunnel string
}

// CompressionData turns on gzip compression of responses.
type CompressionData struct {
	Algorithm string
	// Types are quoted MIME types.
	Types []string
}

// HTTPFrontend is the plain-HTTP frontend.
type HTTPFrontend struct {
	// Bind is the listening address, e.g. ":80".
	Bind        string
	AcceptProxy bool
	Routing     RoutingData
}

// TLSFrontend is the TCP frontend on the HTTPS port: it reads the SNI of
// the ClientHello, sends passthrough routes' connections to their backends
// and the rest to the terminating frontends.
type TLSFrontend struct {
	Bind         string
	AcceptProxy  bool
	InspectDelay string
	// SNIMap is the exact-match map from SNI (or "*.<domain>" for
	// wildcard routes) to passthrough backends.
	SNIMap string
	// SNIBackend and NoSNIBackend are the loopback backends that forward
	// to the terminating frontends (with the PROXY protocol).
	SNIBackend, NoSNIBackend string
	// NoOptions are options of the defaults (Defaults.Options) that only
	// HTTP frontends take: this TCP frontend turns them off.
	NoOptions []string
}

// TerminatingFrontend terminates TLS on loopback.
type TerminatingFrontend struct {
	// Name is the frontend's name; Backend the TCP backend of TLSFrontend
	// that forwards to it.
	Name, Backend string
	// Bind is 127.0.0.1:<port>.
	Bind string
	// DefaultCertificate is the certificate served when no route's
	// certificate matches the SNI.
	DefaultCertificate string
	// CrtList is the crt-list of route certificates by SNI; empty for the
	// frontend without SNI.
	CrtList   string
	StrictSNI bool
	Routing   RoutingData
	// ClientAuth asks clients for certificates; nil when
	// ROUTER_MUTUAL_TLS_AUTH is none.
	ClientAuth *ClientAuthData
}

// ClientAuthData is client-certificate authentication on a terminating
// frontend (ROUTER_MUTUAL_TLS_AUTH).
type ClientAuthData struct {
	// Verify is optional or required.
	Verify string
	// CAFile is the router's copy of the client CA bundle; CRLFile that of
	// the CRLs, or empty when there are none. Both are absolute paths of
	// safe characters.
	CAFile, CRLFile string
	// Filter is the quoted regular expression the certificate's subject
	// must match (ROUTER_MUTUAL_TLS_AUTH_FILTER), or empty.
	Filter string
}

// RoutingData is how an HTTP frontend finds a request's backend: the key
// is host (lower case, without port or trailing dot) + path; it is looked
// up in the exact map, then as the longest prefix in the prefix map, then
// both again with the host's first label replaced by "*" (wildcard
// routes).
type RoutingData struct {
	ExactMap, PrefixMap string
	// Redirect is the map value meaning "redirect to https" (plain HTTP
	// only; empty otherwise).
	Redirect string
	// RedirectPort is ":port" when redirects name a port other than 443,
	// else empty.
	RedirectPort string
	// Misdirected answers 421 to HTTP/2 requests for a host other than the
	// connection's SNI name: browsers reuse HTTP/2 connections for every
	// host the certificate covers, and retry elsewhere after a 421.
	Misdirected bool
	// Proto is X-Forwarded-Proto: http or https.
	Proto string
	// Forwarded is ROUTER_SET_FORWARDED_HEADERS, what happens to the
	// X-Forwarded-For, -Host, -Port and -Proto headers clients send:
	// append (the client's address to X-Forwarded-For; the others are
	// set), replace, if-none (each only added when absent) or never
	// (passed on untouched). ForwardedMap maps the backends of routes
	// whose set-forwarded-headers annotation says otherwise to their
	// policy.
	Forwarded, ForwardedMap string
	// ClientAuth, on terminating frontends that ask for client
	// certificates, filters requests by the certificate's subject and
	// passes the certificate to the endpoints in X-SSL-Client-* headers;
	// nil otherwise. X-SSL* headers clients send are always removed.
	ClientAuth *ClientAuthData
}

// StatsData is the statistics listener.
type StatsData struct {
	Bind string
	// Auth is the quoted user:password, empty for no authentication.
	Auth string
}

// MapPaths are the absolute paths of the lookup maps.
type MapPaths struct {
	HTTPExact, HTTPPrefix, HTTPSExact, HTTPSPrefix, SNIPassthrough, CrtList, Forwarded string
}

// BackendData is the data of the "backend" template: one route's backend.
type BackendData struct {
	// Name is be_http:NS:NAME, be_edge_http:NS:NAME, be_secure:NS:NAME or
	// be_tcp:NS:NAME.
	Name string
	// Route is the route's namespace/name.
	Route string
	// Services are the route's services (spec.to, then
	// spec.alternateBackends) with their weights; a name that is not a
	// DNS-1123 label (no Service can have it) is left out.
	Services []ServiceData
	// Defaults is the defaults section the backend inherits: http_route
	// or tcp_route.
	Defaults string
	// Balance is the balance algorithm when it differs from the defaults
	// section's; empty otherwise.
	Balance string
	// H1AdjustCase writes the header names of GlobalData.H1CaseAdjust in
	// their cases in HTTP/1 requests to the endpoints (the route's
	// h1-adjust-case annotation; false without ROUTER_H1_CASE_ADJUST).
	H1AdjustCase bool
	// Unavailable says why the route cannot be served safely (for
	// example a destination CA without a certificate); the backend then
	// has no servers, so HAProxy answers 503 or closes the connection.
	// Empty for routes that are served.
	Unavailable string
	// Cookie is nil when the backend sets no sticky-session cookie.
	Cookie *CookieData
	// TimeoutServer and TimeoutTunnel override the defaults; empty when
	// the route sets none.
	TimeoutServer, TimeoutTunnel string
	// AllowList is nil when every source may connect.
	AllowList *AllowListData
	// DenyList is nil when no source is refused (ip-denylist).
	DenyList *AllowListData
	// BasicAuth is nil unless requests must bring a user's credentials;
	// its userlist section precedes the backend.
	BasicAuth *BasicAuthData
	// RateLimit is nil without the rate-limit-connections annotation.
	RateLimit *RateLimitData
	// BodyLimit is nil when request bodies are not limited.
	BodyLimit *BodyLimitData
	// HTTPSRedirect redirects plain HTTP to HTTPS with the route's own
	// status, or is nil.
	HTTPSRedirect *HTTPSRedirectData
	// AppRoot is the quoted path requests for / are redirected to, or
	// empty.
	AppRoot string
	// Redirect redirects every request (redirect-to), or is nil.
	Redirect *RedirectData
	// WWWRedirect redirects requests for the route's other host
	// (www-redirect), or is nil.
	WWWRedirect *WWWRedirectData
	// Canary is the header and cookie canary (canary-backend), or nil.
	Canary *CanaryData
	// HSTS is the quoted Strict-Transport-Security value, or empty. It
	// goes on responses to requests that came over TLS only (RFC 6797
	// §7.2): edge routes with insecure policy Allow also serve plain HTTP.
	HSTS string
	// RewritePath rewrites request paths (annotation rewrite-target), or
	// is nil.
	RewritePath *RewritePathData
	// RequestHeaders and ResponseHeaders are spec.httpHeaders actions, in
	// order.
	RequestHeaders, ResponseHeaders []HeaderAction
	// ServerDefaults are printed as the backend's default-server line;
	// nil when there is nothing to print.
	ServerDefaults *ServerDefaults
	// Servers are the server slots.
	Servers []ServerData
}

// CookieData is the sticky-session cookie. Server cookie values are
// dynamic: HAProxy derives them from each server's address and port and
// the dynamic-cookie-key of the defaults section, so they are the same on
// every router and follow address changes made through the runtime API.
type CookieData struct {
	Name string
	// Secure adds "secure" and SameSite (Lax, Strict or None) the
	// SameSite attribute; SameSite is empty when Secure is false.
	Secure   bool
	SameSite string
}

// AllowListData restricts the source addresses that may connect.
type AllowListData struct {
	// Inline lists addresses and CIDRs (canonical form); File names a
	// file of them instead, for long lists.
	Inline []string
	File   string
}

// RateLimitData limits connections and requests per source address.
type RateLimitData struct {
	// Store is the stick-table's data types.
	Store string
	// Thresholds; 0 means no limit of that kind.
	ConcurrentTCP, RateTCP, RateHTTP int32
	// Exempt lists the sources not counted (rate-limit-exempt), or is nil.
	Exempt *AllowListData
	// Answer makes the limits answer HTTP requests instead of closing
	// the connection (rate-limit-status), or is nil.
	Answer *RateLimitAnswerData
}

// HeaderAction sets or deletes a request or response header.
type HeaderAction struct {
	// Verb is set-header or del-header.
	Verb string
	// Name is the quoted header name; Value the quoted HAProxy format
	// string (empty for del-header).
	Name, Value string
}

// ServerDefaults are the options every server slot of a backend shares.
type ServerDefaults struct {
	// CheckInterval configures health checks on every slot (see
	// ServerData.Checked); empty when the backend has no slots.
	CheckInterval string
	// MaxConn caps connections per server; 0 for no cap.
	MaxConn int32
	// SSL is nil for plain connections to the endpoints (reencrypt
	// routes have it).
	SSL *ServerSSL
}

// RewritePathData is an http-request replace-path rule: Regex and
// Replacement are quoted; Replacement is a log-format string.
type RewritePathData struct {
	Regex, Replacement string
}

// ServerSSL is how reencrypt routes talk TLS to their endpoints.
type ServerSSL struct {
	// Verify is required or none; CAFile is set when required.
	Verify string
	CAFile string
}

// ServiceData is one service of a route. Namespace and Name are DNS-1123
// labels, safe to print unquoted.
type ServiceData struct {
	Namespace, Name string
	// Weight is the service's weight in the route, 0 to 256.
	Weight int32
}

// ServerData is one server slot. Slots without an endpoint (left by an
// endpoint that went away, or the one slot of a service without any) are
// disabled and point at a placeholder address; the runtime API fills them,
// or adds slots, when endpoints come.
type ServerData struct {
	// Name is s0, s1, ...
	Name string
	// Service is the namespace/name of the service whose endpoint the
	// slot holds (empty when the name is not a DNS-1123 label).
	Service string
	// Endpoint is Address and Port as HAProxy writes them: 10.0.0.1:8080,
	// [fd00::1]:8080.
	Endpoint string
	Address  string
	Port     int32
	// Weight is 0 to 256 (1 in disabled slots, where it is not printed:
	// the runtime API sets it when it enables the slot).
	Weight  int32
	Enabled bool
	// Checked is whether HAProxy health-checks the slot. Every slot is
	// configured with checks, so that endpoints can come and go without a
	// reload; the router turns them off at runtime where OpenShift's router
	// has none: in a backend with only one enabled endpoint.
	Checked bool
	// VerifyHost is the quoted host name the endpoint's certificate must
	// carry, or empty.
	VerifyHost string
	// Proto is "h2" when the endpoint speaks cleartext HTTP/2 (an HTTP or
	// edge route to a port with appProtocol h2c or kubernetes.io/h2c),
	// else empty: HTTP/1.1.
	Proto string
	// ALPN is "h2,http/1.1" when the TLS connection to the endpoint offers
	// HTTP/2 (a reencrypt route to a port with appProtocol h2), else
	// empty: HTTP/1.1 over TLS without ALPN.
	ALPN string
}

// Options are the words of the backend's default-server line: what every
// slot is configured with. Servers added through the runtime API get the
// same words, as HAProxy applies no default-server to them.
func (d *ServerDefaults) Options() string {
	var opts []string
	if d.CheckInterval != "" {
		opts = append(opts, "check", "inter", d.CheckInterval)
	}
	if d.MaxConn > 0 {
		opts = append(opts, "maxconn", strconv.Itoa(int(d.MaxConn)))
	}
	if d.SSL != nil {
		opts = append(opts, "ssl", "verify", d.SSL.Verify)
		if d.SSL.CAFile != "" {
			opts = append(opts, "ca-file", d.SSL.CAFile)
		}
	}
	return strings.Join(opts, " ")
}

// Options are the words of the slot's server line beyond its name,
// address, weight and state.
func (s ServerData) Options() string {
	var opts []string
	if s.VerifyHost != "" {
		opts = append(opts, "verifyhost", s.VerifyHost)
	}
	if s.Proto != "" {
		opts = append(opts, "proto", s.Proto)
	}
	if s.ALPN != "" {
		opts = append(opts, "alpn", s.ALPN)
	}
	return strings.Join(opts, " ")
}

// serverOptions are the options a slot gets from the default-server line
// and its server line but its address and weight: what the runtime API
// adds a server with.
func serverOptions(d *ServerDefaults, s ServerData) string {
	var opts []string
	if d != nil {
		opts = append(opts, d.Options())
	}
	opts = append(opts, s.Options())
	return strings.TrimSpace(strings.Join(opts, " "))
}
