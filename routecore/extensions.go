package routecore

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// routeshift's own router annotations: behaviour the Route API has no
// field for. OpenShift's router ignores them (OpenShiftIgnores).
const (
	// AnnMaxBodySize limits the size of request bodies.
	AnnMaxBodySize = "routeshift.io/max-body-size"
	// AnnIPDenylist lists the source addresses refused with 403.
	AnnIPDenylist = "routeshift.io/ip-denylist"
	// AnnRedirectTo redirects every request of the route to a URL.
	AnnRedirectTo = "routeshift.io/redirect-to"
	// AnnRedirectCode is the status of the route's redirects.
	AnnRedirectCode = "routeshift.io/redirect-code"
	// AnnAppRoot redirects requests for / to a path.
	AnnAppRoot = "routeshift.io/app-root"
	// AnnRateLimitStatus makes the rate limits answer with an HTTP status.
	AnnRateLimitStatus = "routeshift.io/rate-limit-status"
	// AnnRateLimitExempt lists the sources the rate limits do not count.
	AnnRateLimitExempt = "routeshift.io/rate-limit-exempt"
	// AnnAuthBasicSecret names the Secret of the users basic
	// authentication lets in.
	AnnAuthBasicSecret = "routeshift.io/auth-basic-secret"
	// AnnAuthBasicRealm is the realm of basic authentication.
	AnnAuthBasicRealm = "routeshift.io/auth-basic-realm"
	// AnnAuthBasicForward passes the Authorization header to the
	// endpoints.
	AnnAuthBasicForward = "routeshift.io/auth-basic-forward"
)

// Limits of routeshift's annotations.
const (
	// MaxRedirectURLLength bounds redirect-to and app-root: long enough for
	// any real URL, short enough for one line of haproxy.cfg.
	MaxRedirectURLLength = 2048
	// RequestURIVariable, at the end of redirect-to, appends the request's
	// path and query to the URL.
	RequestURIVariable = "$request_uri"
)

// BodySize is the max-body-size annotation's value: Set when the route
// sets one (Bytes 0 lifts the router's limit), else the router's default
// applies.
// +kubebuilder:object:generate=false
type BodySize struct {
	Set   bool
	Bytes int64
}

// RedirectCodes are the statuses redirect-code accepts.
var RedirectCodes = []string{"301", "302", "303", "307", "308"}

// extensionCatalogue is the part of AnnotationCatalogue that is
// routeshift's own.
var extensionCatalogue = []Annotation{
	{Key: AnnMaxBodySize, Help: "Largest request body the route accepts, in bytes or with a k, m or g suffix (8m, 512k); 0 means no limit. A request whose Content-Length is larger is answered 413 before it reaches the endpoints; a chunked body is checked as far as the router buffers it (ROUTER_BUF_SIZE less ROUTER_MAX_REWRITE_SIZE, 24k by default): a chunked body larger than the limit is refused when the limit is smaller than that buffer.",
		Default: "ROUTER_MAX_BODY_SIZE (no limit)", OnlyFor: onlyHTTP, RefusedOutside: true,
		validate: bodySize, apply: func(v string, o *Overrides) { o.MaxBodySize.Bytes, _ = ParseBodySize(v); o.MaxBodySize.Set = true }},
	{Key: AnnIPDenylist, Help: "Space-separated IP addresses and CIDRs refused with 403; at most 10000 entries. With ip_allowlist, a source listed in both is refused. The source is the connection's (the PROXY protocol's with ROUTER_USE_PROXY_PROTOCOL), as for ip_allowlist. A router that meets an entry it cannot read (on a Route that bypassed the webhook) serves the Route to nobody.",
		Default: "no source refused", OnlyFor: onlyHTTP, RefusedOutside: true, FailClosed: true,
		validate: ipList, warn: ipListWarning, apply: func(v string, o *Overrides) { o.IPDenylist = strings.Fields(v) }},
	{Key: AnnRedirectTo, Help: "Absolute http or https URL every request of the route is redirected to (redirect-code, 301 by default); ending it with $request_uri appends the request's path and query, as ingress-nginx's permanent-redirect users write it. The route's services are then never reached. At most 2048 bytes.",
		Default: "no redirect", OnlyFor: onlyHTTP, RefusedOutside: true,
		validate: redirectURL, apply: func(v string, o *Overrides) { o.RedirectTo = v },
		warn: func(string) string {
			return "every request is redirected, so the route's services (spec.to, alternateBackends) are never reached"
		}},
	{Key: AnnRedirectCode, Help: "Status of the route's redirects (redirect-to, and insecureEdgeTerminationPolicy Redirect): 301, 302, 303, 307 or 308.",
		Default: "301 for redirect-to; 302 for insecureEdgeTerminationPolicy Redirect, as OpenShift's router", OnlyFor: onlyHTTP,
		validate: oneOf(RedirectCodes...), apply: func(v string, o *Overrides) { o.RedirectCode, _ = strconv.Atoi(v) }},
	{Key: AnnAppRoot, Help: "Path requests for / are redirected to, with 302 (ingress-nginx's app-root); other paths are served as usual. A path starting with '/', other than / itself, optionally with a query; at most 2048 bytes.",
		Default: "no redirect", OnlyFor: onlyHTTP, RefusedOutside: true,
		validate: appRoot, apply: func(v string, o *Overrides) { o.AppRoot = v }},
	{Key: AnnAuthBasicSecret, Help: "Name of a Secret in the Route's namespace whose key auth holds htpasswd lines (user:hash, as ingress-nginx's auth-file Secrets): requests without the credentials of one of those users get 401 with WWW-Authenticate. Hashes must be bcrypt ($2y$, htpasswd -B) or SHA-256/512 crypt ($5$, $6$); others ($apr1$, {SHA}, plain) are refused with how to re-hash. HAProxy hashes the password of every request: bcrypt costs milliseconds per request, SHA-512 crypt about a tenth of that. The router must be allowed to read the Secret (as for spec.tls.externalCertificate); a changed Secret is loaded with a hitless reload.",
		Default: "no authentication", OnlyFor: onlyHTTP, RefusedOutside: true,
		validate: secretName, apply: func(v string, o *Overrides) { o.AuthBasicSecret = v }},
	{Key: AnnAuthBasicRealm, Help: "Realm of basic authentication, shown by browsers when they ask for credentials; at most 256 bytes, without double quotes.",
		Default: "Authentication Required", OnlyFor: onlyHTTP,
		validate: realm, apply: func(v string, o *Overrides) { o.AuthBasicRealm = v }},
	{Key: AnnAuthBasicForward, Help: "true passes the Authorization header of authenticated requests on to the endpoints; by default it is removed, so the endpoints never see the password.",
		Default: "false", OnlyFor: onlyHTTP,
		validate: boolean, warn: booleanWarning, apply: func(v string, o *Overrides) { o.AuthBasicForward = isTrue(v) }},
	{Key: AnnRateLimitStatus, Help: "429 makes the rate-limit-connections limits answer HTTP 429 Too Many Requests (with Retry-After) instead of closing the connection, for routes that speak HTTP; without it the limits close the connection, as OpenShift's router does.",
		Default: "the connection is closed", OnlyFor: onlyHTTP, RefusedOutside: true, Requires: AnnRateLimit,
		validate: oneOf("429"), apply: func(v string, o *Overrides) { o.RateLimitStatus, _ = strconv.Atoi(v) }},
	{Key: AnnRateLimitExempt, Help: "Space-separated IP addresses and CIDRs the rate-limit-connections limits do not count or refuse; at most 10000 entries.",
		Default: "every source counted", Requires: AnnRateLimit,
		validate: ipList, warn: ipListWarning, apply: func(v string, o *Overrides) { o.RateLimitExempt = strings.Fields(v) }},
	{Key: AnnWWWRedirect, Help: wwwRedirectHelp,
		Default: "false", OnlyFor: onlyHTTP, RefusedOutside: true,
		validate: boolean, warn: booleanWarning, apply: func(v string, o *Overrides) { o.WWWRedirect = isTrue(v) }},
	{Key: AnnCanaryBackend, Help: canaryBackendHelp,
		Default: "no canary", OnlyFor: onlyHTTP, RefusedOutside: true,
		validate: canaryServiceName, apply: func(v string, o *Overrides) { o.CanaryBackend = v }},
	{Key: AnnCanaryByHeader, Help: canaryByHeaderHelp,
		Default: "no header picks the canary", OnlyFor: onlyHTTP, RefusedOutside: true,
		validate: canaryHeaderName, apply: func(v string, o *Overrides) { o.CanaryByHeader = v }},
	{Key: AnnCanaryByHeaderValue, Help: canaryByHeaderValueHelp,
		Default: "always", OnlyFor: onlyHTTP, RefusedOutside: true,
		validate: canaryHeaderValue, apply: func(v string, o *Overrides) { o.CanaryByHeaderValue = v }},
	{Key: AnnCanaryByHeaderPattern, Help: canaryByHeaderPatternHelp,
		Default: "always", OnlyFor: onlyHTTP, RefusedOutside: true,
		validate: canaryPattern, apply: func(v string, o *Overrides) { o.CanaryByHeaderPattern = v }},
	{Key: AnnCanaryByCookie, Help: canaryByCookieHelp,
		Default: "no cookie picks the canary", OnlyFor: onlyHTTP, RefusedOutside: true,
		validate: ValidateCookieName, apply: func(v string, o *Overrides) { o.CanaryByCookie = v }},
}

// ParseBodySize reads a size as ingress-nginx writes it: a whole number of
// bytes, or of kibibytes, mebibytes or gibibytes with a k, m or g suffix
// (either case).
func ParseBodySize(v string) (int64, error) {
	digits, scale := v, int64(1)
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 'k', 'K':
			digits, scale = v[:n-1], 1<<10
		case 'm', 'M':
			digits, scale = v[:n-1], 1<<20
		case 'g', 'G':
			digits, scale = v[:n-1], 1<<30
		}
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, errBodySize
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > MaxBodySize/scale {
		return 0, errBodySizeTooLarge
	}
	return n * scale, nil
}

// MaxBodySize is the largest body size limit: 1 TiB, far above any body a
// router should pass, and a number HAProxy compares exactly.
const MaxBodySize int64 = 1 << 40

var (
	errBodySize         = fieldDetail("must be a size such as 8m, 512k or 1048576: a whole number of bytes, optionally followed by k, m or g; 0 means no limit")
	errBodySizeTooLarge = fieldDetail("must be at most 1024g")
)

// fieldDetail is an error whose text is a field error's detail.
type fieldDetail string

func (d fieldDetail) Error() string { return string(d) }

func bodySize(v string) *field.Error {
	if _, err := ParseBodySize(v); err != nil {
		return field.Invalid(nil, v, err.Error())
	}
	return nil
}

// urlCharacter reports whether r may appear in a redirect URL as written:
// letters, digits and the characters URLs reserve or leave unreserved.
func urlCharacter(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~:/?#[]@!&'()*+,;=%", r)
}

// redirectURL accepts an absolute http or https URL with a host, of URL
// characters, optionally ending with $request_uri.
func redirectURL(v string) *field.Error {
	if len(v) > MaxRedirectURLLength {
		return field.TooLong(nil, v, MaxRedirectURLLength)
	}
	u := strings.TrimSuffix(v, RequestURIVariable)
	if strings.IndexFunc(u, func(r rune) bool { return !urlCharacter(r) }) >= 0 {
		return field.Invalid(nil, v, "must be an absolute URL of letters, digits and -._~:/?#[]@!&'()*+,;=% (no spaces or quotes; $request_uri only at its end)")
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.User != nil {
		return field.Invalid(nil, v, "must be an absolute http or https URL with a host, such as https://www.example.com/new$request_uri")
	}
	if strings.HasSuffix(v, RequestURIVariable) && (p.RawQuery != "" || p.Fragment != "" || strings.HasSuffix(u, "?")) {
		return field.Invalid(nil, v, "$request_uri brings the request's query: end the URL with a path before it")
	}
	return nil
}

// appRoot accepts a path other than "/", with an optional query.
func appRoot(v string) *field.Error {
	if len(v) > MaxRedirectURLLength {
		return field.TooLong(nil, v, MaxRedirectURLLength)
	}
	if !strings.HasPrefix(v, "/") || strings.HasPrefix(v, "//") || v == "/" ||
		strings.IndexFunc(v, func(r rune) bool { return !urlCharacter(r) || r == '#' }) >= 0 {
		return field.Invalid(nil, v, "must be a path other than / starting with a single '/', of letters, digits and -._~:/?[]@!&'()*+,;=% (no spaces, quotes or '#'), such as /app")
	}
	return nil
}

// refusedOutside are the catalogue entries refused on routes of the
// terminations they do not act on.
var refusedOutside = func() []*Annotation {
	var out []*Annotation
	for i := range AnnotationCatalogue {
		if AnnotationCatalogue[i].RefusedOutside {
			out = append(out, &AnnotationCatalogue[i])
		}
	}
	return out
}()

// OpenShiftIgnores returns, in key order, the annotations among these that
// routeshift's router reads and OpenShift's router ignores: routeshift's
// own (routeshift.io/...). A Route that relies on them behaves otherwise
// on OpenShift.
func OpenShiftIgnores(annotations map[string]string) []string {
	var keys []string
	for k := range annotations {
		if _, known := annotationIndex[k]; known && IsRouteshiftAnnotation(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// IsRouteshiftAnnotation reports whether key is one of routeshift's own
// annotations, which only routeshift's router reads.
func IsRouteshiftAnnotation(key string) bool { return strings.HasPrefix(key, "routeshift.io/") }

// termination is the route's TLS termination, "" without TLS.
func (r *Route) termination() TLSTerminationType {
	if r.Spec.TLS == nil {
		return ""
	}
	return r.Spec.TLS.Termination
}
