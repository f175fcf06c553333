package routecore

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Route annotation keys: those OpenShift's router reads, the aliases it
// also honours, and routeshift's exact-path annotation. What each does:
// docs/reference/annotations.md.
const (
	AnnBalance                  = "haproxy.router.openshift.io/balance"
	AnnDisableCookies           = "haproxy.router.openshift.io/disable_cookies"
	AnnCookieName               = "router.openshift.io/cookie_name"
	AnnCookieNameLegacy         = "haproxy.router.openshift.io/cookie_name"
	AnnCookieSameSite           = "router.openshift.io/cookie-same-site"
	AnnPodConcurrentConnections = "haproxy.router.openshift.io/pod-concurrent-connections"
	AnnRateLimit                = "haproxy.router.openshift.io/rate-limit-connections"
	AnnRateLimitConcurrentTCP   = "haproxy.router.openshift.io/rate-limit-connections.concurrent-tcp"
	AnnRateLimitRateHTTP        = "haproxy.router.openshift.io/rate-limit-connections.rate-http"
	AnnRateLimitRateTCP         = "haproxy.router.openshift.io/rate-limit-connections.rate-tcp"
	AnnTimeout                  = "haproxy.router.openshift.io/timeout"
	AnnTimeoutTunnel            = "haproxy.router.openshift.io/timeout-tunnel"
	AnnRewriteTarget            = "haproxy.router.openshift.io/rewrite-target"
	AnnHealthCheckInterval      = "router.openshift.io/haproxy.health.check.interval"
	AnnIPWhitelist              = "haproxy.router.openshift.io/ip_whitelist"
	AnnIPAllowlist              = "haproxy.router.openshift.io/ip_allowlist"
	AnnHSTSHeader               = "haproxy.router.openshift.io/hsts_header"
	AnnPoolSize                 = "router.openshift.io/pool-size"
	AnnSetForwardedHeaders      = "haproxy.router.openshift.io/set-forwarded-headers"
	AnnH1AdjustCase             = "haproxy.router.openshift.io/h1-adjust-case"
	// AnnPathType set to Exact makes routeshift's router match spec.path
	// exactly instead of as a prefix; the Ingress controller sets it for
	// Ingress paths of pathType Exact. Other routers ignore it and match a
	// prefix.
	AnnPathType = "routeshift.io/path-type"
)

// Overrides are the typed values of a route's annotations: per-route
// settings that override the router's defaults. A zero field means "not
// set": the router applies its own default (usually an environment variable).
// +kubebuilder:object:generate=false
type Overrides struct {
	// Balance is the load-balancing algorithm: roundrobin, leastconn, source or random.
	Balance string
	// DisableCookies turns off sticky-session cookies.
	DisableCookies bool
	// CookieName names the sticky-session cookie.
	CookieName string
	// CookieSameSite is the SameSite attribute of that cookie: Lax, Strict or None.
	CookieSameSite string
	// PodConcurrentConnections caps connections to each endpoint (0: no cap).
	PodConcurrentConnections int32
	// RateLimit turns on the three per-source-address limits below.
	RateLimit bool
	// ConcurrentTCP limits concurrent TCP connections per source address.
	ConcurrentTCP int32
	// RateHTTP limits HTTP requests per source address per 10 seconds.
	RateHTTP int32
	// RateTCP limits new TCP connections per source address per 3 seconds.
	RateTCP int32
	// Timeout is the server-side timeout.
	Timeout time.Duration
	// TimeoutTunnel is how long an idle tunnel (WebSocket, passthrough
	// connection) stays open.
	TimeoutTunnel time.Duration
	// RewriteTarget replaces spec.path at the start of request paths
	// before they reach the endpoints ("" for no rewrite).
	RewriteTarget string
	// HealthCheckInterval is the interval between endpoint health checks.
	HealthCheckInterval time.Duration
	// IPAllowlist lists the source addresses and CIDRs allowed to connect;
	// nil allows everyone.
	IPAllowlist []string
	// HSTSHeader is the Strict-Transport-Security value to add to responses.
	HSTSHeader string
	// PoolSize is the dynamic server pool size (blueprint routes).
	PoolSize int32
	// ExactPath makes the router match spec.path exactly.
	ExactPath bool
	// ForwardedHeaders overrides ROUTER_SET_FORWARDED_HEADERS for the
	// route ("" when not set).
	ForwardedHeaders ForwardedHeadersPolicy
	// H1AdjustCase applies ROUTER_H1_CASE_ADJUST's header-name cases to
	// the route's HTTP/1 traffic.
	H1AdjustCase bool

	// MaxBodySize limits request bodies; unset, the router's default
	// applies.
	MaxBodySize BodySize
	// IPDenylist lists the source addresses and CIDRs refused with 403.
	IPDenylist []string
	// RedirectTo is the URL every request is redirected to ("" for none);
	// a trailing $request_uri stands for the request's path and query.
	RedirectTo string
	// RedirectCode is the status of the route's redirects (0: each
	// redirect's default).
	RedirectCode int
	// AppRoot is the path requests for / are redirected to ("" for none).
	AppRoot string
	// RateLimitStatus is the HTTP status the rate limits answer with (0:
	// they close the connection).
	RateLimitStatus int
	// RateLimitExempt lists the sources the rate limits do not count.
	RateLimitExempt []string
	// AuthBasicSecret names the Secret of basic authentication's users
	// ("" for none); AuthBasicRealm is its realm ("" for the default);
	// AuthBasicForward passes the Authorization header on.
	AuthBasicSecret  string
	AuthBasicRealm   string
	AuthBasicForward bool
	// WWWRedirect redirects the route's other host (WWWRedirectHost) to
	// its own host, while the route holds that host's claim.
	WWWRedirect bool
	// CanaryBackend names the canary among the alternate backends ("" for
	// none); CanaryByHeader and CanaryByCookie name the header and cookie
	// that pick it, CanaryByHeaderValue and CanaryByHeaderPattern the
	// header value or pattern that does instead of "always".
	CanaryBackend         string
	CanaryByHeader        string
	CanaryByHeaderValue   string
	CanaryByHeaderPattern string
	CanaryByCookie        string
}

// ForwardedHeadersPolicy is what a router does with the X-Forwarded-For,
// -Host, -Port and -Proto headers clients send.
type ForwardedHeadersPolicy string

// Forwarded-headers policies, as ROUTER_SET_FORWARDED_HEADERS names them.
const (
	// ForwardedAppend adds the client's address to X-Forwarded-For and
	// sets the others.
	ForwardedAppend ForwardedHeadersPolicy = "append"
	// ForwardedReplace sets all four, whatever the client sent.
	ForwardedReplace ForwardedHeadersPolicy = "replace"
	// ForwardedIfNone sets each only when the client sent none.
	ForwardedIfNone ForwardedHeadersPolicy = "if-none"
	// ForwardedNever passes them on as the client sent them.
	ForwardedNever ForwardedHeadersPolicy = "never"
)

// Annotation is one entry of the catalogue: how a route annotation is
// validated, what it sets, and what applies when it is absent. The webhook
// rejects values the validator refuses; the router, which must survive
// objects that bypassed the webhook, ignores them, except the values of
// restrictions (FailClosed), which it never ignores.
// +kubebuilder:object:generate=false
type Annotation struct {
	// Key is the annotation key.
	Key string
	// Help says what the annotation does and what values it takes.
	Help string
	// Default says what applies when the annotation is absent.
	Default string
	// OnlyFor lists the terminations ("" for plain HTTP) the annotation has
	// an effect on; empty means all.
	OnlyFor []TLSTerminationType
	// RefusedOutside makes the annotation on a route of another
	// termination an error rather than a warning: routeshift's own
	// annotations, whose users expect them to act.
	RefusedOutside bool
	// Requires names a boolean annotation that must be "true" for this one to
	// have an effect.
	Requires string
	// FailClosed marks restrictions: ParseAnnotations applies an invalid
	// value too (and reports it), because ignoring it would widen access.
	// The consumer keeps what is valid and refuses the rest.
	FailClosed bool
	// OpenShiftKey, when set, is the key OpenShift's router reads for what
	// this one does: routeshift honours both, and warns that OpenShift
	// ignores this one.
	OpenShiftKey string

	// validate returns an error whose Field the caller fills in, so that
	// valid values cost no path allocation.
	validate func(value string) *field.Error
	// apply sets the value in a route's Overrides (router annotations);
	// certificate sets it in the cert-manager Certificate the route asks
	// for (cert-manager annotations). Each entry has one of the two.
	apply       func(value string, o *Overrides)
	certificate func(value string, spec *cmapi.CertificateSpec)
	// warn, when set, says what is legal in a value but probably not
	// meant ("" for nothing).
	warn func(value string) string
}

// Validate checks a value of the annotation as ValidateRoute does (no
// control characters, then the entry's own rule), returning nil when it
// is valid.
func (a *Annotation) Validate(path *field.Path, value string) *field.Error {
	if hasControlCharacter(value) {
		return field.Invalid(path, value, controlCharacterDetail)
	}
	return at(a.validate(value), path)
}

// at sets the path of an error from a catalogue validator.
func at(err *field.Error, path *field.Path) *field.Error {
	if err != nil {
		err.Field = path.String()
	}
	return err
}

var (
	onlyTLSTerminating = []TLSTerminationType{TLSTerminationEdge, TLSTerminationReencrypt}
	onlyHTTP           = []TLSTerminationType{"", TLSTerminationEdge, TLSTerminationReencrypt}
)

// AnnotationCatalogue lists every route annotation routeshift understands, in
// documentation order: the router's, then cert-manager's. Later entries win
// where two keys set the same value (ip_allowlist over ip_whitelist,
// router.openshift.io/cookie_name over the legacy key).
var AnnotationCatalogue = slices.Concat(routerCatalogue, extensionCatalogue, certificateCatalogue)

// routerCatalogue is the router part of AnnotationCatalogue.
var routerCatalogue = []Annotation{
	{Key: AnnBalance, Help: "Load-balancing algorithm: roundrobin, leastconn, source or random.",
		Default:  "roundrobin when more than one service (alternateBackends) has endpoints and a weight above 0; else ROUTER_TCP_BALANCE_SCHEME (source) for passthrough routes and ROUTER_LOAD_BALANCE_ALGORITHM (leastconn) for the others",
		validate: func(v string) *field.Error { return BalanceAlgorithm(v).Validate() }, apply: func(v string, o *Overrides) { o.Balance = v }},
	{Key: AnnDisableCookies, Help: "true turns off sticky-session cookies; the balance algorithm then picks the endpoint for every request.",
		Default: "false", OnlyFor: onlyHTTP,
		validate: boolean, warn: booleanWarning, apply: func(v string, o *Overrides) { o.DisableCookies = isTrue(v) }},
	{Key: AnnCookieNameLegacy, Help: "Name of the sticky-session cookie (3.7-era key; router.openshift.io/cookie_name wins when both are set); at most 1024 bytes.",
		Default: "ROUTER_COOKIE_NAME, else a hash of the route's namespace and name", OnlyFor: onlyHTTP, OpenShiftKey: AnnCookieName,
		validate: ValidateCookieName, apply: func(v string, o *Overrides) { o.CookieName = v }},
	{Key: AnnCookieName, Help: "Name of the sticky-session cookie: letters, digits, '_' and '-'; at most 1024 bytes.",
		Default: "ROUTER_COOKIE_NAME, else a hash of the route's namespace and name", OnlyFor: onlyHTTP,
		validate: ValidateCookieName, apply: func(v string, o *Overrides) { o.CookieName = v }},
	{Key: AnnCookieSameSite, Help: "SameSite attribute of the sticky-session cookie: Lax, Strict or None (None also sets Secure).",
		Default: "None (with Secure) unless insecureEdgeTerminationPolicy is Allow; then no SameSite attribute", OnlyFor: onlyTLSTerminating,
		validate: oneOf("Lax", "Strict", "None"), apply: func(v string, o *Overrides) { o.CookieSameSite = v }},
	{Key: AnnPodConcurrentConnections, Help: "Maximum connections from this router to each endpoint; 0 means no limit.",
		Default:  "0 (no limit)",
		validate: integer(0), apply: func(v string, o *Overrides) { o.PodConcurrentConnections = atoi32(v) }},
	{Key: AnnRateLimit, Help: "true turns on the per-source-address rate limits below.",
		Default:  "false",
		validate: boolean, warn: booleanWarning, apply: func(v string, o *Overrides) { o.RateLimit = isTrue(v) }},
	{Key: AnnRateLimitConcurrentTCP, Help: "Concurrent TCP connections allowed per source address.",
		Default: "no limit", Requires: AnnRateLimit,
		validate: integer(1), apply: func(v string, o *Overrides) { o.ConcurrentTCP = atoi32(v) }},
	{Key: AnnRateLimitRateHTTP, Help: "HTTP requests allowed per source address per 10 seconds.",
		Default: "no limit", Requires: AnnRateLimit,
		validate: integer(1), apply: func(v string, o *Overrides) { o.RateHTTP = atoi32(v) }},
	{Key: AnnRateLimitRateTCP, Help: "New TCP connections allowed per source address per 3 seconds (the window of OpenShift's router); the connection after the limit is refused.",
		Default: "no limit", Requires: AnnRateLimit,
		validate: integer(1), apply: func(v string, o *Overrides) { o.RateTCP = atoi32(v) }},
	{Key: AnnTimeout, Help: "Server-side timeout (TimeUnit, e.g. 5500ms or 30s).",
		Default:  "ROUTER_DEFAULT_SERVER_TIMEOUT (30s)",
		validate: timeUnit, apply: func(v string, o *Overrides) { o.Timeout, _ = ParseTimeUnit(v) }},
	{Key: AnnTimeoutTunnel, Help: "How long an idle WebSocket or passthrough connection stays open (TimeUnit, e.g. 30m or 1h).",
		Default:  "the timeout annotation for passthrough routes, else ROUTER_DEFAULT_TUNNEL_TIMEOUT (1h)",
		validate: timeUnit, apply: func(v string, o *Overrides) { o.TimeoutTunnel, _ = ParseTimeUnit(v) }},
	{Key: AnnRewriteTarget, Help: "Path that replaces spec.path at the start of a request's path before the request reaches the endpoints: with path /api and rewrite-target /, /api/users becomes /users; with rewrite-target /v2, /api/users becomes /v2/users. The query string is kept. At most 2048 bytes.",
		Default: "no rewrite", OnlyFor: onlyHTTP,
		validate: rewriteTarget, apply: func(v string, o *Overrides) { o.RewriteTarget = v }},
	{Key: AnnHealthCheckInterval, Help: "Interval between endpoint health checks (TimeUnit).",
		Default:  "ROUTER_BACKEND_CHECK_INTERVAL (5000ms)",
		validate: timeUnit, apply: func(v string, o *Overrides) { o.HealthCheckInterval, _ = ParseTimeUnit(v) }},
	{Key: AnnIPWhitelist, Help: "Space-separated IP addresses and CIDRs allowed to connect; others are refused (older name of ip_allowlist); at most 10000 entries. An empty value is the same as no annotation. A router that meets invalid entries (on a Route that bypassed the webhook) drops them, and serves the Route to nobody when none is valid.",
		Default: "every source allowed", FailClosed: true,
		validate: ipList, warn: ipListWarning, apply: applyIPAllowlist},
	{Key: AnnIPAllowlist, Help: "Space-separated IP addresses and CIDRs allowed to connect; others are refused; at most 10000 entries. Wins over ip_whitelist. An empty value is the same as no annotation. A router that meets invalid entries (on a Route that bypassed the webhook) drops them, and serves the Route to nobody when none is valid.",
		Default: "every source allowed", FailClosed: true,
		validate: ipList, warn: ipListWarning, apply: applyIPAllowlist},
	{Key: AnnHSTSHeader, Help: "Strict-Transport-Security header: max-age=<seconds>[;includeSubDomains][;preload]; at most 1024 bytes.",
		Default: "no header", OnlyFor: onlyTLSTerminating,
		validate: hsts, apply: func(v string, o *Overrides) { o.HSTSHeader = v }},
	{Key: AnnPoolSize, Help: "Size of the pre-allocated server pool of OpenShift's blueprint routes. Validated for compatibility; no effect in routeshift, whose router sizes every backend's server slots itself.",
		Default:  "—",
		validate: integer(1), apply: func(v string, o *Overrides) { o.PoolSize = atoi32(v) }},
	{Key: AnnPathType, Help: "Exact matches spec.path exactly; Prefix (the default) matches it as a path prefix. Other routers always match a prefix.",
		Default: "Prefix", OnlyFor: onlyHTTP,
		validate: oneOf("Prefix", "Exact"), apply: func(v string, o *Overrides) { o.ExactPath = v == "Exact" }},
	{Key: AnnSetForwardedHeaders, Help: "What the router does with the X-Forwarded-For, -Host, -Port and -Proto headers clients send, for this route: append (the client's address to X-Forwarded-For; the others set), replace (all set), if-none (set only when the client sent none) or never (passed on as sent).",
		Default: "ROUTER_SET_FORWARDED_HEADERS (append)", OnlyFor: onlyHTTP,
		validate: func(v string) *field.Error { return ForwardedHeadersPolicy(v).Validate() },
		apply:    func(v string, o *Overrides) { o.ForwardedHeaders = ForwardedHeadersPolicy(v) }},
	{Key: AnnH1AdjustCase, Help: "true writes the header names listed in the router's ROUTER_H1_CASE_ADJUST in the case given there in the HTTP/1 requests the route sends to its endpoints, for endpoints that wrongly expect a case. Without ROUTER_H1_CASE_ADJUST it does nothing.",
		Default: "false (header names in lower case)", OnlyFor: onlyHTTP,
		validate: boolean, warn: booleanWarning, apply: func(v string, o *Overrides) { o.H1AdjustCase = isTrue(v) }},
}

// annotationIndex finds catalogue entries by key.
var annotationIndex = func() map[string]*Annotation {
	m := make(map[string]*Annotation, len(AnnotationCatalogue))
	for i := range AnnotationCatalogue {
		m[AnnotationCatalogue[i].Key] = &AnnotationCatalogue[i]
	}
	return m
}()

// LookupAnnotation returns the catalogue entry for key.
func LookupAnnotation(key string) (*Annotation, bool) {
	a, ok := annotationIndex[key]
	return a, ok
}

// ParseAnnotations validates the router annotations of a route and returns
// their typed values. Values that fail validation are reported and left
// unset, so a caller that only wants the usable values (the router) can
// ignore the errors, and one that must refuse (the webhook) can return them.
func ParseAnnotations(annotations map[string]string, fldPath *field.Path) (Overrides, field.ErrorList) {
	var o Overrides
	var errs field.ErrorList
	for i := range AnnotationCatalogue {
		a := &AnnotationCatalogue[i]
		v, ok := annotations[a.Key]
		if !ok || a.apply == nil {
			continue
		}
		if err := checkAnnotationValue(fldPath, a.Key, v, a); err != nil {
			errs = append(errs, err)
			if !a.FailClosed {
				continue
			}
		}
		a.apply(v, &o)
	}
	return o, errs
}

// RouterAnnotationScope reports whether key belongs to the router
// annotations whose values routeshift owns: the haproxy.router.openshift.io,
// router.openshift.io and route.openshift.io prefixes (and any
// *.router.openshift.io), and routeshift.io.
func RouterAnnotationScope(key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	return ok && (prefix == "router.openshift.io" || strings.HasSuffix(prefix, ".router.openshift.io") ||
		prefix == "route.openshift.io" || prefix == "routeshift.io")
}

// annotationErrors checks every annotation in one pass: keyErrs are keys
// that are not qualified names (case-insensitive; catalogue keys are known
// to be well formed) and the total size limit; valueErrs (unless
// checkValues is false) are control characters in router annotation values
// (a newline would inject configuration) and invalid catalogue values. On
// update (old != nil) a value equal to the old one is not re-checked, so
// stored routes stay editable.
//
// Errors come in the order of sortedKeys; nil sortedKeys means map order.
func annotationErrors(annotations map[string]string, sortedKeys []string, old map[string]string, checkValues bool) (keyErrs, valueErrs field.ErrorList) {
	check := func(key, v string) {
		a, known := annotationIndex[key]
		if !known {
			for _, msg := range validation.IsQualifiedName(strings.ToLower(key)) {
				keyErrs = append(keyErrs, field.Invalid(annotationsPath, key, msg))
			}
			if !RouterAnnotationScope(key) {
				return
			}
		}
		if !checkValues {
			return
		}
		if ov, ok := old[key]; ok && ov == v {
			return
		}
		if err := checkAnnotationValue(annotationsPath, key, v, a); err != nil {
			valueErrs = append(valueErrs, err)
		}
	}
	if sortedKeys == nil {
		for k, v := range annotations {
			check(k, v)
		}
	} else {
		for _, k := range sortedKeys {
			check(k, annotations[k])
		}
	}
	if apivalidation.ValidateAnnotationsSize(annotations) != nil {
		keyErrs = append(keyErrs, field.TooLong(annotationsPath, "", apivalidation.TotalAnnotationSizeLimitB))
	}
	return keyErrs, valueErrs
}

// checkAnnotationValue is the one check of an annotation value: no control
// characters, then the catalogue entry's own rule (a is nil for keys
// outside the catalogue).
func checkAnnotationValue(annotations *field.Path, key, v string, a *Annotation) *field.Error {
	if hasControlCharacter(v) {
		return field.Invalid(annotations.Key(key), v, controlCharacterDetail)
	}
	if a != nil {
		if err := a.validate(v); err != nil {
			return at(err, annotations.Key(key))
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// controlCharacterDetail is the error of a router annotation value with a
// control character, which could end a line of haproxy.cfg.
const controlCharacterDetail = "must not contain control characters such as newlines or tabs"

func hasControlCharacter(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return true
		}
	}
	return false
}

// isTrue reads a boolean annotation as routers do (strconv.ParseBool):
// invalid values are false.
func isTrue(v string) bool {
	b, _ := strconv.ParseBool(v)
	return b
}

func atoi32(v string) int32 {
	n, _ := strconv.ParseInt(v, 10, 32)
	return int32(n)
}

// oneOf accepts exactly the listed values (case-sensitive, as the router
// compares them).
func oneOf(values ...string) func(string) *field.Error {
	return func(v string) *field.Error { return ValidateEnum(v, values) }
}

// boolean accepts what strconv.ParseBool accepts, which is what OpenShift's
// router reads: true and false are the documented forms; 1, t, T, TRUE,
// True, 0, f, F, FALSE and False are read alike (booleanWarning names the
// documented form).
func boolean(v string) *field.Error {
	if _, err := strconv.ParseBool(v); err != nil {
		return field.Invalid(nil, v, "must be true or false")
	}
	return nil
}

func integer(minimum int64) func(string) *field.Error {
	detail := "must be a whole number from 1 up"
	if minimum == 0 {
		detail = "must be a whole number from 0 up (0 means no limit)"
	}
	return func(v string) *field.Error {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < minimum || strings.HasPrefix(v, "+") {
			return field.Invalid(nil, v, detail)
		}
		return nil
	}
}

func timeUnit(v string) *field.Error {
	if _, err := ParseTimeUnit(v); err != nil {
		return field.Invalid(nil, v, err.Error())
	}
	return nil
}

// rewriteTarget accepts an absolute URL path: '/' then RFC 3986 path
// characters (percent-encoded octets included).
func rewriteTarget(v string) *field.Error {
	if len(v) > MaxRewriteTargetLength {
		return field.TooLong(nil, v, MaxRewriteTargetLength)
	}
	if !strings.HasPrefix(v, "/") || strings.IndexFunc(v, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~!$&'()*+,;=:@/%", r))
	}) >= 0 {
		return field.Invalid(nil, v, "must be a path starting with '/' of letters, digits and -._~!$&'()*+,;=:@/% (no spaces, '?' or '#')")
	}
	return nil
}

func ipList(v string) *field.Error {
	n := 0
	for tok := range strings.FieldsSeq(v) {
		if !isIPOrCIDR(tok) {
			return field.Invalid(nil, tok, `is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`)
		}
		n++
	}
	if n > MaxAllowlistEntries {
		return field.TooMany(nil, n, MaxAllowlistEntries)
	}
	return nil
}

// ipListWarning reports spaces other than single ones between entries:
// routeshift reads the entries between any spaces (validation, router),
// OpenShift's router splits on single spaces and ignores a list with an
// empty entry.
func ipListWarning(v string) string {
	entries := strings.Fields(v)
	if len(entries) == 0 || strings.Join(entries, " ") == v {
		return ""
	}
	read := fmt.Sprintf("the %d entries between them", len(entries))
	if len(entries) == 1 {
		read = "its one entry"
	}
	return "has leading, trailing or repeated spaces; routeshift reads " + read +
		", but OpenShift's router ignores such a list and lets every source in: separate the entries with single spaces"
}

// booleanWarning names the documented spelling of a boolean written in one
// of the other forms routers read.
func booleanWarning(v string) string {
	b, err := strconv.ParseBool(v)
	if err != nil || v == "true" || v == "false" || v == "TRUE" || v == "FALSE" {
		return ""
	}
	return fmt.Sprintf("%q is read as %t; %q is the documented spelling", v, b, strconv.FormatBool(b))
}

// applyIPAllowlist sets the allowlist; an empty (or blank) value is no
// allowlist, as in OpenShift, and leaves ip_whitelist's in place.
func applyIPAllowlist(v string, o *Overrides) {
	if list := strings.Fields(v); len(list) > 0 {
		o.IPAllowlist = list
	}
}

// isIPOrCIDR accepts IPv4 and IPv6 addresses and prefixes, without zones.
func isIPOrCIDR(s string) bool {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return err == nil && p.Addr().Zone() == ""
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Zone() == ""
}

// hsts accepts max-age=<seconds> with optional includeSubDomains and preload
// directives, separated by ';', in any order, each at most once.
func hsts(v string) *field.Error {
	if len(v) > MaxHSTSHeaderLength {
		return field.TooLong(nil, v, MaxHSTSHeaderLength)
	}
	const maxAge, includeSubDomains, preload = 1, 2, 4
	seen := 0
	for raw := range strings.SplitSeq(v, ";") {
		d, bit := strings.TrimSpace(raw), 0
		switch {
		case strings.EqualFold(d, "includeSubDomains"):
			bit = includeSubDomains
		case strings.EqualFold(d, "preload"):
			bit = preload
		case isMaxAge(d):
			bit = maxAge
		}
		if bit == 0 || seen&bit != 0 {
			seen = -1
			break
		}
		seen |= bit
	}
	if seen < 0 || seen&maxAge == 0 {
		return field.Invalid(nil, v, "must be max-age=<seconds>, optionally followed by ;includeSubDomains and ;preload")
	}
	return nil
}

// isMaxAge accepts max-age=<digits>, case-insensitive, with optional spaces
// around "=" and optional quotes around the number (RFC 6797).
func isMaxAge(d string) bool {
	name, value, ok := strings.Cut(d, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(name), "max-age") {
		return false
	}
	value = strings.TrimSpace(value)
	if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
		value = value[1 : len(value)-1]
	}
	return value != "" && strings.Trim(value, "0123456789") == ""
}

// annotationWarnings returns, for the route's router annotations, a warning
// for each unknown key (with the closest known key) and each known key that
// has no effect on this route.
func annotationWarnings(route *Route) []string {
	var warnings []string
	termination := TLSTerminationType("")
	if route.Spec.TLS != nil {
		termination = route.Spec.TLS.Termination
	}
	for _, key := range sortedKeys(route.Annotations) {
		path := field.NewPath("metadata", "annotations").Key(key).String()
		a, known := annotationIndex[key]
		switch {
		case !known && IsCertManagerAnnotation(key):
			msg := fmt.Sprintf("%s: routeshift does not read this cert-manager annotation on Routes; it has no effect", path)
			if s := closestAnnotation(key); s != "" && !slices.Contains(certManagerIngressOnly, key) {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			warnings = append(warnings, msg)
		case !known && unknownScope(key):
			msg := fmt.Sprintf("%s: unknown router annotation; it has no effect", path)
			if s := closestAnnotation(key); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			warnings = append(warnings, msg)
		case known && len(a.OnlyFor) > 0 && !slices.Contains(a.OnlyFor, termination) && a.certificate == nil && !a.RefusedOutside:
			warnings = append(warnings, fmt.Sprintf("%s: has no effect on %s", path, terminationNoun(termination)))
		case known && a.Requires != "" && !isTrue(route.Annotations[a.Requires]):
			warnings = append(warnings, fmt.Sprintf("%s: has no effect unless %s is \"true\"", path, a.Requires))
		}
		if !known {
			continue
		}
		if a.OpenShiftKey != "" {
			warnings = append(warnings, fmt.Sprintf("%s: OpenShift's router does not read this key; write %s, which routeshift reads too", path, a.OpenShiftKey))
		}
		if w := a.warnValue(route.Annotations[key]); w != "" {
			warnings = append(warnings, path+": "+w)
		}
	}
	return warnings
}

// warnValue is the entry's warning about a valid value, or "".
func (a *Annotation) warnValue(v string) string {
	if a.warn == nil || a.validate(v) != nil {
		return ""
	}
	return a.warn(v)
}

// unknownScope reports whether an unknown key is one routeshift would
// recognise if it were spelt right.
func unknownScope(key string) bool {
	prefix, _, _ := strings.Cut(key, "/")
	return prefix == "router.openshift.io" || strings.HasSuffix(prefix, ".router.openshift.io") || prefix == "routeshift.io"
}

func terminationNoun(t TLSTerminationType) string {
	if t == "" {
		return "routes without TLS"
	}
	return string(t) + " routes"
}

// closestAnnotation returns the known key nearest to key by edit distance,
// or "" when none is close enough to be a plausible typo.
func closestAnnotation(key string) string {
	best, bestDist := "", len(key)/3+2
	for i := range AnnotationCatalogue {
		k := AnnotationCatalogue[i].Key
		if d := editDistance(key, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
