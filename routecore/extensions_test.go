package routecore

import (
	"slices"
	"strings"
	"testing"
)

func TestParseBodySize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		err  string
	}{
		{"0", 0, ""},
		{"1", 1, ""},
		{"1048576", 1 << 20, ""},
		{"512k", 512 << 10, ""},
		{"512K", 512 << 10, ""},
		{"8m", 8 << 20, ""},
		{"8M", 8 << 20, ""},
		{"1g", 1 << 30, ""},
		{"1024g", 1 << 40, ""},
		{"1025g", 0, "must be at most 1024g"},
		{"1099511627777", 0, "must be at most 1024g"},
		{"99999999999999999999", 0, "must be at most 1024g"},
		{"", 0, "must be a size such as 8m"},
		{"m", 0, "must be a size such as 8m"},
		{"8mb", 0, "must be a size such as 8m"},
		{"8 m", 0, "must be a size such as 8m"},
		{"-1", 0, "must be a size such as 8m"},
		{"+1", 0, "must be a size such as 8m"},
		{"1.5m", 0, "must be a size such as 8m"},
		{"8t", 0, "must be a size such as 8m"},
		{"0x10", 0, "must be a size such as 8m"},
	}
	for _, c := range cases {
		got, err := ParseBodySize(c.in)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)) {
			t.Errorf("ParseBodySize(%q) = %d, %v; want %d, %q", c.in, got, err, c.want, c.err)
		}
	}
}

// TestExtensionValues: each of routeshift's annotations, accepted and
// refused values with their messages.
func TestExtensionValues(t *testing.T) {
	ann := func(k string) string { return "metadata.annotations[" + k + "]: " }
	cases := []struct {
		key, value string
		want       string // "" when valid
	}{
		{AnnRedirectTo, "https://www.example.com", ""},
		{AnnRedirectTo, "http://example.com:8080/new/path?x=1", ""},
		{AnnRedirectTo, "https://www.example.com/new$request_uri", ""},
		{AnnRedirectTo, "https://www.example.com$request_uri", ""},
		{AnnRedirectTo, "https://[2001:db8::1]/a", ""},
		{AnnRedirectTo, "ftp://example.com/", `Invalid value: "ftp://example.com/": must be an absolute http or https URL with a host`},
		{AnnRedirectTo, "/relative", `Invalid value: "/relative": must be an absolute http or https URL with a host`},
		{AnnRedirectTo, "https://user:pw@example.com/", `Invalid value: "https://user:pw@example.com/": must be an absolute http or https URL with a host`},
		{AnnRedirectTo, "https://example.com/a b", `Invalid value: "https://example.com/a b": must be an absolute URL of letters, digits`},
		{AnnRedirectTo, `https://example.com/"x"`, `must be an absolute URL of letters, digits`},
		{AnnRedirectTo, "https://example.com/$host", `must be an absolute URL of letters, digits`},
		{AnnRedirectTo, "https://example.com/é", `must be an absolute URL of letters, digits`},
		{AnnRedirectTo, "https://example.com/?a=1$request_uri", `Invalid value: "https://example.com/?a=1$request_uri": $request_uri brings the request's query: end the URL with a path before it`},
		{AnnRedirectTo, "https://example.com/" + strings.Repeat("a", MaxRedirectURLLength), "Too long: may not be more than 2048 bytes"},
		{AnnRedirectCode, "301", ""},
		{AnnRedirectCode, "308", ""},
		{AnnRedirectCode, "304", `Unsupported value: "304": supported values: "301", "302", "303", "307", "308"`},
		{AnnAppRoot, "/app", ""},
		{AnnAppRoot, "/app/index.html?lang=en", ""},
		{AnnAppRoot, "/", `Invalid value: "/": must be a path other than /`},
		{AnnAppRoot, "//evil.example.com", `Invalid value: "//evil.example.com": must be a path other than /`},
		{AnnAppRoot, "/app#top", `must be a path other than /`},
		{AnnAppRoot, "https://example.com/app", `must be a path other than /`},
		{AnnAppRoot, "/" + strings.Repeat("a", MaxRedirectURLLength), "Too long: may not be more than 2048 bytes"},
		{AnnMaxBodySize, "0", ""},
		{AnnMaxBodySize, "10m", ""},
		{AnnMaxBodySize, "2048g", `Invalid value: "2048g": must be at most 1024g`},
		{AnnIPDenylist, "10.0.0.1 192.168.0.0/16 ::1", ""},
		{AnnIPDenylist, "10.0.0.1/40", `Invalid value: "10.0.0.1/40": is not an IP address or CIDR`},
		{AnnRateLimitStatus, "429", ""},
		{AnnRateLimitStatus, "true", `Unsupported value: "true": supported values: "429"`},
		{AnnRateLimitExempt, "10.0.0.0/8", ""},
		{AnnRateLimitExempt, "everyone", `Invalid value: "everyone": is not an IP address or CIDR`},
	}
	for _, c := range cases {
		a, ok := LookupAnnotation(c.key)
		if !ok {
			t.Fatalf("%s is not in the catalogue", c.key)
		}
		err := a.Validate(annotationsPath.Key(c.key), c.value)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s=%q refused: %v", c.key, c.value, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), ann(c.key)) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s=%q: %v, want %q", c.key, c.value, err, c.want)
		}
	}
}

// TestExtensionOverrides: what each annotation sets, and that a body size
// of 0 is set (it lifts the router's limit) while no annotation is not.
func TestExtensionOverrides(t *testing.T) {
	o, errs := ParseAnnotations(map[string]string{
		AnnMaxBodySize: "0", AnnIPDenylist: "10.0.0.1  10.1.0.0/16", AnnRedirectTo: "https://a.example.com$request_uri",
		AnnRedirectCode: "307", AnnAppRoot: "/app", AnnRateLimitStatus: "429", AnnRateLimitExempt: "10.0.0.0/8 ::1",
	}, annotationsPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if o.MaxBodySize != (BodySize{Set: true}) || !slices.Equal(o.IPDenylist, []string{"10.0.0.1", "10.1.0.0/16"}) ||
		o.RedirectTo != "https://a.example.com$request_uri" || o.RedirectCode != 307 || o.AppRoot != "/app" ||
		o.RateLimitStatus != 429 || !slices.Equal(o.RateLimitExempt, []string{"10.0.0.0/8", "::1"}) {
		t.Errorf("overrides %+v", o)
	}
	if o, _ := ParseAnnotations(map[string]string{AnnMaxBodySize: "1k"}, annotationsPath); o.MaxBodySize != (BodySize{Set: true, Bytes: 1024}) {
		t.Errorf("max-body-size 1k: %+v", o.MaxBodySize)
	}
	if o, _ := ParseAnnotations(nil, annotationsPath); o.MaxBodySize.Set || o.IPDenylist != nil || o.RedirectCode != 0 {
		t.Errorf("no annotations set %+v", o)
	}
	// The deny list fails closed: an unreadable entry is kept for the
	// router to refuse the route rather than drop it.
	if o, errs := ParseAnnotations(map[string]string{AnnIPDenylist: "10.0.0.1 bad"}, annotationsPath); len(errs) != 1 ||
		!slices.Equal(o.IPDenylist, []string{"10.0.0.1", "bad"}) {
		t.Errorf("invalid deny list: %v, %v", o.IPDenylist, errs)
	}
}

// TestExtensionsRefusedOnPassthrough: what acts only on HTTP is refused on
// passthrough routes (not merely warned about), unless the stored route
// already had it so.
func TestExtensionsRefusedOnPassthrough(t *testing.T) {
	pass := withTLS(TLSConfig{Termination: TLSTerminationPassthrough})
	msg := func(k, v string) string {
		return "metadata.annotations[" + k + `]: Invalid value: "` + v + `": has no effect on passthrough routes, whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)`
	}
	for _, k := range []string{AnnMaxBodySize, AnnIPDenylist, AnnRedirectTo, AnnAppRoot, AnnRateLimitStatus} {
		a, _ := LookupAnnotation(k)
		v := map[string]string{AnnMaxBodySize: "1m", AnnIPDenylist: "10.0.0.1", AnnRedirectTo: "https://a.example.com", AnnAppRoot: "/app", AnnRateLimitStatus: "429"}[k]
		if !a.RefusedOutside {
			t.Errorf("%s is not refused outside HTTP", k)
		}
		sameMessages(t, ValidateRoute(route(pass, withAnnotation(k, v)), ValidateOptions{}), []string{msg(k, v)})
		sameMessages(t, ValidateRoute(route(withAnnotation(k, v)), ValidateOptions{}), nil)
		sameMessages(t, ValidateRoute(route(withTLS(TLSConfig{Termination: TLSTerminationEdge}), withAnnotation(k, v)), ValidateOptions{}), nil)
		// The router does not refuse what the webhook would.
		sameMessages(t, ValidateRoute(route(pass, withAnnotation(k, v)), ValidateOptions{SkipAnnotationValues: true}), nil)
		// Update: stored so, kept; changed value or termination, refused.
		old := route(pass, withAnnotation(k, v))
		sameMessages(t, ValidateRouteUpdate(route(pass, withAnnotation(k, v)), old, ValidateOptions{}), nil)
		sameMessages(t, ValidateRouteUpdate(route(pass, withAnnotation(k, v)), route(withAnnotation(k, v)), ValidateOptions{}), []string{msg(k, v)})
	}
	// redirect-code and rate-limit-exempt only warn.
	for _, k := range []string{AnnRedirectCode, AnnRateLimitExempt} {
		v := map[string]string{AnnRedirectCode: "308", AnnRateLimitExempt: "10.0.0.0/8"}[k]
		sameMessages(t, ValidateRoute(route(pass, withAnnotation(k, v)), ValidateOptions{}), nil)
	}
	if w := Warnings(route(pass, withAnnotation(AnnRedirectCode, "308")), WarningOptions{}); !slices.Contains(w,
		"metadata.annotations[routeshift.io/redirect-code]: has no effect on passthrough routes") {
		t.Errorf("warnings %q", w)
	}
}

func TestExtensionWarnings(t *testing.T) {
	w := Warnings(route(withAnnotation(AnnRedirectTo, "https://a.example.com")), WarningOptions{})
	want := "metadata.annotations[routeshift.io/redirect-to]: every request is redirected, so the route's services (spec.to, alternateBackends) are never reached"
	if !slices.Contains(w, want) {
		t.Errorf("warnings %q lack %q", w, want)
	}
	w = Warnings(route(withAnnotation(AnnRateLimitStatus, "429")), WarningOptions{})
	if !slices.Contains(w, `metadata.annotations[routeshift.io/rate-limit-status]: has no effect unless haproxy.router.openshift.io/rate-limit-connections is "true"`) {
		t.Errorf("warnings %q", w)
	}
	for _, w := range Warnings(route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough}), withAnnotation(AnnMaxBodySize, "1m")), WarningOptions{}) {
		if strings.Contains(w, AnnMaxBodySize) {
			t.Errorf("a refused annotation is also warned about: %q", w)
		}
	}
}

func TestOpenShiftIgnores(t *testing.T) {
	got := OpenShiftIgnores(map[string]string{AnnRedirectTo: "https://a.example.com", AnnTimeout: "5s", AnnMaxBodySize: "1m",
		AnnPathType: "Exact", "routeshift.io/unknown": "x", "example.com/other": "y"})
	if want := []string{AnnMaxBodySize, AnnPathType, AnnRedirectTo}; !slices.Equal(got, want) {
		t.Errorf("OpenShiftIgnores = %q, want %q", got, want)
	}
	if got := OpenShiftIgnores(map[string]string{AnnTimeout: "5s"}); got != nil {
		t.Errorf("OpenShiftIgnores of OpenShift's own = %q", got)
	}
}
