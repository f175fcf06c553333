package routecore

import (
	"reflect"
	"testing"
)

// TestEditDistance is Levenshtein's distance: insertions, deletions and
// substitutions of one byte each cost 1.
func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"abc", "abc", 0},
		{"kitten", "sitting", 3},
		{"ab", "ba", 2},
		{"timeout", "timout", 1},
		{"flaw", "lawn", 2},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestClosestAnnotation: the nearest catalogue key within a third of the
// key's length (plus one), else none.
func TestClosestAnnotation(t *testing.T) {
	tests := []struct {
		key, want string
	}{
		{"haproxy.router.openshift.io/timeout-tunel", AnnTimeoutTunnel},
		{"router.openshift.io/cookie-samesite", AnnCookieSameSite},
		{"haproxy.router.openshift.io/ip_whitelst", AnnIPWhitelist},
		{"haproxy.router.openshift.io/balanse", AnnBalance},
		{"cert-manager.io/isuer", AnnCertIssuer},
		{"router.openshift.io/zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", ""},
		{"x/y", ""},
	}
	for _, tt := range tests {
		if got := closestAnnotation(tt.key); got != tt.want {
			t.Errorf("closestAnnotation(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

// TestAnnotationWarningsPerRoute: each annotation that only acts on some
// terminations warns on the others, with the termination's name; a
// cert-manager annotation never does (ValidateRoute refuses it instead);
// an invalid value gets its error, not its warning.
func TestAnnotationWarningsPerRoute(t *testing.T) {
	plain, passthrough := func(*Route) {}, withTLS(TLSConfig{Termination: TLSTerminationPassthrough})
	reencrypt := withTLS(TLSConfig{Termination: TLSTerminationReencrypt})
	ann := func(key string) string { return "metadata.annotations[" + key + "]: " }
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"rewrite-target on passthrough", route(passthrough, withAnnotation(AnnRewriteTarget, "/")), []string{ann(AnnRewriteTarget) + "has no effect on passthrough routes"}},
		{"rewrite-target on reencrypt", route(reencrypt, withAnnotation(AnnRewriteTarget, "/")), nil},
		{"path-type on passthrough", route(passthrough, withAnnotation(AnnPathType, "Exact")), []string{ann(AnnPathType) + "has no effect on passthrough routes"}},
		{"h1-adjust-case on passthrough", route(passthrough, withAnnotation(AnnH1AdjustCase, "true")), []string{ann(AnnH1AdjustCase) + "has no effect on passthrough routes"}},
		{"cookie-same-site on reencrypt", route(reencrypt, withAnnotation(AnnCookieSameSite, "Lax")), nil},
		{"hsts on passthrough", route(passthrough, withAnnotation(AnnHSTSHeader, "max-age=1")), []string{ann(AnnHSTSHeader) + "has no effect on passthrough routes"}},
		{"balance on any route", route(passthrough, withAnnotation(AnnBalance, "source")), nil},
		{"allowlist on any route", route(plain, withAnnotation(AnnIPAllowlist, "10.0.0.1")), nil},
		{"cert-manager issuer on a plain route: no warning", route(withAnnotation(AnnCertIssuer, "ca")), nil},
		{"rate limit switched on in capitals", route(withAnnotation(AnnRateLimit, "TRUE"), withAnnotation(AnnRateLimitRateTCP, "1")), nil},
		{"rate limit switched off", route(withAnnotation(AnnRateLimit, "false"), withAnnotation(AnnRateLimitConcurrentTCP, "1")),
			[]string{ann(AnnRateLimitConcurrentTCP) + `has no effect unless haproxy.router.openshift.io/rate-limit-connections is "true"`}},
		{"legacy cookie key on passthrough: both warnings", route(passthrough, withAnnotation(AnnCookieNameLegacy, "c")), []string{
			ann(AnnCookieNameLegacy) + "has no effect on passthrough routes",
			ann(AnnCookieNameLegacy) + "OpenShift's router does not read this key; write router.openshift.io/cookie_name, which routeshift reads too"}},
		{"invalid allowlist with odd spaces: no warning", route(withAnnotation(AnnIPAllowlist, " 10.0.0.1  x")), nil},
		{"invalid boolean: no warning", route(withAnnotation(AnnH1AdjustCase, "yes")), nil},
		{"boolean spelt t", route(withAnnotation(AnnH1AdjustCase, "t")), []string{ann(AnnH1AdjustCase) + `"t" is read as true; "true" is the documented spelling`}},
		{"boolean spelt 0", route(withAnnotation(AnnDisableCookies, "0")), []string{ann(AnnDisableCookies) + `"0" is read as false; "false" is the documented spelling`}},
		{"cert-manager key of Ingresses only", route(edge, withAnnotation(AnnCertIssuer, "ca"), withAnnotation("cert-manager.io/usages", "server auth")),
			[]string{ann("cert-manager.io/usages") + "routeshift does not read this cert-manager annotation on Routes; it has no effect"}},
		{"an unknown key outside the router's: not ours", route(withAnnotation("route.openshift.io/termination", "edge")), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Warnings(tt.route, WarningOptions{}); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Warnings =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestWarningOrder: the host warnings first, then the annotations' in key
// order, whatever the map's order.
func TestWarningOrder(t *testing.T) {
	r := route(func(r *Route) {
		r.Name, r.Namespace, r.Spec.Host, r.Spec.Subdomain = "web", "shop", "web-shop.apps.other.example", "web"
		r.Annotations = map[string]string{HostGeneratedAnnotation: "true", "routeshift.io/zzz": "1", AnnDisableCookies: "1", "router.openshift.io/timout": "1"}
	})
	want := []string{
		"spec.host is set; spec.subdomain may be ignored",
		`spec.host: web-shop.apps.other.example was generated by another cluster or for another route suffix (openshift.io/host.generated is "true"); ` +
			"this cluster would generate web-shop.apps.example.com: remove spec.host and the annotation to get it, or remove the annotation to keep the host",
		`metadata.annotations[haproxy.router.openshift.io/disable_cookies]: "1" is read as true; "true" is the documented spelling`,
		`metadata.annotations[router.openshift.io/timout]: unknown router annotation; it has no effect; did you mean "haproxy.router.openshift.io/timeout"?`,
		"metadata.annotations[routeshift.io/zzz]: unknown router annotation; it has no effect",
	}
	for range 10 {
		if got := Warnings(r, WarningOptions{GeneratedHostSuffix: "apps.example.com"}); !reflect.DeepEqual(got, want) {
			t.Fatalf("Warnings =\n%q\nwant\n%q", got, want)
		}
	}
}

// TestForeignGeneratedHost: a host marked generated is compared with the
// one this cluster would generate for the same name (dots made dashes)
// and namespace; nothing is said without a host, a name or a namespace.
func TestForeignGeneratedHost(t *testing.T) {
	marked := func(name, namespace, host string) *Route {
		return route(func(r *Route) {
			r.Name, r.Namespace, r.Spec.Host = name, namespace, host
			r.Annotations = map[string]string{HostGeneratedAnnotation: "true"}
		})
	}
	tests := []struct {
		name  string
		route *Route
		warns bool
	}{
		{"same host, dotted name", marked("www.v2", "shop", "www-v2-shop.apps.example.com"), false},
		{"other suffix", marked("www", "shop", "www-shop.apps.example.org"), true},
		{"other namespace in the host", marked("www", "shop", "www-web.apps.example.com"), true},
		{"no host", marked("www", "shop", ""), false},
		{"no name", marked("", "shop", "x-shop.apps.example.org"), false},
		{"no namespace", marked("www", "", "www-shop.apps.example.org"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := foreignGeneratedHost(tt.route, "apps.example.com")
			if (got != "") != tt.warns {
				t.Errorf("foreignGeneratedHost = %q, want a warning: %v", got, tt.warns)
			}
		})
	}
}

// TestValueWarnings: a boolean in another of strconv.ParseBool's spellings
// is named with what it is read as; an allowlist with other than single
// spaces between its entries says how many entries routeshift reads.
func TestValueWarnings(t *testing.T) {
	tests := []struct {
		key, value, want string
	}{
		{AnnRateLimit, "true", ""},
		{AnnRateLimit, "TRUE", ""},
		{AnnRateLimit, "FALSE", ""},
		{AnnRateLimit, "T", `"T" is read as true; "true" is the documented spelling`},
		{AnnRateLimit, "True", `"True" is read as true; "true" is the documented spelling`},
		{AnnRateLimit, "f", `"f" is read as false; "false" is the documented spelling`},
		{AnnRateLimit, "F", `"F" is read as false; "false" is the documented spelling`},
		{AnnIPWhitelist, "10.0.0.1 10.0.0.2", ""},
		{AnnIPWhitelist, "", ""},
		{AnnIPWhitelist, "   ", ""},
		{AnnIPWhitelist, " 10.0.0.1", "has leading, trailing or repeated spaces; routeshift reads its one entry, " +
			"but OpenShift's router ignores such a list and lets every source in: separate the entries with single spaces"},
		{AnnIPWhitelist, "10.0.0.1   10.0.0.2   10.0.0.3", "has leading, trailing or repeated spaces; routeshift reads the 3 entries between them, " +
			"but OpenShift's router ignores such a list and lets every source in: separate the entries with single spaces"},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			var want []string
			if tt.want != "" {
				want = []string{"metadata.annotations[" + tt.key + "]: " + tt.want}
			}
			if got := Warnings(route(withAnnotation(tt.key, tt.value)), WarningOptions{}); !reflect.DeepEqual(got, want) {
				t.Errorf("Warnings = %q, want %q", got, want)
			}
		})
	}
}
