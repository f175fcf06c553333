package haproxy

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/routecore"
)

// ServiceCAPath is where OpenShift mounts its service CA into every pod,
// and the default of DEFAULT_DESTINATION_CA_PATH: the same file in the
// same place verifies reencrypt endpoints on either platform.
const ServiceCAPath = "/var/run/secrets/kubernetes.io/serviceaccount/service-ca.crt"

// Config is everything a router instance is told: its identity for status,
// what it admits, and how HAProxy serves. Every field comes from one entry
// of Settings, set by an environment variable (the seeds' names) or the
// matching flag; flags win.
type Config struct {
	// Name is the router's name in route status (ROUTER_SERVICE_NAME).
	Name string
	// Namespace is where the router runs (ROUTER_SERVICE_NAMESPACE): its
	// leader election Lease lives there.
	Namespace string
	// CanonicalHostname is reported in status (ROUTER_CANONICAL_HOSTNAME).
	CanonicalHostname string
	// UpdateStatus writes route status (ROUTER_UPDATE_STATUS).
	UpdateStatus bool

	Admission AdmissionConfig
	DataPlane DataPlaneConfig
}

// DataPlaneConfig is how HAProxy is configured and run.
type DataPlaneConfig struct {
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

	LoadBalanceAlgorithm    string
	TCPBalanceScheme        string
	CookieName              string
	BackendProcessEndpoints string

	EnableCompression bool
	CompressionMIME   string

	// ForwardedHeaders is append, replace, if-none or never: what the
	// router does with X-Forwarded-* headers clients send.
	ForwardedHeaders string

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
	LogLevel      string
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

	ReloadInterval     time.Duration
	BindPortsAfterSync bool

	// ListenAddr serves /healthz, /healthz/ready and /metrics.
	ListenAddr string
	// MetricsType is "haproxy" (the only type) or "" for router metrics only.
	MetricsType string
	// MetricsAuth is who may read /metrics: MetricsAuthKubernetes,
	// MetricsAuthBasic or MetricsAuthNone (AddFlags resolves "auto").
	MetricsAuth             string
	MetricsServerThreshold  int
	MetricsScrapeInterval   time.Duration
	MetricsTimeout          time.Duration
	MetricsExportedCSVIndex []int
}

// Setting is one router setting: its environment variable (as the seeds
// name it), its flag, its default, what it does, and how its value is
// parsed into a Config.
type Setting struct {
	Env     string
	Flag    string
	Default string
	Help    string
	parse   func(c *Config, value string) error
}

// IsBool reports whether the setting is a switch: its default is true or
// false (TestBooleanSettings holds every boolean setting to that), and its
// flag given alone means true.
func (s Setting) IsBool() bool { return s.Default == "true" || s.Default == "false" }

// Settings lists every setting of `routeshift router` and `render`, in the
// order of the documentation.
var Settings = []Setting{
	// Identity and status.
	{"ROUTER_SERVICE_NAME", "name", "public", "name of the router in route status (routerName)", str(func(c *Config) *string { return &c.Name })},
	{"ROUTER_SERVICE_NAMESPACE", "namespace", "", "namespace the router runs in; its leader election Lease is kept there (default: $POD_NAMESPACE)", str(func(c *Config) *string { return &c.Namespace })},
	{"ROUTER_CANONICAL_HOSTNAME", "router-canonical-hostname", "", "host name of the router reported in route status, for CNAME records", canonicalHostname},
	{"ROUTER_UPDATE_STATUS", "update-status", "true", "write route status", boolean(func(c *Config) *bool { return &c.UpdateStatus })},

	// Shard and admission.
	{"ROUTE_LABELS", "labels", "", "label selector of the routes to serve (empty: all)", selector(func(c *Config) *labels.Selector { return &c.Admission.RouteSelector })},
	{"NAMESPACE_LABELS", "namespace-labels", "", "label selector of the namespaces whose routes to serve (empty: all)", selector(func(c *Config) *labels.Selector { return &c.Admission.NamespaceSelector })},
	{"PROJECT_LABELS", "project-labels", "", "alias of NAMESPACE_LABELS (OpenShift projects are namespaces)", projectLabels},
	{"ROUTER_ALLOWED_DOMAINS", "allowed-domains", "", "comma-separated domains hosts must be in (subdomains included); ROUTER_DENIED_DOMAINS wins", domains(func(c *Config) *DomainList { return &c.Admission.AllowedDomains })},
	{"ROUTER_DENIED_DOMAINS", "denied-domains", "", "comma-separated domains hosts must not be in (subdomains included)", domains(func(c *Config) *DomainList { return &c.Admission.DeniedDomains })},
	{"ROUTER_ALLOW_WILDCARD_ROUTES", "allow-wildcard-routes", "false", "admit routes with wildcardPolicy Subdomain", boolean(func(c *Config) *bool { return &c.Admission.AllowWildcardRoutes })},
	{"ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK", "disable-namespace-ownership-check", "false", "let any namespace claim hosts and subdomains; only exact host+path claims conflict (use with care)", boolean(func(c *Config) *bool { return &c.Admission.DisableNamespaceOwnershipCheck })},
	{"EXTENDED_VALIDATION", "extended-validation", "true", "check route certificates; failures are reported as ExtendedValidationFailed", boolean(func(c *Config) *bool { return &c.Admission.ExtendedValidation })},
	{"ROUTER_SUBDOMAIN", "hostname-template", "", "host of routes without one, with ${name} and ${namespace}, e.g. ${name}-${namespace}.apps.example.com", hostnameTemplate},
	{"ROUTER_OVERRIDE_HOSTNAME", "override-hostname", "false", "replace every route's host with ROUTER_SUBDOMAIN", boolean(func(c *Config) *bool { return &c.Admission.OverrideHostname })},
	{"ROUTER_OVERRIDE_DOMAINS", "override-domains", "", "comma-separated domains whose routes get ROUTER_SUBDOMAIN as host", domains(func(c *Config) *DomainList { return &c.Admission.OverrideDomains })},
	{"ROUTER_DOMAIN", "router-domain", "", "domain that completes spec.subdomain into a host", str(func(c *Config) *string { return &c.Admission.RouterDomain })},
	{"ROUTER_ALLOW_LOOPBACK_ENDPOINTS", "allow-loopback-endpoints", "false", "route to endpoints on loopback addresses, for tests on one machine (the API server refuses loopback addresses in EndpointSlices); never enable on a cluster", boolean(func(c *Config) *bool { return &c.Admission.AllowLoopbackEndpoints })},

	// Listeners.
	{"ROUTER_BIND_ADDRESS", "bind-address", "", "address the HTTP and HTTPS frontends listen on (empty: all)", str(func(c *Config) *string { return &c.DataPlane.BindAddress })},
	{"ROUTER_IP_V4_V6_MODE", "ip-v4-v6-mode", "v4", "addresses the HTTP, HTTPS and stats listeners accept when ROUTER_BIND_ADDRESS is empty: v4 (IPv4 only), v6 (IPv6 only) or v4v6 (both)", oneOf(func(c *Config) *string { return &c.DataPlane.IPMode }, "v4", "v6", "v4v6")},
	{"ROUTER_SERVICE_HTTP_PORT", "http-port", "80", "port for HTTP", port(func(c *Config) *int { return &c.DataPlane.HTTPPort })},
	{"ROUTER_SERVICE_HTTPS_PORT", "https-port", "443", "port for HTTPS and TLS", port(func(c *Config) *int { return &c.DataPlane.HTTPSPort })},
	{"ROUTER_HTTPS_REDIRECT_PORT", "https-redirect-port", "0", "port written into the redirects of insecureEdgeTerminationPolicy Redirect (0: none, clients use 443); set it when clients reach HTTPS on another port (routeshift extension)", portOrZero(func(c *Config) *int { return &c.DataPlane.HTTPSRedirectPort })},
	{"ROUTER_SERVICE_SNI_PORT", "sni-port", "10444", "internal loopback port of the TLS-terminating frontend for SNI traffic; unique per machine", port(func(c *Config) *int { return &c.DataPlane.SNIPort })},
	{"ROUTER_SERVICE_NO_SNI_PORT", "no-sni-port", "10443", "internal loopback port of the TLS-terminating frontend for traffic without SNI; unique per machine", port(func(c *Config) *int { return &c.DataPlane.NoSNIPort })},
	{"ROUTER_USE_PROXY_PROTOCOL", "use-proxy-protocol", "false", "expect the PROXY protocol on the HTTP and HTTPS ports", boolean(func(c *Config) *bool { return &c.DataPlane.UseProxyProtocol })},
	{"ROUTER_BIND_PORTS_AFTER_SYNC", "bind-ports-after-sync", "false", "listen only once the first complete configuration is loaded", boolean(func(c *Config) *bool { return &c.DataPlane.BindPortsAfterSync })},

	// TLS.
	{"DEFAULT_CERTIFICATE", "default-certificate", "", "PEM certificate and key served to TLS clients no route claims", str(func(c *Config) *string { return &c.DataPlane.DefaultCertificate })},
	{"DEFAULT_CERTIFICATE_PATH", "default-certificate-path", "", "file with the default certificate and key (if DEFAULT_CERTIFICATE is empty)", str(func(c *Config) *string { return &c.DataPlane.DefaultCertificatePath })},
	{"DEFAULT_CERTIFICATE_DIR", "default-certificate-dir", "", "directory with tls.crt (and tls.key) of the default certificate (if the two above are empty); checked every 10s and loaded when renewed", str(func(c *Config) *string { return &c.DataPlane.DefaultCertificateDir })},
	{"DEFAULT_DESTINATION_CA_PATH", "default-destination-ca-path", ServiceCAPath, "CA file that verifies the endpoints of reencrypt routes without destinationCACertificate (OpenShift's service CA where it exists), read every 10s: a rotated CA is loaded with a hitless reload; while the file does not exist such endpoints are not verified", str(func(c *Config) *string { return &c.DataPlane.DefaultDestinationCAPath })},
	{"ROUTER_CIPHERS", "ciphers", "intermediate", "cipher profile (modern, intermediate, old: Mozilla's current TLS 1.2 lists, intermediate without CBC suites) or a ':'-separated OpenSSL cipher list", ciphers},
	{"ROUTER_DISABLE_HTTP2", "disable-http2", "true", "false lets TLS clients of edge and reencrypt routes with their own certificate use HTTP/2 (ALPN h2); endpoints are still spoken to in HTTP/1.1, and connections with the default certificate stay HTTP/1.1, since browsers would reuse them for other hosts", boolean(func(c *Config) *bool { return &c.DataPlane.DisableHTTP2 })},
	{"ROUTER_CIPHERSUITES", "ciphersuites", "", "':'-separated TLS 1.3 cipher suites (empty: TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 and TLS_CHACHA20_POLY1305_SHA256)", str(func(c *Config) *string { return &c.DataPlane.CipherSuites })},
	{"ROUTER_CURVES", "curves", "", "':'-separated key-exchange groups offered to TLS clients, e.g. X25519:P-256 (empty: OpenSSL's)", str(func(c *Config) *string { return &c.DataPlane.Curves })},
	{"SSL_MIN_VERSION", "ssl-min-version", "TLSv1.2", "oldest TLS version clients may use: TLSv1.0, TLSv1.1, TLSv1.2 or TLSv1.3", oneOf(func(c *Config) *string { return &c.DataPlane.SSLMinVersion }, tlsVersions...)},
	{"SSL_MAX_VERSION", "ssl-max-version", "", "newest TLS version clients may use (empty: the newest HAProxy supports)", oneOf(func(c *Config) *string { return &c.DataPlane.SSLMaxVersion }, append([]string{""}, tlsVersions...)...)},
	{"ROUTER_STRICT_SNI", "strict-sni", "false", "refuse TLS connections whose SNI no route claims instead of serving the default certificate", boolean(func(c *Config) *bool { return &c.DataPlane.StrictSNI })},

	// Capacity.
	{"ROUTER_MAX_CONNECTIONS", "max-connections", "20000", "maximum concurrent connections", positive(func(c *Config) *int { return &c.DataPlane.MaxConnections })},
	{"ROUTER_THREADS", "threads", "0", "HAProxy threads (0: HAProxy's default, one per CPU)", nonNegative(func(c *Config) *int { return &c.DataPlane.Threads })},
	{"ROUTER_BUF_SIZE", "buf-size", "32768", "HAProxy's buffer size in bytes (tune.bufsize): a request's headers must fit in it, less ROUTER_MAX_REWRITE_SIZE", integer(func(c *Config) *int { return &c.DataPlane.BufSize }, 2048, 1<<20, "a number of bytes from 2048 to 1048576")},
	{"ROUTER_MAX_REWRITE_SIZE", "max-rewrite-size", "8192", "bytes of the buffer kept for adding and rewriting headers (tune.maxrewrite), at most half of ROUTER_BUF_SIZE", integer(func(c *Config) *int { return &c.DataPlane.MaxRewriteSize }, 0, 1<<19, "a number of bytes from 0 to 524288")},

	// Timeouts (TimeUnits).
	{"ROUTER_DEFAULT_CLIENT_TIMEOUT", "default-client-timeout", "30s", "time within which a client must acknowledge or send data", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.ClientTimeout })},
	{"ROUTER_CLIENT_FIN_TIMEOUT", "client-fin-timeout", "1s", "time to wait for the client's FIN", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.ClientFinTimeout })},
	{"ROUTER_DEFAULT_CONNECT_TIMEOUT", "default-connect-timeout", "5s", "maximum time to connect to a backend", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.ConnectTimeout })},
	{"ROUTER_DEFAULT_SERVER_TIMEOUT", "default-server-timeout", "30s", "time within which a backend must acknowledge or send data (annotation haproxy.router.openshift.io/timeout overrides it per route)", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.ServerTimeout })},
	{"ROUTER_DEFAULT_SERVER_FIN_TIMEOUT", "default-server-fin-timeout", "1s", "time to wait for the backend's FIN", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.ServerFinTimeout })},
	{"ROUTER_DEFAULT_TUNNEL_TIMEOUT", "default-tunnel-timeout", "1h", "how long idle TCP and WebSocket connections stay open", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.TunnelTimeout })},
	{"ROUTER_SLOWLORIS_HTTP_KEEPALIVE", "slowloris-http-keepalive", "300s", "time to wait for a new HTTP request on a kept-alive connection", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.SlowlorisHTTPKeepalive })},
	{"ROUTER_SLOWLORIS_TIMEOUT", "slowloris-timeout", "10s", "time an HTTP request may take to arrive", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.SlowlorisTimeout })},
	{"ROUTER_INSPECT_DELAY", "inspect-delay", "5s", "time to wait for a TLS ClientHello on the HTTPS port", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.InspectDelay })},
	{"ROUTER_HARD_STOP_AFTER", "hard-stop-after", "", "time after a reload when HAProxy closes the connections the previous configuration still serves, e.g. 1h (empty: they stay open until they end)", optionalTimeUnit(func(c *Config) *time.Duration { return &c.DataPlane.HardStopAfter })},
	{"ROUTER_BACKEND_CHECK_INTERVAL", "backend-check-interval", "5000ms", "interval of endpoint health checks (annotation router.openshift.io/haproxy.health.check.interval overrides it)", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.BackendCheckInterval })},

	// Balancing and sessions.
	{"ROUTER_LOAD_BALANCE_ALGORITHM", "load-balance-algorithm", "leastconn", "balance algorithm of HTTP, edge and reencrypt routes with one active service (several weighted services get roundrobin): roundrobin, leastconn, source or random", balance(func(c *Config) *string { return &c.DataPlane.LoadBalanceAlgorithm })},
	{"ROUTER_TCP_BALANCE_SCHEME", "tcp-balance-scheme", "source", "balance algorithm of passthrough routes with one active service (several weighted services get roundrobin): roundrobin, leastconn, source or random", balance(func(c *Config) *string { return &c.DataPlane.TCPBalanceScheme })},
	{"ROUTER_COOKIE_NAME", "cookie-name", "", "name of every route's sticky-session cookie (default: a hash of the route)", cookieName},
	{"ROUTER_BACKEND_PROCESS_ENDPOINTS", "backend-process-endpoints", "", `"shuffle" randomises the order in which new endpoints take server slots (endpoints keep their slots while they stay)`, oneOf(func(c *Config) *string { return &c.DataPlane.BackendProcessEndpoints }, "", "shuffle")},

	// Responses.
	{"ROUTER_ENABLE_COMPRESSION", "enable-compression", "false", "compress responses of the ROUTER_COMPRESSION_MIME types", boolean(func(c *Config) *bool { return &c.DataPlane.EnableCompression })},
	{"ROUTER_COMPRESSION_MIME", "compression-mime", "text/html text/plain text/css", "space-separated MIME types to compress", str(func(c *Config) *string { return &c.DataPlane.CompressionMIME })},
	{"ROUTER_SET_FORWARDED_HEADERS", "set-forwarded-headers", "append", "X-Forwarded-For, -Host, -Port and -Proto headers: append (the client's address to X-Forwarded-For; the others set), replace (all set, whatever the client sent), if-none (set only when the client sent none) or never (left as the client sent them)", oneOf(func(c *Config) *string { return &c.DataPlane.ForwardedHeaders }, "append", "replace", "if-none", "never")},
	{"ROUTER_ERRORFILE_503", "errorfile-503", "", "file with the complete HTTP response (status line, headers, body) sent instead of HAProxy's 503 page: no route matches, or a route has no available endpoint", str(func(c *Config) *string { return &c.DataPlane.ErrorFile503 })},
	{"ROUTER_ERRORFILE_404", "errorfile-404", "", "file with the complete HTTP response sent when no route matches a request, which then answers 404 instead of 503", str(func(c *Config) *string { return &c.DataPlane.ErrorFile404 })},
	{"ROUTER_DONT_LOG_NULL", "dont-log-null", "false", "do not log connections that send no data (HAProxy option dontlognull)", boolean(func(c *Config) *bool { return &c.DataPlane.DontLogNull })},
	{"ROUTER_HTTP_IGNORE_PROBES", "http-ignore-probes", "false", "neither log nor answer connections closed before sending a request, as browsers' pre-connects do (option http-ignore-probes)", boolean(func(c *Config) *bool { return &c.DataPlane.HTTPIgnoreProbes })},
	{"ROUTER_HAPROXY_CONTSTATS", "haproxy-contstats", "false", "count the traffic of long transfers continuously, not only when they end (option contstats)", boolean(func(c *Config) *bool { return &c.DataPlane.ContStats })},
	{"ROUTER_ABORT_ON_CLOSE", "abort-on-close", "false", "drop requests whose client has gone away before they reach a backend (option abortonclose)", boolean(func(c *Config) *bool { return &c.DataPlane.AbortOnClose })},

	// Logging.
	{"ROUTER_SYSLOG_ADDRESS", "syslog-address", "", "syslog server for HAProxy's logs (empty: no logs)", str(func(c *Config) *string { return &c.DataPlane.SyslogAddress })},
	{"ROUTER_SYSLOG_FORMAT", "syslog-format", "", "HAProxy log-format of request logs (default: option httplog)", str(func(c *Config) *string { return &c.DataPlane.SyslogFormat })},
	{"ROUTER_LOG_FACILITY", "log-facility", "local1", "syslog facility of HAProxy's logs", oneOf(func(c *Config) *string { return &c.DataPlane.LogFacility }, syslogFacilities...)},
	{"ROUTER_LOG_MAX_LENGTH", "log-max-length", "1024", "longest log line sent to the syslog server, in bytes (longer ones are cut)", integer(func(c *Config) *int { return &c.DataPlane.LogMaxLength }, 80, 65535, "a number of bytes from 80 to 65535")},
	{"ROUTER_LOG_LEVEL", "log-level-haproxy", "warning", "level of logs sent to the syslog server", oneOf(func(c *Config) *string { return &c.DataPlane.LogLevel }, "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug")},

	// Stats and metrics.
	{"STATS_PORT", "stats-port", "0", "port of HAProxy's statistics page (0: not exposed)", portOrZero(func(c *Config) *int { return &c.DataPlane.StatsPort })},
	{"STATS_USERNAME", "stats-user", "", "user name protecting the statistics page", str(func(c *Config) *string { return &c.DataPlane.StatsUsername })},
	{"STATS_PASSWORD", "stats-password", "", "password protecting the statistics page", str(func(c *Config) *string { return &c.DataPlane.StatsPassword })},
	{"STATS_USERNAME_FILE", "stats-user-file", "", "file whose content (one line) replaces STATS_USERNAME, e.g. a mounted Secret key", fileContent(func(c *Config) *string { return &c.DataPlane.StatsUsername })},
	{"STATS_PASSWORD_FILE", "stats-password-file", "", "file whose content (one line) replaces STATS_PASSWORD, e.g. a mounted Secret key", fileContent(func(c *Config) *string { return &c.DataPlane.StatsPassword })},
	{"ROUTER_LISTEN_ADDR", "listen-addr", "0.0.0.0:1936", "address of /healthz, /healthz/ready and /metrics", str(func(c *Config) *string { return &c.DataPlane.ListenAddr })},
	{"ROUTER_METRICS_TYPE", "metrics-type", "haproxy", `"haproxy" adds HAProxy's counters to /metrics (the only type); the flag set empty (--metrics-type=) leaves them out`, oneOf(func(c *Config) *string { return &c.DataPlane.MetricsType }, "", "haproxy")},
	{"ROUTER_METRICS_AUTH", "metrics-auth", "auto", "who may read /metrics: kubernetes (a bearer token whose user may get routers/metrics named ROUTER_SERVICE_NAME in route.openshift.io, checked with a TokenReview and a SubjectAccessReview, as OpenShift's router does), basic (STATS_USERNAME and STATS_PASSWORD), none (anyone who reaches ROUTER_LISTEN_ADDR), or auto: basic when both are set, else kubernetes; /healthz and /healthz/ready stay open (routeshift extension)", oneOf(func(c *Config) *string { return &c.DataPlane.MetricsAuth }, "auto", MetricsAuthKubernetes, MetricsAuthBasic, MetricsAuthNone)},
	{"ROUTER_METRICS_HAPROXY_SERVER_THRESHOLD", "metrics-haproxy-server-threshold", "500", "above this many servers, per-server metrics are replaced by per-backend ones", positive(func(c *Config) *int { return &c.DataPlane.MetricsServerThreshold })},
	{"ROUTER_METRICS_HAPROXY_BASE_SCRAPE_INTERVAL", "metrics-haproxy-base-scrape-interval", "5s", "interval of HAProxy statistics scrapes, per 1000 rows", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.MetricsScrapeInterval })},
	{"ROUTER_METRICS_HAPROXY_TIMEOUT", "metrics-haproxy-timeout", "5s", "timeout of a HAProxy statistics scrape", timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.MetricsTimeout })},
	{"ROUTER_METRICS_HAPROXY_EXPORTED", "metrics-haproxy-exported", "2,4,5,7,8,9,13,14,17,21,24,33,35,40,43,60", "comma-separated HAProxy CSV columns exported as metrics; columns outside the default list have no metric and are ignored", csvIndexes},

	// Configuration and reloads.
	{"ROUTER_WORKING_DIR", "working-dir", "/var/lib/routeshift", "directory for haproxy.cfg, maps, certificates (0600) and sockets", str(func(c *Config) *string { return &c.DataPlane.WorkingDir })},
	{"TEMPLATE_FILE", "template", "", "Go template that replaces the built-in haproxy.cfg template (see docs for the data it receives)", str(func(c *Config) *string { return &c.DataPlane.TemplateFile })},
	{"RELOAD_INTERVAL", "interval", "5s", "minimum time between reloads: the first change applies at once, later ones within the interval are batched", reloadInterval},
}

// Superseded lists the router variables of OpenShift (the seeds' and later
// releases') that have no effect here, with the reason, so that a router
// started with one set can say so.
var Superseded = map[string]string{
	"ROUTER_CAPTURE_HTTP_REQUEST_HEADERS":  "headers are not captured into logs; ROUTER_SYSLOG_FORMAT sets what request logs hold",
	"ROUTER_CAPTURE_HTTP_RESPONSE_HEADERS": "headers are not captured into logs; ROUTER_SYSLOG_FORMAT sets what request logs hold",
	"ROUTER_CAPTURE_HTTP_COOKIE":           "cookies are not captured into logs; ROUTER_SYSLOG_FORMAT sets what request logs hold",
	"ROUTER_UNIQUE_ID_HEADER_NAME":         "no unique request ID is added",
	"ROUTER_UNIQUE_ID_FORMAT":              "no unique request ID is added",
	"ROUTER_H1_CASE_ADJUST":                "header names reach endpoints as HAProxy writes them (lower case); HTTP requires endpoints to accept any case",
	"ROUTER_HTTP_REQUEST_HEADERS":          "there are no router-wide header actions; use spec.httpHeaders on Routes",
	"ROUTER_HTTP_RESPONSE_HEADERS":         "there are no router-wide header actions; use spec.httpHeaders on Routes",
	"ROUTER_IDLE_CLOSE_ON_RESPONSE":        "not supported",
	"ROUTER_ENABLE_EXTERNAL_CERTIFICATE":   "spec.tls.externalCertificate is always supported",
	"ROUTER_WATCH_ENDPOINTS":               "the router always watches EndpointSlices",
	"ROUTER_BIND_PORTS_BEFORE_SYNC":        "the ports are bound before the first sync unless ROUTER_BIND_PORTS_AFTER_SYNC is true",
	"ROUTER_METRICS_TLS_CERT_FILE":         "/metrics on ROUTER_LISTEN_ADDR is served without TLS; ROUTER_METRICS_AUTH decides who may read it",
	"ROUTER_MUTUAL_TLS_AUTH_CA":            "the router has no client-certificate authentication",
	"ROUTER_MUTUAL_TLS_AUTH_CRL":           "the router has no client-certificate authentication",
	"ROUTER_MUTUAL_TLS_AUTH_FILTER":        "the router has no client-certificate authentication",
	"ROUTER_MUTUAL_TLS_HEADER_FILTER":      "the router has no client-certificate authentication",
	"RELOAD_SCRIPT":                        "routeshift reloads HAProxy itself, hitlessly, through its master process",
	"DROP_SYN_DURING_RESTART":              "reloads pass the listening sockets to the new process; no connection is refused",
	"ROUTER_HAPROXY_CONFIG_MANAGER":        "endpoint changes always go through HAProxy's runtime API",
	"COMMIT_INTERVAL":                      "endpoint changes always go through HAProxy's runtime API; RELOAD_INTERVAL bounds reloads",
	"ROUTER_BLUEPRINT_ROUTE_NAMESPACE":     "there are no blueprint routes: server slots are sized per route",
	"ROUTER_BLUEPRINT_ROUTE_LABELS":        "there are no blueprint routes: server slots are sized per route",
	"ROUTER_BLUEPRINT_ROUTE_POOL_SIZE":     "there are no blueprint routes: server slots are sized per route",
	"ROUTER_MAX_DYNAMIC_SERVERS":           "there are no blueprint routes: server slots are sized per route",
}

// CheckUnsupported refuses OpenShift router variables routeshift does not
// implement whose silent absence would let in traffic the admin meant to
// keep out: ROUTER_MUTUAL_TLS_AUTH asking for client certificates.
func CheckUnsupported(getenv func(string) string) error {
	switch v := getenv("ROUTER_MUTUAL_TLS_AUTH"); v {
	case "", "none":
		return nil
	default:
		return fmt.Errorf("ROUTER_MUTUAL_TLS_AUTH %q: routeshift's router has no client-certificate authentication, "+
			"and would serve clients without certificates; unset it (or set none) and authenticate clients in front of or "+
			"inside the applications", v)
	}
}

// Defaults returns the Config of every setting at its default.
func Defaults() Config {
	var c Config
	for _, s := range Settings {
		if err := s.parse(&c, s.Default); err != nil {
			panic(fmt.Sprintf("setting %s: default %q: %v", s.Env, s.Default, err))
		}
	}
	_ = c.DataPlane.resolveMetricsAuth() // auto without credentials: kubernetes
	return c
}

// AddFlags registers one flag per setting on fs. A setting's flag default
// is its environment variable when set, else its default, so the flag
// wins over the environment, which wins over the default. The returned
// function parses every value into a Config.
func AddFlags(fs *pflag.FlagSet, getenv func(string) string) func() (Config, error) {
	values := make([]*string, len(Settings))
	for i, s := range Settings {
		def := s.Default
		if v := getenv(s.Env); v != "" {
			def = v
		}
		values[i] = fs.String(s.Flag, def, s.Help+" ($"+s.Env+")")
		if s.IsBool() {
			// --strict-sni alone means true, as with OpenShift's router.
			fs.Lookup(s.Flag).NoOptDefVal = "true"
		}
	}
	return func() (Config, error) {
		var c Config
		var errs []error
		for i, s := range Settings {
			if err := s.parse(&c, *values[i]); err != nil {
				errs = append(errs, fmt.Errorf("%s (--%s) %q: %w", s.Env, s.Flag, *values[i], err))
			}
		}
		if c.Namespace == "" {
			c.Namespace = getenv("POD_NAMESPACE")
		}
		if err := c.DataPlane.resolveMetricsAuth(); err != nil {
			errs = append(errs, err)
		}
		return c, errors.Join(errs...)
	}
}

// Who may read the router's /metrics (ROUTER_METRICS_AUTH).
const (
	MetricsAuthKubernetes = "kubernetes"
	MetricsAuthBasic      = "basic"
	MetricsAuthNone       = "none"
)

// resolveMetricsAuth turns "auto" into basic when the stats credentials
// are both set, else kubernetes, and refuses basic without them.
func (d *DataPlaneConfig) resolveMetricsAuth() error {
	both := d.StatsUsername != "" && d.StatsPassword != ""
	switch {
	case d.MetricsAuth == "auto" && both:
		d.MetricsAuth = MetricsAuthBasic
	case d.MetricsAuth == "auto":
		d.MetricsAuth = MetricsAuthKubernetes
	case d.MetricsAuth == MetricsAuthBasic && !both:
		return errors.New("ROUTER_METRICS_AUTH (--metrics-auth) basic: set STATS_USERNAME and STATS_PASSWORD (or their _FILE variants), or choose kubernetes")
	}
	return nil
}

func str(field func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error { *field(c) = v; return nil }
}

// boolean accepts true/TRUE/false/FALSE and the other spellings strconv
// knows; empty is false.
func boolean(field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		if v == "" {
			*field(c) = false
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("use true or false")
		}
		*field(c) = b
		return nil
	}
}

func integer(field func(*Config) *int, minimum, maximum int, what string) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < minimum || n > maximum {
			return fmt.Errorf("must be %s", what)
		}
		*field(c) = n
		return nil
	}
}

// tlsVersions are the values of SSL_MIN_VERSION and SSL_MAX_VERSION, oldest
// first, as HAProxy's ssl-min-ver and ssl-max-ver write them.
var tlsVersions = []string{"TLSv1.0", "TLSv1.1", "TLSv1.2", "TLSv1.3"}

// syslogFacilities are the facilities HAProxy's log lines may carry.
var syslogFacilities = []string{"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "auth2",
	"ftp", "ntp", "audit", "alert", "cron2", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}

// optionalTimeUnit is timeUnit where empty means 0 (not set).
func optionalTimeUnit(field func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		if v == "" {
			*field(c) = 0
			return nil
		}
		return timeUnit(field)(c, v)
	}
}

// fileContent sets field to the content of the file named by the value,
// without its trailing line break; an empty value leaves field as it is.
func fileContent(field func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error {
		if v == "" {
			return nil
		}
		b, err := os.ReadFile(v)
		if err != nil {
			return fmt.Errorf("reading it: %w", err)
		}
		*field(c) = strings.TrimRight(string(b), "\r\n")
		return nil
	}
}

func port(field func(*Config) *int) func(*Config, string) error {
	return integer(field, 1, 65535, "a port number from 1 to 65535")
}

func portOrZero(field func(*Config) *int) func(*Config, string) error {
	return integer(field, 0, 65535, "a port number, or 0")
}

func positive(field func(*Config) *int) func(*Config, string) error {
	return integer(field, 1, 1<<30, "a whole number from 1 up")
}

func nonNegative(field func(*Config) *int) func(*Config, string) error {
	return integer(field, 0, 4096, "a whole number from 0 to 4096")
}

func timeUnit(field func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := routecore.ParseTimeUnit(v)
		if err != nil {
			return err
		}
		*field(c) = d
		return nil
	}
}

// reloadInterval is a TimeUnit or a Go duration (RELOAD_INTERVAL examples
// use both), at least one second.
func reloadInterval(c *Config, v string) error {
	d, err := routecore.ParseTimeUnit(v)
	if err != nil {
		if d, err = time.ParseDuration(v); err != nil {
			return errors.New("must be a TimeUnit such as 5s")
		}
	}
	if d < time.Second {
		return errors.New("must be at least 1s")
	}
	c.DataPlane.ReloadInterval = d
	return nil
}

func oneOf(field func(*Config) *string, values ...string) func(*Config, string) error {
	return func(c *Config, v string) error {
		if !slices.Contains(values, v) {
			return fmt.Errorf("use one of %s", strings.Join(values, ", "))
		}
		*field(c) = v
		return nil
	}
}

func balance(field func(*Config) *string) func(*Config, string) error {
	return oneOf(field, "roundrobin", "leastconn", "source", "random")
}

func selector(field func(*Config) *labels.Selector) func(*Config, string) error {
	return func(c *Config, v string) error {
		if strings.TrimSpace(v) == "" {
			*field(c) = nil
			return nil
		}
		sel, err := labels.Parse(v)
		if err != nil {
			return fmt.Errorf("not a label selector: %v", err)
		}
		*field(c) = sel
		return nil
	}
}

// projectLabels is NAMESPACE_LABELS under OpenShift's other name; it fills
// the namespace selector only when NAMESPACE_LABELS left it empty.
func projectLabels(c *Config, v string) error {
	if c.Admission.NamespaceSelector != nil || strings.TrimSpace(v) == "" || v == "*" {
		return nil
	}
	return selector(func(c *Config) *labels.Selector { return &c.Admission.NamespaceSelector })(c, v)
}

func domains(field func(*Config) *DomainList) func(*Config, string) error {
	return func(c *Config, v string) error {
		l := ParseDomainList(v)
		for _, d := range l {
			if errs := validation.IsDNS1123Subdomain(d); len(errs) > 0 {
				return fmt.Errorf("%q is not a domain: %s", d, strings.Join(errs, "; "))
			}
		}
		*field(c) = l
		return nil
	}
}

func hostnameTemplate(c *Config, v string) error {
	if v != "" {
		if host := HostnameTemplate(v).Expand("name", "namespace"); len(validation.IsDNS1123Subdomain(host)) > 0 {
			return fmt.Errorf("does not make a valid host (it makes %q)", host)
		}
	}
	c.Admission.HostnameTemplate = HostnameTemplate(v)
	return nil
}

func canonicalHostname(c *Config, v string) error {
	if v != "" && (net.ParseIP(v) != nil || len(validation.IsDNS1123Subdomain(v)) > 0) {
		return errors.New("must be a DNS name, not an IP address")
	}
	c.CanonicalHostname = v
	return nil
}

// cookieName follows the rule of the cookie_name annotation.
func cookieName(c *Config, v string) error {
	if a, ok := routecore.LookupAnnotation(routecore.AnnCookieName); ok && v != "" {
		if err := a.Validate(field.NewPath("env"), v); err != nil {
			return errors.New("must consist of letters, digits, '_' and '-'")
		}
	}
	c.DataPlane.CookieName = v
	return nil
}

// ciphers accepts a profile or a ':'-separated list of OpenSSL names.
func ciphers(c *Config, v string) error {
	switch {
	case v == "modern" || v == "intermediate" || v == "old":
	case v == "" || strings.ContainsAny(v, " \t\n'\"#"):
		return errors.New("use modern, intermediate, old, or a ':'-separated cipher list")
	}
	c.DataPlane.Ciphers = v
	return nil
}

func csvIndexes(c *Config, v string) error {
	var out []int
	for f := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > 100 {
			return errors.New("use comma-separated HAProxy CSV column numbers")
		}
		out = append(out, n)
	}
	c.DataPlane.MetricsExportedCSVIndex = out
	return nil
}
