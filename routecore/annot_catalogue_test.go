package routecore

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestParseAnnotationsPerKey: each router annotation sets its own field of
// Overrides and nothing else; a value its entry refuses is reported and
// left unset, except on an allowlist, which is applied as well (it fails
// closed). Cert-manager annotations and keys outside the catalogue are not
// read at all.
func TestParseAnnotationsPerKey(t *testing.T) {
	const ann = "metadata.annotations"
	tests := []struct {
		name, key, value string
		want             Overrides
		wantErr          string
	}{
		{"balance", AnnBalance, "random", Overrides{Balance: "random"}, ""},
		{"balance in capitals: refused, unset", AnnBalance, "Random", Overrides{},
			ann + `[haproxy.router.openshift.io/balance]: Unsupported value: "Random": supported values: "roundrobin", "leastconn", "source", "random"`},
		{"disable_cookies spelt 1", AnnDisableCookies, "1", Overrides{DisableCookies: true}, ""},
		{"disable_cookies spelt F", AnnDisableCookies, "F", Overrides{}, ""},
		{"legacy cookie key alone", AnnCookieNameLegacy, "legacy", Overrides{CookieName: "legacy"}, ""},
		{"cookie-same-site", AnnCookieSameSite, "None", Overrides{CookieSameSite: "None"}, ""},
		{"pod connections 0: no cap", AnnPodConcurrentConnections, "0", Overrides{}, ""},
		{"pod connections at int32's maximum", AnnPodConcurrentConnections, "2147483647", Overrides{PodConcurrentConnections: math.MaxInt32}, ""},
		{"pod connections one over: refused, unset", AnnPodConcurrentConnections, "2147483648", Overrides{},
			ann + `[haproxy.router.openshift.io/pod-concurrent-connections]: Invalid value: "2147483648": must be a whole number from 0 up (0 means no limit)`},
		{"rate-limit switch", AnnRateLimit, "true", Overrides{RateLimit: true}, ""},
		{"concurrent-tcp", AnnRateLimitConcurrentTCP, "3", Overrides{ConcurrentTCP: 3}, ""},
		{"rate-http with leading zeros", AnnRateLimitRateHTTP, "007", Overrides{RateHTTP: 7}, ""},
		{"rate-tcp", AnnRateLimitRateTCP, "1", Overrides{RateTCP: 1}, ""},
		{"timeout in days", AnnTimeout, "1d", Overrides{Timeout: 24 * time.Hour}, ""},
		{"timeout over the maximum: refused, not clipped", AnnTimeout, "25d", Overrides{},
			ann + `[haproxy.router.openshift.io/timeout]: Invalid value: "25d": must be at most 2147483647ms (about 24.8 days)`},
		{"timeout-tunnel in microseconds", AnnTimeoutTunnel, "10us", Overrides{TimeoutTunnel: 10 * time.Microsecond}, ""},
		{"health check interval without a unit (ms)", AnnHealthCheckInterval, "5000", Overrides{HealthCheckInterval: 5 * time.Second}, ""},
		{"rewrite-target", AnnRewriteTarget, "/", Overrides{RewriteTarget: "/"}, ""},
		{"ip_whitelist", AnnIPWhitelist, "10.0.0.0/8 ::1", Overrides{IPAllowlist: []string{"10.0.0.0/8", "::1"}}, ""},
		{"invalid allowlist: applied and reported", AnnIPAllowlist, "nonsense 10.0.0.1", Overrides{IPAllowlist: []string{"nonsense", "10.0.0.1"}},
			ann + `[haproxy.router.openshift.io/ip_allowlist]: Invalid value: "nonsense": is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`},
		{"allowlist with a newline: applied and reported", AnnIPAllowlist, "10.0.0.1\n10.0.0.2", Overrides{IPAllowlist: []string{"10.0.0.1", "10.0.0.2"}},
			ann + `[haproxy.router.openshift.io/ip_allowlist]: Invalid value: "10.0.0.1\n10.0.0.2": must not contain control characters such as newlines or tabs`},
		{"allowlist of no-break spaces only: no allowlist", AnnIPAllowlist, "\u00a0", Overrides{}, ""},
		{"allowlist separated by a no-break space: two entries", AnnIPAllowlist, "10.0.0.1\u00a010.0.0.2", Overrides{IPAllowlist: []string{"10.0.0.1", "10.0.0.2"}}, ""},
		{"hsts", AnnHSTSHeader, "max-age=0", Overrides{HSTSHeader: "max-age=0"}, ""},
		{"pool-size", AnnPoolSize, "1", Overrides{PoolSize: 1}, ""},
		{"path-type Prefix", AnnPathType, "Prefix", Overrides{}, ""},
		{"path-type Exact", AnnPathType, "Exact", Overrides{ExactPath: true}, ""},
		{"forwarded headers", AnnSetForwardedHeaders, "never", Overrides{ForwardedHeaders: ForwardedNever}, ""},
		{"h1-adjust-case spelt t", AnnH1AdjustCase, "t", Overrides{H1AdjustCase: true}, ""},
		{"h1-adjust-case with a tab: refused, unset", AnnH1AdjustCase, "true\t", Overrides{},
			ann + `[haproxy.router.openshift.io/h1-adjust-case]: Invalid value: "true\t": must not contain control characters such as newlines or tabs`},
		{"cert-manager annotation: not read", AnnCertDuration, "forever", Overrides{}, ""},
		{"router key outside the catalogue: not read", "haproxy.router.openshift.io/custom", "a\nb", Overrides{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := ParseAnnotations(map[string]string{tt.key: tt.value}, field.NewPath("metadata", "annotations"))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseAnnotations(%s=%q) =\n%+v\nwant\n%+v", tt.key, tt.value, got, tt.want)
			}
			var want []string
			if tt.wantErr != "" {
				want = []string{tt.wantErr}
			}
			sameMessages(t, errs, want)
		})
	}
}

// TestParseAnnotationsErrorOrder: ParseAnnotations reports in catalogue
// order, whatever the map's order (and not in key order).
func TestParseAnnotationsErrorOrder(t *testing.T) {
	in := map[string]string{AnnH1AdjustCase: "on", AnnBalance: "fast", AnnTimeout: "soon"}
	want := []string{
		`metadata.annotations[haproxy.router.openshift.io/balance]: Unsupported value: "fast": supported values: "roundrobin", "leastconn", "source", "random"`,
		`metadata.annotations[haproxy.router.openshift.io/timeout]: Invalid value: "soon": ` + timeUnitDetail,
		`metadata.annotations[haproxy.router.openshift.io/h1-adjust-case]: Invalid value: "on": must be true or false`,
	}
	for range 10 {
		o, errs := ParseAnnotations(in, field.NewPath("metadata", "annotations"))
		sameMessages(t, errs, want)
		if !reflect.DeepEqual(o, Overrides{}) {
			t.Errorf("invalid values set %+v", o)
		}
	}
}

// TestParseAnnotationsKeyPairs: of two keys that set one value, the later
// catalogue entry wins when both are usable; when one is refused, the
// other's value stands (for allowlists, the refused one is still applied
// because it fails closed, and then wins if it is the later one).
func TestParseAnnotationsKeyPairs(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]string
		want    Overrides
		errKeys []string
	}{
		{"new cookie key refused: the legacy one stands", map[string]string{AnnCookieNameLegacy: "old", AnnCookieName: "a b"},
			Overrides{CookieName: "old"}, []string{AnnCookieName}},
		{"legacy cookie key refused: the new one stands", map[string]string{AnnCookieNameLegacy: "a;b", AnnCookieName: "new"},
			Overrides{CookieName: "new"}, []string{AnnCookieNameLegacy}},
		{"whitelist refused, allowlist valid: the allowlist", map[string]string{AnnIPWhitelist: "bad", AnnIPAllowlist: "10.0.0.2"},
			Overrides{IPAllowlist: []string{"10.0.0.2"}}, []string{AnnIPWhitelist}},
		{"whitelist refused, allowlist blank: the refused whitelist", map[string]string{AnnIPWhitelist: "bad 10.0.0.1", AnnIPAllowlist: ""},
			Overrides{IPAllowlist: []string{"bad", "10.0.0.1"}}, []string{AnnIPWhitelist}},
		{"both blank: no allowlist", map[string]string{AnnIPWhitelist: " ", AnnIPAllowlist: ""}, Overrides{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := ParseAnnotations(tt.in, field.NewPath("metadata", "annotations"))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseAnnotations = %+v, want %+v", got, tt.want)
			}
			var gotKeys []string
			for _, e := range errs {
				gotKeys = append(gotKeys, strings.TrimSuffix(strings.TrimPrefix(e.Field, "metadata.annotations["), "]"))
			}
			if !slices.Equal(gotKeys, tt.errKeys) {
				t.Errorf("errors on %q, want %q", gotKeys, tt.errKeys)
			}
		})
	}
}

// TestLookupAnnotation: keys are found exactly as written: another case,
// surrounding space or a missing prefix finds nothing.
func TestLookupAnnotation(t *testing.T) {
	tests := []struct {
		key   string
		found bool
	}{
		{AnnTimeout, true},
		{AnnPathType, true},
		{AnnCertIssuer, true},
		{AnnCertSubjectSerialNumber, true},
		{"HAProxy.router.openshift.io/timeout", false},
		{AnnTimeout + " ", false},
		{"timeout", false},
		{"", false},
		{HostGeneratedAnnotation, false},
	}
	for _, tt := range tests {
		a, ok := LookupAnnotation(tt.key)
		if ok != tt.found || (ok && a.Key != tt.key) || (!ok && a != nil) {
			t.Errorf("LookupAnnotation(%q) = %v, %v; want found=%v", tt.key, a, ok, tt.found)
		}
	}
	// The entry returned is the catalogue's own, not a copy.
	a, _ := LookupAnnotation(AnnBalance)
	if a != &AnnotationCatalogue[slices.IndexFunc(AnnotationCatalogue, func(e Annotation) bool { return e.Key == AnnBalance })] {
		t.Error("LookupAnnotation returned a copy of the entry")
	}
}

// TestAnnotationScopes: the value-checked scope takes the router prefixes,
// any *.router.openshift.io, route.openshift.io and routeshift.io, all
// case-sensitive; the typo-warning scope is the same without
// route.openshift.io, which has keys routeshift does not know.
func TestAnnotationScopes(t *testing.T) {
	tests := []struct {
		key           string
		scope, unknow bool
	}{
		{"routeshift.io/", true, true},
		{".router.openshift.io/x", true, true},
		{"HAProxy.router.openshift.io/timeout", true, true},
		{"route.openshift.io/x", true, false},
		{"ROUTESHIFT.IO/x", false, false},
		{"Router.openshift.io/x", false, false},
		{"/x", false, false},
		{"", false, false},
		{"example.com/x", false, false},
		{"openshift.io/host.generated", false, false},
	}
	for _, tt := range tests {
		if got := RouterAnnotationScope(tt.key); got != tt.scope {
			t.Errorf("RouterAnnotationScope(%q) = %v, want %v", tt.key, got, tt.scope)
		}
		if got := unknownScope(tt.key); got != tt.unknow {
			t.Errorf("unknownScope(%q) = %v, want %v", tt.key, got, tt.unknow)
		}
	}
}

// TestCatalogueKeysAreCaseSensitive: a router key in another case is not
// the catalogue's: its value is checked for control characters only, and a
// warning names the key meant.
func TestCatalogueKeysAreCaseSensitive(t *testing.T) {
	const key = "HAProxy.router.openshift.io/timeout"
	sameMessages(t, ValidateRoute(route(withAnnotation(key, "soon")), ValidateOptions{}), nil)
	sameMessages(t, ValidateRoute(route(withAnnotation(key, "5s\n")), ValidateOptions{}), []string{
		`metadata.annotations[HAProxy.router.openshift.io/timeout]: Invalid value: "5s\n": must not contain control characters such as newlines or tabs`,
	})
	want := []string{`metadata.annotations[HAProxy.router.openshift.io/timeout]: unknown router annotation; it has no effect; did you mean "haproxy.router.openshift.io/timeout"?`}
	if got := Warnings(route(withAnnotation(key, "soon")), WarningOptions{}); !reflect.DeepEqual(got, want) {
		t.Errorf("Warnings = %q, want %q", got, want)
	}
}

// TestTerminationNoun: warnings name a route by its termination, and a
// route without TLS as such.
func TestTerminationNoun(t *testing.T) {
	for term, want := range map[TLSTerminationType]string{
		"":                        "routes without TLS",
		TLSTerminationEdge:        "edge routes",
		TLSTerminationPassthrough: "passthrough routes",
		TLSTerminationReencrypt:   "reencrypt routes",
	} {
		if got := terminationNoun(term); got != want {
			t.Errorf("terminationNoun(%q) = %q, want %q", term, got, want)
		}
	}
	// cookie-same-site acts on edge and reencrypt routes only.
	got := Warnings(route(withAnnotation(AnnCookieSameSite, "Lax")), WarningOptions{})
	want := []string{"metadata.annotations[router.openshift.io/cookie-same-site]: has no effect on routes without TLS"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Warnings = %q, want %q", got, want)
	}
}

// TestClosestAnnotationThreshold: a suggestion is at most a third of the
// key's length plus one edits away; of keys equally near, the first in
// catalogue order is named.
func TestClosestAnnotationThreshold(t *testing.T) {
	// routeshift.io/path-type has 23 bytes: at most 23/3+1 = 8 edits.
	tests := []struct {
		key, want string
	}{
		{"routeshift.io/path-type", AnnPathType},
		{"routeshift.io/pzzzzzzzz", AnnPathType},
		{"routeshift.io/zzzzzzzzz", ""},
		// "xxxxx" is 5 edits from both "white" and "allow".
		{"haproxy.router.openshift.io/ip_xxxxxlist", AnnIPWhitelist},
		{"router.openshift.io/cookie_nam", AnnCookieName},
	}
	for _, tt := range tests {
		if got := closestAnnotation(tt.key); got != tt.want {
			t.Errorf("closestAnnotation(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
	if d := editDistance("é", "e"); d != 2 {
		t.Errorf(`editDistance("é", "e") = %d, want 2 (bytes, not characters)`, d)
	}
}

// TestAnnotationErrorsSplit: annotationErrors returns key errors (keys
// that are no qualified names, the size limit) apart from value errors;
// without checkValues it judges keys only, and a value equal to the old
// one is not judged.
func TestAnnotationErrorsSplit(t *testing.T) {
	in := map[string]string{"a a": "1", AnnTimeout: "soon", "example.com/x": "\n", "routeshift.io/y": "\t"}
	keyErr := `metadata.annotations: Invalid value: "a a": ` + annotationKeyMsg
	timeoutErr := `metadata.annotations[haproxy.router.openshift.io/timeout]: Invalid value: "soon": ` + timeUnitDetail
	ctlErr := `metadata.annotations[routeshift.io/y]: Invalid value: "\t": must not contain control characters such as newlines or tabs`
	tests := []struct {
		name              string
		old               map[string]string
		checkValues       bool
		wantKeys, wantVal []string
	}{
		{"create", nil, true, []string{keyErr}, []string{timeoutErr, ctlErr}},
		{"keys only", nil, false, []string{keyErr}, nil},
		{"unchanged timeout", map[string]string{AnnTimeout: "soon"}, true, []string{keyErr}, []string{ctlErr}},
		{"changed timeout", map[string]string{AnnTimeout: "later"}, true, []string{keyErr}, []string{timeoutErr, ctlErr}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys, vals := annotationErrors(in, sortedKeys(in), tt.old, tt.checkValues)
			sameMessages(t, keys, tt.wantKeys)
			sameMessages(t, vals, tt.wantVal)
			// Without sorted keys, the same errors in some order.
			keys, vals = annotationErrors(in, nil, tt.old, tt.checkValues)
			got := append(messages(keys), messages(vals)...)
			slices.Sort(got)
			want := slices.Concat(tt.wantKeys, tt.wantVal)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("in map order: %q, want %q", got, want)
			}
		})
	}
}
