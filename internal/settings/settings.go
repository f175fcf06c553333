// Package settings is the table of the router's settings: every setting's
// environment variable (the names OpenShift's router uses), flag, default,
// example, help and parser, in one place. The router and render commands
// take their flags from it, docgen writes docs/reference/router-settings.md
// from it, and its tests check every default and example with the
// setting's own parser.
//
// It fills the settings of the router (router/), of the HAProxy data
// plane (haproxy/dataplane/) and of the exporter (haproxy/exporter/); none
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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"
	"golang.org/x/net/http/httpguts"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/routeshift/routeshift/haproxy/dataplane"
	"github.com/routeshift/routeshift/haproxy/exporter"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// Config is everything a router instance is told. Every field comes from
// one entry of Table, set by an environment variable or the matching flag;
// flags win.
type Config struct {
	// Router is the router's identity, status and admission.
	Router router.Config
	// DataPlane is how HAProxy is configured and run.
	DataPlane dataplane.Config
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
	// Parse sets the setting's field of a Config from a value.
	Parse func(c *Config, value string) error
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
		Parse: str(func(c *Config) *string { return &c.Router.Name }),
	},
	{
		Env: "ROUTER_SERVICE_NAMESPACE", Flag: "namespace", Default: "", Example: "routeshift",
		Help:  "namespace the router runs in; its leader election Lease is kept there (default: $POD_NAMESPACE)",
		Parse: str(func(c *Config) *string { return &c.Router.Namespace }),
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
		Parse: boolean(func(c *Config) *bool { return &c.Router.UpdateStatus }),
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
		Parse: boolean(func(c *Config) *bool { return &c.Router.Admission.AllowWildcardRoutes }),
	},
	{
		Env: "ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK", Flag: "disable-namespace-ownership-check", Default: "false", Example: "true",
		Help:  "let any namespace claim hosts and subdomains; only exact host+path claims conflict (use with care)",
		Parse: boolean(func(c *Config) *bool { return &c.Router.Admission.DisableNamespaceOwnershipCheck }),
	},
	{
		Env: "EXTENDED_VALIDATION", Flag: "extended-validation", Default: "true", Example: "false",
		Help:  "check route certificates; failures are reported as ExtendedValidationFailed",
		Parse: boolean(func(c *Config) *bool { return &c.Router.Admission.ExtendedValidation }),
	},
	{
		Env: "ROUTER_SUBDOMAIN", Flag: "hostname-template", Default: "", Example: "${name}-${namespace}.apps.example.com",
		Help:  "host of routes without one, with ${name} and ${namespace}, e.g. ${name}-${namespace}.apps.example.com",
		Parse: hostnameTemplate,
	},
	{
		Env: "ROUTER_OVERRIDE_HOSTNAME", Flag: "override-hostname", Default: "false", Example: "true",
		Help:  "replace every route's host with ROUTER_SUBDOMAIN",
		Parse: boolean(func(c *Config) *bool { return &c.Router.Admission.OverrideHostname }),
	},
	{
		Env: "ROUTER_OVERRIDE_DOMAINS", Flag: "override-domains", Default: "", Example: "old.example.com",
		Help:  "comma-separated domains whose routes get ROUTER_SUBDOMAIN as host",
		Parse: domains(func(c *Config) *router.DomainList { return &c.Router.Admission.OverrideDomains }),
	},
	{
		Env: "ROUTER_DOMAIN", Flag: "router-domain", Default: "", Example: "apps.example.com",
		Help:  "domain that completes spec.subdomain into a host",
		Parse: str(func(c *Config) *string { return &c.Router.Admission.RouterDomain }),
	},
	{
		Env: "ROUTER_ALLOW_LOOPBACK_ENDPOINTS", Flag: "allow-loopback-endpoints", Default: "false", Example: "true",
		Help:  "route to endpoints on loopback addresses, for tests on one machine (the API server refuses loopback addresses in EndpointSlices); never enable on a cluster",
		Parse: boolean(func(c *Config) *bool { return &c.Router.Admission.AllowLoopbackEndpoints }),
	},

	// Listeners.
	{
		Env: "ROUTER_BIND_ADDRESS", Flag: "bind-address", Default: "", Example: "10.0.0.5",
		Help:  "address the HTTP and HTTPS frontends listen on (empty: all)",
		Parse: str(func(c *Config) *string { return &c.DataPlane.BindAddress }),
	},
	{
		Env: "ROUTER_IP_V4_V6_MODE", Flag: "ip-v4-v6-mode", Default: "v4", Example: "v4v6",
		Help:  "addresses the HTTP, HTTPS and stats listeners accept when ROUTER_BIND_ADDRESS is empty: v4 (IPv4 only), v6 (IPv6 only) or v4v6 (both)",
		Parse: oneOf(func(c *Config) *string { return &c.DataPlane.IPMode }, "v4", "v6", "v4v6"),
	},
	{
		Env: "ROUTER_SERVICE_HTTP_PORT", Flag: "http-port", Default: "80", Example: "8080",
		Help:  "port for HTTP",
		Parse: port(func(c *Config) *int { return &c.DataPlane.HTTPPort }),
	},
	{
		Env: "ROUTER_SERVICE_HTTPS_PORT", Flag: "https-port", Default: "443", Example: "8443",
		Help:  "port for HTTPS and TLS",
		Parse: port(func(c *Config) *int { return &c.DataPlane.HTTPSPort }),
	},
	{
		Env: "ROUTER_HTTPS_REDIRECT_PORT", Flag: "https-redirect-port", Default: "0", Example: "8443",
		Help:  "port written into the redirects of insecureEdgeTerminationPolicy Redirect (0: none, clients use 443); set it when clients reach HTTPS on another port (routeshift extension)",
		Parse: portOrZero(func(c *Config) *int { return &c.DataPlane.HTTPSRedirectPort }),
	},
	{
		Env: "ROUTER_SERVICE_SNI_PORT", Flag: "sni-port", Default: "10444", Example: "20444",
		Help:  "internal loopback port of the TLS-terminating frontend for SNI traffic; unique per machine",
		Parse: port(func(c *Config) *int { return &c.DataPlane.SNIPort }),
	},
	{
		Env: "ROUTER_SERVICE_NO_SNI_PORT", Flag: "no-sni-port", Default: "10443", Example: "20443",
		Help:  "internal loopback port of the TLS-terminating frontend for traffic without SNI; unique per machine",
		Parse: port(func(c *Config) *int { return &c.DataPlane.NoSNIPort }),
	},
	{
		Env: "ROUTER_USE_PROXY_PROTOCOL", Flag: "use-proxy-protocol", Default: "false", Example: "true",
		Help:  "expect the PROXY protocol on the HTTP and HTTPS ports",
		Parse: boolean(func(c *Config) *bool { return &c.DataPlane.UseProxyProtocol }),
	},
	{
		Env: "ROUTER_BIND_PORTS_AFTER_SYNC", Flag: "bind-ports-after-sync", Default: "false", Example: "true",
		Help:  "listen only once the first complete configuration is loaded",
		Parse: boolean(func(c *Config) *bool { return &c.Router.WaitForSync }),
	},

	// TLS.
	{
		Env: "DEFAULT_CERTIFICATE", Flag: "default-certificate", Default: "", Example: "$(cat tls.crt tls.key)",
		Help:  "PEM certificate and key served to TLS clients no route claims",
		Parse: str(func(c *Config) *string { return &c.DataPlane.DefaultCertificate }),
	},
	{
		Env: "DEFAULT_CERTIFICATE_PATH", Flag: "default-certificate-path", Default: "", Example: "/etc/pki/tls/private/default.pem",
		Help:  "file with the default certificate and key (if DEFAULT_CERTIFICATE is empty)",
		Parse: str(func(c *Config) *string { return &c.DataPlane.DefaultCertificatePath }),
	},
	{
		Env: "DEFAULT_CERTIFICATE_DIR", Flag: "default-certificate-dir", Default: "", Example: "/etc/pki/tls/private",
		Help:  "directory with tls.crt (and tls.key) of the default certificate (if the two above are empty); checked every 10s and loaded when renewed",
		Parse: str(func(c *Config) *string { return &c.DataPlane.DefaultCertificateDir }),
	},
	{
		Env: "DEFAULT_DESTINATION_CA_PATH", Flag: "default-destination-ca-path", Default: ServiceCAPath, Example: "/etc/routeshift/service-ca.crt",
		Help:  "CA file that verifies the endpoints of reencrypt routes without destinationCACertificate (OpenShift's service CA where it exists), read every 10s: a rotated CA is loaded with a hitless reload; while the file does not exist such endpoints are not verified",
		Parse: str(func(c *Config) *string { return &c.DataPlane.DefaultDestinationCAPath }),
	},
	{
		Env: "ROUTER_CIPHERS", Flag: "ciphers", Default: "intermediate", Example: "modern",
		Help:  "cipher profile (modern, intermediate, old: Mozilla's current TLS 1.2 lists, intermediate without CBC suites) or a ':'-separated OpenSSL cipher list",
		Parse: ciphers,
	},
	{
		Env: "ROUTER_DISABLE_HTTP2", Flag: "disable-http2", Default: "true", Example: "false",
		Help:  "false lets TLS clients of edge and reencrypt routes with their own certificate use HTTP/2 (ALPN h2); connections with the default certificate stay HTTP/1.1, since browsers would reuse them for other hosts. Endpoints are spoken to in HTTP/2 when their port's appProtocol says so (h2c, kubernetes.io/h2c; h2 for reencrypt), whatever this setting",
		Parse: boolean(func(c *Config) *bool { return &c.DataPlane.DisableHTTP2 }),
	},
	{
		Env: "ROUTER_CIPHERSUITES", Flag: "ciphersuites", Default: "", Example: "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256",
		Help:  "':'-separated TLS 1.3 cipher suites (empty: TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 and TLS_CHACHA20_POLY1305_SHA256)",
		Parse: str(func(c *Config) *string { return &c.DataPlane.CipherSuites }),
	},
	{
		Env: "ROUTER_CURVES", Flag: "curves", Default: "", Example: "X25519:P-256",
		Help:  "':'-separated key-exchange groups offered to TLS clients, e.g. X25519:P-256 (empty: OpenSSL's)",
		Parse: str(func(c *Config) *string { return &c.DataPlane.Curves }),
	},
	{
		Env: "SSL_MIN_VERSION", Flag: "ssl-min-version", Default: "TLSv1.2", Example: "TLSv1.3",
		Help:  "oldest TLS version clients may use: TLSv1.0, TLSv1.1, TLSv1.2 or TLSv1.3",
		Parse: oneOf(func(c *Config) *string { return &c.DataPlane.SSLMinVersion }, dataplane.TLSVersions...),
	},
	{
		Env: "SSL_MAX_VERSION", Flag: "ssl-max-version", Default: "", Example: "TLSv1.2",
		Help:  "newest TLS version clients may use (empty: the newest HAProxy supports)",
		Parse: oneOf(func(c *Config) *string { return &c.DataPlane.SSLMaxVersion }, append([]string{""}, dataplane.TLSVersions...)...),
	},
	{
		Env: "ROUTER_MUTUAL_TLS_AUTH", Flag: "mutual-tls-auth", Default: "none", Example: "required",
		Help:  "client certificates for TLS clients of edge and reencrypt routes: none, optional (asked for; a client without one is served, one that fails verification is refused) or required (a client without a valid one is refused); passthrough routes are never affected",
		Parse: oneOf(func(c *Config) *string { return &c.DataPlane.MutualTLSAuth }, "none", "optional", "required"),
	},
	{
		Env: "ROUTER_MUTUAL_TLS_AUTH_CA", Flag: "mutual-tls-auth-ca", Default: "", Example: "/etc/routeshift/client-ca.pem",
		Help:  "PEM bundle of the certificate authorities client certificates are verified against (required with ROUTER_MUTUAL_TLS_AUTH optional or required), read every 10s: a changed bundle is loaded with a hitless reload; CRLs named by its certificates' distribution points (http or https) are fetched and kept up to date",
		Parse: str(func(c *Config) *string { return &c.DataPlane.MutualTLSAuthCA }),
	},
	{
		Env: "ROUTER_MUTUAL_TLS_AUTH_CRL", Flag: "mutual-tls-auth-crl", Default: "", Example: "/etc/routeshift/client-ca.crl",
		Help:  "PEM file of certificate revocation lists client certificates are checked against, read every 10s; once any CRL is in use, every authority that issues client certificates needs its CRL, here or from a distribution point",
		Parse: str(func(c *Config) *string { return &c.DataPlane.MutualTLSAuthCRL }),
	},
	{
		Env: "ROUTER_MUTUAL_TLS_AUTH_FILTER", Flag: "mutual-tls-auth-filter", Default: "", Example: "^/O=Acme/CN=[a-z]+$",
		Help:  "regular expression the subject of client certificates (/C=US/O=Acme/CN=name) must match, else the request is refused with 403; with optional, requests without a certificate are refused too",
		Parse: mutualTLSFilter,
	},
	{
		Env: "ROUTER_STRICT_SNI", Flag: "strict-sni", Default: "false", Example: "true",
		Help:  "refuse TLS connections whose SNI no route claims instead of serving the default certificate",
		Parse: boolean(func(c *Config) *bool { return &c.DataPlane.StrictSNI }),
	},

	// Capacity.
	{
		Env: "ROUTER_MAX_CONNECTIONS", Flag: "max-connections", Default: "20000", Example: "50000",
		Help:  "maximum concurrent connections",
		Parse: positive(func(c *Config) *int { return &c.DataPlane.MaxConnections }),
	},
	{
		Env: "ROUTER_THREADS", Flag: "threads", Default: "0", Example: "4",
		Help:  "HAProxy threads (0: HAProxy's default, one per CPU)",
		Parse: nonNegative(func(c *Config) *int { return &c.DataPlane.Threads }),
	},
	{
		Env: "ROUTER_BUF_SIZE", Flag: "buf-size", Default: "32768", Example: "65536",
		Help:  "HAProxy's buffer size in bytes (tune.bufsize): a request's headers must fit in it, less ROUTER_MAX_REWRITE_SIZE",
		Parse: integer(func(c *Config) *int { return &c.DataPlane.BufSize }, 2048, 1<<20, "a number of bytes from 2048 to 1048576"),
	},
	{
		Env: "ROUTER_MAX_REWRITE_SIZE", Flag: "max-rewrite-size", Default: "8192", Example: "16384",
		Help:  "bytes of the buffer kept for adding and rewriting headers (tune.maxrewrite), at most half of ROUTER_BUF_SIZE",
		Parse: integer(func(c *Config) *int { return &c.DataPlane.MaxRewriteSize }, 0, 1<<19, "a number of bytes from 0 to 524288"),
	},

	// Timeouts (TimeUnits).
	{
		Env: "ROUTER_DEFAULT_CLIENT_TIMEOUT", Flag: "default-client-timeout", Default: "30s", Example: "1m",
		Help:  "time within which a client must acknowledge or send data",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.ClientTimeout }),
	},
	{
		Env: "ROUTER_CLIENT_FIN_TIMEOUT", Flag: "client-fin-timeout", Default: "1s", Example: "500ms",
		Help:  "time to wait for the client's FIN",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.ClientFinTimeout }),
	},
	{
		Env: "ROUTER_DEFAULT_CONNECT_TIMEOUT", Flag: "default-connect-timeout", Default: "5s", Example: "2s",
		Help:  "maximum time to connect to a backend",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.ConnectTimeout }),
	},
	{
		Env: "ROUTER_DEFAULT_SERVER_TIMEOUT", Flag: "default-server-timeout", Default: "30s", Example: "2m",
		Help:  "time within which a backend must acknowledge or send data (annotation haproxy.router.openshift.io/timeout overrides it per route)",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.ServerTimeout }),
	},
	{
		Env: "ROUTER_DEFAULT_SERVER_FIN_TIMEOUT", Flag: "default-server-fin-timeout", Default: "1s", Example: "500ms",
		Help:  "time to wait for the backend's FIN",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.ServerFinTimeout }),
	},
	{
		Env: "ROUTER_DEFAULT_TUNNEL_TIMEOUT", Flag: "default-tunnel-timeout", Default: "1h", Example: "24h",
		Help:  "how long idle TCP and WebSocket connections stay open",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.TunnelTimeout }),
	},
	{
		Env: "ROUTER_SLOWLORIS_HTTP_KEEPALIVE", Flag: "slowloris-http-keepalive", Default: "300s", Example: "60s",
		Help:  "time to wait for a new HTTP request on a kept-alive connection",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.SlowlorisHTTPKeepalive }),
	},
	{
		Env: "ROUTER_SLOWLORIS_TIMEOUT", Flag: "slowloris-timeout", Default: "10s", Example: "5s",
		Help:  "time an HTTP request may take to arrive",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.SlowlorisTimeout }),
	},
	{
		Env: "ROUTER_INSPECT_DELAY", Flag: "inspect-delay", Default: "5s", Example: "2s",
		Help:  "time to wait for a TLS ClientHello on the HTTPS port",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.InspectDelay }),
	},
	{
		Env: "ROUTER_HARD_STOP_AFTER", Flag: "hard-stop-after", Default: "", Example: "1h",
		Help:  "time after a reload when HAProxy closes the connections the previous configuration still serves, e.g. 1h (empty: they stay open until they end); also the time a stopping router gives the requests in progress, after ROUTER_DRAIN_SECONDS (empty: 30s)",
		Parse: optionalTimeUnit(func(c *Config) *time.Duration { return &c.DataPlane.HardStopAfter }),
	},
	{
		Env: "ROUTER_DRAIN_SECONDS", Flag: "drain-seconds", Default: "45", Example: "60",
		Help:  "seconds a router told to stop (SIGTERM) keeps serving with /healthz/ready answering 503, so that load balancers take it out of rotation before HAProxy closes its listeners and finishes the requests in progress; a second signal ends the wait; 0: no wait (routeshift extension)",
		Parse: seconds(func(c *Config) *time.Duration { return &c.Listen.DrainPeriod }, 3600),
	},
	{
		Env: "ROUTER_BACKEND_CHECK_INTERVAL", Flag: "backend-check-interval", Default: "5000ms", Example: "10s",
		Help:  "interval of endpoint health checks (annotation router.openshift.io/haproxy.health.check.interval overrides it)",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.DataPlane.BackendCheckInterval }),
	},

	// Balancing and sessions.
	{
		Env: "ROUTER_LOAD_BALANCE_ALGORITHM", Flag: "load-balance-algorithm", Default: "leastconn", Example: "roundrobin",
		Help:  "balance algorithm of HTTP, edge and reencrypt routes with one active service (several weighted services get roundrobin): roundrobin, leastconn, source or random",
		Parse: enum(func(c *Config) *routecore.BalanceAlgorithm { return &c.DataPlane.LoadBalanceAlgorithm }, routecore.BalanceAlgorithms),
	},
	{
		Env: "ROUTER_TCP_BALANCE_SCHEME", Flag: "tcp-balance-scheme", Default: "source", Example: "leastconn",
		Help:  "balance algorithm of passthrough routes with one active service (several weighted services get roundrobin): roundrobin, leastconn, source or random",
		Parse: enum(func(c *Config) *routecore.BalanceAlgorithm { return &c.DataPlane.TCPBalanceScheme }, routecore.BalanceAlgorithms),
	},
	{
		Env: "ROUTER_COOKIE_NAME", Flag: "cookie-name", Default: "", Example: "SERVERID",
		Help:  "name of every route's sticky-session cookie (default: a hash of the route)",
		Parse: cookieName,
	},
	{
		Env: "ROUTER_BACKEND_PROCESS_ENDPOINTS", Flag: "backend-process-endpoints", Default: "", Example: "shuffle",
		Help:  `"shuffle" randomises the order in which new endpoints take server slots (endpoints keep their slots while they stay)`,
		Parse: enum(func(c *Config) *dataplane.EndpointOrder { return &c.DataPlane.BackendProcessEndpoints }, dataplane.EndpointOrders),
	},

	// Responses.
	{
		Env: "ROUTER_ENABLE_COMPRESSION", Flag: "enable-compression", Default: "false", Example: "true",
		Help:  "compress responses of the ROUTER_COMPRESSION_MIME types",
		Parse: boolean(func(c *Config) *bool { return &c.DataPlane.EnableCompression }),
	},
	{
		Env: "ROUTER_COMPRESSION_MIME", Flag: "compression-mime", Default: "text/html text/plain text/css", Example: "text/html application/json",
		Help:  "space-separated MIME types to compress",
		Parse: str(func(c *Config) *string { return &c.DataPlane.CompressionMIME }),
	},
	{
		Env: "ROUTER_SET_FORWARDED_HEADERS", Flag: "set-forwarded-headers", Default: "append", Example: "replace",
		Help:  "X-Forwarded-For, -Host, -Port and -Proto headers: append (the client's address to X-Forwarded-For; the others set), replace (all set, whatever the client sent), if-none (set only when the client sent none) or never (left as the client sent them)",
		Parse: enum(func(c *Config) *routecore.ForwardedHeadersPolicy { return &c.DataPlane.ForwardedHeaders }, routecore.ForwardedHeadersPolicies),
	},
	{
		Env: "ROUTER_H1_CASE_ADJUST", Flag: "h1-case-adjust", Default: "", Example: "Host,X-Request-ID",
		Help:  "comma-separated header names in the case HTTP/1 peers that wrongly expect one must get them (HAProxy writes header names in lower case): applied to responses to clients, and to requests of Routes annotated haproxy.router.openshift.io/h1-adjust-case: \"true\"",
		Parse: headerNames,
	},
	{
		Env: "ROUTER_ERRORFILE_503", Flag: "errorfile-503", Default: "", Example: "/etc/routeshift/errors/503.http",
		Help:  "file with the complete HTTP response (status line, headers, body) sent instead of HAProxy's 503 page: no route matches, or a route has no available endpoint",
		Parse: str(func(c *Config) *string { return &c.DataPlane.ErrorFile503 }),
	},
	{
		Env: "ROUTER_ERRORFILE_404", Flag: "errorfile-404", Default: "", Example: "/etc/routeshift/errors/404.http",
		Help:  "file with the complete HTTP response sent when no route matches a request, which then answers 404 instead of 503",
		Parse: str(func(c *Config) *string { return &c.DataPlane.ErrorFile404 }),
	},
	{
		Env: "ROUTER_DONT_LOG_NULL", Flag: "dont-log-null", Default: "false", Example: "true",
		Help:  "do not log connections that send no data (HAProxy option dontlognull)",
		Parse: boolean(func(c *Config) *bool { return &c.DataPlane.DontLogNull }),
	},
	{
		Env: "ROUTER_HTTP_IGNORE_PROBES", Flag: "http-ignore-probes", Default: "false", Example: "true",
		Help:  "neither log nor answer connections closed before sending a request, as browsers' pre-connects do (option http-ignore-probes)",
		Parse: boolean(func(c *Config) *bool { return &c.DataPlane.HTTPIgnoreProbes }),
	},
	{
		Env: "ROUTER_HAPROXY_CONTSTATS", Flag: "haproxy-contstats", Default: "false", Example: "true",
		Help:  "count the traffic of long transfers continuously, not only when they end (option contstats)",
		Parse: boolean(func(c *Config) *bool { return &c.DataPlane.ContStats }),
	},
	{
		Env: "ROUTER_ABORT_ON_CLOSE", Flag: "abort-on-close", Default: "false", Example: "true",
		Help:  "drop requests whose client has gone away before they reach a backend (option abortonclose)",
		Parse: boolean(func(c *Config) *bool { return &c.DataPlane.AbortOnClose }),
	},

	// Logging.
	{
		Env: "ROUTER_SYSLOG_ADDRESS", Flag: "syslog-address", Default: "", Example: "10.0.0.10:514",
		Help:  "syslog server for HAProxy's logs (empty: no logs)",
		Parse: str(func(c *Config) *string { return &c.DataPlane.SyslogAddress }),
	},
	{
		Env: "ROUTER_SYSLOG_FORMAT", Flag: "syslog-format", Default: "", Example: "%ci:%cp [%tr] %ft %b/%s %ST %B %hr %{+Q}r",
		Help:  "HAProxy log-format of request logs (default: option httplog)",
		Parse: str(func(c *Config) *string { return &c.DataPlane.SyslogFormat }),
	},
	{
		Env: "ROUTER_LOG_FACILITY", Flag: "log-facility", Default: "local1", Example: "local2",
		Help:  "syslog facility of HAProxy's logs",
		Parse: oneOf(func(c *Config) *string { return &c.DataPlane.LogFacility }, syslogFacilities...),
	},
	{
		Env: "ROUTER_LOG_MAX_LENGTH", Flag: "log-max-length", Default: "1024", Example: "4096",
		Help:  "longest log line sent to the syslog server, in bytes (longer ones are cut)",
		Parse: integer(func(c *Config) *int { return &c.DataPlane.LogMaxLength }, 80, 65535, "a number of bytes from 80 to 65535"),
	},
	{
		Env: "ROUTER_LOG_LEVEL", Flag: "log-level-haproxy", Default: "warning", Example: "info",
		Help:  "level of logs sent to the syslog server",
		Parse: enum(func(c *Config) *dataplane.SyslogLevel { return &c.DataPlane.LogLevel }, dataplane.SyslogLevels),
	},

	// Stats and metrics.
	{
		Env: "STATS_PORT", Flag: "stats-port", Default: "0", Example: "1937",
		Help:  "port of HAProxy's statistics page (0: not exposed)",
		Parse: portOrZero(func(c *Config) *int { return &c.DataPlane.StatsPort }),
	},
	{
		Env: "STATS_USERNAME", Flag: "stats-user", Default: "", Example: "admin",
		Help:  "user name protecting the statistics page",
		Parse: str(func(c *Config) *string { return &c.DataPlane.StatsUsername }),
	},
	{
		Env: "STATS_PASSWORD", Flag: "stats-password", Default: "", Example: "s3cret",
		Help:  "password protecting the statistics page",
		Parse: str(func(c *Config) *string { return &c.DataPlane.StatsPassword }),
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
		Parse: str(func(c *Config) *string { return &c.Listen.Addr }),
	},
	{
		Env: "ROUTER_METRICS_TYPE", Flag: "metrics-type", Default: "haproxy", Example: "haproxy",
		Help:  `"haproxy" adds HAProxy's counters to /metrics (the only type); the flag set empty (--metrics-type=) leaves them out`,
		Parse: oneOf(func(c *Config) *string { return &c.Listen.MetricsType }, "", "haproxy"),
	},
	{
		Env: "ROUTER_METRICS_AUTH", Flag: "metrics-auth", Default: "auto", Example: "kubernetes",
		Help:  "who may read /metrics: kubernetes (a bearer token whose user may get routers/metrics named ROUTER_SERVICE_NAME in route.openshift.io, checked with a TokenReview and a SubjectAccessReview, as OpenShift's router does), basic (STATS_USERNAME and STATS_PASSWORD), none (anyone who reaches ROUTER_LISTEN_ADDR), or auto: basic when both are set, else kubernetes; /healthz and /healthz/ready stay open (routeshift extension)",
		Parse: oneOf(func(c *Config) *string { return &c.Listen.MetricsAuth }, "auto", MetricsAuthKubernetes, MetricsAuthBasic, MetricsAuthNone),
	},
	{
		Env: "ROUTER_METRICS_HAPROXY_SERVER_THRESHOLD", Flag: "metrics-haproxy-server-threshold", Default: "500", Example: "1000",
		Help:  "above this many servers, per-server metrics are replaced by per-backend ones",
		Parse: positive(func(c *Config) *int { return &c.Exporter.ServerThreshold }),
	},
	{
		Env: "ROUTER_METRICS_HAPROXY_BASE_SCRAPE_INTERVAL", Flag: "metrics-haproxy-base-scrape-interval", Default: "5s", Example: "10s",
		Help:  "interval of HAProxy statistics scrapes, per 1000 rows",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.Exporter.ScrapeInterval }),
	},
	{
		Env: "ROUTER_METRICS_HAPROXY_TIMEOUT", Flag: "metrics-haproxy-timeout", Default: "5s", Example: "10s",
		Help:  "timeout of a HAProxy statistics scrape",
		Parse: timeUnit(func(c *Config) *time.Duration { return &c.Exporter.Timeout }),
	},
	{
		Env: "ROUTER_METRICS_HAPROXY_EXPORTED", Flag: "metrics-haproxy-exported", Default: exportedColumns(), Example: "2,4,5,7,8,9",
		Help:  "comma-separated HAProxy CSV columns exported as metrics; columns outside the default list have no metric and are ignored",
		Parse: csvIndexes,
	},

	// Configuration and reloads.
	{
		Env: "ROUTER_WORKING_DIR", Flag: "working-dir", Default: "/var/lib/routeshift", Example: "/var/lib/haproxy/router",
		Help:  "directory for haproxy.cfg, maps, certificates (0600) and sockets",
		Parse: str(func(c *Config) *string { return &c.DataPlane.WorkingDir }),
	},
	{
		Env: "TEMPLATE_FILE", Flag: "template", Default: "", Example: "/etc/routeshift/haproxy.cfg.tmpl",
		Help:  "Go template that replaces the built-in haproxy.cfg template (see docs for the data it receives)",
		Parse: str(func(c *Config) *string { return &c.DataPlane.TemplateFile }),
	},
	{
		Env: "RELOAD_INTERVAL", Flag: "interval", Default: "5s", Example: "10s",
		Help:  "minimum time between reloads: the first change applies at once, later ones within the interval are batched",
		Parse: interval(func(c *Config) *time.Duration { return &c.DataPlane.ReloadInterval }, "5s"),
	},
	{
		Env: "ROUTER_BLUEPRINT_ROUTE_POOL_SIZE", Flag: "standby-backends", Default: "10", Example: "50",
		Help: "standby backends of each kind (plain HTTP, HTTP with a secure cookie, TCP) from which HAProxy serves new routes " +
			"without annotations or certificates of their own at once, until the reload that loads their own backends; 0 turns them off (as does TEMPLATE_FILE)",
		Parse: integer(func(c *Config) *int { return &c.DataPlane.StandbyBackends }, 0, 1000, "a whole number from 0 to 1000"),
	},
	{
		Env: "RESYNC_INTERVAL", Flag: "resync-interval", Default: "30m", Example: "10m",
		Help:  "how often the router looks at every object again: each Route's status entry is checked and written again if someone else changed or removed it",
		Parse: interval(func(c *Config) *time.Duration { return &c.Router.ResyncInterval }, "30m"),
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
func (l *Listen) resolveMetricsAuth(d dataplane.Config) error {
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

// seconds is a whole number of seconds from 0 to maximum.
func seconds(field func(*Config) *time.Duration, maximum int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maximum {
			return fmt.Errorf("must be a whole number of seconds from 0 to %d", maximum)
		}
		*field(c) = time.Duration(n) * time.Second
		return nil
	}
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

// interval is a TimeUnit or a Go duration (RELOAD_INTERVAL examples use
// both), at least one second; example names a valid value.
func interval(field func(*Config) *time.Duration, example string) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := routecore.ParseTimeUnit(v)
		if err != nil {
			if d, err = time.ParseDuration(v); err != nil {
				return errors.New("must be a TimeUnit such as " + example)
			}
		}
		if d < time.Second {
			return errors.New("must be at least 1s")
		}
		*field(c) = d
		return nil
	}
}

// mutualTLSFilter accepts a regular expression HAProxy (PCRE2) and Go
// (RE2) both read, without control characters.
func mutualTLSFilter(c *Config, v string) error {
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return errors.New("must not contain control characters")
	}
	if _, err := regexp.Compile(v); err != nil {
		return fmt.Errorf("not a regular expression: %v", err)
	}
	c.DataPlane.MutualTLSAuthFilter = v
	return nil
}

// headerNames accepts a comma-separated list of distinct HTTP header names
// (tokens), as ROUTER_H1_CASE_ADJUST writes them.
func headerNames(c *Config, v string) error {
	var names []string
	seen := map[string]bool{}
	for f := range strings.SplitSeq(v, ",") {
		name := strings.TrimSpace(f)
		if name == "" {
			continue
		}
		if !httpguts.ValidHeaderFieldName(name) {
			return fmt.Errorf("%q is not a header name (letters, digits and !#$%%&'*+-.^_`|~)", name)
		}
		if seen[strings.ToLower(name)] {
			return fmt.Errorf("%q is listed twice", name)
		}
		seen[strings.ToLower(name)] = true
		names = append(names, name)
	}
	c.DataPlane.H1CaseAdjust = names
	return nil
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

func oneOf(field func(*Config) *string, values ...string) func(*Config, string) error {
	return enum(field, values)
}

// enum accepts exactly the values of an enumeration.
func enum[T ~string](field func(*Config) *T, values []T) func(*Config, string) error {
	return func(c *Config, v string) error {
		if !slices.Contains(values, T(v)) {
			return fmt.Errorf("use one of %s", strings.Join(routecore.Strings(values), ", "))
		}
		*field(c) = T(v)
		return nil
	}
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

// cookieName follows the rule of the cookie_name annotation.
func cookieName(c *Config, v string) error {
	if v != "" {
		if err := routecore.ValidateCookieName(v); err != nil {
			return errors.New(err.Detail)
		}
	}
	c.DataPlane.CookieName = v
	return nil
}

// ciphers accepts a profile or a ':'-separated list of OpenSSL names.
func ciphers(c *Config, v string) error {
	if err := dataplane.ValidateCiphers(v); err != nil {
		return errors.New(err.Detail)
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
	c.Exporter.Columns = out
	return nil
}
