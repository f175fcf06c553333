package routecore

import (
	"strings"
	"testing"
)

// TestAnnotationLengthBeforeCharacters: an annotation with a length limit
// reports a value over it as too long, whatever its characters; at the
// limit, the characters are judged.
func TestAnnotationLengthBeforeCharacters(t *testing.T) {
	spaces := func(n int) string { return strings.Repeat(" ", n) }
	inv := func(v, msg string) string { return `Invalid value: "` + v + `": ` + msg }
	const rewriteMsg = "must be a path starting with '/' of letters, digits and -._~!$&'()*+,;=:@/% (no spaces, '?' or '#')"
	const hstsMsg = "must be max-age=<seconds>, optionally followed by ;includeSubDomains and ;preload"
	const cookieMsg = "must consist of letters, digits, '_' and '-'"
	checkValues(t, []valueCase{
		{AnnRewriteTarget, "/" + spaces(MaxRewriteTargetLength), "Too long: may not be more than 2048 bytes"},
		{AnnRewriteTarget, "/" + spaces(MaxRewriteTargetLength-1), inv("/"+spaces(MaxRewriteTargetLength-1), rewriteMsg)},
		{AnnHSTSHeader, spaces(MaxHSTSHeaderLength + 1), "Too long: may not be more than 1024 bytes"},
		{AnnHSTSHeader, spaces(MaxHSTSHeaderLength), inv(spaces(MaxHSTSHeaderLength), hstsMsg)},
		{AnnCookieName, spaces(MaxCookieNameLength + 1), "Too long: may not be more than 1024 bytes"},
		{AnnCookieName, spaces(MaxCookieNameLength), inv(spaces(MaxCookieNameLength), cookieMsg)},
		// Lengths are in bytes: 512 two-byte letters fill the cookie
		// name's 1024 bytes, one more is too long.
		{AnnCookieName, strings.Repeat("é", MaxCookieNameLength/2), inv(strings.Repeat("é", MaxCookieNameLength/2), cookieMsg)},
		{AnnCookieName, strings.Repeat("é", MaxCookieNameLength/2) + "a", "Too long: may not be more than 1024 bytes"},
		// A control character is refused before the length is measured.
		{AnnRewriteTarget, "/\n" + spaces(MaxRewriteTargetLength), inv(`/\n`+spaces(MaxRewriteTargetLength), controlCharacterDetail)},
	})
}

// TestIntegerAnnotationEdges: counts are plain decimal int32 numbers;
// anything strconv would read only with a base prefix, digit separators,
// other scripts' digits or surrounding spaces is refused.
func TestIntegerAnnotationEdges(t *testing.T) {
	const fromZero = "must be a whole number from 0 up (0 means no limit)"
	const fromOne = "must be a whole number from 1 up"
	inv := func(v, msg string) string { return `Invalid value: "` + v + `": ` + msg }
	checkValues(t, []valueCase{
		{AnnPodConcurrentConnections, "00", ""},
		{AnnPodConcurrentConnections, "-1", inv("-1", fromZero)},
		{AnnPodConcurrentConnections, "1_000", inv("1_000", fromZero)},
		{AnnPodConcurrentConnections, "0b1", inv("0b1", fromZero)},
		{AnnPodConcurrentConnections, "0 ", inv("0 ", fromZero)},
		{AnnPodConcurrentConnections, "٣", inv("٣", fromZero)},
		{AnnPodConcurrentConnections, "-2147483649", inv("-2147483649", fromZero)},
		{AnnRateLimitConcurrentTCP, "+0", inv("+0", fromOne)},
		{AnnRateLimitConcurrentTCP, "1,000", inv("1,000", fromOne)},
		{AnnRateLimitRateHTTP, "2147483648", inv("2147483648", fromOne)},
		{AnnRateLimitRateTCP, "00", inv("00", fromOne)},
		{AnnPoolSize, "2147483647", ""},
		{AnnPoolSize, "", inv("", fromOne)},
	})
}

// TestIPListAnnotationEdges: entries are what net/netip reads as an
// address or a prefix (host bits allowed, no leading zeros, no brackets,
// no zones); entries are split on any white space that is no control
// character; the first bad entry is named.
func TestIPListAnnotationEdges(t *testing.T) {
	refused := func(entry string) string {
		return `Invalid value: "` + entry + `": is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`
	}
	checkValues(t, []valueCase{
		{AnnIPAllowlist, "::ffff:10.0.0.1", ""},
		{AnnIPAllowlist, "10.0.0.1/8", ""},
		{AnnIPAllowlist, "1.2.3.4/0", ""},
		{AnnIPAllowlist, "::1/128", ""},
		{AnnIPAllowlist, "10.0.0.1 10.0.0.1", ""},
		{AnnIPAllowlist, "10.0.0.1\u00a010.0.0.2", ""},
		{AnnIPAllowlist, "10.0.0.1\u300010.0.0.2", ""},
		{AnnIPAllowlist, "10.0.0.0/08", refused("10.0.0.0/08")},
		{AnnIPAllowlist, "10.0.0.256", refused("10.0.0.256")},
		{AnnIPAllowlist, "[::1]", refused("[::1]")},
		{AnnIPAllowlist, "10.0.0.1,", refused("10.0.0.1,")},
		{AnnIPAllowlist, "a b", refused("a")},
		{AnnIPAllowlist, "10.0.0.1 ::1/200 b", refused("::1/200")},
		// A zero-width space is no white space (and is escaped in the message).
		{AnnIPWhitelist, "10.0.0.1\u200b10.0.0.2", refused(`10.0.0.1\u200b10.0.0.2`)},
	})
}

// TestHSTSAnnotationEdges: directives are trimmed of spaces; names are
// matched in any case; max-age takes ASCII digits only, quoted or not,
// after exactly one '='; a directive with a value other than max-age, or
// an empty one, is refused.
func TestHSTSAnnotationEdges(t *testing.T) {
	refused := func(v string) string {
		return `Invalid value: "` + strings.ReplaceAll(v, `"`, `\"`) + `": must be max-age=<seconds>, optionally followed by ;includeSubDomains and ;preload`
	}
	var tests []valueCase
	for _, v := range []string{
		" max-age=1 ",
		"max-age=1 ; preload",
		"MAX-AGE=1;INCLUDESUBDOMAINS",
		"includeSubDomains;max-age=1",
		`max-age = "600" `,
		"max-age=00",
		"max-age=" + strings.Repeat("9", 40),
	} {
		tests = append(tests, valueCase{AnnHSTSHeader, v, ""})
	}
	for _, v := range []string{
		";max-age=1",
		"max-age=1;",
		"includeSubDomains",
		"preload;includeSubDomains",
		"max-age==1",
		"max-age=6 0",
		`max-age=" 600 "`,
		`max-age="`,
		"max-age=١",
		"max-age=1;includeSubDomains=1",
		"max-age=1,preload",
		"max-age=1;preload;max-age=1",
		"max_age=1",
	} {
		tests = append(tests, valueCase{AnnHSTSHeader, v, refused(v)})
	}
	checkValues(t, tests)
}

// TestValueWarningRules: the value warnings on their own. A boolean warns
// only in a spelling other than true, false, TRUE and FALSE, and only when
// valid; an allowlist warns when its entries are not separated by single
// ASCII spaces, naming how many entries routeshift reads; an entry without
// a warning rule, or an invalid value, gives none.
func TestValueWarningRules(t *testing.T) {
	const spacesTail = ", but OpenShift's router ignores such a list and lets every source in: separate the entries with single spaces"
	tests := []struct {
		key, value, want string
	}{
		{AnnH1AdjustCase, "1", `"1" is read as true; "true" is the documented spelling`},
		{AnnH1AdjustCase, "0", `"0" is read as false; "false" is the documented spelling`},
		{AnnH1AdjustCase, "False", `"False" is read as false; "false" is the documented spelling`},
		{AnnH1AdjustCase, "false", ""},
		{AnnH1AdjustCase, "TRUE", ""},
		{AnnH1AdjustCase, "yes", ""},
		{AnnH1AdjustCase, "1\n", ""},
		{AnnIPAllowlist, "10.0.0.1\u00a010.0.0.2", "has leading, trailing or repeated spaces; routeshift reads the 2 entries between them" + spacesTail},
		{AnnIPAllowlist, "10.0.0.1  ", "has leading, trailing or repeated spaces; routeshift reads its one entry" + spacesTail},
		{AnnIPAllowlist, "\u00a0", ""},
		{AnnIPAllowlist, "10.0.0.1", ""},
		{AnnIPAllowlist, "  bad", ""},
		{AnnBalance, "random", ""},
		{AnnRewriteTarget, "/", ""},
	}
	for _, tt := range tests {
		a, ok := LookupAnnotation(tt.key)
		if !ok {
			t.Fatalf("%s is not in the catalogue", tt.key)
		}
		if got := a.warnValue(tt.value); got != tt.want {
			t.Errorf("%s: warnValue(%q) = %q, want %q", tt.key, tt.value, got, tt.want)
		}
	}
	// The rules themselves, apart from validation.
	for v, want := range map[string]string{"yes": "", "": "", "T": `"T" is read as true; "true" is the documented spelling`} {
		if got := booleanWarning(v); got != want {
			t.Errorf("booleanWarning(%q) = %q, want %q", v, got, want)
		}
	}
	if got, want := ipListWarning(" x"), "has leading, trailing or repeated spaces; routeshift reads its one entry"+spacesTail; got != want {
		t.Errorf("ipListWarning(%q) = %q, want %q", " x", got, want)
	}
}
