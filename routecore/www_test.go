package routecore

import (
	"strings"
	"testing"
)

func TestWWWRedirectHost(t *testing.T) {
	cases := []struct{ host, other, err string }{
		{"example.com", "www.example.com", ""},
		{"www.example.com", "example.com", ""},
		{"shop.example.com", "www.shop.example.com", ""},
		{"www.www.example.com", "www.example.com", ""},
		{"localhost", "www.localhost", ""},
		{"wwwexample.com", "www.wwwexample.com", ""},
		{"www.com", "com", "the host redirected from, com, must have at least two labels"},
		{"", "www.", "needs spec.host: the host redirected from is www. + spec.host, or spec.host without www."},
		{strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 59), "",
			"the host redirected from, www." + strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 59) + ", must be no more than 253 characters"},
		{"www_x.example.com", "www.www_x.example.com",
			"the host redirected from, www.www_x.example.com, must consist of lower case alphanumeric characters, '-' or '.', in labels of at most 63 characters that start and end with an alphanumeric character"},
		{strings.Repeat("x", 64) + ".example.com", "",
			"the host redirected from, www." + strings.Repeat("x", 64) + ".example.com, must consist of lower case alphanumeric characters, '-' or '.', in labels of at most 63 characters that start and end with an alphanumeric character"},
	}
	for _, c := range cases {
		if c.other != "" {
			if got := WWWRedirectHost(c.host); got != c.other {
				t.Errorf("WWWRedirectHost(%q) = %q, want %q", c.host, got, c.other)
			}
		}
		if got := WWWRedirectHostError(c.host); got != c.err {
			t.Errorf("WWWRedirectHostError(%q) = %q, want %q", c.host, got, c.err)
		}
	}
}

func TestWWWRedirectValidation(t *testing.T) {
	const key = AnnWWWRedirect
	www := "metadata.annotations[" + key + "]: "
	cases := []struct {
		name string
		mods []func(*Route)
		want []string
	}{
		{"plain route", []func(*Route){withAnnotation(key, "true")}, nil},
		{"host without www", []func(*Route){withAnnotation(key, "true"), func(r *Route) { r.Spec.Host = "example.com" }}, nil},
		{"false on a wildcard route", []func(*Route){withAnnotation(key, "false"), func(r *Route) { r.Spec.WildcardPolicy = WildcardPolicySubdomain }}, nil},
		{"edge", []func(*Route){withAnnotation(key, "true"), withTLS(TLSConfig{Termination: TLSTerminationEdge})}, nil},
		{"reencrypt", []func(*Route){withAnnotation(key, "true"), withTLS(TLSConfig{Termination: TLSTerminationReencrypt})}, nil},
		{"not a boolean", []func(*Route){withAnnotation(key, "yes")}, []string{www + `Invalid value: "yes": must be true or false`}},
		{"passthrough", []func(*Route){withAnnotation(key, "true"), withTLS(TLSConfig{Termination: TLSTerminationPassthrough})},
			[]string{www + `Invalid value: "true": has no effect on passthrough routes, whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)`}},
		{"wildcard", []func(*Route){withAnnotation(key, "true"), func(r *Route) { r.Spec.WildcardPolicy = WildcardPolicySubdomain }},
			[]string{www + `Invalid value: "true": cannot be used on a wildcard route (wildcardPolicy Subdomain), which serves every host of its domain`}},
		{"True on a wildcard", []func(*Route){withAnnotation(key, "True"), func(r *Route) { r.Spec.WildcardPolicy = WildcardPolicySubdomain }},
			[]string{www + `Invalid value: "True": cannot be used on a wildcard route (wildcardPolicy Subdomain), which serves every host of its domain`}},
		{"no host", []func(*Route){withAnnotation(key, "true"), func(r *Route) { r.Spec.Host, r.Spec.Subdomain = "", "shop" }},
			[]string{www + `Invalid value: "true": needs spec.host: the host redirected from is www. + spec.host, or spec.host without www.`}},
		{"single-label other host", []func(*Route){withAnnotation(key, "true"), func(r *Route) { r.Spec.Host = "www.com" }},
			[]string{www + `Invalid value: "true": the host redirected from, com, must have at least two labels`}},
		{"other host label too long", []func(*Route){withAnnotation(key, "true"), withAnnotation(AllowNonDNSCompliantHostAnnotation, "true"),
			func(r *Route) { r.Spec.Host = strings.Repeat("x", 64) + ".example.com" }},
			[]string{www + `Invalid value: "true": the host redirected from, www.` + strings.Repeat("x", 64) +
				`.example.com, must consist of lower case alphanumeric characters, '-' or '.', in labels of at most 63 characters that start and end with an alphanumeric character`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(c.mods...), ValidateOptions{}), c.want)
		})
	}
}

// TestWWWRedirectSkipped: the router, which validates without annotation
// values, admits such routes and decides about the other host itself.
func TestWWWRedirectSkipped(t *testing.T) {
	r := route(withAnnotation(AnnWWWRedirect, "true"), func(r *Route) { r.Spec.WildcardPolicy = WildcardPolicySubdomain })
	sameMessages(t, ValidateRoute(r, ValidateOptions{SkipAnnotationValues: true}), nil)
}

func TestWWWRedirectUpdate(t *testing.T) {
	const key = AnnWWWRedirect
	wildcard := func(r *Route) { r.Spec.WildcardPolicy = WildcardPolicySubdomain }
	refused := `metadata.annotations[` + key + `]: Invalid value: "true": the host redirected from, com, must have at least two labels`
	cases := []struct {
		name     string
		old, new []func(*Route)
		want     []string
	}{
		{"unchanged stored route keeps it", []func(*Route){withAnnotation(key, "true"), func(r *Route) { r.Spec.Host = "www.com" }},
			[]func(*Route){withAnnotation(key, "true"), func(r *Route) { r.Spec.Host = "www.com" }, withAnnotation("team", "a")}, nil},
		{"annotation added", []func(*Route){func(r *Route) { r.Spec.Host = "www.com" }},
			[]func(*Route){withAnnotation(key, "true"), func(r *Route) { r.Spec.Host = "www.com" }}, []string{refused}},
		{"value changed", []func(*Route){withAnnotation(key, "1"), func(r *Route) { r.Spec.Host = "www.com" }},
			[]func(*Route){withAnnotation(key, "true"), func(r *Route) { r.Spec.Host = "www.com" }}, []string{refused}},
		{"host changed", []func(*Route){withAnnotation(key, "true")},
			[]func(*Route){withAnnotation(key, "true"), func(r *Route) { r.Spec.Host = "www.com" }}, []string{refused}},
		{"stored wildcard keeps it", []func(*Route){withAnnotation(key, "true"), wildcard},
			[]func(*Route){withAnnotation(key, "true"), wildcard, withAnnotation("team", "a")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, next := route(c.old...), route(c.new...)
			old.ResourceVersion, next.ResourceVersion = "1", "1"
			sameMessages(t, ValidateRouteUpdate(next, old, ValidateOptions{}), c.want)
		})
	}
}
