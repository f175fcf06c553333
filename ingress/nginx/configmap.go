package nginx

import (
	"slices"
	"strings"

	"github.com/routeshift/routeshift/routecore"
)

// Setting is the rule for one key of ingress-nginx's ConfigMap.
type Setting struct {
	// Key is the ConfigMap key, e.g. "proxy-read-timeout".
	Key string
	// Verdict is how much of the behaviour routeshift keeps: exact when
	// the conversion applies it to each Route, router-wide when a router
	// setting (named in the caveat) holds it.
	Verdict Verdict
	// Caveat says in one sentence what the Routes get, which router
	// setting holds it, or why it has no counterpart.
	Caveat string

	// parse reads a value into Globals, returning what a valid value
	// looks like when v is not one; nil for keys Globals do not hold.
	parse func(g *Globals, v string) string
	// failClosed, when set, says what the Routes get for a value parse
	// refuses, when keeping the default would widen access.
	failClosed string
}

// ConfigMapTable returns the rule of every key of ingress-nginx's ConfigMap,
// sorted by key.
func ConfigMapTable() []Setting {
	return slices.Clone(configMapTable)
}

// LookupSetting returns the rule of a ConfigMap key.
func LookupSetting(key string) (Setting, bool) {
	i, found := slices.BinarySearchFunc(configMapTable, key, func(s Setting, key string) int {
		return strings.Compare(s.Key, key)
	})
	if !found {
		return Setting{}, false
	}
	return configMapTable[i], true
}

// closestSetting returns the known ConfigMap key nearest to key, or "".
func closestSetting(key string) string {
	return closest(key, len(configMapTable), func(i int) string { return configMapTable[i].Key })
}

var configMapTable = func() []Setting {
	t := slices.Clone(settingsList)
	slices.SortFunc(t, func(a, b Setting) int { return strings.Compare(a.Key, b.Key) })
	return t
}()

// group gives several keys the same rule.
func group(v Verdict, caveat string, keys ...string) []Setting {
	out := make([]Setting, len(keys))
	for i, k := range keys {
		out[i] = Setting{Key: k, Verdict: v, Caveat: caveat}
	}
	return out
}

const (
	nginxTuning   = "It tunes nginx itself; HAProxy has no counterpart to set, and nothing changes for the Routes."
	noTracing     = "The router does not trace requests; it passes tracing headers such as traceparent on unchanged."
	noGlobalAuth  = "The router does not call authentication services: put an authenticating proxy (such as oauth2-proxy) in front of the Services that need it."
	refusedGlobal = "routeshift never runs nginx configuration snippets; the router's configuration comes from its settings and the Routes only."
	noGeoIP       = "The router does not look up client locations."
)

// settingsList is every key documented for ingress-nginx's ConfigMap.
var settingsList = slices.Concat([]Setting{
	{Key: "proxy-read-timeout", Verdict: Exact, parse: parseSeconds(func(g *Globals) *int { return &g.ProxyReadTimeout }),
		Caveat: "Each Route's timeout (haproxy.router.openshift.io/timeout) is the longer of proxy-read-timeout and proxy-send-timeout, unless the Ingress sets its own."},
	{Key: "proxy-send-timeout", Verdict: Exact, parse: parseSeconds(func(g *Globals) *int { return &g.ProxySendTimeout }),
		Caveat: "Each Route's timeout (haproxy.router.openshift.io/timeout) is the longer of proxy-read-timeout and proxy-send-timeout, unless the Ingress sets its own."},
	{Key: "proxy-connect-timeout", Verdict: RouterWide, parse: parseSeconds(func(g *Globals) *int { return &g.ProxyConnectTimeout }),
		Caveat: "The router's connect timeout is ROUTER_DEFAULT_CONNECT_TIMEOUT."},
	{Key: "proxy-body-size", Verdict: Approximate, parse: parseBodySize,
		Caveat: "Routes of Ingresses without proxy-body-size get it as " + routecore.AnnMaxBodySize + " (0 sets none, leaving the router's ROUTER_MAX_BODY_SIZE), and " + chunkedBodies + "."},
	{Key: "ssl-redirect", Verdict: Exact, parse: parseBool(func(g *Globals) *bool { return &g.SSLRedirect }),
		Caveat: "TLS Routes of Ingresses without ssl-redirect get insecureEdgeTerminationPolicy Redirect when true, Allow when false."},
	{Key: "force-ssl-redirect", Verdict: Approximate, parse: parseBool(func(g *Globals) *bool { return &g.ForceSSLRedirect }),
		Caveat: "Routes that terminate TLS redirect plain HTTP when true, but Routes without TLS cannot redirect."},
	{Key: "http-redirect-code", Verdict: Exact, parse: parseRedirectCode,
		Caveat: "TLS Routes that redirect plain HTTP to HTTPS get it as " + routecore.AnnRedirectCode + " (302, the router's own, needs none)."},
	{Key: "hsts", Verdict: Exact, parse: parseBool(func(g *Globals) *bool { return &g.HSTS }),
		Caveat: "TLS Routes get haproxy.router.openshift.io/hsts_header when true."},
	{Key: "hsts-max-age", Verdict: Exact, parse: parseHSTSMaxAge,
		Caveat: "The max-age of the TLS Routes' haproxy.router.openshift.io/hsts_header."},
	{Key: "hsts-include-subdomains", Verdict: Exact, parse: parseBool(func(g *Globals) *bool { return &g.HSTSIncludeSubdomains }),
		Caveat: "includeSubDomains in the TLS Routes' haproxy.router.openshift.io/hsts_header."},
	{Key: "hsts-preload", Verdict: Exact, parse: parseBool(func(g *Globals) *bool { return &g.HSTSPreload }),
		Caveat: "preload in the TLS Routes' haproxy.router.openshift.io/hsts_header."},
	{Key: "use-forwarded-headers", Verdict: RouterWide, parse: parseBool(func(g *Globals) *bool { return &g.UseForwardedHeaders }),
		Caveat: "What the router does with clients' X-Forwarded-* headers is ROUTER_SET_FORWARDED_HEADERS (or haproxy.router.openshift.io/set-forwarded-headers per Route)."},
	{Key: "load-balance", Verdict: RouterWide, parse: parseLoadBalance,
		Caveat: "The router's algorithm is ROUTER_LOAD_BALANCE_ALGORITHM (round_robin is roundrobin; ewma is closest to leastconn)."},
	{Key: "whitelist-source-range", Verdict: Approximate, parse: parseWhitelist,
		Caveat: "Routes of Ingresses without an allowlist annotation get it as haproxy.router.openshift.io/ip_allowlist; other clients' connections are closed where ingress-nginx answers 403."},

	{Key: "ssl-ciphers", Verdict: RouterWide, Caveat: "The router's ciphers are ROUTER_CIPHERS (TLS 1.2) and ROUTER_CIPHERSUITES (TLS 1.3)."},
	{Key: "ssl-protocols", Verdict: RouterWide, Caveat: "The router's TLS versions are SSL_MIN_VERSION and SSL_MAX_VERSION."},
	{Key: "ssl-ecdh-curve", Verdict: RouterWide, Caveat: "The router's curves are ROUTER_CURVES."},
	{Key: "ssl-reject-handshake", Verdict: RouterWide, Caveat: "ROUTER_STRICT_SNI refuses TLS connections for hosts no Route claims."},
	{Key: "use-http2", Verdict: RouterWide, Caveat: "HTTP/2 to clients is ROUTER_DISABLE_HTTP2, which is true (HTTP/2 off) by default where ingress-nginx's use-http2 is on."},
	{Key: "use-proxy-protocol", Verdict: RouterWide, Caveat: "The router reads the PROXY protocol with ROUTER_USE_PROXY_PROTOCOL."},
	{Key: "use-gzip", Verdict: RouterWide, Caveat: "The router compresses responses with ROUTER_ENABLE_COMPRESSION."},
	{Key: "gzip-types", Verdict: RouterWide, Caveat: "The types the router compresses are ROUTER_COMPRESSION_MIME."},
	{Key: "log-format-upstream", Verdict: RouterWide, Caveat: "The router's request log format is ROUTER_SYSLOG_FORMAT, in HAProxy's log-format syntax."},
	{Key: "log-format-stream", Verdict: RouterWide, Caveat: "The router's log format is ROUTER_SYSLOG_FORMAT, in HAProxy's log-format syntax."},
	{Key: "error-log-level", Verdict: RouterWide, Caveat: "HAProxy's log level is ROUTER_LOG_LEVEL."},
	{Key: "client-header-timeout", Verdict: RouterWide, Caveat: "The time a client has to send its request headers is ROUTER_SLOWLORIS_TIMEOUT."},
	{Key: "client-body-timeout", Verdict: RouterWide, Caveat: "The router's client inactivity timeout is ROUTER_DEFAULT_CLIENT_TIMEOUT."},
	{Key: "keep-alive", Verdict: RouterWide, Caveat: "How long an idle client connection stays open is ROUTER_SLOWLORIS_HTTP_KEEPALIVE."},
	{Key: "proxy-stream-timeout", Verdict: RouterWide, Caveat: "The idle timeout of tunnels is ROUTER_DEFAULT_TUNNEL_TIMEOUT (or haproxy.router.openshift.io/timeout-tunnel per Route)."},
	{Key: "worker-shutdown-timeout", Verdict: RouterWide, Caveat: "How long old HAProxy processes may finish their connections after a reload is ROUTER_HARD_STOP_AFTER."},
	{Key: "worker-processes", Verdict: RouterWide, Caveat: "HAProxy's threads are ROUTER_THREADS."},
	{Key: "max-worker-connections", Verdict: RouterWide, Caveat: "The router's connection limit is ROUTER_MAX_CONNECTIONS."},
	{Key: "custom-http-errors", Verdict: RouterWide, Caveat: "The router replaces only its own 503 and 404 pages (ROUTER_ERRORFILE_503, ROUTER_ERRORFILE_404)."},
	{Key: "bind-address", Verdict: RouterWide, Caveat: "The address the router listens on is ROUTER_BIND_ADDRESS."},
	{Key: "disable-ipv6", Verdict: RouterWide, Caveat: "The addresses the router listens on are ROUTER_IP_V4_V6_MODE."},
	{Key: "compute-full-forwarded-for", Verdict: RouterWide, Caveat: "Whether the router appends to X-Forwarded-For is ROUTER_SET_FORWARDED_HEADERS (append)."},
	{Key: "nginx-status-ipv4-whitelist", Verdict: RouterWide, Caveat: "The router's statistics are on STATS_PORT, behind STATS_USERNAME and STATS_PASSWORD."},
	{Key: "nginx-status-ipv6-whitelist", Verdict: RouterWide, Caveat: "The router's statistics are on STATS_PORT, behind STATS_USERNAME and STATS_PASSWORD."},
	{Key: "allow-backend-server-header", Verdict: Exact, Caveat: "The router passes the endpoints' Server header on, as true does."},
	{Key: "server-tokens", Verdict: Exact, Caveat: "The router adds no Server header of its own."},
	{Key: "allow-snippet-annotations", Verdict: Refused, Caveat: "routeshift refuses snippet annotations whatever the value."},
	{Key: "service-upstream", Verdict: Approximate, Caveat: "The router always balances over the Services' endpoints itself, never through their cluster IPs."},
	{Key: "proxy-buffering", Verdict: Approximate, Caveat: "The router streams responses, as off (the default) does."},
	{Key: "proxy-request-buffering", Verdict: Approximate, Caveat: "The router streams request bodies to the endpoints, as off does."},
	{Key: "proxy-next-upstream", Verdict: Approximate, Caveat: "The router retries another endpoint when a connection fails (option redispatch), and never retries a request an endpoint has received."},
	{Key: "proxy-cookie-domain", Verdict: NotSupported, Caveat: "The router does not rewrite the Domain of the endpoints' cookies."},
	{Key: "proxy-cookie-path", Verdict: NotSupported, Caveat: "The router does not rewrite the Path of the endpoints' cookies."},
	{Key: "proxy-redirect-from", Verdict: NotSupported, Caveat: "The router does not rewrite the Location and Refresh headers of responses."},
	{Key: "proxy-next-upstream-timeout", Verdict: NotSupported, Caveat: "The router bounds retries by their count, not by time."},
	{Key: "proxy-next-upstream-tries", Verdict: NotSupported, Caveat: "The router's retry count is fixed (3 connection attempts)."},
	{Key: "retry-non-idempotent", Verdict: NotSupported, Caveat: "The router never retries a request an endpoint has received."},
	{Key: "denylist-source-range", Verdict: Exact, parse: parseDenylist, failClosed: "every Route without a denylist annotation refuses every client (" + routecore.AnnIPDenylist + " " + denyAll + ") until it is fixed",
		Caveat: "Routes of Ingresses without a denylist annotation get it as " + routecore.AnnIPDenylist + ", and the router answers the listed clients 403 as ingress-nginx does."},
	{Key: "block-cidrs", Verdict: NotSupported, Caveat: "The router has no denylist for every Route: list the ranges in the Ingresses' denylist-source-range (" + routecore.AnnIPDenylist + "), or block them in front of the router."},
	{Key: "block-user-agents", Verdict: NotSupported, Caveat: "The router does not filter requests by User-Agent."},
	{Key: "block-referers", Verdict: NotSupported, Caveat: "The router does not filter requests by Referer."},
	{Key: "limit-rate", Verdict: NotSupported, Caveat: "The router does not limit the bandwidth of responses."},
	{Key: "limit-rate-after", Verdict: NotSupported, Caveat: "The router does not limit the bandwidth of responses."},
	{Key: "limit-req-status-code", Verdict: Approximate, parse: parseStatusCode(func(g *Globals) *int { return &g.LimitReqStatusCode }),
		Caveat: "With 429, the Routes of Ingresses with limit-rps or limit-rpm get " + routecore.AnnRateLimitStatus + " 429 (429 with Retry-After past the limit); past a limit of another status the router closes the connection."},
	{Key: "limit-conn-status-code", Verdict: Approximate, parse: parseStatusCode(func(g *Globals) *int { return &g.LimitConnStatusCode }),
		Caveat: "With 429, the Routes of Ingresses with limit-connections get " + routecore.AnnRateLimitStatus + " 429 (429 with Retry-After past the limit); past a limit of another status the router closes the connection."},
	{Key: "limit-conn-zone-variable", Verdict: NotSupported, Caveat: "The router's limits count per client address only."},
	{Key: "add-headers", Verdict: NotSupported, Caveat: "The router adds no response headers to every Route: set them with spec.httpHeaders on the Routes."},
	{Key: "proxy-set-headers", Verdict: NotSupported, Caveat: "The router adds no request headers to every Route: set them with spec.httpHeaders on the Routes."},
	{Key: "hide-headers", Verdict: NotSupported, Caveat: "The router hides no response headers of every Route: delete them with spec.httpHeaders on the Routes."},
	{Key: "global-allowed-response-headers", Verdict: NotSupported, Caveat: "It goes with the custom-headers annotation, which the conversion does not read."},
	{Key: "no-tls-redirect-locations", Verdict: NotSupported, Caveat: "A Route that redirects to HTTPS redirects every path; give such paths a Route of their own without TLS."},
	{Key: "generate-request-id", Verdict: NotSupported, Caveat: "The router does not add X-Request-ID to requests."},
	{Key: "proxy-add-original-uri-header", Verdict: NotSupported, Caveat: "The router does not add X-Original-Uri to requests."},
	{Key: "forwarded-for-header", Verdict: NotSupported, Caveat: "The router reads the client's address from the connection (or the PROXY protocol), not from a header."},
	{Key: "forwarded-for-proxy-protocol-header", Verdict: NotSupported, Caveat: "The router reads the client's address from the connection (or the PROXY protocol), not from a header."},
	{Key: "enable-real-ip", Verdict: NotSupported, Caveat: "The router reads the client's address from the connection (or the PROXY protocol), not from a header."},
	{Key: "proxy-real-ip-cidr", Verdict: NotSupported, Caveat: "The router reads the client's address from the connection (or the PROXY protocol), not from a header."},
	{Key: "skip-access-log-urls", Verdict: NotSupported, Caveat: "The router logs every request (ROUTER_DONT_LOG_NULL drops only empty connections)."},
	{Key: "enable-access-log-for-default-backend", Verdict: NotSupported, Caveat: "The router logs all requests or none (ROUTER_SYSLOG_ADDRESS)."},
	{Key: "access-log-params", Verdict: NotSupported, Caveat: "The router sends its logs to syslog (ROUTER_SYSLOG_ADDRESS); there are no nginx log parameters."},
	{Key: "log-format-escape-json", Verdict: NotSupported, Caveat: "HAProxy's log-format (ROUTER_SYSLOG_FORMAT) escapes values itself."},
	{Key: "log-format-escape-none", Verdict: NotSupported, Caveat: "HAProxy's log-format (ROUTER_SYSLOG_FORMAT) escapes values itself."},
	{Key: "enable-brotli", Verdict: NotSupported, Caveat: "The router compresses with gzip only (ROUTER_ENABLE_COMPRESSION)."},
	{Key: "brotli-level", Verdict: NotSupported, Caveat: "The router compresses with gzip only (ROUTER_ENABLE_COMPRESSION)."},
	{Key: "brotli-min-length", Verdict: NotSupported, Caveat: "The router compresses with gzip only (ROUTER_ENABLE_COMPRESSION)."},
	{Key: "brotli-types", Verdict: NotSupported, Caveat: "The router compresses with gzip only (ROUTER_ENABLE_COMPRESSION)."},
	{Key: "gzip-level", Verdict: NotSupported, Caveat: "The router's compression level is HAProxy's; it cannot be set."},
	{Key: "gzip-min-length", Verdict: NotSupported, Caveat: "The router compresses responses of any length."},
	{Key: "gzip-disable", Verdict: NotSupported, Caveat: "The router compresses for every client that accepts it."},
	{Key: "enable-ocsp", Verdict: NotSupported, Caveat: "The router does not staple OCSP responses."},
	{Key: "ssl-dh-param", Verdict: NotSupported, Caveat: "The router uses HAProxy's built-in Diffie-Hellman parameters (ECDHE is preferred)."},
	{Key: "ssl-session-tickets", Verdict: NotSupported, Caveat: "TLS session resumption is HAProxy's own and cannot be set."},
	{Key: "ssl-session-ticket-key", Verdict: NotSupported, Caveat: "TLS session resumption is HAProxy's own and cannot be set."},
	{Key: "ssl-session-cache", Verdict: NotSupported, Caveat: "TLS session resumption is HAProxy's own and cannot be set."},
	{Key: "ssl-session-cache-size", Verdict: NotSupported, Caveat: "TLS session resumption is HAProxy's own and cannot be set."},
	{Key: "ssl-session-timeout", Verdict: NotSupported, Caveat: "TLS session resumption is HAProxy's own and cannot be set."},
	{Key: "ssl-buffer-size", Verdict: NotSupported, Caveat: "HAProxy sizes TLS records itself."},
	{Key: "proxy-ssl-location-only", Verdict: NotSupported, Caveat: "Reencrypt Routes verify their endpoints with their own destination CA; there is nothing to scope."},
	{Key: "http2-max-field-size", Verdict: RouterWide, Caveat: "Request headers must fit in the router's buffer, ROUTER_BUF_SIZE."},
	{Key: "http2-max-header-size", Verdict: RouterWide, Caveat: "Request headers must fit in the router's buffer, ROUTER_BUF_SIZE."},
	{Key: "client-header-buffer-size", Verdict: RouterWide, Caveat: "Request headers must fit in the router's buffer, ROUTER_BUF_SIZE."},
	{Key: "large-client-header-buffers", Verdict: RouterWide, Caveat: "Request headers must fit in the router's buffer, ROUTER_BUF_SIZE."},
	{Key: "client-body-buffer-size", Verdict: RouterWide, Caveat: "The router streams request bodies through buffers of ROUTER_BUF_SIZE."},
	{Key: "proxy-buffer-size", Verdict: RouterWide, Caveat: "Response headers must fit in the router's buffer, ROUTER_BUF_SIZE."},
	{Key: "proxy-buffers-number", Verdict: NotSupported, Caveat: "The router streams responses through one buffer of ROUTER_BUF_SIZE per direction."},
	{Key: "proxy-busy-buffers-size", Verdict: NotSupported, Caveat: "The router streams responses through one buffer of ROUTER_BUF_SIZE per direction."},
	{Key: "grpc-buffer-size-kb", Verdict: NotSupported, Caveat: "The router streams gRPC messages through buffers of ROUTER_BUF_SIZE."},
	{Key: "http2-max-concurrent-streams", Verdict: NotSupported, Caveat: "HAProxy's HTTP/2 stream limit is its own."},
	{Key: "http2-max-requests", Verdict: NotSupported, Caveat: "HAProxy does not close HTTP/2 connections after a number of requests."},
	{Key: "keep-alive-requests", Verdict: NotSupported, Caveat: "HAProxy does not close client connections after a number of requests."},
	{Key: "upstream-keepalive-connections", Verdict: NotSupported, Caveat: "HAProxy reuses connections to endpoints itself; the pool cannot be sized."},
	{Key: "upstream-keepalive-time", Verdict: NotSupported, Caveat: "HAProxy reuses connections to endpoints itself; the pool cannot be tuned."},
	{Key: "upstream-keepalive-timeout", Verdict: NotSupported, Caveat: "HAProxy reuses connections to endpoints itself; the pool cannot be tuned."},
	{Key: "upstream-keepalive-requests", Verdict: NotSupported, Caveat: "HAProxy reuses connections to endpoints itself; the pool cannot be tuned."},
	{Key: "proxy-stream-next-upstream", Verdict: NotSupported, Caveat: "Passthrough Routes retry another endpoint only when a connection fails (option redispatch)."},
	{Key: "proxy-stream-next-upstream-timeout", Verdict: NotSupported, Caveat: "The router bounds retries by their count, not by time."},
	{Key: "proxy-stream-next-upstream-tries", Verdict: NotSupported, Caveat: "The router's retry count is fixed (3 connection attempts)."},
	{Key: "proxy-stream-responses", Verdict: NotSupported, Caveat: "The router proxies TCP and UDP streams only through passthrough Routes, which expect no responses count."},
	{Key: "proxy-protocol-header-timeout", Verdict: NotSupported, Caveat: "HAProxy's wait for the PROXY protocol header is its own."},
	{Key: "allow-cross-namespace-resources", Verdict: NotSupported, Caveat: "A Route reads Secrets of its own namespace only, whatever the value."},
	{Key: "annotations-risk-level", Verdict: NotSupported, Caveat: "routeshift validates Route annotations itself and refuses snippets; there is no risk level to set."},
	{Key: "annotation-value-word-blocklist", Verdict: NotSupported, Caveat: "routeshift validates Route annotations itself and refuses snippets; there is no blocklist to set."},
	{Key: "strict-validate-path-type", Verdict: NotSupported, Caveat: "routeshift validates Route paths itself, always."},
	{Key: "default-type", Verdict: NotSupported, Caveat: "The router passes responses' Content-Type on as the endpoints send it."},
	{Key: "relative-redirects", Verdict: NotSupported, Caveat: "The router's redirects to HTTPS are absolute URLs."},
	{Key: "debug-connections", Verdict: NotSupported, Caveat: "The router has no per-client debug log; ROUTER_LOG_LEVEL sets how much HAProxy logs."},
	{Key: "max-worker-open-files", Verdict: NotSupported, Caveat: "HAProxy sizes its file limit from ROUTER_MAX_CONNECTIONS."},
	{Key: "enable-underscores-in-headers", Verdict: Approximate, Caveat: "HAProxy passes header names with underscores on, as true does, where ingress-nginx drops them by default."},
	{Key: "ignore-invalid-headers", Verdict: Approximate, Caveat: "HAProxy refuses requests with invalid header names (400) where ingress-nginx drops those headers."},
	{Key: "enable-modsecurity", Verdict: NotSupported, Caveat: waf},
	{Key: "enable-owasp-modsecurity-crs", Verdict: NotSupported, Caveat: waf},
	{Key: "disable-access-log", Verdict: RouterWide, Caveat: "The router logs requests only when ROUTER_SYSLOG_ADDRESS is set."},
	{Key: "enable-syslog", Verdict: RouterWide, Caveat: "The router sends its logs to ROUTER_SYSLOG_ADDRESS."},
	{Key: "syslog-host", Verdict: RouterWide, Caveat: "The router sends its logs to ROUTER_SYSLOG_ADDRESS."},
	{Key: "syslog-port", Verdict: RouterWide, Caveat: "The router sends its logs to ROUTER_SYSLOG_ADDRESS."},
	{Key: "access-log-path", Verdict: RouterWide, Caveat: "The router sends its logs to ROUTER_SYSLOG_ADDRESS, not to files."},
	{Key: "http-access-log-path", Verdict: RouterWide, Caveat: "The router sends its logs to ROUTER_SYSLOG_ADDRESS, not to files."},
	{Key: "stream-access-log-path", Verdict: RouterWide, Caveat: "The router sends its logs to ROUTER_SYSLOG_ADDRESS, not to files."},
	{Key: "error-log-path", Verdict: RouterWide, Caveat: "The router sends its logs to ROUTER_SYSLOG_ADDRESS, not to files."},
},
	group(Refused, refusedGlobal, "main-snippet", "http-snippet", "server-snippet", "stream-snippet", "location-snippet", "modsecurity-snippet", "global-auth-snippet"),
	group(NotSupported, noGlobalAuth, "global-auth-url", "global-auth-method", "global-auth-signin", "global-auth-signin-redirect-param",
		"global-auth-response-headers", "global-auth-request-redirect", "global-auth-cache-key", "global-auth-cache-duration", "no-auth-locations"),
	group(NotSupported, noTracing, "enable-opentelemetry", "opentelemetry-trust-incoming-span", "opentelemetry-operation-name", "opentelemetry-config",
		"otlp-collector-host", "otlp-collector-port", "otel-max-queuesize", "otel-schedule-delay-millis", "otel-max-export-batch-size",
		"otel-service-name", "otel-sampler", "otel-sampler-parent-based", "otel-sampler-ratio",
		"jaeger-collector-host", "jaeger-collector-port", "jaeger-endpoint", "jaeger-service-name", "jaeger-propagation-format",
		"jaeger-sampler-type", "jaeger-sampler-param", "jaeger-sampler-host", "jaeger-sampler-port", "jaeger-trace-context-header-name",
		"jaeger-debug-header", "jaeger-baggage-header", "jaeger-trace-baggage-header-prefix"),
	group(NotSupported, noGeoIP, "use-geoip", "use-geoip2", "geoip2-autoreload-in-minutes"),
	group(NotSupported, nginxTuning, "map-hash-bucket-size", "server-name-hash-max-size", "server-name-hash-bucket-size",
		"proxy-headers-hash-max-size", "proxy-headers-hash-bucket-size", "variables-hash-bucket-size", "variables-hash-max-size",
		"reuse-port", "enable-multi-accept", "enable-aio-write", "worker-cpu-affinity", "lua-shared-dicts", "enable-serial-reloads",
		"disable-ipv6-dns"),
)
