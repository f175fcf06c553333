package routecore

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

const timeUnitDetail = "must be a TimeUnit: a whole number from 1 up, optionally followed by us, ms, s, m, h or d (no unit means ms), for example 5500ms or 30s"

// TestValidateAnnotations pins the accepted and rejected values of every
// catalogue entry, and the control-character rule.
func TestValidateAnnotations(t *testing.T) {
	tests := []struct {
		key, value string
		want       []string
	}{
		{AnnBalance, "roundrobin", nil},
		{AnnBalance, "leastconn", nil},
		{AnnBalance, "source", nil},
		{AnnBalance, "random", nil},
		{AnnBalance, "RoundRobin", []string{`metadata.annotations[haproxy.router.openshift.io/balance]: Unsupported value: "RoundRobin": supported values: "roundrobin", "leastconn", "source", "random"`}},
		{AnnBalance, "roundrobin leastconn", []string{`metadata.annotations[haproxy.router.openshift.io/balance]: Unsupported value: "roundrobin leastconn": supported values: "roundrobin", "leastconn", "source", "random"`}},
		{AnnDisableCookies, "TRUE", nil},
		{AnnDisableCookies, "false", nil},
		{AnnDisableCookies, "", []string{`metadata.annotations[haproxy.router.openshift.io/disable_cookies]: Invalid value: "": must be true or false`}},
		{AnnCookieName, "my_cookie-1", nil},
		{AnnCookieName, "my cookie", []string{`metadata.annotations[router.openshift.io/cookie_name]: Invalid value: "my cookie": must consist of letters, digits, '_' and '-'`}},
		{AnnCookieNameLegacy, "a;b", []string{`metadata.annotations[haproxy.router.openshift.io/cookie_name]: Invalid value: "a;b": must consist of letters, digits, '_' and '-'`}},
		{AnnCookieSameSite, "Strict", nil},
		{AnnPodConcurrentConnections, "0", nil},
		{AnnRateLimit, "true", nil},
		{AnnRateLimitConcurrentTCP, "10", nil},
		{AnnRateLimitRateHTTP, "ten", []string{`metadata.annotations[haproxy.router.openshift.io/rate-limit-connections.rate-http]: Invalid value: "ten": must be a whole number from 1 up`}},
		{AnnRateLimitRateTCP, "+5", []string{`metadata.annotations[haproxy.router.openshift.io/rate-limit-connections.rate-tcp]: Invalid value: "+5": must be a whole number from 1 up`}},
		{AnnRateLimitRateTCP, "99999999999", []string{`metadata.annotations[haproxy.router.openshift.io/rate-limit-connections.rate-tcp]: Invalid value: "99999999999": must be a whole number from 1 up`}},
		{AnnTimeout, "5500ms", nil},
		{AnnTimeoutTunnel, "30m", nil},
		{AnnRewriteTarget, "/", nil},
		{AnnRewriteTarget, "/v2/caf%C3%A9;x=1", nil},
		{AnnRewriteTarget, "v2", []string{`metadata.annotations[haproxy.router.openshift.io/rewrite-target]: Invalid value: "v2": must be a path starting with '/' of letters, digits and -._~!$&'()*+,;=:@/% (no spaces, '?' or '#')`}},
		{AnnRewriteTarget, "/a b", []string{`metadata.annotations[haproxy.router.openshift.io/rewrite-target]: Invalid value: "/a b": must be a path starting with '/' of letters, digits and -._~!$&'()*+,;=:@/% (no spaces, '?' or '#')`}},
		{AnnRewriteTarget, `/\1`, []string{`metadata.annotations[haproxy.router.openshift.io/rewrite-target]: Invalid value: "/\\1": must be a path starting with '/' of letters, digits and -._~!$&'()*+,;=:@/% (no spaces, '?' or '#')`}},
		{AnnIPWhitelist, "192.168.1.10", nil},
		{AnnIPWhitelist, "192.168.1.10 192.168.1.11 192.168.1.12", nil},
		{AnnIPWhitelist, "192.168.1.0/24", nil},
		{AnnIPWhitelist, "180.5.61.153 192.168.1.0/24 10.0.0.0/8", nil},
		{AnnIPAllowlist, "2001:db8::1 2001:db8::/32", nil},
		{AnnIPAllowlist, "10.0.0.0/33", []string{`metadata.annotations[haproxy.router.openshift.io/ip_allowlist]: Invalid value: "10.0.0.0/33": is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`}},
		{AnnIPWhitelist, "192.168.1.10,192.168.1.11", []string{`metadata.annotations[haproxy.router.openshift.io/ip_whitelist]: Invalid value: "192.168.1.10,192.168.1.11": is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`}},
		{AnnHSTSHeader, "max-age=31536000", nil},
		{AnnHSTSHeader, "max-age=31536000;includeSubDomains;preload", nil},
		{AnnHSTSHeader, `preload; max-age="600"`, nil},
		{AnnHSTSHeader, "max-age=1;max-age=2", []string{`metadata.annotations[haproxy.router.openshift.io/hsts_header]: Invalid value: "max-age=1;max-age=2": must be max-age=<seconds>, optionally followed by ;includeSubDomains and ;preload`}},
		{AnnPoolSize, "10", nil},
		{AnnPathType, "Exact", nil},
		{AnnSetForwardedHeaders, "append", nil},
		{AnnSetForwardedHeaders, "replace", nil},
		{AnnSetForwardedHeaders, "if-none", nil},
		{AnnSetForwardedHeaders, "never", nil},
		{AnnSetForwardedHeaders, "Never", []string{`metadata.annotations[haproxy.router.openshift.io/set-forwarded-headers]: Unsupported value: "Never": supported values: "append", "replace", "if-none", "never"`}},
		{AnnH1AdjustCase, "true", nil},
		{AnnH1AdjustCase, "on", []string{`metadata.annotations[haproxy.router.openshift.io/h1-adjust-case]: Invalid value: "on": must be true or false`}},
		// control characters: in any router annotation, known or not, never elsewhere
		{AnnTimeout, "5s\nbackend evil", []string{`metadata.annotations[haproxy.router.openshift.io/timeout]: Invalid value: "5s\nbackend evil": must not contain control characters such as newlines or tabs`}},
		{"haproxy.router.openshift.io/custom", "a\tb", []string{`metadata.annotations[haproxy.router.openshift.io/custom]: Invalid value: "a\tb": must not contain control characters such as newlines or tabs`}},
		{"route.openshift.io/termination", "edge\r", []string{`metadata.annotations[route.openshift.io/termination]: Invalid value: "edge\r": must not contain control characters such as newlines or tabs`}},
		{"kubectl.kubernetes.io/last-applied-configuration", "{}\n", nil},
		{"haproxy.router.openshift.io/unknown-but-clean", "anything", nil},
	}
	for _, key := range []string{AnnDisableCookies, AnnRateLimit, AnnH1AdjustCase} {
		for _, v := range []string{"1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"} {
			tests = append(tests, struct {
				key, value string
				want       []string
			}{key, v, nil})
		}
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(withAnnotation(tt.key, tt.value)), ValidateOptions{}), tt.want)
		})
	}
}

// TestCatalogueEntries checks every entry is documented and refuses garbage.
func TestCatalogueEntries(t *testing.T) {
	for _, a := range AnnotationCatalogue {
		if a.Help == "" || a.Default == "" {
			t.Errorf("%s: Help and Default must be documented", a.Key)
		}
		// Free text: any value is a valid serial number or kind name
		// (control characters are refused for every key before the
		// entry's own rule).
		if a.Key == AnnCertSubjectSerialNumber || a.Key == AnnCertIssuerKind {
			continue
		}
		if !slices.ContainsFunc([]string{"\x00definitely invalid\x00", `"unterminated, quote`, strings.Repeat("x", 100000)},
			func(garbage string) bool { return a.Validate(field.NewPath("x"), garbage) != nil }) {
			t.Errorf("%s: validator accepts garbage", a.Key)
		}
	}
}

func TestParseAnnotations(t *testing.T) {
	got, errs := ParseAnnotations(map[string]string{
		AnnBalance: "roundrobin", AnnDisableCookies: "TRUE", AnnCookieNameLegacy: "old", AnnCookieName: "new",
		AnnCookieSameSite: "Lax", AnnPodConcurrentConnections: "50", AnnRateLimit: "true",
		AnnRateLimitConcurrentTCP: "10", AnnRateLimitRateHTTP: "20", AnnRateLimitRateTCP: "30",
		AnnTimeout: "5500ms", AnnTimeoutTunnel: "2h", AnnRewriteTarget: "/v2", AnnHealthCheckInterval: "2s", AnnIPWhitelist: "10.0.0.1",
		AnnIPAllowlist: "10.0.0.2  10.1.0.0/16", AnnHSTSHeader: "max-age=600", AnnPoolSize: "4", AnnPathType: "Exact",
		AnnSetForwardedHeaders: "if-none", AnnH1AdjustCase: "True",
		"unrelated": "x",
	}, field.NewPath("metadata", "annotations"))
	want := Overrides{
		Balance: "roundrobin", DisableCookies: true, CookieName: "new", CookieSameSite: "Lax",
		PodConcurrentConnections: 50, RateLimit: true, ConcurrentTCP: 10, RateHTTP: 20, RateTCP: 30,
		Timeout: 5500 * time.Millisecond, TimeoutTunnel: 2 * time.Hour, RewriteTarget: "/v2", HealthCheckInterval: 2 * time.Second,
		IPAllowlist: []string{"10.0.0.2", "10.1.0.0/16"}, HSTSHeader: "max-age=600", PoolSize: 4, ExactPath: true,
		ForwardedHeaders: ForwardedIfNone, H1AdjustCase: true,
	}
	if len(errs) != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseAnnotations =\n%+v, %v\nwant\n%+v", got, errs, want)
	}

	// The router ignores what it cannot use and keeps the rest.
	got, errs = ParseAnnotations(map[string]string{AnnTimeout: "soon", AnnBalance: "source", AnnDisableCookies: "true\n"}, field.NewPath("metadata", "annotations"))
	if want := (Overrides{Balance: "source"}); !reflect.DeepEqual(got, want) || len(errs) != 2 {
		t.Errorf("ParseAnnotations with bad values = %+v, %v; want %+v and 2 errors", got, messages(errs), want)
	}

	// ...except restrictions: an invalid allowlist is reported and kept
	// (the router drops the invalid entries), never ignored; an empty one
	// is no allowlist.
	got, errs = ParseAnnotations(map[string]string{AnnIPWhitelist: "10.0.0.1", AnnIPAllowlist: "10.0.0.2 all"}, field.NewPath("metadata", "annotations"))
	if want := (Overrides{IPAllowlist: []string{"10.0.0.2", "all"}}); !reflect.DeepEqual(got, want) || len(errs) != 1 {
		t.Errorf("ParseAnnotations with a bad allowlist = %+v, %v; want %+v and 1 error", got, messages(errs), want)
	}
	got, errs = ParseAnnotations(map[string]string{AnnIPWhitelist: "10.0.0.1", AnnIPAllowlist: " "}, field.NewPath("metadata", "annotations"))
	if want := (Overrides{IPAllowlist: []string{"10.0.0.1"}}); !reflect.DeepEqual(got, want) || len(errs) != 0 {
		t.Errorf("ParseAnnotations with an empty allowlist = %+v, %v; want %+v", got, messages(errs), want)
	}
}

func TestWarnings(t *testing.T) {
	generated := func(host string) func(*Route) {
		return func(r *Route) {
			r.Name, r.Namespace, r.Spec.Host = "frontend", "shop", host
			r.Annotations = map[string]string{HostGeneratedAnnotation: "true"}
		}
	}
	here := WarningOptions{GeneratedHostSuffix: "apps.k8s.example.com"}
	tests := []struct {
		name  string
		route *Route
		opts  WarningOptions
		want  []string
	}{
		{name: "nothing to say", route: route(withAnnotation(AnnTimeout, "5s"))},
		{name: "host and subdomain", route: route(func(r *Route) { r.Spec.Subdomain = "frontend" }),
			want: []string{"spec.host is set; spec.subdomain may be ignored"}},
		{name: "misspelt timeout", route: route(withAnnotation("haproxy.router.openshift.io/timout", "5s")),
			want: []string{`metadata.annotations[haproxy.router.openshift.io/timout]: unknown router annotation; it has no effect; did you mean "haproxy.router.openshift.io/timeout"?`}},
		{name: "misspelt own annotation", route: route(withAnnotation("routeshift.io/pathtype", "Exact")),
			want: []string{`metadata.annotations[routeshift.io/pathtype]: unknown router annotation; it has no effect; did you mean "routeshift.io/path-type"?`}},
		{name: "unknown without a close match", route: route(withAnnotation("router.openshift.io/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "1")),
			want: []string{`metadata.annotations[router.openshift.io/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz]: unknown router annotation; it has no effect`}},
		{name: "misspelt cert-manager annotation", route: route(withTLS(TLSConfig{Termination: TLSTerminationEdge}), withAnnotation(AnnCertClusterIssuer, "le"), withAnnotation("cert-manager.io/duraton", "24h")),
			want: []string{`metadata.annotations[cert-manager.io/duraton]: routeshift does not read this cert-manager annotation on Routes; it has no effect; did you mean "cert-manager.io/duration"?`}},
		{name: "cert-manager annotation of Ingresses only", route: route(withTLS(TLSConfig{Termination: TLSTerminationEdge}), withAnnotation(AnnCertClusterIssuer, "le"), withAnnotation("cert-manager.io/secret-template", "{}")),
			want: []string{`metadata.annotations[cert-manager.io/secret-template]: routeshift does not read this cert-manager annotation on Routes; it has no effect`}},
		{name: "cert-manager annotations on edge: nothing to say", route: route(withTLS(TLSConfig{Termination: TLSTerminationEdge}), withAnnotation(AnnCertClusterIssuer, "le"), withAnnotation(AnnCertDuration, "24h"))},
		{name: "other prefixes are not ours", route: route(withAnnotation("example.com/timout", "5s"), withAnnotation("route.openshift.io/termination", "edge"))},
		{name: "hsts on a plain route", route: route(withAnnotation(AnnHSTSHeader, "max-age=1")),
			want: []string{"metadata.annotations[haproxy.router.openshift.io/hsts_header]: has no effect on routes without TLS"}},
		{name: "hsts on edge", route: route(withTLS(TLSConfig{Termination: TLSTerminationEdge}), withAnnotation(AnnHSTSHeader, "max-age=1"))},
		{name: "cookie on passthrough", route: route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough}), withAnnotation(AnnCookieName, "c")),
			want: []string{"metadata.annotations[router.openshift.io/cookie_name]: has no effect on passthrough routes"}},
		{name: "rate limit without the switch", route: route(withAnnotation(AnnRateLimitRateHTTP, "10")),
			want: []string{`metadata.annotations[haproxy.router.openshift.io/rate-limit-connections.rate-http]: has no effect unless haproxy.router.openshift.io/rate-limit-connections is "true"`}},
		{name: "rate limit with the switch", route: route(withAnnotation(AnnRateLimitRateHTTP, "10"), withAnnotation(AnnRateLimit, "TRUE"))},
		{name: "rate limit with the switch spelt 1", route: route(withAnnotation(AnnRateLimitRateHTTP, "10"), withAnnotation(AnnRateLimit, "1")),
			want: []string{`metadata.annotations[haproxy.router.openshift.io/rate-limit-connections]: "1" is read as true; "true" is the documented spelling`}},
		{name: "boolean spelt False", route: route(withAnnotation(AnnDisableCookies, "False")),
			want: []string{`metadata.annotations[haproxy.router.openshift.io/disable_cookies]: "False" is read as false; "false" is the documented spelling`}},
		{name: "invalid boolean: refused, not warned", route: route(withAnnotation(AnnDisableCookies, "yes"))},
		{name: "cookie name under the key OpenShift does not read", route: route(withAnnotation(AnnCookieNameLegacy, "c")),
			want: []string{"metadata.annotations[haproxy.router.openshift.io/cookie_name]: OpenShift's router does not read this key; write router.openshift.io/cookie_name, which routeshift reads too"}},
		{name: "allowlist with irregular spaces", route: route(withAnnotation(AnnIPAllowlist, " 10.0.0.1  10.0.0.2 ")),
			want: []string{"metadata.annotations[haproxy.router.openshift.io/ip_allowlist]: has leading, trailing or repeated spaces; routeshift reads the 2 entries between them, " +
				"but OpenShift's router ignores such a list and lets every source in: separate the entries with single spaces"}},
		{name: "allowlist of one entry and a trailing space", route: route(withAnnotation(AnnIPAllowlist, "10.0.0.1 ")),
			want: []string{"metadata.annotations[haproxy.router.openshift.io/ip_allowlist]: has leading, trailing or repeated spaces; routeshift reads its one entry, " +
				"but OpenShift's router ignores such a list and lets every source in: separate the entries with single spaces"}},
		{name: "allowlist with single spaces", route: route(withAnnotation(AnnIPWhitelist, "10.0.0.1 10.0.0.2"))},
		{name: "blank allowlist (no allowlist, as in OpenShift)", route: route(withAnnotation(AnnIPWhitelist, "  "))},
		{name: "forwarded headers on passthrough", route: route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough}), withAnnotation(AnnSetForwardedHeaders, "never")),
			want: []string{"metadata.annotations[haproxy.router.openshift.io/set-forwarded-headers]: has no effect on passthrough routes"}},
		{name: "host generated by another cluster", route: route(generated("frontend-shop.apps.ocp.example.com")), opts: here,
			want: []string{`spec.host: frontend-shop.apps.ocp.example.com was generated by another cluster or for another route suffix ` +
				`(openshift.io/host.generated is "true"); this cluster would generate frontend-shop.apps.k8s.example.com: ` +
				`remove spec.host and the annotation to get it, or remove the annotation to keep the host`}},
		{name: "host generated here", route: route(generated("frontend-shop.apps.k8s.example.com")), opts: here},
		{name: "generated host on update (no suffix given)", route: route(generated("frontend-shop.apps.ocp.example.com"))},
		{name: "own host not marked generated", route: route(func(r *Route) { r.Spec.Host = "www.example.com" }), opts: here},
		{name: "marked generated but false", route: route(generated("frontend-shop.apps.ocp.example.com"), withAnnotation(HostGeneratedAnnotation, "false")), opts: here},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Warnings(tt.route, tt.opts); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Warnings =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestValidateRefusesControlCharacters: an entry's Validate refuses a
// control character as ValidateRoute does, whatever its own rule would
// say, so that its callers cannot let a newline through.
func TestValidateRefusesControlCharacters(t *testing.T) {
	for _, a := range AnnotationCatalogue {
		for _, v := range []string{"a\nb", "10.0.0.1\t10.0.0.2", "x\x7f", "x\u0085"} {
			path := field.NewPath("metadata", "annotations").Key(a.Key)
			want := fmt.Sprintf("%s: Invalid value: %q: must not contain control characters such as newlines or tabs", path, v)
			if err := a.Validate(path, v); err == nil || err.Error() != want {
				t.Errorf("%s: Validate(%q) = %v, want %s", a.Key, v, err, want)
			}
		}
	}
}
