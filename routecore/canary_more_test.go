package routecore

import (
	"reflect"
	"strings"
	"testing"
)

func TestCanaryMoreValues(t *testing.T) {
	headerName := `: must be an HTTP header name of letters, digits, '-', '_' and '.', such as X-Canary`
	cookie := `: must consist of letters, digits, '_' and '-'`
	cases := []struct {
		key, value, want string
	}{
		{AnnCanaryBackend, strings.Repeat("c", 63), ""},
		{AnnCanaryBackend, strings.Repeat("c", 64), `Invalid value: "` + strings.Repeat("c", 64) + `": must be the name of a Service among spec.alternateBackends: must be no more than 63 characters`},
		{AnnCanaryBackend, "1canary", ""},
		{AnnCanaryBackend, "canary-", `Invalid value: "canary-": must be the name of a Service among spec.alternateBackends: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{AnnCanaryByHeader, strings.Repeat("h", MaxCanaryHeaderNameLength), ""},
		{AnnCanaryByHeader, "x", ""},
		{AnnCanaryByHeader, "X Canary", `Invalid value: "X Canary"` + headerName},
		{AnnCanaryByHeader, "X-Cañary", `Invalid value: "X-Cañary"` + headerName},
		{AnnCanaryByHeader, "X/Canary", `Invalid value: "X/Canary"` + headerName},
		{AnnCanaryByHeader, "X-Canary\n", `Invalid value: "X-Canary\n": must not contain control characters such as newlines or tabs`},
		{AnnCanaryByHeaderValue, "Never", ""},
		{AnnCanaryByHeaderValue, "NEVER", ""},
		{AnnCanaryByHeaderValue, "ünï cødé", ""},
		{AnnCanaryByHeaderValue, "a b", ""},
		{AnnCanaryByHeaderValue, "never ", `Invalid value: "never ": must not start or end with spaces, which HTTP strips from header values`},
		{AnnCanaryByHeaderValue, "beta ", `Invalid value: "beta ": must not start or end with spaces, which HTTP strips from header values`},
		{AnnCanaryByHeaderValue, " ", `Invalid value: " ": must not start or end with spaces, which HTTP strips from header values`},
		{AnnCanaryByHeaderValue, "beta\x7f", `Invalid value: "beta\x7f": must not contain control characters such as newlines or tabs`},
		{AnnCanaryByHeaderPattern, strings.Repeat("p", MaxCanaryPatternLength), ""},
		{AnnCanaryByHeaderPattern, `[^]a]b[]]c[[:^digit:]]`, ""},
		{AnnCanaryByHeaderPattern, `(?i)(?:x)a{2,3}?\_\-\.\[`, ""},
		{AnnCanaryByHeaderPattern, `[\d\s]\x7e`, ""},
		{AnnCanaryByHeaderPattern, `\v`, `Invalid value: "\\v": \v is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `a\a`, `Invalid value: "a\\a": \a is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `[\pL]`, `Invalid value: "[\\pL]": \p is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `[é]`, `Invalid value: "[é]": non-ASCII text is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `(?U)a`, `Invalid value: "(?U)a": (?U) is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `(?-i)a`, `Invalid value: "(?-i)a": (?-i) is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `(?<n>a)`, `Invalid value: "(?<n>a)": (?<n>a) is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `(?is:a)`, `Invalid value: "(?is:a)": (?is: is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `\x{41}`, `Invalid value: "\\x{41}": \x{4 is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `(`, "Invalid value: \"(\": must be a regular expression: error parsing regexp: missing closing ): `(`"},
		{AnnCanaryByHeaderPattern, `\Z`, "Invalid value: \"\\\\Z\": must be a regular expression: error parsing regexp: invalid escape sequence: `\\Z`"},
		{AnnCanaryByCookie, strings.Repeat("c", MaxCookieNameLength), ""},
		{AnnCanaryByCookie, "", `Invalid value: ""` + cookie},
		{AnnCanaryByCookie, "canary.v1", `Invalid value: "canary.v1"` + cookie},
		{AnnCanaryByCookie, "canäry", `Invalid value: "canäry"` + cookie},
	}
	for _, c := range cases {
		got := extMoreValidate(t, c.key, c.value)
		want := c.want
		if want != "" {
			want = ann(c.key) + want
		}
		if got != want {
			t.Errorf("%s=%.60q:\n got %q\nwant %q", c.key, c.value, got, want)
		}
	}
	tooLong := []struct {
		key   string
		value string
		max   string
	}{
		{AnnCanaryByHeader, strings.Repeat("h", MaxCanaryHeaderNameLength+1), "256"},
		{AnnCanaryByHeaderPattern, strings.Repeat("p", MaxCanaryPatternLength+1), "256"},
		{AnnCanaryByHeaderValue, " " + strings.Repeat("v", MaxCanaryHeaderValueLength), "1024"},
		{AnnCanaryByCookie, strings.Repeat("c", MaxCookieNameLength+1), "1024"},
	}
	for _, c := range tooLong {
		if got := extMoreValidate(t, c.key, c.value); !strings.HasPrefix(got, ann(c.key)) ||
			!strings.HasSuffix(got, "Too long: may not be more than "+c.max+" bytes") {
			t.Errorf("%s of %d bytes: %q", c.key, len(c.value), got)
		}
	}
}

// TestCanaryMoreCrossField: combinations of the canary annotations, each
// error with its field and value.
func TestCanaryMoreCrossField(t *testing.T) {
	backend := withAnnotation(AnnCanaryBackend, "canary")
	header := withAnnotation(AnnCanaryByHeader, "X-Canary")
	value := withAnnotation(AnnCanaryByHeaderValue, "beta")
	pattern := withAnnotation(AnnCanaryByHeaderPattern, "^b")
	cookie := withAnnotation(AnnCanaryByCookie, "c")
	alts := withAlternates("next", "canary")
	needsBackend := func(k, v string) string {
		return ann(k) + `Invalid value: "` + v + `": needs routeshift.io/canary-backend, the alternate backend it sends requests to`
	}
	needsHeader := func(k, v string) string {
		return ann(k) + `Invalid value: "` + v + `": needs routeshift.io/canary-by-header, the header it compares`
	}
	cases := []struct {
		name string
		mods []func(*Route)
		want []string
	}{
		{"everything but the pattern", []func(*Route){alts, backend, header, value, cookie}, nil},
		{"plain HTTP with one alternate", []func(*Route){withAlternates("canary"), backend, cookie}, nil},
		{"value and pattern without header", []func(*Route){alts, backend, value, pattern, cookie}, []string{
			needsHeader(AnnCanaryByHeaderValue, "beta"),
			needsHeader(AnnCanaryByHeaderPattern, "^b"),
			ann(AnnCanaryByHeaderPattern) + `Invalid value: "^b": cannot be used with routeshift.io/canary-by-header-value: set one of them`,
		}},
		{"everything without backend", []func(*Route){alts, header, value, cookie}, []string{
			needsBackend(AnnCanaryByHeader, "X-Canary"),
			needsBackend(AnnCanaryByHeaderValue, "beta"),
			needsBackend(AnnCanaryByCookie, "c"),
		}},
		{"value alone", []func(*Route){alts, value}, []string{
			needsBackend(AnnCanaryByHeaderValue, "beta"),
			needsHeader(AnnCanaryByHeaderValue, "beta"),
		}},
		{"invalid header still counts as present", []func(*Route){alts, backend, withAnnotation(AnnCanaryByHeader, "X Canary"), value}, []string{
			ann(AnnCanaryByHeader) + `Invalid value: "X Canary": must be an HTTP header name of letters, digits, '-', '_' and '.', such as X-Canary`,
		}},
		{"invalid value still excludes the pattern", []func(*Route){alts, backend, header, withAnnotation(AnnCanaryByHeaderValue, "never"), pattern}, []string{
			ann(AnnCanaryByHeaderValue) + `Invalid value: "never": must not be "never", which keeps requests away from the canary`,
			ann(AnnCanaryByHeaderPattern) + `Invalid value: "^b": cannot be used with routeshift.io/canary-by-header-value: set one of them`,
		}},
		{"backend is spec.to but not an alternate", []func(*Route){alts, withAnnotation(AnnCanaryBackend, "service-name"), header},
			[]string{ann(AnnCanaryBackend) + `Invalid value: "service-name": must name one of spec.alternateBackends: "next", "canary"`}},
		{"backend named with another case", []func(*Route){withAlternates("canary"), withAnnotation(AnnCanaryBackend, "canary2"), header},
			[]string{ann(AnnCanaryBackend) + `Invalid value: "canary2": must name one of spec.alternateBackends: "canary"`}},
		{"reencrypt, no alternates", []func(*Route){withTLS(TLSConfig{Termination: TLSTerminationReencrypt}), backend, cookie},
			[]string{ann(AnnCanaryBackend) + `Invalid value: "canary": must name one of spec.alternateBackends, and the route has none: add the canary Service there (with weight 0, only the requests the header or cookie picks reach it)`}},
		{"passthrough: only the termination refusal", []func(*Route){withTLS(TLSConfig{Termination: TLSTerminationPassthrough}), value}, []string{
			ann(AnnCanaryByHeaderValue) + `Invalid value: "beta": has no effect on passthrough routes, whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)`,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(c.mods...), ValidateOptions{}), c.want)
			// The router, which skips annotation values, refuses none of it.
			sameMessages(t, ValidateRoute(route(c.mods...), ValidateOptions{SkipAnnotationValues: true}), nil)
		})
	}
}

func TestCanaryMoreUpdate(t *testing.T) {
	backend := withAnnotation(AnnCanaryBackend, "canary")
	header := withAnnotation(AnnCanaryByHeader, "X-Canary")
	notAlt := ann(AnnCanaryBackend) + `Invalid value: "canary": must name one of spec.alternateBackends: "next"`
	cases := []struct {
		name     string
		old, new []func(*Route)
		want     []string
	}{
		{"spec.to changed", []func(*Route){withAlternates("next"), backend, header},
			[]func(*Route){withAlternates("next"), backend, header, func(r *Route) { r.Spec.To.Name = "other" }}, []string{notAlt}},
		{"annotation removed re-checks the rest", []func(*Route){withAlternates("next"), backend, header, withAnnotation(AnnCanaryByCookie, "c")},
			[]func(*Route){withAlternates("next"), backend, header}, []string{notAlt}},
		{"pattern changed", []func(*Route){withAlternates("canary"), header, withAnnotation(AnnCanaryByHeaderPattern, "^a")},
			[]func(*Route){withAlternates("canary"), header, withAnnotation(AnnCanaryByHeaderPattern, "^b")},
			[]string{
				ann(AnnCanaryByHeader) + `Invalid value: "X-Canary": needs routeshift.io/canary-backend, the alternate backend it sends requests to`,
				ann(AnnCanaryByHeaderPattern) + `Invalid value: "^b": needs routeshift.io/canary-backend, the alternate backend it sends requests to`,
			}},
		{"alternates reordered: checked again, valid", []func(*Route){withAlternates("next", "canary"), backend, header},
			[]func(*Route){withAlternates("canary", "next"), backend, header}, nil},
		{"alternate added keeps the stored error re-checked", []func(*Route){withAlternates("next"), backend, header},
			[]func(*Route){withAlternates("next", "other"), backend, header},
			[]string{ann(AnnCanaryBackend) + `Invalid value: "canary": must name one of spec.alternateBackends: "next", "other"`}},
		{"canary annotations removed", []func(*Route){withAlternates("next"), backend, header},
			[]func(*Route){withAlternates("next")}, nil},
		{"stored value and pattern kept", []func(*Route){withAlternates("canary"), backend, header, withAnnotation(AnnCanaryByHeaderValue, "v"),
			withAnnotation(AnnCanaryByHeaderPattern, "^v")},
			[]func(*Route){withAlternates("canary"), backend, header, withAnnotation(AnnCanaryByHeaderValue, "v"),
				withAnnotation(AnnCanaryByHeaderPattern, "^v"), withAnnotation("team", "a")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, next := route(c.old...), route(c.new...)
			old.ResourceVersion, next.ResourceVersion = "1", "1"
			sameMessages(t, ValidateRouteUpdate(next, old, ValidateOptions{}), c.want)
		})
	}
}

func TestCanaryMoreOverridesAndWarnings(t *testing.T) {
	o, errs := ParseAnnotations(map[string]string{
		AnnCanaryBackend: "Canary", AnnCanaryByHeader: "X Canary", AnnCanaryByHeaderValue: " v", AnnCanaryByHeaderPattern: "^b(?i)x", AnnCanaryByCookie: "c.d",
	}, annotationsPath)
	if want := (Overrides{CanaryByHeaderPattern: "^b(?i)x"}); len(errs) != 4 || !reflect.DeepEqual(o, want) {
		t.Errorf("overrides %+v, errors %v; want %+v and 4 errors", o, errs, want)
	}

	alone := ann(AnnCanaryBackend) + "has no effect without routeshift.io/canary-by-header or routeshift.io/canary-by-cookie: requests follow the weights of spec.to and spec.alternateBackends"
	cases := []struct {
		name string
		mods []func(*Route)
		want []string
	}{
		{"backend with value only", []func(*Route){withAlternates("canary"), withAnnotation(AnnCanaryBackend, "canary"), withAnnotation(AnnCanaryByHeaderValue, "v")},
			[]string{alone}},
		{"backend with pattern only", []func(*Route){withAlternates("canary"), withAnnotation(AnnCanaryBackend, "canary"), withAnnotation(AnnCanaryByHeaderPattern, "v")},
			[]string{alone}},
		{"backend with an invalid header", []func(*Route){withAlternates("canary"), withAnnotation(AnnCanaryBackend, "canary"), withAnnotation(AnnCanaryByHeader, "X Y")}, nil},
		{"backend alone on passthrough", []func(*Route){withTLS(TLSConfig{Termination: TLSTerminationPassthrough}), withAnnotation(AnnCanaryBackend, "canary")}, nil},
		{"backend alone, edge", []func(*Route){withTLS(TLSConfig{Termination: TLSTerminationEdge}), withAlternates("canary"), withAnnotation(AnnCanaryBackend, "canary")},
			[]string{alone}},
		{"cookie alone", []func(*Route){withAnnotation(AnnCanaryByCookie, "c")}, nil},
	}
	for _, c := range cases {
		if got := Warnings(route(c.mods...), WarningOptions{}); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: warnings\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
