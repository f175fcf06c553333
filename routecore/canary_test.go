package routecore

import (
	"reflect"
	"strings"
	"testing"
)

// withAlternates sets the route's alternate backends (weight 0).
func withAlternates(names ...string) func(*Route) {
	return func(r *Route) {
		r.Spec.AlternateBackends = nil
		for _, n := range names {
			r.Spec.AlternateBackends = append(r.Spec.AlternateBackends, RouteTargetReference{Kind: "Service", Name: n, Weight: weight(0)})
		}
	}
}

func ann(key string) string { return "metadata.annotations[" + key + "]: " }

const patternAccepted = `: accepted are literals, ., classes, | and groups, (?: ), (?i), (?i: ), repetitions, ^, $ and the escapes \d \D \s \S \w \W \b \B \A \z \t \n \r \f \xHH and \ before punctuation, in ASCII`

func TestCanaryValues(t *testing.T) {
	cases := []struct {
		key, value, want string
	}{
		{AnnCanaryBackend, "canary", ""},
		{AnnCanaryBackend, "shop.canary", `Invalid value: "shop.canary": must be the name of a Service among spec.alternateBackends: must not contain dots`},
		{AnnCanaryByHeader, "X-Canary_v1.2", ""},
		{AnnCanaryByHeader, "", `Invalid value: "": must be an HTTP header name of letters, digits, '-', '_' and '.', such as X-Canary`},
		{AnnCanaryByHeader, "X-Canary:", `Invalid value: "X-Canary:": must be an HTTP header name of letters, digits, '-', '_' and '.', such as X-Canary`},
		{AnnCanaryByHeader, "X'", `Invalid value: "X'": must be an HTTP header name of letters, digits, '-', '_' and '.', such as X-Canary`},
		{AnnCanaryByHeader, strings.Repeat("h", 257), "Too long: may not be more than 256 bytes"},
		{AnnCanaryByHeaderValue, "beta testers, 'quoted' \"too\" #1 $x %[y]", ""},
		{AnnCanaryByHeaderValue, "always", ""},
		{AnnCanaryByHeaderValue, "never", `Invalid value: "never": must not be "never", which keeps requests away from the canary`},
		{AnnCanaryByHeaderValue, "", `Invalid value: "": must not be empty`},
		{AnnCanaryByHeaderValue, " beta", `Invalid value: " beta": must not start or end with spaces, which HTTP strips from header values`},
		{AnnCanaryByHeaderValue, "beta\tx", `Invalid value: "beta\tx": must not contain control characters such as newlines or tabs`},
		{AnnCanaryByHeaderValue, strings.Repeat("v", 1024), ""},
		{AnnCanaryByHeaderValue, strings.Repeat("v", 1025), "Too long: may not be more than 1024 bytes"},
		{AnnCanaryByHeaderPattern, `^(?i)(beta|staff)-\d+$`, ""},
		{AnnCanaryByHeaderPattern, `(?:a|b)(?i:c)[[:alpha:]\]()?]*?\x41\.\bz\z`, ""},
		{AnnCanaryByHeaderPattern, `[(?s)]`, ""},
		{AnnCanaryByHeaderPattern, `[]a]\Qa\E`, `Invalid value: "[]a]\\Qa\\E": \Q is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `\Qa.b\E`, `Invalid value: "\\Qa.b\\E": \Q is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `(?s).`, `Invalid value: "(?s).": (?s) is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `(?P<n>a)`, `Invalid value: "(?P<n>a)": (?P<n>a) is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `(?im)a`, `Invalid value: "(?im)a": (?im) is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `\pL`, `Invalid value: "\\pL": \p is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `\x{100}`, `Invalid value: "\\x{100}": \x{1 is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `é`, `Invalid value: "é": non-ASCII text is not accepted` + patternAccepted},
		{AnnCanaryByHeaderPattern, `(?>a)`, "Invalid value: \"(?>a)\": must be a regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?>`"},
		{AnnCanaryByHeaderPattern, `a*+`, "Invalid value: \"a*+\": must be a regular expression: error parsing regexp: invalid nested repetition operator: `*+`"},
		{AnnCanaryByHeaderPattern, `(a)\1`, "Invalid value: \"(a)\\\\1\": must be a regular expression: error parsing regexp: invalid escape sequence: `\\1`"},
		{AnnCanaryByHeaderPattern, "", `Invalid value: "": must not be empty`},
		{AnnCanaryByHeaderPattern, strings.Repeat("p", 257), "Too long: may not be more than 256 bytes"},
		{AnnCanaryByCookie, "canary_v-1", ""},
		{AnnCanaryByCookie, "canary;x", `Invalid value: "canary;x": must consist of letters, digits, '_' and '-'`},
	}
	for _, c := range cases {
		a, ok := LookupAnnotation(c.key)
		if !ok {
			t.Fatalf("%s is not in the catalogue", c.key)
		}
		got := ""
		if err := a.Validate(annotationsPath.Key(c.key), c.value); err != nil {
			got = err.Error()
		}
		if want := c.want; want != "" {
			c.want = ann(c.key) + want
		}
		if got != c.want {
			t.Errorf("%s=%q:\n got %q\nwant %q", c.key, c.value, got, c.want)
		}
	}
}

func TestCanaryValidation(t *testing.T) {
	backend := withAnnotation(AnnCanaryBackend, "canary")
	header := withAnnotation(AnnCanaryByHeader, "X-Canary")
	alts := withAlternates("canary", "next")
	cases := []struct {
		name string
		mods []func(*Route)
		want []string
	}{
		{"header", []func(*Route){alts, backend, header}, nil},
		{"cookie", []func(*Route){alts, backend, withAnnotation(AnnCanaryByCookie, "canary")}, nil},
		{"header, value and cookie, edge", []func(*Route){alts, backend, header, withAnnotation(AnnCanaryByHeaderValue, "beta"),
			withAnnotation(AnnCanaryByCookie, "canary"), withTLS(TLSConfig{Termination: TLSTerminationEdge})}, nil},
		{"pattern, reencrypt", []func(*Route){alts, backend, header, withAnnotation(AnnCanaryByHeaderPattern, "^beta"),
			withTLS(TLSConfig{Termination: TLSTerminationReencrypt})}, nil},
		{"backend alone is valid (a warning)", []func(*Route){alts, backend}, nil},
		{"backend not an alternate", []func(*Route){alts, withAnnotation(AnnCanaryBackend, "beta"), header},
			[]string{ann(AnnCanaryBackend) + `Invalid value: "beta": must name one of spec.alternateBackends: "canary", "next"`}},
		{"backend is spec.to", []func(*Route){withAlternates("service-name"), withAnnotation(AnnCanaryBackend, "service-name"), header},
			[]string{ann(AnnCanaryBackend) + `Invalid value: "service-name": must not be spec.to's Service, which serves the requests kept away from the canary`}},
		{"no alternates", []func(*Route){backend, header},
			[]string{ann(AnnCanaryBackend) + `Invalid value: "canary": must name one of spec.alternateBackends, and the route has none: add the canary Service there (with weight 0, only the requests the header or cookie picks reach it)`}},
		{"header without backend", []func(*Route){alts, header},
			[]string{ann(AnnCanaryByHeader) + `Invalid value: "X-Canary": needs routeshift.io/canary-backend, the alternate backend it sends requests to`}},
		{"cookie without backend", []func(*Route){alts, withAnnotation(AnnCanaryByCookie, "c")},
			[]string{ann(AnnCanaryByCookie) + `Invalid value: "c": needs routeshift.io/canary-backend, the alternate backend it sends requests to`}},
		{"value without header", []func(*Route){alts, backend, withAnnotation(AnnCanaryByCookie, "c"), withAnnotation(AnnCanaryByHeaderValue, "beta")},
			[]string{ann(AnnCanaryByHeaderValue) + `Invalid value: "beta": needs routeshift.io/canary-by-header, the header it compares`}},
		{"pattern without header or backend", []func(*Route){alts, withAnnotation(AnnCanaryByHeaderPattern, "^b")},
			[]string{
				ann(AnnCanaryByHeaderPattern) + `Invalid value: "^b": needs routeshift.io/canary-backend, the alternate backend it sends requests to`,
				ann(AnnCanaryByHeaderPattern) + `Invalid value: "^b": needs routeshift.io/canary-by-header, the header it compares`,
			}},
		{"value and pattern", []func(*Route){alts, backend, header, withAnnotation(AnnCanaryByHeaderValue, "beta"), withAnnotation(AnnCanaryByHeaderPattern, "^b")},
			[]string{ann(AnnCanaryByHeaderPattern) + `Invalid value: "^b": cannot be used with routeshift.io/canary-by-header-value: set one of them`}},
		{"invalid values are reported once", []func(*Route){alts, withAnnotation(AnnCanaryBackend, "Canary"), withAnnotation(AnnCanaryByHeader, "X Canary")},
			[]string{
				ann(AnnCanaryBackend) + `Invalid value: "Canary": must be the name of a Service among spec.alternateBackends: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				ann(AnnCanaryByHeader) + `Invalid value: "X Canary": must be an HTTP header name of letters, digits, '-', '_' and '.', such as X-Canary`,
			}},
		{"passthrough", []func(*Route){alts, backend, header, withTLS(TLSConfig{Termination: TLSTerminationPassthrough})},
			[]string{
				ann(AnnCanaryBackend) + `Invalid value: "canary": has no effect on passthrough routes, whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)`,
				ann(AnnCanaryByHeader) + `Invalid value: "X-Canary": has no effect on passthrough routes, whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)`,
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(c.mods...), ValidateOptions{}), c.want)
		})
	}
}

// TestCanarySkipped: the router, which validates without annotation
// values, admits such routes and renders only usable canaries.
func TestCanarySkipped(t *testing.T) {
	r := route(withAnnotation(AnnCanaryBackend, "beta"), withAnnotation(AnnCanaryByHeaderValue, "x"))
	sameMessages(t, ValidateRoute(r, ValidateOptions{SkipAnnotationValues: true}), nil)
}

func TestCanaryUpdate(t *testing.T) {
	backend := withAnnotation(AnnCanaryBackend, "canary")
	header := withAnnotation(AnnCanaryByHeader, "X-Canary")
	refused := ann(AnnCanaryBackend) + `Invalid value: "canary": must name one of spec.alternateBackends: "next"`
	cases := []struct {
		name     string
		old, new []func(*Route)
		want     []string
	}{
		{"unchanged stored route keeps it", []func(*Route){withAlternates("next"), backend, header},
			[]func(*Route){withAlternates("next"), backend, header, withAnnotation("team", "a")}, nil},
		{"weights may change", []func(*Route){withAlternates("next"), backend, header},
			[]func(*Route){withAlternates("next"), backend, header, func(r *Route) { r.Spec.AlternateBackends[0].Weight = weight(10) }}, nil},
		{"annotation added", []func(*Route){withAlternates("next"), backend},
			[]func(*Route){withAlternates("next"), backend, header}, []string{refused}},
		{"value changed", []func(*Route){withAlternates("next"), backend, withAnnotation(AnnCanaryByHeader, "X-Beta")},
			[]func(*Route){withAlternates("next"), backend, header}, []string{refused}},
		{"alternate removed", []func(*Route){withAlternates("canary", "next"), backend, header},
			[]func(*Route){withAlternates("next"), backend, header}, []string{refused}},
		{"fixed", []func(*Route){withAlternates("next"), backend, header},
			[]func(*Route){withAlternates("next", "canary"), backend, header}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, next := route(c.old...), route(c.new...)
			old.ResourceVersion, next.ResourceVersion = "1", "1"
			sameMessages(t, ValidateRouteUpdate(next, old, ValidateOptions{}), c.want)
		})
	}
}

func TestCanaryWarnings(t *testing.T) {
	alone := ann(AnnCanaryBackend) + "has no effect without routeshift.io/canary-by-header or routeshift.io/canary-by-cookie: requests follow the weights of spec.to and spec.alternateBackends"
	cases := []struct {
		name string
		mods []func(*Route)
		want []string
	}{
		{"backend alone", []func(*Route){withAlternates("canary"), withAnnotation(AnnCanaryBackend, "canary")}, []string{alone}},
		{"with header", []func(*Route){withAlternates("canary"), withAnnotation(AnnCanaryBackend, "canary"), withAnnotation(AnnCanaryByHeader, "X-C")}, nil},
		{"with cookie", []func(*Route){withAlternates("canary"), withAnnotation(AnnCanaryBackend, "canary"), withAnnotation(AnnCanaryByCookie, "c")}, nil},
		{"invalid name", []func(*Route){withAlternates("canary"), withAnnotation(AnnCanaryBackend, "Canary")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Warnings(route(c.mods...), WarningOptions{}); !reflect.DeepEqual(got, c.want) {
				t.Errorf("warnings:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestCanaryOverrides: ParseAnnotations fills the canary fields with
// valid values and leaves invalid ones out.
func TestCanaryOverrides(t *testing.T) {
	o, errs := ParseAnnotations(map[string]string{
		AnnCanaryBackend: "canary", AnnCanaryByHeader: "X-Canary", AnnCanaryByHeaderValue: "beta",
		AnnCanaryByHeaderPattern: `(?s)x`, AnnCanaryByCookie: "c",
	}, annotationsPath)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), AnnCanaryByHeaderPattern) {
		t.Errorf("errors %v, want one about the pattern", errs)
	}
	want := Overrides{CanaryBackend: "canary", CanaryByHeader: "X-Canary", CanaryByHeaderValue: "beta", CanaryByCookie: "c"}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("overrides %+v, want %+v", o, want)
	}
}
