package ingress

import (
	"fmt"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/routeshift/routeshift/routecore"
)

// nginxPrefix is the annotation prefix of ingress-nginx, the controller
// most Ingresses were written for.
const nginxPrefix = "nginx.ingress.kubernetes.io/"

// nginxEquivalents says, for ingress-nginx annotations with a Route
// counterpart, what to write instead. Annotations are copied from the
// Ingress to its Routes, so router annotations belong on the Ingress.
var nginxEquivalents = map[string]string{
	"rewrite-target":          "set " + routecore.AnnRewriteTarget + " (the path's prefix is replaced; regular-expression captures such as /$2 have no equivalent)",
	"whitelist-source-range":  "set " + routecore.AnnIPAllowlist + " (addresses and CIDRs separated by spaces, not commas)",
	"allowlist-source-range":  "set " + routecore.AnnIPAllowlist + " (addresses and CIDRs separated by spaces, not commas)",
	"proxy-read-timeout":      "set " + routecore.AnnTimeout + " with a unit, e.g. 60s",
	"proxy-send-timeout":      "set " + routecore.AnnTimeout + " with a unit, e.g. 60s",
	"affinity":                "sticky-session cookies are on by default; " + routecore.AnnDisableCookies + " turns them off",
	"session-cookie-name":     "set " + routecore.AnnCookieName,
	"load-balance":            "set " + routecore.AnnBalance + " (roundrobin, leastconn, source or random)",
	"ssl-redirect":            "Routes of hosts with TLS redirect plain HTTP to HTTPS already",
	"force-ssl-redirect":      "Routes of hosts with TLS redirect plain HTTP to HTTPS already",
	"backend-protocol":        "for HTTPS backends set " + TerminationAnnotation + ": reencrypt (and " + DestinationCAAnnotation + ")",
	"ssl-passthrough":         "set " + TerminationAnnotation + ": passthrough",
	"limit-rps":               "set " + routecore.AnnRateLimit + ": \"true\" and " + routecore.AnnRateLimitRateHTTP + " (requests per 10 seconds)",
	"limit-connections":       "set " + routecore.AnnRateLimit + ": \"true\" and " + routecore.AnnRateLimitConcurrentTCP,
	"enable-cors":             "set the CORS response headers with spec.httpHeaders on the Routes",
	"configuration-snippet":   "no equivalent: the router takes no configuration from users",
	"server-snippet":          "no equivalent: the router takes no configuration from users",
	"use-regex":               "no equivalent: Route paths are prefixes (or exact, with " + routecore.AnnPathType + ")",
	"app-root":                "set " + routecore.AnnAppRoot + " (requests for / are redirected to it with 302)",
	"permanent-redirect":      "set " + routecore.AnnRedirectTo + " (a final $request_uri appends the request's path and query) and " + routecore.AnnRedirectCode + " (301 by default)",
	"auth-url":                "no equivalent: put the authentication in front of or inside the application",
	"proxy-body-size":         "set " + routecore.AnnMaxBodySize + " (the same size, e.g. 8m)",
	"denylist-source-range":   "set " + routecore.AnnIPDenylist + " (addresses and CIDRs separated by spaces, not commas)",
	"limit-allowlist":         "set " + routecore.AnnRateLimitExempt + " (addresses and CIDRs separated by spaces, not commas)",
	"limit-whitelist":         "set " + routecore.AnnRateLimitExempt + " (addresses and CIDRs separated by spaces, not commas)",
	"hsts":                    "set " + routecore.AnnHSTSHeader + " on TLS Ingresses, e.g. max-age=31536000",
	"upstream-hash-by":        "set " + routecore.AnnBalance + ": source to keep a client on one endpoint",
	"ssl-ciphers":             "ciphers are the router's (ROUTER_CIPHERS), not per Route",
	"custom-http-errors":      "error pages are the router's (ROUTER_ERRORFILE_503, ROUTER_ERRORFILE_404), not per Route",
	"proxy-connect-timeout":   "the connect timeout is the router's (ROUTER_DEFAULT_CONNECT_TIMEOUT), not per Route",
	"websocket-services":      "WebSockets work through Routes without it; " + routecore.AnnTimeoutTunnel + " sets their idle timeout",
	"proxy-buffer-size":       "buffers are the router's (ROUTER_BUF_SIZE), not per Route",
	"server-alias":            "add a rule for each host instead",
	"default-backend":         "requests that match no Route get the router's 503 (or ROUTER_ERRORFILE_404)",
	"service-upstream":        "Routes always balance over the Service's endpoints",
	"x-forwarded-prefix":      "no equivalent: set the header with spec.httpHeaders on the Routes",
	"canary":                  "no equivalent on Ingresses: give a Route spec.alternateBackends with weights",
	"canary-weight":           "no equivalent on Ingresses: give a Route spec.alternateBackends with weights",
	"from-to-www-redirect":    "add a rule for the other host instead",
	"temporal-redirect":       "set " + routecore.AnnRedirectTo + " and " + routecore.AnnRedirectCode + ": \"302\"",
	"enable-access-log":       "access logs are the router's (ROUTER_SYSLOG_ADDRESS), not per Route",
	"proxy-next-upstream":     "the router retries another endpoint when a connection fails (option redispatch)",
	"proxy-ssl-verify":        "reencrypt Routes verify endpoints with " + DestinationCAAnnotation,
	"proxy-ssl-secret":        "reencrypt Routes verify endpoints with " + DestinationCAAnnotation,
	"auth-tls-verify-client":  "no equivalent: routeshift's router has no client-certificate authentication",
	"auth-tls-secret":         "no equivalent: routeshift's router has no client-certificate authentication",
	"session-cookie-samesite": "set " + routecore.AnnCookieSameSite,
	"session-cookie-path":     "no equivalent: the cookie's path is the router's",
	"session-cookie-expires":  "no equivalent: sticky-session cookies last for the browser session",
	"session-cookie-max-age":  "no equivalent: sticky-session cookies last for the browser session",
}

// AnnotationHints are notes for people migrating an Ingress: one per
// annotation of another Ingress controller (ingress-nginx) that Routes do
// not honour, saying what to do instead when there is a counterpart. They
// are for `routeshift translate`'s report; the controller does not act on
// them.
func AnnotationHints(ing *networkingv1.Ingress) []string {
	var keys []string
	for k := range ing.Annotations {
		if strings.HasPrefix(k, nginxPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	hints := make([]string, 0, len(keys))
	for _, k := range keys {
		if hint := nginxEquivalents[strings.TrimPrefix(k, nginxPrefix)]; hint != "" {
			hints = append(hints, fmt.Sprintf("annotation %s has no effect on Routes: %s", k, hint))
		} else {
			hints = append(hints, fmt.Sprintf("annotation %s has no effect on Routes", k))
		}
	}
	return hints
}

// PathTypeHints are notes for people who may take their Ingresses back to
// OpenShift: one per Exact path. routeshift serves such a path exactly
// (annotation routeshift.io/path-type), but OpenShift's ingress-to-route
// controller makes no Route for it. They are for `routeshift translate`'s
// report.
func PathTypeHints(ing *networkingv1.Ingress) []string {
	var hints []string
	for i, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for j, p := range rule.HTTP.Paths {
			if p.PathType == nil || *p.PathType != networkingv1.PathTypeExact {
				continue
			}
			hints = append(hints, fmt.Sprintf("path %q of host %q (rule %d, path %d) has pathType Exact: routeshift serves it exactly (%s: Exact), "+
				"but OpenShift makes no Route for an Exact path, so on OpenShift it would not be served; use pathType Prefix there",
				p.Path, rule.Host, i, j, routecore.AnnPathType))
		}
	}
	return hints
}
