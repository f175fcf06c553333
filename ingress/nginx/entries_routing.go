package nginx

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/routeshift/routeshift/routecore"
)

// routingEntries are the annotations about which requests reach which
// backend, and how: paths, rewrites, redirects, hosts, canaries, error
// pages and request headers.
var routingEntries = []Entry{
	{Annotation: "rewrite-target", Verdict: Approximate,
		Caveat:  "The Route's path becomes the literal prefix of the Ingress path and rewrite-target replaces it (" + acceptedRewrites + "); other regular expressions are refused, matching is case-sensitive, and a target without captures keeps the rest of the path where ingress-nginx drops it.",
		convert: convertRewriteTarget},
	{Annotation: "use-regex", Verdict: Approximate,
		Caveat:  "Route paths are prefixes: a regular-expression path is converted only when it is a literal prefix, optionally followed by (/|$)(.*), /(.*), (/.*) or (.*), and matching is case-sensitive where ingress-nginx's is not.",
		convert: convertUseRegex},
	{Annotation: "app-root", Verdict: Exact,
		Caveat:  "The Routes redirect requests for exactly / to it with 302 (" + routecore.AnnAppRoot + "), as ingress-nginx does, on the Route of the Ingress's path / (a Route of another path never sees /).",
		convert: convertAppRoot},
	{Annotation: "permanent-redirect", Verdict: Exact,
		Caveat:  "The Routes redirect every request to the URL (" + routecore.AnnRedirectTo + ", with permanent-redirect-code or 301 as " + routecore.AnnRedirectCode + "), plain HTTP included, as ingress-nginx does; a URL with nginx variables other than a final $request_uri is not supported.",
		convert: convertRedirectTo},
	{Annotation: "permanent-redirect-code", Verdict: Exact,
		Caveat:  "It becomes the Routes' " + routecore.AnnRedirectCode + " when it is 301, 302, 303, 307 or 308 (ingress-nginx's other codes from 300 to 308 are not supported).",
		convert: convertRedirectCode},
	{Annotation: "temporal-redirect", Verdict: Exact,
		Caveat:  "The Routes redirect every request to the URL (" + routecore.AnnRedirectTo + ", with temporal-redirect-code or 302 as " + routecore.AnnRedirectCode + "), plain HTTP included, as ingress-nginx does (it wins over permanent-redirect); a URL with nginx variables other than a final $request_uri is not supported.",
		convert: convertRedirectTo},
	{Annotation: "temporal-redirect-code", Verdict: Exact,
		Caveat:  "It becomes the Routes' " + routecore.AnnRedirectCode + " when it is 301, 302, 303 or 307 (ingress-nginx's other codes from 300 to 307 are not supported).",
		convert: convertRedirectCode},
	{Annotation: "from-to-www-redirect", Verdict: Approximate,
		Caveat:  "true makes the Routes redirect the other host (the rule's host with its www prefix added or removed) to the rule's host (" + routecore.AnnWWWRedirect + "), with ingress-nginx's http-redirect-code (308 by default), unless a Route names that host itself, as ingress-nginx skips the redirect when another server has it; over HTTPS the other host is served the Route's certificate, not one of its own.",
		convert: convertWWWRedirect},
	{Annotation: "server-alias", Verdict: Exact,
		Caveat:  "Each alias gets the same Routes as the rule's host.",
		convert: convertServerAlias},
	{Annotation: "default-backend", Verdict: RouterWide,
		Caveat: "When a Route's Service has no endpoints the router answers with its own 503 page (ROUTER_ERRORFILE_503), for every Route; there is no per-Ingress fallback Service."},
	{Annotation: "custom-http-errors", Verdict: RouterWide,
		Caveat: "The router replaces only its own 503 and 404 pages (ROUTER_ERRORFILE_503, ROUTER_ERRORFILE_404), for every Route; it passes the endpoints' error responses on as they are."},
	{Annotation: "disable-proxy-intercept-errors", Verdict: Exact,
		Caveat: "The router never replaces the endpoints' error responses."},
	{Annotation: "upstream-vhost", Verdict: Exact,
		Caveat:  "The Routes set the Host request header to the value (spec.httpHeaders); nginx variables have no counterpart.",
		convert: convertRequestHeader("Host")},
	{Annotation: "x-forwarded-prefix", Verdict: Exact,
		Caveat:  "The Routes set the X-Forwarded-Prefix request header to the value (spec.httpHeaders).",
		convert: convertRequestHeader("X-Forwarded-Prefix")},
	{Annotation: "custom-headers", Verdict: NotSupported,
		Caveat: "The conversion does not read ConfigMaps: write the ConfigMap's headers as response header actions in the Routes' spec.httpHeaders."},
	{Annotation: "connection-proxy-header", Verdict: NotSupported,
		Caveat: "The router manages the Connection header to the endpoints itself (keep-alive); it cannot be set per Route."},
	{Annotation: "proxy-http-version", Verdict: Approximate,
		Caveat:  "The router speaks HTTP/1.1 to the endpoints (or HTTP/2 by the Service port's appProtocol), never HTTP/1.0.",
		convert: convertProxyHTTPVersion},
	{Annotation: "proxy-redirect-from", Verdict: NotSupported,
		Caveat: "The router does not rewrite the Location and Refresh headers of responses; make the application send the right URL."},
	{Annotation: "proxy-redirect-to", Verdict: NotSupported,
		Caveat: "The router does not rewrite the Location and Refresh headers of responses; make the application send the right URL."},
	{Annotation: "proxy-cookie-domain", Verdict: NotSupported,
		Caveat: "The router does not rewrite the Domain of the endpoints' cookies; set it in the application."},
	{Annotation: "proxy-cookie-path", Verdict: NotSupported,
		Caveat: "The router does not rewrite the Path of the endpoints' cookies; set it in the application."},
	{Annotation: "http2-push-preload", Verdict: NotSupported,
		Caveat: "The router does not push resources over HTTP/2 (browsers have dropped server push); use 103 Early Hints or preload links."},
	{Annotation: "mirror-target", Verdict: NotSupported,
		Caveat: "The router does not mirror requests; mirror them in the application or with a service mesh."},
	{Annotation: "mirror-host", Verdict: NotSupported,
		Caveat: "It goes with mirror-target: the router does not mirror requests."},
	{Annotation: "mirror-request-body", Verdict: NotSupported,
		Caveat: "It goes with mirror-target: the router does not mirror requests."},
	{Annotation: "fastcgi-index", Verdict: NotSupported,
		Caveat: "The router does not speak FastCGI: put an HTTP server in front of the FastCGI endpoints."},
	{Annotation: "fastcgi-params-configmap", Verdict: NotSupported,
		Caveat: "The router does not speak FastCGI: put an HTTP server in front of the FastCGI endpoints."},
}

// canaryEntries are the annotations of canary Ingresses.
var canaryEntries = []Entry{
	{Annotation: "canary", Verdict: Exact,
		Caveat:  "true makes the Ingress a canary: its Service becomes an alternate backend of the primary Ingress's Route for the same host and path, weighted by canary-weight out of canary-weight-total.",
		convert: convertCanary},
	{Annotation: "canary-weight", Verdict: Exact,
		Caveat:  "The canary's share of requests, out of canary-weight-total, becomes the weights of the Route's backends.",
		convert: convertCanaryWeight},
	{Annotation: "canary-weight-total", Verdict: Exact,
		Caveat:  "The total canary-weight is out of (100 by default).",
		convert: convertCanaryWeight},
	{Annotation: "canary-by-header", Verdict: Exact,
		Caveat:  canaryByRequest,
		convert: convertCanaryByRequest},
	{Annotation: "canary-by-header-value", Verdict: Exact,
		Caveat:  canaryByRequest,
		convert: convertCanaryByRequest},
	{Annotation: "canary-by-header-pattern", Verdict: Exact,
		Caveat:  canaryByRequest,
		convert: convertCanaryByRequest},
	{Annotation: "canary-by-cookie", Verdict: Exact,
		Caveat:  canaryByRequest,
		convert: convertCanaryByRequest},
}

const canaryByRequest = "The primary Ingress's Routes send matching requests to this canary (routeshift.io/canary-backend with the same header or cookie rule), never keeps them off it, and the others follow the weights; one canary per Route can be chosen so."

func convertUseRegex(c *converter, f *Finding) {
	b, ok := c.boolValue(f.Key)
	switch {
	case !ok:
		invalid(f, "true or false", "reads the paths as prefixes, as the Route does")
	case b:
		c.out.UseRegex = true
	case c.present("rewrite-target"):
		f.Verdict, f.Caveat = Approximate, "rewrite-target makes the paths regular expressions anyway, in ingress-nginx as in the conversion."
	default:
		f.Verdict, f.Caveat = Exact, "false is the default: paths are prefixes."
	}
}

func convertRewriteTarget(c *converter, f *Finding) {
	v, _ := c.value(f.Key)
	if v == "" {
		invalid(f, "a path", "does not rewrite, nor does the Route")
		return
	}
	c.out.RewriteTarget = v
	c.out.UseRegex = true
}

func convertServerAlias(c *converter, f *Finding) {
	var bad []string
	for _, h := range splitList(f.Value) {
		if len(validation.IsDNS1123Subdomain(h)) > 0 {
			bad = append(bad, h)
			continue
		}
		c.out.ExtraHosts = append(c.out.ExtraHosts, h)
	}
	switch {
	case len(c.out.ExtraHosts) == 0:
		invalid(f, "a comma-separated list of host names", "serves no alias, nor do the Routes")
	case len(bad) > 0:
		f.Verdict = Approximate
		f.Caveat = fmt.Sprintf("The aliases %s get the rule's Routes, but %s are not host names a Route can have (wildcards and regular expressions included).",
			strings.Join(c.out.ExtraHosts, ", "), strings.Join(bad, ", "))
	}
}

// convertRequestHeader sets a request header to the annotation's value.
func convertRequestHeader(name string) func(c *converter, f *Finding) {
	return func(c *converter, f *Finding) {
		v, _ := c.value(f.Key)
		hv, ok := headerValue(v)
		if !ok {
			f.Verdict = NotSupported
			f.Caveat = fmt.Sprintf("%q cannot be a literal %s header (empty, nginx variables or control characters); set the header with spec.httpHeaders on the Routes.", v, name)
			return
		}
		setHeader(&c.out.RequestHeaders, name, hv)
	}
}

func convertProxyHTTPVersion(c *converter, f *Finding) {
	v, _ := c.value(f.Key)
	switch v {
	case "1.1":
		f.Verdict, f.Caveat = Exact, "1.1 is the default: the router speaks HTTP/1.1 to the endpoints."
	case "1.0":
		f.Verdict = NotSupported
		f.Caveat = "The router speaks HTTP/1.1 to the endpoints, never HTTP/1.0; HTTP/1.0-only endpoints need a proxy of their own."
	default:
		invalid(f, `"1.0" or "1.1"`, "speaks HTTP/1.1, as the router does")
	}
}

func convertCanary(c *converter, f *Finding) {
	b, ok := c.boolValue(f.Key)
	switch {
	case !ok:
		invalid(f, "true or false", "treats the Ingress as a primary one, as the conversion does")
	case !b:
		f.Verdict, f.Caveat = Exact, "false is the default: the Ingress is a primary one."
	default:
		total := int64(100)
		if n, ok := c.intValue("canary-weight-total", 1); ok {
			total = n
		}
		weight, _ := c.intValue("canary-weight", 0)
		c.out.Canary = &Canary{Weight: int32(min(weight, total)), Total: int32(total), ByRequest: c.canaryByRequest()}
	}
}

func convertCanaryWeight(c *converter, f *Finding) {
	if !c.canary {
		noEffect(f, `canary: "true"`)
		return
	}
	if f.Key == "canary-weight-total" {
		if _, ok := c.intValue(f.Key, 1); !ok {
			invalid(f, "a whole number from 1 up", "keeps 100, as the conversion does")
		}
		return
	}
	n, ok := c.intValue(f.Key, 0)
	total := int64(100)
	if t, ok := c.intValue("canary-weight-total", 1); ok {
		total = t
	}
	switch {
	case !ok:
		invalid(f, "a whole number from 0 up", "sends the canary no requests by weight, as the conversion does")
	case n > total:
		f.Caveat = fmt.Sprintf("A weight above canary-weight-total (%d) sends every request to the canary, in ingress-nginx as on the Route.", total)
	}
}

func convertCanaryByRequest(c *converter, f *Finding) {
	if !c.canary {
		noEffect(f, `canary: "true"`)
		return
	}
	v, _ := c.value(f.Key)
	switch f.Key {
	case "canary-by-header-value", "canary-by-header-pattern":
		if _, ok := c.value("canary-by-header"); !ok {
			noEffect(f, "canary-by-header")
			return
		}
	}
	if key := canaryKeys[f.Key]; checkRouteValue(key, v) != nil {
		f.Verdict, f.Caveat = NotSupported, fmt.Sprintf("The value is not one %s takes, so this canary is chosen by weight only: see docs/reference/annotations.md.", key)
		return
	}
	if f.Key == "canary-by-header-pattern" {
		if _, both := c.value("canary-by-header-value"); both {
			f.Verdict, f.Caveat = Exact, "canary-by-header-value wins, in ingress-nginx as on the Route."
			return
		}
		f.Verdict, f.Caveat = Approximate, "The Route matches the header with the pattern ("+routecore.AnnCanaryByHeaderPattern+"), which takes a subset of regular expressions (no \\p classes or inline flags but (?i)); never still keeps the request off the canary."
	}
}

// canaryKeys are the Route annotations of the canary-by annotations.
var canaryKeys = map[string]string{
	"canary-by-header":         routecore.AnnCanaryByHeader,
	"canary-by-header-value":   routecore.AnnCanaryByHeaderValue,
	"canary-by-header-pattern": routecore.AnnCanaryByHeaderPattern,
	"canary-by-cookie":         routecore.AnnCanaryByCookie,
}

// canaryByRequest are the primary Route's annotations that choose this
// canary Ingress by header or cookie, as ingress-nginx reads them: the
// header's value wins over its pattern; a value routecore refuses leaves
// the canary to its weight. Nil when there are none.
func (c *converter) canaryByRequest() map[string]string {
	out := map[string]string{}
	if h, ok := c.value("canary-by-header"); ok && checkRouteValue(routecore.AnnCanaryByHeader, h) == nil {
		out[routecore.AnnCanaryByHeader] = h
		if v, ok := c.value("canary-by-header-value"); ok && v != "" {
			if checkRouteValue(routecore.AnnCanaryByHeaderValue, v) == nil {
				out[routecore.AnnCanaryByHeaderValue] = v
			} else {
				delete(out, routecore.AnnCanaryByHeader)
			}
		} else if p, ok := c.value("canary-by-header-pattern"); ok && p != "" {
			if checkRouteValue(routecore.AnnCanaryByHeaderPattern, p) == nil {
				out[routecore.AnnCanaryByHeaderPattern] = p
			} else {
				delete(out, routecore.AnnCanaryByHeader)
			}
		}
	}
	if k, ok := c.value("canary-by-cookie"); ok && checkRouteValue(routecore.AnnCanaryByCookie, k) == nil {
		out[routecore.AnnCanaryByCookie] = k
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// redirectTo is what permanent-redirect and temporal-redirect ask of an
// Ingress, read as ingress-nginx reads them: temporal-redirect wins when
// it is not empty; a code outside 300 to 308 (307 for temporal-redirect)
// is the default, 301 (302); a code that is not a whole number makes
// ingress-nginx ignore the redirect altogether.
type redirectTo struct {
	// key is the annotation that redirects ("" for none), codeKey its code's.
	key, codeKey string
	url          string
	// code is ingress-nginx's status; badCode is true when codeKey is not
	// a whole number.
	code    int
	badCode bool
	// highest is the highest code ingress-nginx takes.
	highest int
}

func (c *converter) redirectTo() redirectTo {
	r := redirectTo{key: "temporal-redirect", codeKey: "temporal-redirect-code", code: 302, highest: 307}
	if r.url, _ = c.value(r.key); r.url == "" {
		r = redirectTo{key: "permanent-redirect", codeKey: "permanent-redirect-code", code: 301, highest: 308}
		if r.url, _ = c.value(r.key); r.url == "" {
			return redirectTo{}
		}
	}
	if v, ok := c.value(r.codeKey); ok {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
			r.badCode = true
		case n >= 300 && n <= r.highest:
			r.code = n
		}
	}
	return r
}

// routeCode is the Routes' redirect-code for ingress-nginx's code: the
// code when the router redirects with it, else the default of the
// redirecting annotation.
func (r redirectTo) routeCode() int {
	if slices.Contains(routecore.RedirectCodes, strconv.Itoa(r.code)) {
		return r.code
	}
	if r.key == "temporal-redirect" {
		return 302
	}
	return 301
}

// redirects reports whether the Routes redirect every request: the
// Ingress redirects, and routecore takes the URL.
func (c *converter) redirects() bool {
	r := c.redirectTo()
	return r.key != "" && !r.badCode && checkRouteValue(routecore.AnnRedirectTo, r.url) == nil && validRedirectURL(r)
}

// validRedirectURL reports whether ingress-nginx takes the URL of a
// temporal redirect: its scheme starts with http (permanent-redirect's
// URL is not checked).
func validRedirectURL(r redirectTo) bool {
	if r.key != "temporal-redirect" {
		return true
	}
	u, err := url.Parse(r.url)
	return err == nil && strings.HasPrefix(u.Scheme, "http")
}

func convertRedirectTo(c *converter, f *Finding) {
	r := c.redirectTo()
	v, _ := c.value(f.Key)
	switch {
	case v == "":
		f.Verdict, f.Caveat = Exact, "It is empty, so ingress-nginx does not redirect, nor do the Routes."
	case r.key != f.Key:
		f.Verdict, f.Caveat = Exact, r.key+" wins over it, in ingress-nginx as in the conversion."
	case r.badCode:
		f.Verdict, f.Caveat = Exact, r.codeKey+" is not a whole number, so ingress-nginx ignores the redirect, and so do the Routes."
	case !validRedirectURL(r):
		invalid(f, "an http or https URL", "serves the Ingress's backends, as the Routes do")
	case strings.Contains(strings.TrimSuffix(v, routecore.RequestURIVariable), "$"):
		f.Verdict = NotSupported
		f.Caveat = "The Routes cannot redirect to a URL with nginx variables other than a final $request_uri (" + routecore.AnnRedirectTo +
			"): write the URL literally, ending it with $request_uri to append the request's path and query."
	case checkRouteValue(routecore.AnnRedirectTo, v) != nil:
		f.Verdict = NotSupported
		f.Caveat = "The Routes redirect only to an absolute http or https URL of URL characters (" + routecore.AnnRedirectTo +
			"), optionally ending with $request_uri after a path: write it so, such as https://www.example.com/new$request_uri."
	default:
		code := r.routeCode()
		c.set(routecore.AnnRedirectTo, v)
		c.set(routecore.AnnRedirectCode, strconv.Itoa(code))
		f.Caveat = fmt.Sprintf("The Routes redirect every request to it with %d (%s, %s), plain HTTP included, as ingress-nginx does.", code, routecore.AnnRedirectTo, routecore.AnnRedirectCode)
		if strings.HasSuffix(v, routecore.RequestURIVariable) {
			f.Caveat = fmt.Sprintf("The Routes redirect every request to it with %d (%s, %s), plain HTTP included, $request_uri appending the request's path and query, as ingress-nginx does.",
				code, routecore.AnnRedirectTo, routecore.AnnRedirectCode)
		}
	}
}

func convertRedirectCode(c *converter, f *Finding) {
	r := c.redirectTo()
	redirectKey := strings.TrimSuffix(f.Key, "-code")
	switch {
	case r.key == "":
		noEffect(f, redirectKey)
	case r.codeKey != f.Key:
		f.Verdict, f.Caveat = Exact, r.key+" wins over "+redirectKey+", so it has no effect, in ingress-nginx as in the conversion."
	case r.badCode:
		invalid(f, "a whole number", "then ignores "+redirectKey+" too, as the Routes do")
	case !c.redirects():
		f.Verdict, f.Caveat = NotSupported, "It goes with "+redirectKey+", whose URL the Routes cannot redirect to."
	case r.routeCode() != r.code:
		f.Verdict = NotSupported
		f.Caveat = fmt.Sprintf("The router redirects only with 301, 302, 303, 307 or 308, so the Routes redirect with %d (%s): write one of those.", r.routeCode(), routecore.AnnRedirectCode)
	default:
		f.Caveat = fmt.Sprintf("The Routes redirect with %d (%s).", r.code, routecore.AnnRedirectCode)
		if v, _ := c.value(f.Key); strconv.Itoa(r.code) != strings.TrimLeft(v, "0") {
			f.Caveat = fmt.Sprintf("ingress-nginx takes only codes from 300 to %d and otherwise redirects with %d, as the Routes do (%s).", r.highest, r.code, routecore.AnnRedirectCode)
		}
	}
}

// convertAppRoot converts app-root: ingress-nginx takes a path (a
// request URI that is not absolute) and redirects requests for / to it
// with 302.
func convertAppRoot(c *converter, f *Finding) {
	v, _ := c.value(f.Key)
	u, err := url.ParseRequestURI(v)
	switch {
	case err != nil || u.IsAbs():
		invalid(f, "a path such as /app", "does not redirect /, nor do the Routes")
	case !c.setChecked(routecore.AnnAppRoot, v):
		f.Verdict = NotSupported
		f.Caveat = "The Routes redirect / only to a path other than / of URL characters, without '#' or nginx variables (" + routecore.AnnAppRoot + "): write it so, such as /app."
	}
}

// convertWWWRedirect asks the Routes to redirect the other host of their
// rule's host (its www prefix added or removed) to it, with ingress-nginx's status.
func convertWWWRedirect(c *converter, f *Finding) {
	b, ok := c.boolValue(f.Key)
	switch {
	case !ok:
		invalid(f, "true or false", "does not redirect, nor do the Routes")
	case !b:
		f.Verdict, f.Caveat = Exact, "false: no redirect, as without the annotation."
	case c.setChecked(routecore.AnnWWWRedirect, "true"):
		if code := strconv.Itoa(c.in.Globals.HTTPRedirectCode); code != "308" && checkRouteValue(routecore.AnnRedirectCode, code) == nil {
			c.set(routecore.AnnRedirectCode, code)
		}
	}
}
