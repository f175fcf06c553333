package main

import (
	"fmt"

	"github.com/routeshift/routeshift/haproxy"
	"github.com/routeshift/routeshift/routecore"
)

// settingExamples is an example value of every router setting, by
// variable, for the Example column of router-settings.md; docgen fails
// when a setting has none, and its tests parse each with the setting's own
// parser.
var settingExamples = map[string]string{
	"ROUTER_SERVICE_NAME":                         "internal",
	"ROUTER_SERVICE_NAMESPACE":                    "routeshift",
	"ROUTER_CANONICAL_HOSTNAME":                   "router.apps.example.com",
	"ROUTER_UPDATE_STATUS":                        "false",
	"ROUTE_LABELS":                                "shard=internal",
	"NAMESPACE_LABELS":                            "environment in (prod,staging)",
	"PROJECT_LABELS":                              "team=web",
	"ROUTER_ALLOWED_DOMAINS":                      "apps.example.com,example.org",
	"ROUTER_DENIED_DOMAINS":                       "admin.example.com",
	"ROUTER_ALLOW_WILDCARD_ROUTES":                "true",
	"ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK":    "true",
	"EXTENDED_VALIDATION":                         "false",
	"ROUTER_SUBDOMAIN":                            "${name}-${namespace}.apps.example.com",
	"ROUTER_OVERRIDE_HOSTNAME":                    "true",
	"ROUTER_OVERRIDE_DOMAINS":                     "old.example.com",
	"ROUTER_DOMAIN":                               "apps.example.com",
	"ROUTER_ALLOW_LOOPBACK_ENDPOINTS":             "true",
	"ROUTER_BIND_ADDRESS":                         "10.0.0.5",
	"ROUTER_IP_V4_V6_MODE":                        "v4v6",
	"ROUTER_SERVICE_HTTP_PORT":                    "8080",
	"ROUTER_SERVICE_HTTPS_PORT":                   "8443",
	"ROUTER_HTTPS_REDIRECT_PORT":                  "8443",
	"ROUTER_SERVICE_SNI_PORT":                     "20444",
	"ROUTER_SERVICE_NO_SNI_PORT":                  "20443",
	"ROUTER_USE_PROXY_PROTOCOL":                   "true",
	"ROUTER_BIND_PORTS_AFTER_SYNC":                "true",
	"DEFAULT_CERTIFICATE":                         "$(cat tls.crt tls.key)",
	"DEFAULT_CERTIFICATE_PATH":                    "/etc/pki/tls/private/default.pem",
	"DEFAULT_CERTIFICATE_DIR":                     "/etc/pki/tls/private",
	"DEFAULT_DESTINATION_CA_PATH":                 "/etc/routeshift/service-ca.crt",
	"ROUTER_CIPHERS":                              "modern",
	"ROUTER_DISABLE_HTTP2":                        "false",
	"ROUTER_CIPHERSUITES":                         "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256",
	"ROUTER_CURVES":                               "X25519:P-256",
	"SSL_MIN_VERSION":                             "TLSv1.3",
	"SSL_MAX_VERSION":                             "TLSv1.2",
	"ROUTER_STRICT_SNI":                           "true",
	"ROUTER_MAX_CONNECTIONS":                      "50000",
	"ROUTER_THREADS":                              "4",
	"ROUTER_BUF_SIZE":                             "65536",
	"ROUTER_MAX_REWRITE_SIZE":                     "16384",
	"ROUTER_DEFAULT_CLIENT_TIMEOUT":               "1m",
	"ROUTER_CLIENT_FIN_TIMEOUT":                   "500ms",
	"ROUTER_DEFAULT_CONNECT_TIMEOUT":              "2s",
	"ROUTER_DEFAULT_SERVER_TIMEOUT":               "2m",
	"ROUTER_DEFAULT_SERVER_FIN_TIMEOUT":           "500ms",
	"ROUTER_DEFAULT_TUNNEL_TIMEOUT":               "24h",
	"ROUTER_SLOWLORIS_HTTP_KEEPALIVE":             "60s",
	"ROUTER_SLOWLORIS_TIMEOUT":                    "5s",
	"ROUTER_INSPECT_DELAY":                        "2s",
	"ROUTER_HARD_STOP_AFTER":                      "1h",
	"ROUTER_BACKEND_CHECK_INTERVAL":               "10s",
	"ROUTER_LOAD_BALANCE_ALGORITHM":               "roundrobin",
	"ROUTER_TCP_BALANCE_SCHEME":                   "leastconn",
	"ROUTER_COOKIE_NAME":                          "SERVERID",
	"ROUTER_BACKEND_PROCESS_ENDPOINTS":            "shuffle",
	"ROUTER_ENABLE_COMPRESSION":                   "true",
	"ROUTER_COMPRESSION_MIME":                     "text/html application/json",
	"ROUTER_SET_FORWARDED_HEADERS":                "replace",
	"ROUTER_ERRORFILE_503":                        "/etc/routeshift/errors/503.http",
	"ROUTER_ERRORFILE_404":                        "/etc/routeshift/errors/404.http",
	"ROUTER_DONT_LOG_NULL":                        "true",
	"ROUTER_HTTP_IGNORE_PROBES":                   "true",
	"ROUTER_HAPROXY_CONTSTATS":                    "true",
	"ROUTER_ABORT_ON_CLOSE":                       "true",
	"ROUTER_SYSLOG_ADDRESS":                       "10.0.0.10:514",
	"ROUTER_SYSLOG_FORMAT":                        "%ci:%cp [%tr] %ft %b/%s %ST %B %hr %{+Q}r",
	"ROUTER_LOG_FACILITY":                         "local2",
	"ROUTER_LOG_MAX_LENGTH":                       "4096",
	"ROUTER_LOG_LEVEL":                            "info",
	"STATS_PORT":                                  "1937",
	"STATS_USERNAME":                              "admin",
	"STATS_PASSWORD":                              "s3cret",
	"STATS_USERNAME_FILE":                         "/var/run/secrets/stats/username",
	"STATS_PASSWORD_FILE":                         "/var/run/secrets/stats/password",
	"ROUTER_LISTEN_ADDR":                          "127.0.0.1:1936",
	"ROUTER_METRICS_TYPE":                         "haproxy",
	"ROUTER_METRICS_AUTH":                         "kubernetes",
	"ROUTER_METRICS_HAPROXY_SERVER_THRESHOLD":     "1000",
	"ROUTER_METRICS_HAPROXY_BASE_SCRAPE_INTERVAL": "10s",
	"ROUTER_METRICS_HAPROXY_TIMEOUT":              "10s",
	"ROUTER_METRICS_HAPROXY_EXPORTED":             "2,4,5,7,8,9",
	"ROUTER_WORKING_DIR":                          "/var/lib/haproxy/router",
	"TEMPLATE_FILE":                               "/etc/routeshift/haproxy.cfg.tmpl",
	"RELOAD_INTERVAL":                             "10s",
}

// annotationExampleValues is an example value of every catalogue
// annotation, for the Example column of annotations.md; docgen fails when
// an annotation has none, and its tests validate each with the catalogue.
var annotationExampleValues = map[string]string{
	routecore.AnnBalance:                  "roundrobin",
	routecore.AnnDisableCookies:           "true",
	routecore.AnnCookieNameLegacy:         "session",
	routecore.AnnCookieName:               "session",
	routecore.AnnCookieSameSite:           "Strict",
	routecore.AnnPodConcurrentConnections: "100",
	routecore.AnnRateLimit:                "true",
	routecore.AnnRateLimitConcurrentTCP:   "20",
	routecore.AnnRateLimitRateHTTP:        "100",
	routecore.AnnRateLimitRateTCP:         "50",
	routecore.AnnTimeout:                  "2m",
	routecore.AnnTimeoutTunnel:            "30m",
	routecore.AnnRewriteTarget:            "/",
	routecore.AnnHealthCheckInterval:      "10s",
	routecore.AnnIPWhitelist:              "192.168.1.0/24 10.0.0.1",
	routecore.AnnIPAllowlist:              "192.168.1.10 10.0.0.0/8 2001:db8::/32",
	routecore.AnnHSTSHeader:               "max-age=31536000;includeSubDomains;preload",
	routecore.AnnPoolSize:                 "10",
	routecore.AnnPathType:                 "Exact",
	routecore.AnnSetForwardedHeaders:      "if-none",
	routecore.AnnH1AdjustCase:             "true",
}

// settingExample returns the example of setting env, or an error saying
// where to add one.
func settingExample(env string) (string, error) {
	v, ok := settingExamples[env]
	if !ok {
		return "", fmt.Errorf("router setting %s has no example: add one to settingExamples in internal/docgen/examples.go", env)
	}
	return v, nil
}

// annotationExample returns the example of annotation key, or an error
// saying where to add one.
func annotationExample(key string) (string, error) {
	v, ok := annotationExampleValues[key]
	if !ok {
		return "", fmt.Errorf("annotation %s has no example: add one to annotationExampleValues in internal/docgen/examples.go", key)
	}
	return v, nil
}

// staleExamples returns the example keys that name no setting or
// annotation any more.
func staleExamples() []string {
	var stale []string
	settings := map[string]bool{}
	for _, s := range haproxy.Settings {
		settings[s.Env] = true
	}
	for env := range settingExamples {
		if !settings[env] {
			stale = append(stale, env)
		}
	}
	for key := range annotationExampleValues {
		if _, ok := routecore.LookupAnnotation(key); !ok {
			stale = append(stale, key)
		}
	}
	return stale
}
