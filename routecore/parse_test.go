package routecore

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestParseAnnotationsEach: each router annotation alone sets its own
// field of Overrides and nothing else; an invalid value sets nothing and
// is reported, except on an allowlist, a restriction, which is kept (the
// router drops its bad entries) so that a typo never lets everyone in.
// cert-manager's annotations and keys outside the catalogue are not the
// router's: they set nothing and are not reported here.
func TestParseAnnotationsEach(t *testing.T) {
	ann := func(key string) string { return "metadata.annotations[" + key + "]: " }
	tests := []struct {
		key, value string
		want       Overrides
		err        string
	}{
		{AnnBalance, "source", Overrides{Balance: "source"}, ""},
		{AnnBalance, "fastest", Overrides{}, ann(AnnBalance) + `Unsupported value: "fastest": supported values: "roundrobin", "leastconn", "source", "random"`},
		{AnnBalance, "source\n", Overrides{}, ann(AnnBalance) + `Invalid value: "source\n": must not contain control characters such as newlines or tabs`},
		{AnnDisableCookies, "true", Overrides{DisableCookies: true}, ""},
		{AnnDisableCookies, "1", Overrides{DisableCookies: true}, ""},
		{AnnDisableCookies, "False", Overrides{}, ""},
		{AnnDisableCookies, "yes", Overrides{}, ann(AnnDisableCookies) + `Invalid value: "yes": must be true or false`},
		{AnnCookieNameLegacy, "old", Overrides{CookieName: "old"}, ""},
		{AnnCookieName, "new", Overrides{CookieName: "new"}, ""},
		{AnnCookieName, "a b", Overrides{}, ann(AnnCookieName) + `Invalid value: "a b": must consist of letters, digits, '_' and '-'`},
		{AnnCookieSameSite, "None", Overrides{CookieSameSite: "None"}, ""},
		{AnnPodConcurrentConnections, "7", Overrides{PodConcurrentConnections: 7}, ""},
		{AnnPodConcurrentConnections, "2147483647", Overrides{PodConcurrentConnections: 2147483647}, ""},
		{AnnRateLimit, "TRUE", Overrides{RateLimit: true}, ""},
		{AnnRateLimitConcurrentTCP, "3", Overrides{ConcurrentTCP: 3}, ""},
		{AnnRateLimitRateHTTP, "4", Overrides{RateHTTP: 4}, ""},
		{AnnRateLimitRateTCP, "5", Overrides{RateTCP: 5}, ""},
		{AnnRateLimitRateTCP, "0", Overrides{}, ann(AnnRateLimitRateTCP) + `Invalid value: "0": must be a whole number from 1 up`},
		{AnnTimeout, "90s", Overrides{Timeout: 90 * time.Second}, ""},
		{AnnTimeout, "25d", Overrides{}, ann(AnnTimeout) + `Invalid value: "25d": must be at most 2147483647ms (about 24.8 days)`},
		{AnnTimeoutTunnel, "1d", Overrides{TimeoutTunnel: 24 * time.Hour}, ""},
		{AnnHealthCheckInterval, "500", Overrides{HealthCheckInterval: 500 * time.Millisecond}, ""},
		{AnnRewriteTarget, "/", Overrides{RewriteTarget: "/"}, ""},
		{AnnRewriteTarget, "v2", Overrides{}, ann(AnnRewriteTarget) + `Invalid value: "v2": must be a path starting with '/' of letters, digits and -._~!$&'()*+,;=:@/% (no spaces, '?' or '#')`},
		{AnnIPWhitelist, "10.0.0.1  10.0.0.0/8", Overrides{IPAllowlist: []string{"10.0.0.1", "10.0.0.0/8"}}, ""},
		{AnnIPAllowlist, "", Overrides{}, ""},
		{AnnIPAllowlist, "10.0.0.1 all", Overrides{IPAllowlist: []string{"10.0.0.1", "all"}},
			ann(AnnIPAllowlist) + `Invalid value: "all": is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`},
		{AnnIPAllowlist, "10.0.0.1\n10.0.0.2", Overrides{IPAllowlist: []string{"10.0.0.1", "10.0.0.2"}},
			ann(AnnIPAllowlist) + `Invalid value: "10.0.0.1\n10.0.0.2": must not contain control characters such as newlines or tabs`},
		{AnnHSTSHeader, "max-age=1", Overrides{HSTSHeader: "max-age=1"}, ""},
		{AnnPoolSize, "2", Overrides{PoolSize: 2}, ""},
		{AnnPathType, "Exact", Overrides{ExactPath: true}, ""},
		{AnnPathType, "Prefix", Overrides{}, ""},
		{AnnSetForwardedHeaders, "never", Overrides{ForwardedHeaders: ForwardedNever}, ""},
		{AnnSetForwardedHeaders, "if-none", Overrides{ForwardedHeaders: ForwardedIfNone}, ""},
		{AnnH1AdjustCase, "True", Overrides{H1AdjustCase: true}, ""},
		{AnnCertIssuer, "Bad_Issuer", Overrides{}, ""},
		{AnnCertDuration, "soon", Overrides{}, ""},
		{"haproxy.router.openshift.io/unknown", "a\nb", Overrides{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			got, errs := ParseAnnotations(map[string]string{tt.key: tt.value}, field.NewPath("metadata", "annotations"))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Overrides = %+v, want %+v", got, tt.want)
			}
			var want []string
			if tt.err != "" {
				want = []string{tt.err}
			}
			sameMessages(t, errs, want)
		})
	}
}

// TestParseAnnotationsPrecedence: where two keys set one value, the later
// catalogue entry wins when it is usable: router.openshift.io/cookie_name
// over the legacy key, ip_allowlist over ip_whitelist (a bad allowlist
// still wins: it restricts). Rate limits are parsed whether or not they
// are switched on; the router decides.
func TestParseAnnotationsPrecedence(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		want        Overrides
		errs        int
	}{
		{"both cookie keys", map[string]string{AnnCookieNameLegacy: "old", AnnCookieName: "new"}, Overrides{CookieName: "new"}, 0},
		{"bad new cookie key keeps the legacy one", map[string]string{AnnCookieNameLegacy: "old", AnnCookieName: "a b"}, Overrides{CookieName: "old"}, 1},
		{"both allowlists", map[string]string{AnnIPWhitelist: "10.0.0.1", AnnIPAllowlist: "10.0.0.2"}, Overrides{IPAllowlist: []string{"10.0.0.2"}}, 0},
		{"empty allowlist keeps the whitelist", map[string]string{AnnIPWhitelist: "10.0.0.1", AnnIPAllowlist: ""}, Overrides{IPAllowlist: []string{"10.0.0.1"}}, 0},
		{"bad allowlist wins over the whitelist", map[string]string{AnnIPWhitelist: "10.0.0.1", AnnIPAllowlist: "nobody"}, Overrides{IPAllowlist: []string{"nobody"}}, 1},
		{"rate limits without the switch", map[string]string{AnnRateLimitRateHTTP: "10"}, Overrides{RateHTTP: 10}, 0},
		{"rate limits switched off", map[string]string{AnnRateLimit: "false", AnnRateLimitConcurrentTCP: "10"}, Overrides{ConcurrentTCP: 10}, 0},
		{"no annotations", nil, Overrides{}, 0},
		{"only other annotations", map[string]string{"example.com/a": "b", HostGeneratedAnnotation: "true"}, Overrides{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := ParseAnnotations(tt.annotations, field.NewPath("metadata", "annotations"))
			if !reflect.DeepEqual(got, tt.want) || len(errs) != tt.errs {
				t.Errorf("ParseAnnotations = %+v, %q; want %+v and %d errors", got, messages(errs), tt.want, tt.errs)
			}
		})
	}
}

// TestParseAnnotationsReportsInCatalogueOrder: errors come in the order of
// the catalogue, whatever the map's order, so the router's status
// messages are stable.
func TestParseAnnotationsReportsInCatalogueOrder(t *testing.T) {
	annotations := map[string]string{AnnH1AdjustCase: "x", AnnTimeout: "x", AnnBalance: "x", AnnPoolSize: "x"}
	for range 20 {
		_, errs := ParseAnnotations(annotations, field.NewPath("a"))
		var keys []string
		for _, e := range errs {
			keys = append(keys, e.Field)
		}
		want := []string{"a[" + AnnBalance + "]", "a[" + AnnTimeout + "]", "a[" + AnnPoolSize + "]", "a[" + AnnH1AdjustCase + "]"}
		if !reflect.DeepEqual(keys, want) {
			t.Fatalf("errors on %q, want %q", keys, want)
		}
	}
}
