package examples

import (
	"fmt"
	"slices"
	"strings"

	"github.com/routeshift/routeshift/routecore"
)

// annotationValue is a valid and an invalid value of a catalogue
// annotation, and the error the invalid one gets (after
// "metadata.annotations[KEY]: ").
type annotationValue struct{ valid, invalid, err string }

// Shared errors of the annotation values.
const (
	booleanErr = "must be true or false"
	countErr   = "must be a whole number from 1 up"
	cookieErr  = "must consist of letters, digits, '_' and '-'"
	ipErr      = `is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`
)

// annotationValues has an entry for every catalogue annotation: the valid
// value is the Example column of docs/reference/annotations.md, the
// invalid one its row on the validation page.
var annotationValues = map[string]annotationValue{
	routecore.AnnBalance:                  {"roundrobin", "fastest", `Unsupported value: "fastest": supported values: "roundrobin", "leastconn", "source", "random"`},
	routecore.AnnDisableCookies:           {"true", "yes", `Invalid value: "yes": ` + booleanErr},
	routecore.AnnCookieNameLegacy:         {"session", "my cookie", `Invalid value: "my cookie": ` + cookieErr},
	routecore.AnnCookieName:               {"session", "session;path=/", `Invalid value: "session;path=/": ` + cookieErr},
	routecore.AnnCookieSameSite:           {"Strict", "lax", `Unsupported value: "lax": supported values: "Lax", "Strict", "None"`},
	routecore.AnnPodConcurrentConnections: {"100", "-1", `Invalid value: "-1": must be a whole number from 0 up (0 means no limit)`},
	routecore.AnnRateLimit:                {"true", "on", `Invalid value: "on": ` + booleanErr},
	routecore.AnnRateLimitConcurrentTCP:   {"20", "0", `Invalid value: "0": ` + countErr},
	routecore.AnnRateLimitRateHTTP:        {"100", "100/s", `Invalid value: "100/s": ` + countErr},
	routecore.AnnRateLimitRateTCP:         {"50", "+10", `Invalid value: "+10": ` + countErr},
	routecore.AnnTimeout:                  {"2m", "5 minutes", `Invalid value: "5 minutes": ` + timeUnitMsg},
	routecore.AnnTimeoutTunnel:            {"30m", "forever", `Invalid value: "forever": ` + timeUnitMsg},
	routecore.AnnRewriteTarget:            {"/", "api/v2", `Invalid value: "api/v2": must be a path starting with '/' of letters, digits and -._~!$&'()*+,;=:@/% (no spaces, '?' or '#')`},
	routecore.AnnHealthCheckInterval:      {"10s", "0s", `Invalid value: "0s": ` + timeUnitMsg},
	routecore.AnnIPWhitelist:              {"192.168.1.0/24 10.0.0.1", "10.0.0.0/33", `Invalid value: "10.0.0.0/33": ` + ipErr},
	routecore.AnnIPAllowlist:              {"192.168.1.10 10.0.0.0/8 2001:db8::/32", "192.168.1.10,10.0.0.0/8", `Invalid value: "192.168.1.10,10.0.0.0/8": ` + ipErr},
	routecore.AnnHSTSHeader:               {"max-age=31536000;includeSubDomains;preload", "includeSubDomains", `Invalid value: "includeSubDomains": must be max-age=<seconds>, optionally followed by ;includeSubDomains and ;preload`},
	routecore.AnnPoolSize:                 {"10", "0", `Invalid value: "0": ` + countErr},
	routecore.AnnPathType:                 {"Exact", "exact", `Unsupported value: "exact": supported values: "Prefix", "Exact"`},
	routecore.AnnSetForwardedHeaders:      {"if-none", "overwrite", `Unsupported value: "overwrite": supported values: "append", "replace", "if-none", "never"`},
	routecore.AnnH1AdjustCase:             {"true", "yes", `Invalid value: "yes": ` + booleanErr},

	routecore.AnnMaxBodySize:           {"8m", "8mb", `Invalid value: "8mb": must be a size such as 8m, 512k or 1048576: a whole number of bytes, optionally followed by k, m or g; 0 means no limit`},
	routecore.AnnIPDenylist:            {"203.0.113.0/24 2001:db8::1", "203.0.113.0/24,10.0.0.1", `Invalid value: "203.0.113.0/24,10.0.0.1": ` + ipErr},
	routecore.AnnRedirectTo:            {"https://www.example.com/new$request_uri", "www.example.com", `Invalid value: "www.example.com": must be an absolute http or https URL with a host, such as https://www.example.com/new$request_uri`},
	routecore.AnnRedirectCode:          {"308", "300", `Unsupported value: "300": supported values: "301", "302", "303", "307", "308"`},
	routecore.AnnAppRoot:               {"/app", "app", `Invalid value: "app": must be a path other than / starting with a single '/', of letters, digits and -._~:/?[]@!&'()*+,;=% (no spaces, quotes or '#'), such as /app`},
	routecore.AnnAuthBasicSecret:       {"shop-users", "Shop_Users", `Invalid value: "Shop_Users": must be the name of a Secret in the Route's namespace: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	routecore.AnnAuthBasicRealm:        {"Shop staff", `Shop "staff"`, `Invalid value: "Shop \"staff\"": must be a non-empty text without double quotes or backslashes`},
	routecore.AnnAuthBasicForward:      {"true", "yes", `Invalid value: "yes": ` + booleanErr},
	routecore.AnnRateLimitStatus:       {"429", "503", `Unsupported value: "503": supported values: "429"`},
	routecore.AnnRateLimitExempt:       {"10.0.0.0/8", "10.0.0.0/8;192.168.0.1", `Invalid value: "10.0.0.0/8;192.168.0.1": ` + ipErr},
	routecore.AnnWWWRedirect:           {"true", "yes", `Invalid value: "yes": ` + booleanErr},
	routecore.AnnCanaryBackend:         {"shop-canary", "Shop_Canary", `Invalid value: "Shop_Canary": must be the name of a Service among spec.alternateBackends: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
	routecore.AnnCanaryByHeader:        {"X-Canary", "X Canary", `Invalid value: "X Canary": must be an HTTP header name of letters, digits, '-', '_' and '.', such as X-Canary`},
	routecore.AnnCanaryByHeaderValue:   {"beta-testers", "never", `Invalid value: "never": must not be "never", which keeps requests away from the canary`},
	routecore.AnnCanaryByHeaderPattern: {"^(beta|staff)-", "^(?s)beta", `Invalid value: "^(?s)beta": (?s) is not accepted: accepted are literals, ., classes, | and groups, (?: ), (?i), (?i: ), repetitions, ^, $ and the escapes \d \D \s \S \w \W \b \B \A \z \t \n \r \f \xHH and \ before punctuation, in ASCII`},
	routecore.AnnCanaryByCookie:        {"canary", "canary=always", `Invalid value: "canary=always": ` + cookieErr},

	routecore.AnnCertIssuer:                    {"shop-ca", "Shop_CA", `Invalid value: "Shop_CA": ` + subdomainMsg},
	routecore.AnnCertIssuerName:                {"shop-ca", "shop ca", `Invalid value: "shop ca": ` + subdomainMsg},
	routecore.AnnCertClusterIssuer:             {"letsencrypt", "letsencrypt.", `Invalid value: "letsencrypt.": ` + subdomainMsg},
	routecore.AnnCertIssuerKind:                {"ClusterIssuer", "", `Invalid value: "": must not be empty`},
	routecore.AnnCertIssuerGroup:               {"awspca.cert-manager.io", "AWSPCA", `Invalid value: "AWSPCA": ` + subdomainMsg},
	routecore.AnnCertCommonName:                {"www.example.com", strings.Repeat("c", 65), "Too long: may not be more than 64 bytes"},
	routecore.AnnCertAltNames:                  {"example.com,*.shop.example.com", "a.example.com, b.example.com", `Invalid value: " b.example.com": ` + subdomainMsg + " (separate names with commas only)"},
	routecore.AnnCertIPSANs:                    {"192.0.2.10", "10.0.0.300", `Invalid value: "10.0.0.300": invalid IP address`},
	routecore.AnnCertURISANs:                   {"spiffe://cluster.local/ns/shop/sa/web", "shop/web", `Invalid value: "shop/web": must be an absolute URI such as spiffe://cluster.local/ns/shop/sa/web`},
	routecore.AnnCertEmailSANs:                 {"ops@example.com", "Ops <ops@example.com>", `Invalid value: "Ops <ops@example.com>": invalid email address: make sure the supplied value only contains the email address itself`},
	routecore.AnnCertDuration:                  {"2160h", "90d", `Invalid value: "90d": must be a duration such as 2160h or 90m (cert-manager reads it with Go's time.ParseDuration: time: unknown unit "d" in duration "90d")`},
	routecore.AnnCertRenewBefore:               {"360h", "1m", `Invalid value: "1m": certificate renewBefore must be greater than 5m0s`},
	routecore.AnnCertPrivateKeyAlgorithm:       {"ECDSA", "ecdsa", `Unsupported value: "ecdsa": supported values: "RSA", "ECDSA", "Ed25519"`},
	routecore.AnnCertPrivateKeySize:            {"384", "1024", `Invalid value: "1024": must be between 2048 and 8192 for rsa keyAlgorithm`},
	routecore.AnnCertPrivateKeyRotationPolicy:  {"Never", "never", `Unsupported value: "never": supported values: "Always", "Never"`},
	routecore.AnnCertRevisionHistoryLimit:      {"3", "0", `Invalid value: "0": must not be less than 1`},
	routecore.AnnCertSubjectOrganizations:      {`Example Inc,"Example, Ltd"`, `"Example`, csvErr(`"Example`, 9)},
	routecore.AnnCertSubjectOrganizationalUnit: {"Web", `"Web`, csvErr(`"Web`, 5)},
	routecore.AnnCertSubjectCountries:          {"DE", `"DE`, csvErr(`"DE`, 4)},
	routecore.AnnCertSubjectProvinces:          {"Bavaria", `"Bavaria`, csvErr(`"Bavaria`, 9)},
	routecore.AnnCertSubjectLocalities:         {"Munich", `"Munich`, csvErr(`"Munich`, 8)},
	routecore.AnnCertSubjectStreetAddresses:    {"Main Street 1", `"Main Street 1`, csvErr(`"Main Street 1`, 15)},
	routecore.AnnCertSubjectPostalCodes:        {"80331", `"80331`, csvErr(`"80331`, 7)},
	routecore.AnnCertSubjectSerialNumber:       {"42", "12\n34", `Invalid value: "12\n34": must not contain control characters such as newlines or tabs`},
}

// csvErr is the error of a subject list that is no line of CSV: an
// unterminated quote, noticed at column.
func csvErr(v string, column int) string {
	return fmt.Sprintf(`Invalid value: %q: failed to parse %q as CSV: parse error on line 1, column %d: extraneous or missing " in quoted-field`, v, v, column)
}

// AnnotationExample is a valid value of the catalogue annotation key.
func AnnotationExample(key string) (string, error) {
	v, ok := annotationValues[key]
	if !ok {
		return "", missing(key)
	}
	return v.valid, nil
}

func missing(key string) error {
	return fmt.Errorf("annotation %s has no example values: add them to annotationValues in routecore/examples/annotations.go", key)
}

// StaleAnnotations are the keys of example values that name no catalogue
// annotation any more, sorted.
func StaleAnnotations() []string {
	var stale []string
	for key := range annotationValues {
		if _, ok := routecore.LookupAnnotation(key); !ok {
			stale = append(stale, key)
		}
	}
	slices.Sort(stale)
	return stale
}

// annotationExamples are the rules of every router annotation, then a row
// per catalogue annotation, in catalogue order. cert-manager's annotations
// are shown on an edge Route with an Issuer, where they apply.
func annotationExamples() ([]Example, error) {
	if stale := StaleAnnotations(); len(stale) > 0 {
		return nil, fmt.Errorf("routecore/examples/annotations.go has examples of %s, which no longer exist: remove them", strings.Join(stale, ", "))
	}
	ann := func(key string) string { return "metadata.annotations[" + key + "]: " }
	out := []Example{{
		Rule:   "No router annotation value (`haproxy.router.openshift.io/*`, `*.router.openshift.io/*`, `route.openshift.io/*`, `routeshift.io/*`) may contain control characters",
		Shows:  "a newline in a value",
		Change: Annotate("route.openshift.io/owner", "team-a\nteam-b"),
		Errors: []string{ann("route.openshift.io/owner") + `Invalid value: "team-a\nteam-b": must not contain control characters such as newlines or tabs`},
	}, {
		Rule:   "A TimeUnit is at most 2147483647 ms (HAProxy's limit)",
		Shows:  "`haproxy.router.openshift.io/timeout: 25d`",
		Change: Annotate(routecore.AnnTimeout, "25d"),
		Errors: []string{ann(routecore.AnnTimeout) + `Invalid value: "25d": must be at most 2147483647ms (about 24.8 days)`},
	}, {
		Rule:   "Values that reach HAProxy's configuration have limits (routeshift, see [Limits](../validation.md#limits)): rewrite-target 2048 bytes, cookie names and `hsts_header` 1024 bytes, allowlists 10000 entries",
		Shows:  "`haproxy.router.openshift.io/rewrite-target` of 2049 bytes",
		Change: Annotate(routecore.AnnRewriteTarget, "/"+strings.Repeat("t", routecore.MaxRewriteTargetLength)),
		Errors: []string{ann(routecore.AnnRewriteTarget) + "Too long: may not be more than 2048 bytes"},
	}}
	for _, a := range routecore.AnnotationCatalogue {
		v, ok := annotationValues[a.Key]
		if !ok {
			return nil, missing(a.Key)
		}
		out = append(out, Example{
			Rule:   "`" + a.Key + "`: " + a.Help,
			Shows:  fmt.Sprintf("value `%q`", v.invalid),
			Change: annotated(a.Key, v.invalid),
			Errors: []string{ann(a.Key) + v.err},
		})
	}
	www := ann(routecore.AnnWWWRedirect) + `Invalid value: "true": `
	out = append(out, Example{
		Rule:   "`" + routecore.AnnWWWRedirect + "` is refused on wildcard routes (routeshift)",
		Shows:  "`wildcardPolicy: Subdomain` with `" + routecore.AnnWWWRedirect + ": \"true\"`",
		Change: Both(Annotate(routecore.AnnWWWRedirect, "true"), func(r *routecore.Route) { r.Spec.WildcardPolicy = routecore.WildcardPolicySubdomain }),
		Errors: []string{www + "cannot be used on a wildcard route (wildcardPolicy Subdomain), which serves every host of its domain"},
	}, Example{
		Rule:   "… and where the host it redirects from would not be a valid host of two labels at least",
		Shows:  "`host: www.com`, whose other host is `com`",
		Change: Both(Annotate(routecore.AnnWWWRedirect, "true"), func(r *routecore.Route) { r.Spec.Host = "www.com" }),
		Errors: []string{www + "the host redirected from, com, must have at least two labels"},
	})
	canary := func(r *routecore.Route) {
		r.Spec.AlternateBackends = []routecore.RouteTargetReference{{Kind: "Service", Name: "shop-canary"}, {Kind: "Service", Name: "shop-next"}}
	}
	out = append(out, Example{
		Rule:   "`" + routecore.AnnCanaryBackend + "` names one of `spec.alternateBackends` (routeshift)",
		Shows:  "`" + routecore.AnnCanaryBackend + ": shop-beta` with alternate backends shop-canary and shop-next",
		Change: Both(canary, Annotate(routecore.AnnCanaryBackend, "shop-beta"), Annotate(routecore.AnnCanaryByHeader, "X-Canary")),
		Errors: []string{ann(routecore.AnnCanaryBackend) + `Invalid value: "shop-beta": must name one of spec.alternateBackends: "shop-canary", "shop-next"`},
	}, Example{
		Rule:   "… and `" + routecore.AnnCanaryByHeader + "` and `" + routecore.AnnCanaryByCookie + "` need it",
		Shows:  "`" + routecore.AnnCanaryByCookie + ": canary` alone",
		Change: Both(canary, Annotate(routecore.AnnCanaryByCookie, "canary")),
		Errors: []string{ann(routecore.AnnCanaryByCookie) + `Invalid value: "canary": needs ` + routecore.AnnCanaryBackend + ", the alternate backend it sends requests to"},
	}, Example{
		Rule:  "`" + routecore.AnnCanaryByHeaderValue + "` and `" + routecore.AnnCanaryByHeaderPattern + "` need `" + routecore.AnnCanaryByHeader + "` and exclude each other",
		Shows: "both, with canary-by-header",
		Change: Both(canary, Annotate(routecore.AnnCanaryBackend, "shop-canary"), Annotate(routecore.AnnCanaryByHeader, "X-Canary"),
			Annotate(routecore.AnnCanaryByHeaderValue, "beta"), Annotate(routecore.AnnCanaryByHeaderPattern, "^beta")),
		Errors: []string{ann(routecore.AnnCanaryByHeaderPattern) + `Invalid value: "^beta": cannot be used with ` + routecore.AnnCanaryByHeaderValue + ": set one of them"},
	})
	return out, nil
}

// annotated sets key to value, on an edge Route with an Issuer for
// cert-manager's annotations (the Issuer named by key when key names one).
func annotated(key, value string) func(*routecore.Route) {
	if !routecore.IsCertManagerAnnotation(key) {
		return Annotate(key, value)
	}
	issuer := routecore.AnnCertIssuer
	if slices.Contains([]string{routecore.AnnCertIssuerName, routecore.AnnCertClusterIssuer}, key) {
		issuer = key
	}
	return Both(WithTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}), Annotate(issuer, "ca"), Annotate(key, value))
}
