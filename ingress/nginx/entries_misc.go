package nginx

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/routeshift/routeshift/routecore"
)

const (
	// snippetCaveat is why snippets are refused.
	snippetCaveat = "routeshift never runs proxy configuration written by Ingress authors: express what it does with the Routes' annotations and spec.httpHeaders, or in the application."
	basicAuth     = "auth-type basic with an auth-file Secret (key auth, htpasswd lines) becomes " + routecore.AnnAuthBasicSecret + ", which the router reads only when a Role grants it that Secret (docs/router.md) and whose hashes must be bcrypt or SHA-256/512 crypt (htpasswd's default $apr1$ is refused: re-hash with htpasswd -B); digest and auth-map are not supported."
	externalAuth  = "It goes with auth-url, and the router does not call authentication services: put an authenticating proxy (such as oauth2-proxy) between the Route and the Service."
	waf           = "The router has no web application firewall: put one in front of the router or of the Service."
	tracing       = "The router does not trace requests; it passes tracing headers such as traceparent on unchanged."
)

// miscEntries are the snippets, authentication, CORS, logs, tracing and
// the web application firewall.
var miscEntries = []Entry{
	{Annotation: "configuration-snippet", Verdict: Refused, Caveat: snippetCaveat},
	{Annotation: "server-snippet", Verdict: Refused, Caveat: snippetCaveat},
	{Annotation: "auth-snippet", Verdict: Refused, Caveat: snippetCaveat},
	{Annotation: "stream-snippet", Verdict: Refused, Caveat: snippetCaveat},
	{Annotation: "modsecurity-snippet", Verdict: Refused, Caveat: snippetCaveat},

	{Annotation: "auth-type", Verdict: Approximate, Caveat: basicAuth, convert: convertBasicAuth},
	{Annotation: "auth-secret", Verdict: Approximate, Caveat: basicAuth, convert: convertBasicAuth},
	{Annotation: "auth-secret-type", Verdict: Approximate, Caveat: basicAuth, convert: convertBasicAuth},
	{Annotation: "auth-realm", Verdict: Exact,
		Caveat: "The realm of basic authentication (" + routecore.AnnAuthBasicRealm + ").", convert: convertBasicAuth},
	{Annotation: "auth-url", Verdict: NotSupported,
		Caveat: "The router does not call authentication services: put an authenticating proxy (such as oauth2-proxy) between the Route and the Service."},
	{Annotation: "auth-method", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-signin", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-signin-redirect-param", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-response-headers", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-request-redirect", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-cache-key", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-cache-duration", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-always-set-cookie", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-keepalive", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-keepalive-share-vars", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-keepalive-requests", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-keepalive-timeout", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "auth-proxy-set-headers", Verdict: NotSupported, Caveat: externalAuth},
	{Annotation: "enable-global-auth", Verdict: Exact,
		Caveat: "The router has no global authentication (ingress-nginx's global-auth-url) to turn on or off."},
	{Annotation: "satisfy", Verdict: NotSupported,
		Caveat: "It combines authentication requirements, and the router has none to combine."},

	{Annotation: "enable-cors", Verdict: Approximate,
		Caveat:  "true gives the Routes static Access-Control-* response headers (ingress-nginx's defaults for those not set), but preflight OPTIONS requests reach the endpoints instead of being answered by the proxy, and a list of origins cannot be echoed per request.",
		convert: convertCORS},
	{Annotation: "cors-allow-origin", Verdict: Approximate,
		Caveat:  "It becomes Access-Control-Allow-Origin on every response: one origin (or *) is exact, but of a list only the first is sent, as the router cannot echo the request's Origin.",
		convert: convertCORSKey},
	{Annotation: "cors-allow-methods", Verdict: Exact,
		Caveat:  "It becomes Access-Control-Allow-Methods on every response.",
		convert: convertCORSKey},
	{Annotation: "cors-allow-headers", Verdict: Exact,
		Caveat:  "It becomes Access-Control-Allow-Headers on every response.",
		convert: convertCORSKey},
	{Annotation: "cors-expose-headers", Verdict: Exact,
		Caveat:  "It becomes Access-Control-Expose-Headers on every response.",
		convert: convertCORSKey},
	{Annotation: "cors-allow-credentials", Verdict: Exact,
		Caveat:  "true (the default) sends Access-Control-Allow-Credentials: true on every response; false sends none.",
		convert: convertCORSKey},
	{Annotation: "cors-max-age", Verdict: Exact,
		Caveat:  "It becomes Access-Control-Max-Age on every response.",
		convert: convertCORSKey},

	{Annotation: "enable-access-log", Verdict: RouterWide,
		Caveat: "Access logs are the router's, for every Route or none: ROUTER_SYSLOG_ADDRESS (with ROUTER_DONT_LOG_NULL)."},
	{Annotation: "enable-rewrite-log", Verdict: NotSupported,
		Caveat: "The router does not log rewrites; ROUTER_LOG_LEVEL sets how much HAProxy logs."},
	{Annotation: "enable-opentelemetry", Verdict: NotSupported, Caveat: tracing},
	{Annotation: "opentelemetry-trust-incoming-span", Verdict: NotSupported, Caveat: tracing},
	{Annotation: "opentelemetry-operation-name", Verdict: NotSupported, Caveat: tracing},
	{Annotation: "enable-modsecurity", Verdict: NotSupported, Caveat: waf},
	{Annotation: "enable-owasp-core-rules", Verdict: NotSupported, Caveat: waf},
	{Annotation: "modsecurity-transaction-id", Verdict: NotSupported, Caveat: waf},
}

// CORS defaults of ingress-nginx, sent for the keys not set.
const (
	corsDefaultOrigin  = "*"
	corsDefaultMethods = "GET, PUT, POST, DELETE, PATCH, OPTIONS"
	corsDefaultHeaders = "DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization"
	corsDefaultMaxAge  = "1728000"
)

// The values ingress-nginx accepts for the CORS keys.
var (
	corsMethods = regexp.MustCompile(`^[A-Za-z]+(\s*,\s*[A-Za-z]+)*$`)
	corsHeaders = regexp.MustCompile(`^[A-Za-z0-9_-]+(\s*,\s*[A-Za-z0-9_-]+)*$`)
	corsExpose  = regexp.MustCompile(`^(\*|[A-Za-z0-9_-]+)(\s*,\s*(\*|[A-Za-z0-9_-]+))*$`)
	corsOrigin  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]+)?$`)
	corsMaxAge  = regexp.MustCompile(`^[0-9]+$`)
)

// corsOrigins reads cors-allow-origin: the origin the Routes can send ("*"
// by default; "" when only wildcard origins are listed) and the listed
// origins it leaves out.
func (c *converter) corsOrigins() (send string, left []string, valid bool) {
	v, found := c.value("cors-allow-origin")
	if !found || v == "*" {
		return corsDefaultOrigin, nil, true
	}
	list := splitList(v)
	for _, o := range list {
		if o != "*" && !corsOrigin.MatchString(o) {
			return corsDefaultOrigin, nil, false
		}
	}
	if len(list) == 0 {
		return corsDefaultOrigin, nil, false
	}
	for _, o := range list {
		switch {
		case o == "*" && send == "":
			send = o
		case send == "" && !strings.Contains(o, "*"):
			send = o
		default:
			left = append(left, o)
		}
	}
	return send, left, true
}

// corsValue is a CORS key's value when ingress-nginx accepts it, else its
// default.
func (c *converter) corsValue(key string, valid *regexp.Regexp, def string) (string, bool) {
	v, found := c.value(key)
	if !found {
		return def, true
	}
	if !valid.MatchString(v) {
		return def, false
	}
	return v, true
}

func convertCORS(c *converter, f *Finding) {
	b, ok := c.boolValue(f.Key)
	switch {
	case !ok:
		invalid(f, "true or false", "sends no CORS headers, nor do the Routes")
		return
	case !b:
		f.Verdict, f.Caveat = Exact, "false is the default: no CORS headers."
		return
	}
	set := func(name, v string) {
		if hv, ok := headerValue(v); ok {
			setHeader(&c.out.ResponseHeaders, name, hv)
		}
	}
	if origin, _, _ := c.corsOrigins(); origin != "" {
		set("Access-Control-Allow-Origin", origin)
	}
	if credentials, ok := c.boolValue("cors-allow-credentials"); credentials || !ok {
		set("Access-Control-Allow-Credentials", "true")
	}
	methods, _ := c.corsValue("cors-allow-methods", corsMethods, corsDefaultMethods)
	set("Access-Control-Allow-Methods", methods)
	headers, _ := c.corsValue("cors-allow-headers", corsHeaders, corsDefaultHeaders)
	set("Access-Control-Allow-Headers", headers)
	if expose, _ := c.corsValue("cors-expose-headers", corsExpose, ""); expose != "" {
		set("Access-Control-Expose-Headers", expose)
	}
	maxAge, _ := c.corsValue("cors-max-age", corsMaxAge, corsDefaultMaxAge)
	set("Access-Control-Max-Age", maxAge)
}

func convertCORSKey(c *converter, f *Finding) {
	if !c.isTrue("enable-cors") {
		noEffect(f, `enable-cors: "true"`)
		return
	}
	var ok bool
	switch f.Key {
	case "cors-allow-origin":
		send, left, valid := c.corsOrigins()
		switch {
		case !valid:
			invalid(f, "a comma-separated list of origins such as https://example.com:8443", "allows every origin (*), as the Routes do")
		case send == "":
			f.Verdict = NotSupported
			f.Caveat = "The router cannot match wildcard origins against the request's Origin, so the Routes send no Access-Control-Allow-Origin and browsers refuse cross-origin reads: list the origins."
		case len(left) > 0:
			f.Verdict = Approximate
			f.Caveat = fmt.Sprintf("The Routes send Access-Control-Allow-Origin %s on every response, as the router cannot echo the request's Origin, so %s get no cross-origin access.", send, strings.Join(left, ", "))
		case send == corsDefaultOrigin:
			f.Verdict, f.Caveat = Exact, "The Routes send Access-Control-Allow-Origin "+send+" on every response."
		default:
			f.Verdict = Approximate
			f.Caveat = "The Routes send Access-Control-Allow-Origin " + send + " on every response, where ingress-nginx sends its CORS headers only when the request's Origin matches; browsers allow the same cross-origin reads either way."
		}
		return
	case "cors-allow-credentials":
		_, ok = c.boolValue(f.Key)
		if !ok {
			invalid(f, "true or false", "sends Access-Control-Allow-Credentials: true, as the Routes do")
		}
		return
	case "cors-allow-methods":
		_, ok = c.corsValue(f.Key, corsMethods, "")
	case "cors-allow-headers":
		_, ok = c.corsValue(f.Key, corsHeaders, "")
	case "cors-expose-headers":
		_, ok = c.corsValue(f.Key, corsExpose, "")
	case "cors-max-age":
		_, ok = c.corsValue(f.Key, corsMaxAge, "")
	}
	if !ok {
		invalid(f, "a value ingress-nginx accepts (a comma-separated list of names, or seconds for cors-max-age)", "sends its default, as the Routes do")
	}
}

// convertBasicAuth turns auth-type basic with an auth-file Secret into the
// Route's basic authentication; each of the four annotations reports on
// its part. The Secret must be in the Ingress's namespace.
func convertBasicAuth(c *converter, f *Finding) {
	typ, _ := c.value("auth-type")
	secret, hasSecret := c.value("auth-secret")
	secretType, _ := c.value("auth-secret-type")
	foreign := false
	if ns, name, cut := strings.Cut(secret, "/"); cut {
		secret, foreign = name, ns != c.in.Namespace
	}
	switch {
	case foreign:
		f.Verdict, f.Caveat = NotSupported, "auth-secret names a Secret of another namespace, and a Route reads Secrets of its own namespace only: copy the Secret into the Ingress's namespace."
		return
	case typ == "digest":
		f.Verdict, f.Caveat = NotSupported, "The router does no digest authentication: use auth-type basic with bcrypt hashes."
		return
	case typ != "basic":
		f.Verdict, f.Caveat = NotSupported, "Without auth-type basic ingress-nginx asks for no credentials, nor do the Routes."
		return
	case !hasSecret || secret == "":
		f.Verdict, f.Caveat = NotSupported, "Name the htpasswd Secret, in the Ingress's namespace, in auth-secret."
		return
	case secretType != "" && secretType != "auth-file":
		f.Verdict, f.Caveat = NotSupported, "Only auth-file Secrets (key auth, htpasswd lines) are read: put the users' htpasswd lines under key auth."
		return
	case !c.setChecked(routecore.AnnAuthBasicSecret, secret):
		f.Verdict, f.Caveat = NotSupported, "auth-secret must name a Secret of the Ingress's namespace."
		return
	}
	if realm, ok := c.value("auth-realm"); ok && realm != "" && !c.setChecked(routecore.AnnAuthBasicRealm, realm) && f.Key == "auth-realm" {
		f.Verdict, f.Caveat = NotSupported, "The realm must be text without double quotes or backslashes, at most 256 bytes."
	}
}
