package routecore

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// valueCase is a value of one catalogue annotation and the error its
// entry gives (after "metadata.annotations[KEY]: "), "" when accepted.
type valueCase struct {
	key, value, want string
}

// checkValues runs each value through its catalogue entry's Validate, the
// check the webhook and the router share.
func checkValues(t *testing.T, tests []valueCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			a, ok := LookupAnnotation(tt.key)
			if !ok {
				t.Fatalf("%s is not in the catalogue", tt.key)
			}
			path := field.NewPath("metadata", "annotations").Key(tt.key)
			got := ""
			if err := a.Validate(path, tt.value); err != nil {
				got = strings.TrimPrefix(err.Error(), path.String()+": ")
			}
			if got != tt.want {
				t.Errorf("Validate(%q) = %q, want %q", tt.value, got, tt.want)
			}
		})
	}
}

// TestIntegerAnnotations: counts are decimal int32 numbers written plainly,
// from 0 for the per-endpoint cap (0 meaning no cap) and from 1 for the
// rate limits and the pool size.
func TestIntegerAnnotations(t *testing.T) {
	const fromZero = "must be a whole number from 0 up (0 means no limit)"
	const fromOne = "must be a whole number from 1 up"
	inv := func(v, msg string) string { return `Invalid value: "` + v + `": ` + msg }
	tests := []valueCase{
		{AnnPodConcurrentConnections, "0", ""},
		{AnnPodConcurrentConnections, "1", ""},
		{AnnPodConcurrentConnections, "2147483647", ""},
		{AnnPodConcurrentConnections, "2147483648", inv("2147483648", fromZero)},
		{AnnPodConcurrentConnections, "+1", inv("+1", fromZero)},
		{AnnPodConcurrentConnections, "", inv("", fromZero)},
		{AnnPodConcurrentConnections, "0x10", inv("0x10", fromZero)},
		{AnnRateLimitConcurrentTCP, "1", ""},
		{AnnRateLimitConcurrentTCP, "-5", inv("-5", fromOne)},
		{AnnRateLimitConcurrentTCP, " 5", inv(" 5", fromOne)},
		{AnnRateLimitRateHTTP, "007", ""},
		{AnnRateLimitRateHTTP, "1.5", inv("1.5", fromOne)},
		{AnnRateLimitRateHTTP, "1e3", inv("1e3", fromOne)},
		{AnnRateLimitRateTCP, "2147483647", ""},
		{AnnRateLimitRateTCP, "0", inv("0", fromOne)},
		{AnnPoolSize, "1", ""},
		{AnnPoolSize, "-1", inv("-1", fromOne)},
		{AnnPoolSize, "ten", inv("ten", fromOne)},
	}
	checkValues(t, tests)
}

// TestEnumeratedAnnotations: the values of balance, cookie-same-site,
// path-type and set-forwarded-headers are compared exactly, as routers
// compare them: another case or surrounding spaces are refused with the
// list of values.
func TestEnumeratedAnnotations(t *testing.T) {
	balance := `supported values: "roundrobin", "leastconn", "source", "random"`
	sameSite := `supported values: "Lax", "Strict", "None"`
	pathType := `supported values: "Prefix", "Exact"`
	forwarded := `supported values: "append", "replace", "if-none", "never"`
	un := func(v, list string) string { return `Unsupported value: "` + v + `": ` + list }
	tests := []valueCase{
		{AnnBalance, "leastconn", ""},
		{AnnBalance, "source", ""},
		{AnnBalance, "random", ""},
		{AnnBalance, "", un("", balance)},
		{AnnBalance, " roundrobin", un(" roundrobin", balance)},
		{AnnBalance, "LEASTCONN", un("LEASTCONN", balance)},
		{AnnBalance, "first", un("first", balance)},
		{AnnCookieSameSite, "Lax", ""},
		{AnnCookieSameSite, "None", ""},
		{AnnCookieSameSite, "strict", un("strict", sameSite)},
		{AnnCookieSameSite, "", un("", sameSite)},
		{AnnPathType, "Prefix", ""},
		{AnnPathType, "prefix", un("prefix", pathType)},
		{AnnPathType, "ImplementationSpecific", un("ImplementationSpecific", pathType)},
		{AnnSetForwardedHeaders, "append", ""},
		{AnnSetForwardedHeaders, "replace", ""},
		{AnnSetForwardedHeaders, "never", ""},
		{AnnSetForwardedHeaders, "if_none", un("if_none", forwarded)},
		{AnnSetForwardedHeaders, "Append", un("Append", forwarded)},
	}
	checkValues(t, tests)
}

// TestBooleanAnnotations: every spelling strconv.ParseBool reads is
// accepted (OpenShift's router reads booleans with it); anything else,
// the empty value too, is refused.
func TestBooleanAnnotations(t *testing.T) {
	var tests []valueCase
	for _, key := range []string{AnnDisableCookies, AnnRateLimit, AnnH1AdjustCase} {
		for _, v := range []string{"1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"} {
			tests = append(tests, valueCase{key, v, ""})
		}
		for _, v := range []string{"", "yes", "no", "on", "tRUE", " true", "2"} {
			tests = append(tests, valueCase{key, v, `Invalid value: "` + v + `": must be true or false`})
		}
	}
	checkValues(t, tests)
}

// TestTimeUnitAnnotations: the three TimeUnit annotations share
// ParseTimeUnit's grammar and its upper limit.
func TestTimeUnitAnnotations(t *testing.T) {
	tooLarge := "must be at most 2147483647ms (about 24.8 days)"
	inv := func(v, msg string) string { return `Invalid value: "` + v + `": ` + msg }
	var tests []valueCase
	for _, key := range []string{AnnTimeout, AnnTimeoutTunnel, AnnHealthCheckInterval} {
		tests = append(tests,
			valueCase{key, "1", ""},
			valueCase{key, "10us", ""},
			valueCase{key, "24d", ""},
			valueCase{key, "2147483647ms", ""},
			valueCase{key, "2147483648ms", inv("2147483648ms", tooLarge)},
			valueCase{key, "5S", inv("5S", timeUnitDetail)},
			valueCase{key, "1h30m", inv("1h30m", timeUnitDetail)},
			valueCase{key, "", inv("", timeUnitDetail)},
		)
	}
	checkValues(t, tests)
}

// TestRewriteTargetAnnotation: a rewrite target is '/' followed by the
// characters of a URL path (RFC 3986 pchar, percent-encoding included),
// at most MaxRewriteTargetLength bytes; what would need quoting in
// haproxy.cfg (spaces, quotes, backslashes), a query or a fragment is
// refused.
func TestRewriteTargetAnnotation(t *testing.T) {
	refused := func(v string) string {
		return `Invalid value: "` + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`) +
			`": must be a path starting with '/' of letters, digits and -._~!$&'()*+,;=:@/% (no spaces, '?' or '#')`
	}
	tests := []valueCase{
		{AnnRewriteTarget, "/", ""},
		{AnnRewriteTarget, "/v2/api", ""},
		{AnnRewriteTarget, "/a-b.c_d~e", ""},
		{AnnRewriteTarget, "/!$&'()*+,;=:@", ""},
		{AnnRewriteTarget, "/caf%C3%A9", ""},
		{AnnRewriteTarget, "//double", ""},
		{AnnRewriteTarget, "", refused("")},
		{AnnRewriteTarget, "v2", refused("v2")},
		{AnnRewriteTarget, "/a?b=c", refused("/a?b=c")},
		{AnnRewriteTarget, "/a#top", refused("/a#top")},
		{AnnRewriteTarget, `/a"b`, refused(`/a"b`)},
		{AnnRewriteTarget, `/a\b`, refused(`/a\b`)},
		{AnnRewriteTarget, "/é", refused("/é")},
		{AnnRewriteTarget, "/a{b}", refused("/a{b}")},
		{AnnRewriteTarget, "/" + strings.Repeat("r", MaxRewriteTargetLength), "Too long: may not be more than 2048 bytes"},
	}
	checkValues(t, tests)
}

// TestCookieNameAnnotations: both cookie-name keys take letters, digits,
// '_' and '-' only (a cookie name HAProxy writes into Set-Cookie as is).
func TestCookieNameAnnotations(t *testing.T) {
	refused := func(v string) string {
		return `Invalid value: "` + v + `": must consist of letters, digits, '_' and '-'`
	}
	var tests []valueCase
	for _, key := range []string{AnnCookieName, AnnCookieNameLegacy} {
		tests = append(tests,
			valueCase{key, "a", ""},
			valueCase{key, "SESSION_id-2", ""},
			valueCase{key, "", refused("")},
			valueCase{key, "a=b", refused("a=b")},
			valueCase{key, "a.b", refused("a.b")},
			valueCase{key, "ä", refused("ä")},
			valueCase{key, strings.Repeat("c", MaxCookieNameLength+1), "Too long: may not be more than 1024 bytes"},
		)
	}
	checkValues(t, tests)
}

// TestIPListAnnotations: allowlists are IPv4 and IPv6 addresses and CIDRs
// separated by white space; the first bad entry is named; zones, ranges
// and host names are refused; an empty list is valid (no allowlist).
func TestIPListAnnotations(t *testing.T) {
	refused := func(entry string) string {
		return `Invalid value: "` + entry + `": is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`
	}
	var tests []valueCase
	for _, key := range []string{AnnIPWhitelist, AnnIPAllowlist} {
		tests = append(tests,
			valueCase{key, "", ""},
			valueCase{key, "   ", ""},
			valueCase{key, "0.0.0.0/0", ""},
			valueCase{key, "::/0 ::1", ""},
			valueCase{key, "10.0.0.1/32", ""},
			valueCase{key, "10.0.0.1\t10.0.0.2", "Invalid value: \"10.0.0.1\\t10.0.0.2\": must not contain control characters such as newlines or tabs"},
			valueCase{key, "10.0.0.1 localhost", refused("localhost")},
			valueCase{key, "10.0.0.1 10.0.0.2-10.0.0.9", refused("10.0.0.2-10.0.0.9")},
			valueCase{key, "fe80::1%eth0", refused("fe80::1%eth0")},
			valueCase{key, "fe80::1%eth0/64", refused("fe80::1%eth0/64")},
			valueCase{key, "10.0.0.1/", refused("10.0.0.1/")},
			valueCase{key, "2001:db8::/129", refused("2001:db8::/129")},
			valueCase{key, "010.0.0.1", refused("010.0.0.1")},
		)
	}
	checkValues(t, tests)
}

// TestIPListTooMany: an allowlist is refused from MaxAllowlistEntries+1
// entries, counted after its entries are found valid.
func TestIPListTooMany(t *testing.T) {
	list := strings.TrimSpace(strings.Repeat("10.0.0.1 ", MaxAllowlistEntries+1))
	checkValues(t, []valueCase{
		{AnnIPWhitelist, list, "Too many: 10001: must have at most 10000 items"},
		{AnnIPWhitelist, list + " bad", `Invalid value: "bad": is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`},
	})
}

// TestHSTSAnnotation: a Strict-Transport-Security value has max-age, in
// any case and with optional spaces around '=' and quotes around the
// number, and at most one each of includeSubDomains and preload.
func TestHSTSAnnotation(t *testing.T) {
	refused := func(v string) string {
		return `Invalid value: "` + strings.ReplaceAll(v, `"`, `\"`) + `": must be max-age=<seconds>, optionally followed by ;includeSubDomains and ;preload`
	}
	tests := []valueCase{
		{AnnHSTSHeader, "max-age=0", ""},
		{AnnHSTSHeader, "Max-Age=600", ""},
		{AnnHSTSHeader, "max-age = 600", ""},
		{AnnHSTSHeader, `max-age="600"`, ""},
		{AnnHSTSHeader, "max-age=600; includesubdomains ;PRELOAD", ""},
		{AnnHSTSHeader, "preload;includeSubDomains;max-age=1", ""},
		{AnnHSTSHeader, "", refused("")},
		{AnnHSTSHeader, "max-age=", refused("max-age=")},
		{AnnHSTSHeader, `max-age=""`, refused(`max-age=""`)},
		{AnnHSTSHeader, "max-age=-1", refused("max-age=-1")},
		{AnnHSTSHeader, "max-age=1d", refused("max-age=1d")},
		{AnnHSTSHeader, `max-age="600`, refused(`max-age="600`)},
		{AnnHSTSHeader, "max-age=600;", refused("max-age=600;")},
		{AnnHSTSHeader, "max-age=600;;preload", refused("max-age=600;;preload")},
		{AnnHSTSHeader, "max-age=600;preload;preload", refused("max-age=600;preload;preload")},
		{AnnHSTSHeader, "max-age=600;includeSubDomains;includeSubDomains", refused("max-age=600;includeSubDomains;includeSubDomains")},
		{AnnHSTSHeader, "max-age=600;secure", refused("max-age=600;secure")},
		{AnnHSTSHeader, "maxage=600", refused("maxage=600")},
		{AnnHSTSHeader, "max-age=" + strings.Repeat("9", MaxHSTSHeaderLength), "Too long: may not be more than 1024 bytes"},
	}
	checkValues(t, tests)
}

// TestCertManagerAnnotationValues: the values cert-manager's annotations
// take on their own, before the rules across annotations.
func TestCertManagerAnnotationValues(t *testing.T) {
	const dnsMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	const wildcardMsg = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	inv := func(v, msg string) string { return `Invalid value: "` + v + `": ` + msg }
	tests := []valueCase{
		{AnnCertIssuer, "ca", ""},
		{AnnCertIssuer, "my.ca-1", ""},
		{AnnCertIssuer, "", inv("", dnsMsg)},
		{AnnCertClusterIssuer, "-ca", inv("-ca", dnsMsg)},
		{AnnCertIssuerName, strings.Repeat("i", 254), inv(strings.Repeat("i", 254), "must be no more than 253 characters")},
		{AnnCertIssuerKind, "AnyKind", ""},
		{AnnCertIssuerGroup, "", inv("", dnsMsg)},
		{AnnCertCommonName, "", ""},
		{AnnCertCommonName, strings.Repeat("c", 64), ""},
		{AnnCertAltNames, "*.example.com", ""},
		{AnnCertAltNames, "a.example.com,*.b.example.com", ""},
		{AnnCertAltNames, "*", inv("*", dnsMsg+" (separate names with commas only)")},
		{AnnCertAltNames, "*.*.example.com", inv("*.*.example.com", wildcardMsg+" (separate names with commas only)")},
		{AnnCertAltNames, "a.example.com,", inv("", dnsMsg+" (separate names with commas only)")},
		{AnnCertAltNames, "Shop.example.com", inv("Shop.example.com", dnsMsg+" (separate names with commas only)")},
		{AnnCertIPSANs, "2001:db8::1", ""},
		{AnnCertIPSANs, "10.0.0.1,10.0.0.2", ""},
		{AnnCertIPSANs, "10.0.0.1, 10.0.0.2", inv(" 10.0.0.2", "invalid IP address")},
		{AnnCertIPSANs, "10.0.0.0/8", inv("10.0.0.0/8", "invalid IP address")},
		{AnnCertURISANs, "https://www.example.com/path", ""},
		{AnnCertURISANs, "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66", ""},
		{AnnCertURISANs, "://missing-scheme", inv("://missing-scheme", "must be an absolute URI such as spiffe://cluster.local/ns/shop/sa/web")},
		{AnnCertEmailSANs, "ops@example.com", ""},
		{AnnCertEmailSANs, "ops@example.com,<sec@example.com>", inv("<sec@example.com>", "invalid email address: make sure the supplied value only contains the email address itself")},
		{AnnCertDuration, "90m", ""},
		{AnnCertDuration, "1h30m", ""},
		{AnnCertDuration, "", inv("", `must be a duration such as 2160h or 90m (cert-manager reads it with Go's time.ParseDuration: time: invalid duration ""`+`)`)},
		{AnnCertDuration, "2160", inv("2160", `must be a duration such as 2160h or 90m (cert-manager reads it with Go's time.ParseDuration: time: missing unit in duration "2160")`)},
		{AnnCertRenewBefore, "720h", ""},
		{AnnCertPrivateKeyAlgorithm, "RSA", ""},
		{AnnCertPrivateKeyAlgorithm, "Ed25519", ""},
		{AnnCertPrivateKeyAlgorithm, "ed25519", `Unsupported value: "ed25519": supported values: "RSA", "ECDSA", "Ed25519"`},
		{AnnCertPrivateKeySize, "1", ""},
		{AnnCertPrivateKeySize, "0", inv("0", "must be a whole number of bits")},
		{AnnCertPrivateKeySize, "-2048", inv("-2048", "must be a whole number of bits")},
		{AnnCertPrivateKeySize, "2048 ", inv("2048 ", "must be a whole number of bits")},
		{AnnCertPrivateKeyRotationPolicy, "Always", ""},
		{AnnCertPrivateKeyRotationPolicy, "", `Unsupported value: "": supported values: "Always", "Never"`},
		{AnnCertRevisionHistoryLimit, "1", ""},
		{AnnCertRevisionHistoryLimit, "2147483647", ""},
		{AnnCertRevisionHistoryLimit, "2147483648", inv("2147483648", "must be a whole number from 1 up")},
		{AnnCertRevisionHistoryLimit, "-1", inv("-1", "must not be less than 1")},
		{AnnCertSubjectCountries, "", inv("", `no values found after parsing ""`)},
		{AnnCertSubjectCountries, `"D,E",FR`, ""},
		{AnnCertSubjectLocalities, "a\"b", inv(`a\"b`, `failed to parse "a\"b" as CSV: parse error on line 1, column 2: bare " in non-quoted-field`)},
		{AnnCertSubjectSerialNumber, "", ""},
		{AnnCertSubjectSerialNumber, "any text, at all", ""},
	}
	checkValues(t, tests)
}

// TestControlCharacterRange: C0 controls, DEL and the C1 controls
// (U+0080 to U+009F) are refused; the characters around them are not.
func TestControlCharacterRange(t *testing.T) {
	refused := func(v string) string {
		return fmt.Sprintf("Invalid value: %q: must not contain control characters such as newlines or tabs", v)
	}
	checkValues(t, []valueCase{
		{AnnCertSubjectSerialNumber, "a\x00", refused("a\x00")},
		{AnnCertSubjectSerialNumber, "a\x1f", refused("a\x1f")},
		{AnnCertSubjectSerialNumber, "a ~", ""},
		{AnnCertSubjectSerialNumber, "a\x7f", refused("a\x7f")},
		{AnnCertSubjectSerialNumber, "a\u0080", refused("a\u0080")},
		{AnnCertSubjectSerialNumber, "a\u009f", refused("a\u009f")},
		{AnnCertSubjectSerialNumber, "a\u00a0", ""},
		{AnnCertSubjectSerialNumber, "a\u2028", ""},
	})
}
