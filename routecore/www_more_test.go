package routecore

import (
	"reflect"
	"strings"
	"testing"
)

// wwwMoreLabels is the text of a host-name error about the other host.
func wwwMoreLabels(other string) string {
	return "the host redirected from, " + other + ", must consist of lower case alphanumeric characters, '-' or '.', in labels of at most 63 characters that start and end with an alphanumeric character"
}

// wwwMoreHost is a host of 195+d bytes: three labels of 63, one of d
// and .io.
func wwwMoreHost(d int) string {
	return strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", d) + ".io"
}

func TestWWWMoreRedirectHost(t *testing.T) {
	// A host of 249 bytes has an other host of exactly 253.
	host249, host250 := wwwMoreHost(54), wwwMoreHost(55)
	if len(host249) != 249 || len(host250) != 250 {
		t.Fatalf("host lengths %d, %d", len(host249), len(host250))
	}
	cases := []struct{ host, other, err string }{
		{host249, "www." + host249, ""},
		{host250, "www." + host250, "the host redirected from, www." + host250 + ", must be no more than 253 characters"},
		{"www." + host250, host250, ""},
		{strings.Repeat("x", 63) + ".example.com", "www." + strings.Repeat("x", 63) + ".example.com", ""},
		{"WWW.example.com", "www.WWW.example.com", wwwMoreLabels("www.WWW.example.com")},
		{"Example.com", "www.Example.com", wwwMoreLabels("www.Example.com")},
		{"exämple.com", "www.exämple.com", wwwMoreLabels("www.exämple.com")},
		{"www.example.com.", "example.com.", wwwMoreLabels("example.com.")},
		{"-shop.example.com", "www.-shop.example.com", wwwMoreLabels("www.-shop.example.com")},
		{"www.-shop.example.com", "-shop.example.com", wwwMoreLabels("-shop.example.com")},
		{"www.", "", "the host redirected from, , must have at least two labels"},
		{"www.localhost", "localhost", "the host redirected from, localhost, must have at least two labels"},
		{"www.a.b", "a.b", ""},
		{"www-example.com", "www.www-example.com", ""},
		{"1.2.3.4", "www.1.2.3.4", ""},
	}
	for _, c := range cases {
		if got := WWWRedirectHost(c.host); got != c.other {
			t.Errorf("WWWRedirectHost(%.40q) = %q, want %q", c.host, got, c.other)
		}
		if got := WWWRedirectHostError(c.host); got != c.err {
			t.Errorf("WWWRedirectHostError(%.40q):\n got %q\nwant %q", c.host, got, c.err)
		}
	}
	if DefaultWWWRedirectCode != 308 {
		t.Errorf("DefaultWWWRedirectCode = %d", DefaultWWWRedirectCode)
	}
}

func TestWWWMoreValidation(t *testing.T) {
	const key = AnnWWWRedirect
	www := "metadata.annotations[" + key + "]: "
	wildcard := func(r *Route) { r.Spec.WildcardPolicy = WildcardPolicySubdomain }
	wildcardMsg := func(v string) string {
		return www + `Invalid value: "` + v + `": cannot be used on a wildcard route (wildcardPolicy Subdomain), which serves every host of its domain`
	}
	cases := []struct {
		name string
		mods []func(*Route)
		want []string
	}{
		{"1 on a wildcard is true", []func(*Route){withAnnotation(key, "1"), wildcard}, []string{wildcardMsg("1")}},
		{"t on a wildcard is true", []func(*Route){withAnnotation(key, "t"), wildcard}, []string{wildcardMsg("t")}},
		{"TRUE on a wildcard", []func(*Route){withAnnotation(key, "TRUE"), wildcard}, []string{wildcardMsg("TRUE")}},
		{"0 on a wildcard", []func(*Route){withAnnotation(key, "0"), wildcard}, nil},
		{"FALSE on a bad host", []func(*Route){withAnnotation(key, "FALSE"), func(r *Route) { r.Spec.Host = "www.com" }}, nil},
		{"empty value", []func(*Route){withAnnotation(key, "")}, []string{www + `Invalid value: "": must be true or false`}},
		{"on with a wildcard and a bad host: wildcard first", []func(*Route){withAnnotation(key, "true"), wildcard, func(r *Route) { r.Spec.Host = "www.com" }},
			[]string{wildcardMsg("true")}},
		{"false on passthrough is still refused", []func(*Route){withAnnotation(key, "false"), withTLS(TLSConfig{Termination: TLSTerminationPassthrough})},
			[]string{www + `Invalid value: "false": has no effect on passthrough routes, whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)`}},
		{"empty wildcard policy", []func(*Route){withAnnotation(key, "true"), func(r *Route) { r.Spec.WildcardPolicy = "" }}, nil},
		{"with redirect-code", []func(*Route){withAnnotation(key, "true"), withAnnotation(AnnRedirectCode, "301")}, nil},
		{"other host at 253 bytes", []func(*Route){withAnnotation(key, "true"), func(r *Route) {
			r.Spec.Host = wwwMoreHost(54)
		}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(route(c.mods...), ValidateOptions{}), c.want)
		})
	}
}

func TestWWWMoreUpdate(t *testing.T) {
	const key = AnnWWWRedirect
	wildcard := func(r *Route) { r.Spec.WildcardPolicy = WildcardPolicySubdomain }
	badHost := func(r *Route) { r.Spec.Host = "www.com" }
	wildcardMsg := func(v string) string {
		return `metadata.annotations[` + key + `]: Invalid value: "` + v + `": cannot be used on a wildcard route (wildcardPolicy Subdomain), which serves every host of its domain`
	}
	cases := []struct {
		name     string
		old, new []func(*Route)
		want     []string
	}{
		{"became a wildcard", []func(*Route){withAnnotation(key, "true")}, []func(*Route){withAnnotation(key, "true"), wildcard},
			[]string{wildcardMsg("true"), `spec.wildcardPolicy: Invalid value: "Subdomain": field is immutable`}},
		{"stored wildcard, value respelt", []func(*Route){withAnnotation(key, "true"), wildcard}, []func(*Route){withAnnotation(key, "True"), wildcard},
			[]string{wildcardMsg("True")}},
		{"stored policy empty, now None", []func(*Route){withAnnotation(key, "true"), badHost, func(r *Route) { r.Spec.WildcardPolicy = "" }},
			[]func(*Route){withAnnotation(key, "true"), badHost}, nil},
		{"bad host fixed", []func(*Route){withAnnotation(key, "true"), badHost}, []func(*Route){withAnnotation(key, "true")}, nil},
		{"turned off on a wildcard", []func(*Route){withAnnotation(key, "true"), wildcard}, []func(*Route){withAnnotation(key, "false"), wildcard}, nil},
		{"stored passthrough kept", []func(*Route){withAnnotation(key, "true"), withTLS(TLSConfig{Termination: TLSTerminationPassthrough})},
			[]func(*Route){withAnnotation(key, "true"), withTLS(TLSConfig{Termination: TLSTerminationPassthrough})}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, next := route(c.old...), route(c.new...)
			old.ResourceVersion, next.ResourceVersion = "1", "1"
			sameMessages(t, ValidateRouteUpdate(next, old, ValidateOptions{}), c.want)
		})
	}
}

func TestWWWMoreOverridesAndWarnings(t *testing.T) {
	cases := []struct {
		value string
		want  bool
		errs  int
	}{
		{"true", true, 0}, {"1", true, 0}, {"T", true, 0}, {"false", false, 0}, {"0", false, 0}, {"yes", false, 1}, {"", false, 1},
	}
	for _, c := range cases {
		o, errs := ParseAnnotations(map[string]string{AnnWWWRedirect: c.value}, annotationsPath)
		if o.WWWRedirect != c.want || len(errs) != c.errs || !reflect.DeepEqual(o, Overrides{WWWRedirect: c.want}) {
			t.Errorf("www-redirect=%q: %+v, %v; want %t with %d errors", c.value, o, errs, c.want, c.errs)
		}
	}
	path := "metadata.annotations[" + AnnWWWRedirect + "]: "
	warnings := []struct {
		value string
		want  []string
	}{
		{"true", nil},
		{"TRUE", nil},
		{"1", []string{path + `"1" is read as true; "true" is the documented spelling`}},
		{"F", []string{path + `"F" is read as false; "false" is the documented spelling`}},
		{"maybe", nil},
	}
	for _, c := range warnings {
		if got := Warnings(route(withAnnotation(AnnWWWRedirect, c.value)), WarningOptions{}); !reflect.DeepEqual(got, c.want) {
			t.Errorf("www-redirect=%q: warnings %q, want %q", c.value, got, c.want)
		}
	}
	if got := Warnings(route(withAnnotation(AnnWWWRedirect, "1"), withTLS(TLSConfig{Termination: TLSTerminationPassthrough})), WarningOptions{}); !reflect.DeepEqual(got,
		[]string{path + `"1" is read as true; "true" is the documented spelling`}) {
		t.Errorf("passthrough: warnings %q", got)
	}
}
