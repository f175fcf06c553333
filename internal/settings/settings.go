// Package settings is the table of the router's settings: every setting's
// environment variable (the names OpenShift's router uses), flag, default,
// example, help and parser, in one place. The router and render commands
// take their flags from it, docgen writes docs/reference/router-settings.md
// from it, and its tests check every default and example with the
// setting's own parser.
//
// It fills the settings of the router (router/), of the HAProxy data
// plane (haproxy/proxyconfig/, which holds those settings' parsing and
// rules) and of the exporter (haproxy/exporter/); none
// of them, nor the renderer (haproxy/), may import it. It imports only
// those settings' packages and routecore (the rules settings share with
// route annotations); it must not import the renderer or the process
// manager (haproxy/, haproxy/runtime/), nor the commands (internal/cli).
package settings

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/routeshift/routeshift/haproxy/exporter"
	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/internal/settingfield"
	"github.com/routeshift/routeshift/router"
)

// Config is everything a router instance is told. Every field comes from
// one entry of Table, set by an environment variable or the matching flag;
// flags win.
type Config struct {
	// Router is the router's identity, status and admission.
	Router router.Config
	// DataPlane is how HAProxy is configured and run.
	DataPlane proxyconfig.Config
	// Exporter is what of HAProxy's statistics /metrics exports.
	Exporter exporter.Options
	// Listen is the router's own listener.
	Listen Listen
}

// Listen is the router's own HTTP listener: /healthz, /healthz/ready and
// /metrics, and how long its readiness fails before the router stops.
type Listen struct {
	// Addr is where it listens (ROUTER_LISTEN_ADDR).
	Addr string
	// DrainPeriod is how long the router keeps serving once told to stop,
	// /healthz/ready answering 503 meanwhile (ROUTER_DRAIN_SECONDS).
	DrainPeriod time.Duration
	// MetricsType is "haproxy" (the only type) or "" for router metrics
	// only.
	MetricsType string
	// MetricsAuth is who may read /metrics: MetricsAuthKubernetes,
	// MetricsAuthBasic or MetricsAuthNone (AddFlags resolves "auto").
	MetricsAuth string
}

// ServiceCAPath is where OpenShift mounts its service CA into every pod,
// and the default of DEFAULT_DESTINATION_CA_PATH: the same file in the
// same place verifies reencrypt endpoints on either platform.
const ServiceCAPath = "/var/run/secrets/kubernetes.io/serviceaccount/service-ca.crt"

// Setting is one router setting.
type Setting struct {
	// Env is its environment variable, as OpenShift's router names it.
	Env string
	// Flag is its flag, without the dashes.
	Flag string
	// Default is its value when neither is set.
	Default string
	// Example is a value its parser accepts, for the documentation.
	Example string
	// Help says what it does.
	Help string
	// Parse sets the setting's field of a Config from a value. The table
	// leaves it nil for the data plane's settings: their fields and rules
	// are proxyconfig.Settings', which fills it in.
	Parse func(c *Config, value string) error
}

// init takes the data plane's settings' parsing from proxyconfig, so that
// each of their rules lives beside the field it checks (and Validate
// holds a Config set in code to the same rules).
func init() {
	fields := map[string]settingfield.Field[proxyconfig.Config]{}
	for _, s := range proxyconfig.Settings {
		fields[s.Name] = s.Field
	}
	for i, s := range Table {
		f, ok := fields[s.Env]
		switch {
		case s.Parse == nil && !ok:
			panic("setting " + s.Env + " has no parser and is not a data-plane setting")
		case s.Parse != nil && ok:
			panic("data-plane setting " + s.Env + " has a parser of its own")
		case ok:
			Table[i].Parse = func(c *Config, v string) error { return f.Set(&c.DataPlane, v) }
			delete(fields, s.Env)
		}
	}
	for name := range fields {
		panic("data-plane setting " + name + " is missing from the table")
	}
}

// set is the parser of a field of Config.
func set(f settingfield.Field[Config]) func(*Config, string) error { return f.Set }

func timeUnit(get func(*Config) *time.Duration) settingfield.Field[Config] {
	return settingfield.TimeUnit(get, false)
}

// IsBool reports whether the setting is a switch: its default is true or
// false (TestBooleanSettings holds every boolean setting to that), and its
// flag given alone means true.
func (s Setting) IsBool() bool { return s.Default == "true" || s.Default == "false" }

// Table lists every setting of `routeshift router` and `render`, in the
// order of the documentation.
var Table = []Setting{
	// Identity and status.
	{
		Env: "ROUTER_SERVICE_NAME", Flag: "name", Default: "public", Example: "internal",
		Help:  "name of the router in route status (routerName)",
		Parse: set(settingfield.Text(func(c *Config) *string { return &c.Router.Name }, nil)),
	},
	{
		Env: "ROUTER_SERVICE_NAMESPACE", Flag: "namespace", Default: "", Example: "routeshift",
		Help:  "namespace the router runs in; its leader election Lease is kept there (default: $POD_NAMESPACE)",
		Parse: set(settingfield.Text(func(c *Config) *string { return &c.Router.Namespace }, nil)),
	},
	{
		Env: "ROUTER_CANONICAL_HOSTNAME", Flag: "router-canonical-hostname", Default: "", Example: "router.apps.example.com",
		Help:  "host name of the router reported in route status, for CNAME records",
		Parse: canonicalHostname,
	},
	{
		Env: "ROUTER_PUBLISH_STATUS_ADDRESS", Flag: "publish-status-address", Default: "", Example: "203.0.113.7",
		Help:  "address (a host name or an IP address) of the router reported in route status, and so in Ingress status, when ROUTER_CANONICAL_HOSTNAME is empty (routeshift extension)",
		Parse: publishStatusAddress,
	},
	{
		Env: "ROUTER_PUBLISH_SERVICE", Flag: "publish-service", Default: "", Example: "routeshift/routeshift-router",
		Help:  "Service (NAMESPACE/NAME, or NAME in the router's namespace) whose load balancer address (status.loadBalancer: its host name, else its IP address) is reported in route status, and so in Ingress status, when ROUTER_CANONICAL_HOSTNAME and ROUTER_PUBLISH_STATUS_ADDRESS are empty; it follows the Service as its address changes (routeshift extension)",
		Parse: publishService,
	},
	{
		Env: "ROUTER_UPDATE_STATUS", Flag: "update-status", Default: "true", Example: "false",
		Help:  "write route status",
		Parse: set(settingfield.Bool(func(c *Config) *bool { return &c.Router.UpdateStatus })),
	},

	// Shard and admission.
	{
		Env: "ROUTE_LABELS", Flag: "labels", Default: "", Example: "shard=internal",
		Help:  "label selector of the routes to serve (empty: all)",
		Parse: selector(func(c *Config) *labels.Selector { return &c.Router.Admission.RouteSelector }),
	},
	{
		Env: "NAMESPACE_LABELS", Flag: "namespace-labels", Default: "", Example: "environment in (prod,staging)",
		Help:  "label selector of the namespaces whose routes to serve (empty: all)",
		Parse: selector(func(c *Config) *labels.Selector { return &c.Router.Admission.NamespaceSelector }),
	},
	{
		Env: "PROJECT_LABELS", Flag: "project-labels", Default: "", Example: "team=web",
		Help:  "alias of NAMESPACE_LABELS (OpenShift projects are namespaces)",
		Parse: projectLabels,
	},
	{
		Env: "ROUTER_ALLOWED_DOMAINS", Flag: "allowed-domains", Default: "", Example: "apps.example.com,example.org",
		Help:  "comma-separated domains hosts must be in (subdomains included); ROUTER_DENIED_DOMAINS wins",
		Parse: domains(func(c *Config) *router.DomainList { return &c.Router.Admission.AllowedDomains }),
	},
	{
		Env: "ROUTER_DENIED_DOMAINS", Flag: "denied-domains", Default: "", Example: "admin.example.com",
		Help:  "comma-separated domains hosts must not be in (subdomains included)",
		Parse: domains(func(c *Config) *router.DomainList { return &c.Router.Admission.DeniedDomains }),
	},
	{
		Env: "ROUTER_ALLOW_WILDCARD_ROUTES", Flag: "allow-wildcard-routes", Default: "false", Example: "true",
		Help:  "admit routes with wildcardPolicy Subdomain",
		Parse: set(settingfield.Bool(func(c *Config) *bool { return &c.Router.Admission.AllowWildcardRoutes })),
	},
	{
		Env: "ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK", Flag: "disable-namespace-ownership-check", Default: "false", Example: "true",
		Help:  "let any namespace claim hosts and subdomains; only exact host+path claims conflict (use with care)",
		Parse: set(settingfield.Bool(func(c *Config) *bool { return &c.Router.Admission.DisableNamespaceOwnershipCheck })),
	},
	{
		Env: "EXTENDED_VALIDATION", Flag: "extended-validation", Default: "true", Example: "false",
		Help:  "check route certificates; failures are reported as ExtendedValidationFailed",
		Parse: set(settingfield.Bool(func(c *Config) *bool { return &c.Router.Admission.ExtendedValidation })),
	},
	{
		Env: "ROUTER_SUBDOMAIN", Flag: "hostname-template", Default: "", Example: "${name}-${namespace}.apps.example.com",
		Help:  "host of routes without one, with ${name} and ${namespace}, e.g. ${name}-${namespace}.apps.example.com",
		Parse: hostnameTemplate,
	},
	{
		Env: "ROUTER_OVERRIDE_HOSTNAME", Flag: "override-hostname", Default: "false", Example: "true",
		Help:  "replace every route's host with ROUTER_SUBDOMAIN",
		Parse: set(settingfield.Bool(func(c *Config) *bool { return &c.Router.Admission.OverrideHostname })),
	},
	{
		Env: "ROUTER_OVERRIDE_DOMAINS", Flag: "override-domains", Default: "", Example: "old.example.com",
		Help:  "comma-separated domains whose routes get ROUTER_SUBDOMAIN as host",
		Parse: domains(func(c *Config) *router.DomainList { return &c.Router.Admission.OverrideDomains }),
	},
	{
		Env: "ROUTER_DOMAIN", Flag: "router-domain", Default: "", Example: "apps.example.com",
		Help:  "domain that completes spec.subdomain into a host",
		Parse: set(settingfield.Text(func(c *Config) *string { return &c.Router.Admission.RouterDomain }, nil)),
	},
	{
		Env: "ROUTER_ALLOW_LOOPBACK_ENDPOINTS", Flag: "allow-loopback-endpoints", Default: "false", Example: "true",
		Help:  "route to endpoints on loopback addresses, for tests on one machine (the API server refuses loopback addresses in EndpointSlices); never enable on a cluster",
		Parse: set(settingfield.Bool(func(c *Config) *bool { return &c.Router.Admission.AllowLoopbackEndpoints })),
	},

	// Listeners.
	{
		Env: "ROUTER_BIND_ADDRESS", Flag: "bind-address", Default: "", Example: "10.0.0.5",
		Help: "address the HTTP and HTTPS frontends listen on (empty: all)",
	},
	{
		Env: "ROUTER_IP_V4_V6_MODE", Flag: "ip-v4-v6-mode", Default: "v4", Example: "v4v6",
		Help: "addresses the HTTP, HTTPS and stats listeners accept when ROUTER_BIND_ADDRESS is empty: v4 (IPv4 only), v6 (IPv6 only) or v4v6 (both)",
	},
	{
		Env: "ROUTER_SERVICE_HTTP_PORT", Flag: "http-port", Default: "80", Example: "8080",
		Help: "port for HTTP",
	},
	{
		Env: "ROUTER_SERVICE_HTTPS_PORT", Flag: "https-port", Default: "443", Example: "8443",
		Help: "port for HTTPS and TLS",
	},
	{
		Env: "ROUTER_HTTPS_REDIRECT_PORT", Flag: "https-redirect-port", Default: "0", Example: "8443",
		Help: "port written into the redirects of insecureEdgeTerminationPolicy Redirect (0: none, clients use 443); set it when clients reach HTTPS on another port (routeshift extension)",
	},
	{
		Env: "ROUTER_SERVICE_SNI_PORT", Flag: "sni-port", Default: "10444", Example: "20444",
		Help: "internal loopback port of the TLS-terminating frontend for SNI traffic; unique per machine",
	},
	{
		Env: "ROUTER_SERVICE_NO_SNI_PORT", Flag: "no-sni-port", Default: "10443", Example: "20443",
		Help: "internal loopback port of the TLS-terminating frontend for traffic without SNI; unique per machine",
	},
	{
		Env: "ROUTER_USE_PROXY_PROTOCOL", Flag: "use-proxy-protocol", Default: "false", Example: "true",
		Help: "expect the PROXY protocol on the HTTP and HTTPS ports",
	},
	{
		Env: "ROUTER_BIND_PORTS_AFTER_SYNC", Flag: "bind-ports-after-sync", Default: "false", Example: "true",
		Help:  "listen only once the first complete configuration is loaded",
		Parse: set(settingfield.Bool(func(c *Config) *bool { return &c.Router.WaitForSync })),
	},

	// TLS.
	{
		Env: "DEFAULT_CERTIFICATE", Flag: "default-certificate", Default: "", Example: "$(cat tls.crt tls.key)",
		Help: "PEM certificate and key served to TLS clients no route claims",
	},
	{
		Env: "DEFAULT_CERTIFICATE_PATH", Flag: "default-certificate-path", Default: "", Example: "/etc/pki/tls/private/default.pem",
		Help: "file with the default certificate and key (if DEFAULT_CERTIFICATE is empty)",
	},
	{
		Env: "DEFAULT_CERTIFICATE_DIR", Flag: "default-certificate-dir", Default: "", Example: "/etc/pki/tls/private",
		Help: "directory with tls.crt (and tls.key) of the default certificate (if the two above are empty); checked every 10s and loaded when renewed",
	},
	{
		Env: "DEFAULT_DESTINATION_CA_PATH", Flag: "default-destination-ca-path", Default: ServiceCAPath, Example: "/etc/routeshift/service-ca.crt",
		Help: "CA file that verifies the endpoints of reencrypt routes without destinationCACertificate (OpenShift's service CA where it exists), read every 10s: a rotated CA is loaded with a hitless reload; while the file does not exist such endpoints are not verified",
	},
	{
		Env: "ROUTER_CIPHERS", Flag: "ciphers", Default: "intermediate", Example: "modern",
		Help: "cipher profile (modern, intermediate, old: Mozilla's current TLS 1.2 lists, intermediate without CBC suites) or a ':'-separated OpenSSL cipher list",
	},
	{
		Env: "ROUTER_DISABLE_HTTP2", Flag: "disable-http2", Default: "true", Example: "false",
		Help: "false lets TLS clients of edge and reencrypt routes with their own certificate use HTTP/2 (ALPN h2); connections with the default certificate stay HTTP/1.1, since browsers would reuse them for other hosts. Endpoints are spoken to in HTTP/2 when their port's appProtocol says so (h2c, kubernetes.io/h2c; h2 for reencrypt), whatever this setting",
	},
	{
		Env: "ROUTER_CIPHERSUITES", Flag: "ciphersuites", Default: "", Example: "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256",
		Help: "':'-separated TLS 1.3 cipher suites (empty: TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 and TLS_CHACHA20_POLY1305_SHA256)",
	},
	{
		Env: "ROUTER_CURVES", Flag: "curves", Default: "", Example: "X25519:P-256",
		Help: "':'-separated key-exchange groups offered to TLS clients, e.g. X25519:P-256 (empty: OpenSSL's)",
	},
	{
		Env: "SSL_MIN_VERSION", Flag: "ssl-min-version", Default: "TLSv1.2", Example: "TLSv1.3",
		Help: "oldest TLS version clients may use: TLSv1.0, TLSv1.1, TLSv1.2 or TLSv1.3",
	},
	{
		Env: "SSL_MAX_VERSION", Flag: "ssl-max-version", Default: "", Example: "TLSv1.2",
		Help: "newest TLS version clients may use (empty: the newest HAProxy supports)",
	},
	{
		Env: "ROUTER_MUTUAL_TLS_AUTH", Flag: "mutual-tls-auth", Default: "none", Example: "required",
		Help: "client certificates for TLS clients of edge and reencrypt routes: none, optional (asked for; a client without one is served, one that fails verification is refused) or required (a client without a valid one is refused); passthrough routes are never affected",
	},
	{
		Env: "ROUTER_MUTUAL_TLS_AUTH_CA", Flag: "mutual-tls-auth-ca", Default: "", Example: "/etc/routeshift/client-ca.pem",
		Help: "PEM bundle of the certificate authorities client certificates are verified against (required with ROUTER_MUTUAL_TLS_AUTH optional or required), read every 10s: a changed bundle is loaded with a hitless reload; CRLs named by its certificates' distribution points (http or https) are fetched and kept up to date",
	},
	{
		Env: "ROUTER_MUTUAL_TLS_AUTH_CRL", Flag: "mutual-tls-auth-crl", Default: "", Example: "/etc/routeshift/client-ca.crl",
		Help: "PEM file of certificate revocation lists client certificates are checked against, read every 10s; once any CRL is in use, every authority that issues client certificates needs its CRL, here or from a distribution point",
	},
	{
		Env: "ROUTER_MUTUAL_TLS_AUTH_FILTER", Flag: "mutual-tls-auth-filter", Default: "", Example: "^/O=Acme/CN=[a-z]+$",
		Help: "regular expression the subject of client certificates (/C=US/O=Acme/CN=name) must match, else the request is refused with 403; with optional, requests without a certificate are refused too",
	},
	{
		Env: "ROUTER_STRICT_SNI", Flag: "strict-sni", Default: "false", Example: "true",
		Help: "refuse TLS connections whose SNI no route claims instead of serving the default certificate",
	},

	// Capacity.
	{
		Env: "ROUTER_MAX_CONNECTIONS", Flag: "max-connections", Default: "20000", Example: "50000",
		Help: "maximum concurrent connections",
	},
	{
		Env: "ROUTER_THREADS", Flag: "threads", Default: "0", Example: "4",
		Help: "HAProxy threads (0: HAProxy's default, one per CPU)",
	},
	{
		Env: "ROUTER_MAX_BODY_SIZE", Flag: "max-body-size", Default: "", Example: "10m",
		Help: "largest request body of HTTP routes, in bytes or with a k, m or g suffix (10m, 512k; empty or 0: no limit): a request whose Content-Length is larger is answered 413, and a chunked body larger than a limit below the buffer (ROUTER_BUF_SIZE less ROUTER_MAX_REWRITE_SIZE) too; a route's routeshift.io/max-body-size annotation overrides it (routeshift extension)",
	},
	{
		Env: "ROUTER_BUF_SIZE", Flag: "buf-size", Default: "32768", Example: "65536",
		Help: "HAProxy's buffer size in bytes (tune.bufsize): a request's headers must fit in it, less ROUTER_MAX_REWRITE_SIZE",
	},
	{
		Env: "ROUTER_MAX_REWRITE_SIZE", Flag: "max-rewrite-size", Default: "8192", Example: "16384",
		Help: "bytes of the buffer kept for adding and rewriting headers (tune.maxrewrite), at most half of ROUTER_BUF_SIZE",
	},

	// Timeouts (TimeUnits).
	{
		Env: "ROUTER_DEFAULT_CLIENT_TIMEOUT", Flag: "default-client-timeout", Default: "30s", Example: "1m",
		Help: "time within which a client must acknowledge or send data",
	},
	{
		Env: "ROUTER_CLIENT_FIN_TIMEOUT", Flag: "client-fin-timeout", Default: "1s", Example: "500ms",
		Help: "time to wait for the client's FIN",
	},
	{
		Env: "ROUTER_DEFAULT_CONNECT_TIMEOUT", Flag: "default-connect-timeout", Default: "5s", Example: "2s",
		Help: "maximum time to connect to a backend",
	},
	{
		Env: "ROUTER_DEFAULT_SERVER_TIMEOUT", Flag: "default-server-timeout", Default: "30s", Example: "2m",
		Help: "time within which a backend must acknowledge or send data (annotation haproxy.router.openshift.io/timeout overrides it per route)",
	},
	{
		Env: "ROUTER_DEFAULT_SERVER_FIN_TIMEOUT", Flag: "default-server-fin-timeout", Default: "1s", Example: "500ms",
		Help: "time to wait for the backend's FIN",
	},
	{
		Env: "ROUTER_DEFAULT_TUNNEL_TIMEOUT", Flag: "default-tunnel-timeout", Default: "1h", Example: "24h",
		Help: "how long idle TCP and WebSocket connections stay open",
	},
	{
		Env: "ROUTER_SLOWLORIS_HTTP_KEEPALIVE", Flag: "slowloris-http-keepalive", Default: "300s", Example: "60s",
		Help: "time to wait for a new HTTP request on a kept-alive connection",
	},
	{
		Env: "ROUTER_SLOWLORIS_TIMEOUT", Flag: "slowloris-timeout", Default: "10s", Example: "5s",
		Help: "time an HTTP request may take to arrive",
	},
	{
		Env: "ROUTER_INSPECT_DELAY", Flag: "inspect-delay", Default: "5s", Example: "2s",
		Help: "time to wait for a TLS ClientHello on the HTTPS port",
	},
	{
		Env: "ROUTER_HARD_STOP_AFTER", Flag: "hard-stop-after", Default: "", Example: "1h",
		Help: "time after a reload when HAProxy closes the connections the previous configuration still serves, e.g. 1h (empty: they stay open until they end); also the time a stopping router gives the requests in progress, after ROUTER_DRAIN_SECONDS (empty: 30s)",
	},
	{
		Env: "ROUTER_DRAIN_SECONDS", Flag: "drain-seconds", Default: "45", Example: "60",
		Help:  "seconds a router told to stop (SIGTERM) keeps serving with /healthz/ready answering 503, so that load balancers take it out of rotation before HAProxy closes its listeners and finishes the requests in progress; a second signal ends the wait; 0: no wait (routeshift extension)",
		Parse: set(settingfield.Seconds(func(c *Config) *time.Duration { return &c.Listen.DrainPeriod }, 3600)),
	},
	{
		Env: "ROUTER_BACKEND_CHECK_INTERVAL", Flag: "backend-check-interval", Default: "5000ms", Example: "10s",
		Help: "interval of endpoint health checks (annotation router.openshift.io/haproxy.health.check.interval overrides it)",
	},

	// Balancing and sessions.
	{
		Env: "ROUTER_LOAD_BALANCE_ALGORITHM", Flag: "load-balance-algorithm", Default: "leastconn", Example: "roundrobin",
		Help: "balance algorithm of HTTP, edge and reencrypt routes with one active service (several weighted services get roundrobin): roundrobin, leastconn, source or random",
	},
	{
		Env: "ROUTER_TCP_BALANCE_SCHEME", Flag: "tcp-balance-scheme", Default: "source", Example: "leastconn",
		Help: "balance algorithm of passthrough routes with one active service (several weighted services get roundrobin): roundrobin, leastconn, source or random",
	},
	{
		Env: "ROUTER_COOKIE_NAME", Flag: "cookie-name", Default: "", Example: "SERVERID",
		Help: "name of every route's sticky-session cookie (default: a hash of the route)",
	},
	{
		Env: "ROUTER_BACKEND_PROCESS_ENDPOINTS", Flag: "backend-process-endpoints", Default: "", Example: "shuffle",
		Help: `"shuffle" randomises the order in which new endpoints take server slots (endpoints keep their slots while they stay)`,
	},

	// Responses.
	{
		Env: "ROUTER_ENABLE_COMPRESSION", Flag: "enable-compression", Default: "false", Example: "true",
		Help: "compress responses of the ROUTER_COMPRESSION_MIME types",
	},
	{
		Env: "ROUTER_COMPRESSION_MIME", Flag: "compression-mime", Default: "text/html text/plain text/css", Example: "text/html application/json",
		Help: "space-separated MIME types to compress",
	},
	{
		Env: "ROUTER_SET_FORWARDED_HEADERS", Flag: "set-forwarded-headers", Default: "append", Example: "replace",
		Help: "X-Forwarded-For, -Host, -Port and -Proto headers: append (the client's address to X-Forwarded-For; the others set), replace (all set, whatever the client sent), if-none (set only when the client sent none) or never (left as the client sent them)",
	},
	{
		Env: "ROUTER_H1_CASE_ADJUST", Flag: "h1-case-adjust", Default: "", Example: "Host,X-Request-ID",
		Help: "comma-separated header names in the case HTTP/1 peers that wrongly expect one must get them (HAProxy writes header names in lower case): applied to responses to clients, and to requests of Routes annotated haproxy.router.openshift.io/h1-adjust-case: \"true\"",
	},
	{
		Env: "ROUTER_ERRORFILE_503", Flag: "errorfile-503", Default: "", Example: "/etc/routeshift/errors/503.http",
		Help: "file with the complete HTTP response (status line, headers, body) sent instead of HAProxy's 503 page: no route matches, or a route has no available endpoint",
	},
	{
		Env: "ROUTER_ERRORFILE_404", Flag: "errorfile-404", Default: "", Example: "/etc/routeshift/errors/404.http",
		Help: "file with the complete HTTP response sent when no route matches a request, which then answers 404 instead of 503",
	},
	{
		Env: "ROUTER_DONT_LOG_NULL", Flag: "dont-log-null", Default: "false", Example: "true",
		Help: "do not log connections that send no data (HAProxy option dontlognull)",
	},
	{
		Env: "ROUTER_HTTP_IGNORE_PROBES", Flag: "http-ignore-probes", Default: "false", Example: "true",
		Help: "neither log nor answer connections closed before sending a request, as browsers' pre-connects do (option http-ignore-probes)",
	},
	{
		Env: "ROUTER_HAPROXY_CONTSTATS", Flag: "haproxy-contstats", Default: "false", Example: "true",
		Help: "count the traffic of long transfers continuously, not only when they end (option contstats)",
	},
	{
		Env: "ROUTER_ABORT_ON_CLOSE", Flag: "abort-on-close", Default: "false", Example: "true",
		Help: "drop requests whose client has gone away before they reach a backend (option abortonclose)",
	},

	// Logging.
	{
		Env: "ROUTER_SYSLOG_ADDRESS", Flag: "syslog-address", Default: "", Example: "10.0.0.10:514",
		Help: "syslog server for HAProxy's logs (empty: no logs)",
	},
	{
		Env: "ROUTER_SYSLOG_FORMAT", Flag: "syslog-format", Default: "", Example: "%ci:%cp [%tr] %ft %b/%s %ST %B %hr %{+Q}r",
		Help: "HAProxy log-format of request logs (default: option httplog)",
	},
	{
		Env: "ROUTER_LOG_FACILITY", Flag: "log-facility", Default: "local1", Example: "local2",
		Help: "syslog facility of HAProxy's logs",
	},
	{
		Env: "ROUTER_LOG_MAX_LENGTH", Flag: "log-max-length", Default: "1024", Example: "4096",
		Help: "longest log line sent to the syslog server, in bytes (longer ones are cut)",
	},
	{
		Env: "ROUTER_LOG_LEVEL", Flag: "log-level-haproxy", Default: "warning", Example: "info",
		Help: "level of logs sent to the syslog server",
	},

	// Stats and metrics.
	{
		Env: "STATS_PORT", Flag: "stats-port", Default: "0", Example: "1937",
		Help: "port of HAProxy's statistics page (0: not exposed)",
	},
	{
		Env: "STATS_USERNAME", Flag: "stats-user", Default: "", Example: "admin",
		Help: "user name protecting the statistics page",
	},
	{
		Env: "STATS_PASSWORD", Flag: "stats-password", Default: "", Example: "s3cret",
		Help: "password protecting the statistics page",
	},
	{
		Env: "STATS_USERNAME_FILE", Flag: "stats-user-file", Default: "", Example: "/var/run/secrets/stats/username",
		Help:  "file whose content (one line) replaces STATS_USERNAME, e.g. a mounted Secret key",
		Parse: fileContent(func(c *Config) *string { return &c.DataPlane.StatsUsername }),
	},
	{
		Env: "STATS_PASSWORD_FILE", Flag: "stats-password-file", Default: "", Example: "/var/run/secrets/stats/password",
		Help:  "file whose content (one line) replaces STATS_PASSWORD, e.g. a mounted Secret key",
		Parse: fileContent(func(c *Config) *string { return &c.DataPlane.StatsPassword }),
	},
	{
		Env: "ROUTER_LISTEN_ADDR", Flag: "listen-addr", Default: "0.0.0.0:1936", Example: "127.0.0.1:1936",
		Help:  "address of /healthz, /healthz/ready and /metrics",
		Parse: set(settingfield.Text(func(c *Config) *string { return &c.Listen.Addr }, nil)),
	},
	{
		Env: "ROUTER_METRICS_TYPE", Flag: "metrics-type", Default: "haproxy", Example: "haproxy",
		Help:  `"haproxy" adds HAProxy's counters to /metrics (the only type); the flag set empty (--metrics-type=) leaves them out`,
		Parse: set(settingfield.OneOf(func(c *Config) *string { return &c.Listen.MetricsType }, "", "haproxy")),
	},
	{
		Env: "ROUTER_METRICS_AUTH", Flag: "metrics-auth", Default: "auto", Example: "kubernetes",
		Help:  "who may read /metrics: kubernetes (a bearer token whose user may get routers/metrics named ROUTER_SERVICE_NAME in route.openshift.io, checked with a TokenReview and a SubjectAccessReview, as OpenShift's router does), basic (STATS_USERNAME and STATS_PASSWORD), none (anyone who reaches ROUTER_LISTEN_ADDR), or auto: basic when both are set, else kubernetes; /healthz and /healthz/ready stay open (routeshift extension)",
		Parse: set(settingfield.OneOf(func(c *Config) *string { return &c.Listen.MetricsAuth }, "auto", MetricsAuthKubernetes, MetricsAuthBasic, MetricsAuthNone)),
	},
	{
		Env: "ROUTER_METRICS_HAPROXY_SERVER_THRESHOLD", Flag: "metrics-haproxy-server-threshold", Default: "500", Example: "1000",
		Help:  "above this many servers, per-server metrics are replaced by per-backend ones",
		Parse: set(settingfield.Int(func(c *Config) *int { return &c.Exporter.ServerThreshold }, 1, 1<<30, "a whole number from 1 up")),
	},
	{
		Env: "ROUTER_METRICS_HAPROXY_BASE_SCRAPE_INTERVAL", Flag: "metrics-haproxy-base-scrape-interval", Default: "5s", Example: "10s",
		Help:  "interval of HAProxy statistics scrapes, per 1000 rows",
		Parse: set(timeUnit(func(c *Config) *time.Duration { return &c.Exporter.ScrapeInterval })),
	},
	{
		Env: "ROUTER_METRICS_HAPROXY_TIMEOUT", Flag: "metrics-haproxy-timeout", Default: "5s", Example: "10s",
		Help:  "timeout of a HAProxy statistics scrape",
		Parse: set(timeUnit(func(c *Config) *time.Duration { return &c.Exporter.Timeout })),
	},
	{
		Env: "ROUTER_METRICS_HAPROXY_EXPORTED", Flag: "metrics-haproxy-exported", Default: exportedColumns(), Example: "2,4,5,7,8,9",
		Help:  "comma-separated HAProxy CSV columns exported as metrics; columns outside the default list have no metric and are ignored",
		Parse: csvIndexes,
	},

	// Configuration and reloads.
	{
		Env: "ROUTER_WORKING_DIR", Flag: "working-dir", Default: "/var/lib/routeshift", Example: "/var/lib/haproxy/router",
		Help: "directory for haproxy.cfg, maps, certificates (0600) and sockets",
	},
	{
		Env: "TEMPLATE_FILE", Flag: "template", Default: "", Example: "/etc/routeshift/haproxy.cfg.tmpl",
		Help: "Go template that replaces the built-in haproxy.cfg template (see docs for the data it receives)",
	},
	{
		Env: "RELOAD_INTERVAL", Flag: "interval", Default: "5s", Example: "10s",
		Help: "minimum time between reloads: the first change applies at once, later ones within the interval are batched",
	},
	{
		Env: "ROUTER_BLUEPRINT_ROUTE_POOL_SIZE", Flag: "standby-backends", Default: "10", Example: "50",
		Help: "standby backends of each kind (plain HTTP, HTTP with a secure cookie, TCP) from which HAProxy serves new routes " +
			"without annotations or certificates of their own at once, until the reload that loads their own backends; 0 turns them off (as does TEMPLATE_FILE)",
	},
	{
		Env: "RESYNC_INTERVAL", Flag: "resync-interval", Default: "30m", Example: "10m",
		Help:  "how often the router looks at every object again: each Route's status entry is checked and written again if someone else changed or removed it",
		Parse: set(settingfield.Interval(func(c *Config) *time.Duration { return &c.Router.ResyncInterval }, time.Second, "30m")),
	},
}

// Superseded lists the variables of OpenShift's router that have no effect
// here, with the reason, so that a router started with one set can say so.
var Superseded = map[string]string{
	"ROUTER_CAPTURE_HTTP_REQUEST_HEADERS":  "headers are not captured into logs; ROUTER_SYSLOG_FORMAT sets what request logs hold",
	"ROUTER_CAPTURE_HTTP_RESPONSE_HEADERS": "headers are not captured into logs; ROUTER_SYSLOG_FORMAT sets what request logs hold",
	"ROUTER_CAPTURE_HTTP_COOKIE":           "cookies are not captured into logs; ROUTER_SYSLOG_FORMAT sets what request logs hold",
	"ROUTER_UNIQUE_ID_HEADER_NAME":         "no unique request ID is added",
	"ROUTER_UNIQUE_ID_FORMAT":              "no unique request ID is added",
	"ROUTER_HTTP_REQUEST_HEADERS":          "there are no router-wide header actions; use spec.httpHeaders on Routes",
	"ROUTER_HTTP_RESPONSE_HEADERS":         "there are no router-wide header actions; use spec.httpHeaders on Routes",
	"ROUTER_IDLE_CLOSE_ON_RESPONSE":        "not supported",
	"ROUTER_ENABLE_EXTERNAL_CERTIFICATE":   "spec.tls.externalCertificate is always supported",
	"ROUTER_WATCH_ENDPOINTS":               "the router always watches EndpointSlices",
	"ROUTER_BIND_PORTS_BEFORE_SYNC":        "the ports are bound before the first sync unless ROUTER_BIND_PORTS_AFTER_SYNC is true",
	"ROUTER_METRICS_TLS_CERT_FILE":         "/metrics on ROUTER_LISTEN_ADDR is served without TLS; ROUTER_METRICS_AUTH decides who may read it",
	"ROUTER_MUTUAL_TLS_HEADER_FILTER":      "X-SSL* headers clients send are always removed",
	"RELOAD_SCRIPT":                        "routeshift reloads HAProxy itself, hitlessly, through its master process",
	"DROP_SYN_DURING_RESTART":              "reloads pass the listening sockets to the new process; no connection is refused",
	"ROUTER_HAPROXY_CONFIG_MANAGER":        "endpoint changes always go through HAProxy's runtime API",
	"COMMIT_INTERVAL":                      "endpoint changes always go through HAProxy's runtime API; RELOAD_INTERVAL bounds reloads",
	"ROUTER_BLUEPRINT_ROUTE_NAMESPACE":     "there are no blueprint routes: standby backends (ROUTER_BLUEPRINT_ROUTE_POOL_SIZE) take the router's defaults",
	"ROUTER_BLUEPRINT_ROUTE_LABELS":        "there are no blueprint routes: standby backends (ROUTER_BLUEPRINT_ROUTE_POOL_SIZE) take the router's defaults",
	"ROUTER_MAX_DYNAMIC_SERVERS":           "server slots are sized per route, and the runtime API adds servers as services grow",
	"ROUTER_GRACEFUL_SHUTDOWN_DELAY":       "ROUTER_DRAIN_SECONDS sets how long a stopping router serves on (45 by default, as OpenShift's delay)",
}

// Defaults returns the Config of every setting at its default.
func Defaults() Config {
	var c Config
	for _, s := range Table {
		if err := s.Parse(&c, s.Default); err != nil {
			panic(fmt.Sprintf("setting %s: default %q: %v", s.Env, s.Default, err))
		}
	}
	_ = c.Listen.resolveMetricsAuth(c.DataPlane) // auto without credentials: kubernetes
	return c
}

// AddFlags registers one flag per setting on fs. A setting's flag default
// is its environment variable when set, else its default, so the flag
// wins over the environment, which wins over the default. The returned
// function parses every value into a Config.
func AddFlags(fs *pflag.FlagSet, getenv func(string) string) func() (Config, error) {
	values := make([]*string, len(Table))
	for i, s := range Table {
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
		for i, s := range Table {
			if err := s.Parse(&c, *values[i]); err != nil {
				errs = append(errs, fmt.Errorf("%s (--%s) %q: %w", s.Env, s.Flag, *values[i], err))
			}
		}
		if len(errs) == 0 {
			// Each setting alone is right: check them together.
			if err := c.DataPlane.Validate(); err != nil {
				errs = append(errs, err)
			}
		}
		if c.Router.Namespace == "" {
			c.Router.Namespace = getenv("POD_NAMESPACE")
		}
		if err := resolvePublishService(&c.Router); err != nil {
			errs = append(errs, err)
		}
		if err := c.Listen.resolveMetricsAuth(c.DataPlane); err != nil {
			errs = append(errs, err)
		}
		return c, errors.Join(errs...)
	}
}

// Who may read the router's /metrics (ROUTER_METRICS_AUTH) and the
// manager's (--metrics-auth).
const (
	MetricsAuthKubernetes = "kubernetes"
	MetricsAuthBasic      = "basic"
	MetricsAuthNone       = "none"
)

// resolveMetricsAuth turns "auto" into basic when the stats credentials
// are both set, else kubernetes, and refuses basic without them.
func (l *Listen) resolveMetricsAuth(d proxyconfig.Config) error {
	both := d.StatsUsername != "" && d.StatsPassword != ""
	switch {
	case l.MetricsAuth == "auto" && both:
		l.MetricsAuth = MetricsAuthBasic
	case l.MetricsAuth == "auto":
		l.MetricsAuth = MetricsAuthKubernetes
	case l.MetricsAuth == MetricsAuthBasic && !both:
		return errors.New("ROUTER_METRICS_AUTH (--metrics-auth) basic: set STATS_USERNAME and STATS_PASSWORD (or their _FILE variants), or choose kubernetes")
	}
	return nil
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

// exportedColumns is the default of ROUTER_METRICS_HAPROXY_EXPORTED: every
// column the exporter has a metric for.
func exportedColumns() string {
	var out []string
	for _, c := range exporter.Columns() {
		out = append(out, strconv.Itoa(c))
	}
	return strings.Join(out, ",")
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
	if c.Router.Admission.NamespaceSelector != nil || strings.TrimSpace(v) == "" || v == "*" {
		return nil
	}
	return selector(func(c *Config) *labels.Selector { return &c.Router.Admission.NamespaceSelector })(c, v)
}

func domains(field func(*Config) *router.DomainList) func(*Config, string) error {
	return func(c *Config, v string) error {
		l := router.ParseDomainList(v)
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
		if host := router.HostnameTemplate(v).Expand("name", "namespace"); len(validation.IsDNS1123Subdomain(host)) > 0 {
			return fmt.Errorf("does not make a valid host (it makes %q)", host)
		}
	}
	c.Router.Admission.HostnameTemplate = router.HostnameTemplate(v)
	return nil
}

func canonicalHostname(c *Config, v string) error {
	if v != "" && (net.ParseIP(v) != nil || len(validation.IsDNS1123Subdomain(v)) > 0) {
		return errors.New("must be a DNS name, not an IP address")
	}
	c.Router.CanonicalHostname = v
	return nil
}

// publishStatusAddress is a host name or an IP address.
func publishStatusAddress(c *Config, v string) error {
	if v != "" && net.ParseIP(v) == nil && len(validation.IsDNS1123Subdomain(v)) > 0 {
		return errors.New("must be a DNS name or an IP address")
	}
	c.Router.PublishStatusAddress = v
	return nil
}

// publishService is NAMESPACE/NAME or NAME; resolvePublishService fills
// the namespace of the latter in.
func publishService(c *Config, v string) error {
	ns, name, found := strings.Cut(v, "/")
	if !found {
		ns, name = "", v
	}
	if v != "" && (found && len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1035Label(name)) > 0) {
		return errors.New("must be NAMESPACE/NAME or NAME of a Service")
	}
	c.Router.PublishService = types.NamespacedName{Namespace: ns, Name: name}
	return nil
}

// resolvePublishService puts a ROUTER_PUBLISH_SERVICE given by name alone
// in the router's namespace.
func resolvePublishService(r *router.Config) error {
	if r.PublishService.Name == "" || r.PublishService.Namespace != "" {
		return nil
	}
	if r.Namespace == "" {
		return fmt.Errorf("ROUTER_PUBLISH_SERVICE (--publish-service) %q: name the namespace (NAMESPACE/NAME), or set ROUTER_SERVICE_NAMESPACE", r.PublishService.Name)
	}
	r.PublishService.Namespace = r.Namespace
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
	c.Exporter.Columns = out
	return nil
}
