package routecore

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// extMoreValidate validates one value of a catalogue annotation and returns
// the rendered error, "" when it is valid.
func extMoreValidate(t *testing.T, key, value string) string {
	t.Helper()
	a, ok := LookupAnnotation(key)
	if !ok {
		t.Fatalf("%s is not in the catalogue", key)
	}
	if err := a.Validate(annotationsPath.Key(key), value); err != nil {
		return err.Error()
	}
	return ""
}

// extMoreIPs returns n distinct IPv4 addresses separated by single spaces.
func extMoreIPs(n int) string {
	ips := make([]string, 0, n)
	for i := range n {
		ips = append(ips, "10."+itoaTest(i/65536)+"."+itoaTest(i/256%256)+"."+itoaTest(i%256))
	}
	return strings.Join(ips, " ")
}

func TestExtMoreParseBodySizeBoundaries(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		err  string
	}{
		{"1099511627776", 1 << 40, ""},
		{"1073741824k", 1 << 40, ""},
		{"1073741825k", 0, "must be at most 1024g"},
		{"1048576m", 1 << 40, ""},
		{"1048577M", 0, "must be at most 1024g"},
		{"1024G", 1 << 40, ""},
		{"00", 0, ""},
		{"007k", 7 << 10, ""},
		{"0g", 0, ""},
		{"1K", 1 << 10, ""},
		{"k", 0, "must be a size such as 8m, 512k or 1048576: a whole number of bytes, optionally followed by k, m or g; 0 means no limit"},
		{"G", 0, "must be a size such as 8m"},
		{"1kk", 0, "must be a size such as 8m"},
		{" 1", 0, "must be a size such as 8m"},
		{"1 ", 0, "must be a size such as 8m"},
		{"１", 0, "must be a size such as 8m"},
		{"1e3", 0, "must be a size such as 8m"},
		{"1_000", 0, "must be a size such as 8m"},
		{"1b", 0, "must be a size such as 8m"},
	}
	for _, c := range cases {
		got, err := ParseBodySize(c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("ParseBodySize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err) || got != 0):
			t.Errorf("ParseBodySize(%q) = %d, %v; want error %q", c.in, got, err, c.err)
		}
	}
}

func TestExtMoreValues(t *testing.T) {
	notIP := `: is not an IP address or CIDR; use a space-separated list such as "192.168.1.10 10.0.0.0/8"`
	absURL := `: must be an absolute http or https URL with a host, such as https://www.example.com/new$request_uri`
	urlChars := `: must be an absolute URL of letters, digits and -._~:/?#[]@!&'()*+,;=% (no spaces or quotes; $request_uri only at its end)`
	appPath := `: must be a path other than / starting with a single '/', of letters, digits and -._~:/?[]@!&'()*+,;=% (no spaces, quotes or '#'), such as /app`
	host := "https://example.com/"
	cases := []struct {
		key, value, want string
	}{
		// max-body-size: the error names the value.
		{AnnMaxBodySize, "1024g", ""},
		{AnnMaxBodySize, "", `Invalid value: "": must be a size such as 8m, 512k or 1048576: a whole number of bytes, optionally followed by k, m or g; 0 means no limit`},
		{AnnMaxBodySize, "1025g", `Invalid value: "1025g": must be at most 1024g`},
		{AnnMaxBodySize, "8m\n", `Invalid value: "8m\n": must not contain control characters such as newlines or tabs`},
		// redirect-to: length boundary (with and without $request_uri).
		{AnnRedirectTo, host + strings.Repeat("a", MaxRedirectURLLength-len(host)), ""},
		{AnnRedirectTo, host + strings.Repeat("a", MaxRedirectURLLength-len(host)+1), "Too long: may not be more than 2048 bytes"},
		{AnnRedirectTo, host + strings.Repeat("a", MaxRedirectURLLength-len(host)-len(RequestURIVariable)) + RequestURIVariable, ""},
		{AnnRedirectTo, host + strings.Repeat("a", MaxRedirectURLLength-len(host)-len(RequestURIVariable)+1) + RequestURIVariable, "Too long: may not be more than 2048 bytes"},
		{AnnRedirectTo, "HTTPS://Example.COM/A", ""},
		{AnnRedirectTo, "http://example.com:8080", ""},
		{AnnRedirectTo, "https://example.com/a%20b", ""},
		{AnnRedirectTo, "https://example.com/#frag", ""},
		{AnnRedirectTo, "https://[2001:db8::1]:8443/a$request_uri", ""},
		{AnnRedirectTo, "", `Invalid value: ""` + absURL},
		{AnnRedirectTo, "https://", `Invalid value: "https://"` + absURL},
		{AnnRedirectTo, "//example.com/", `Invalid value: "//example.com/"` + absURL},
		{AnnRedirectTo, "http:example.com", `Invalid value: "http:example.com"` + absURL},
		{AnnRedirectTo, "https://example.com/%zz", `Invalid value: "https://example.com/%zz"` + absURL},
		{AnnRedirectTo, "https://@example.com/", `Invalid value: "https://@example.com/"` + absURL},
		{AnnRedirectTo, "https://example.com/a$request_uri$request_uri", `Invalid value: "https://example.com/a$request_uri$request_uri"` + urlChars},
		{AnnRedirectTo, "https://example.com/$request_uri/x", `Invalid value: "https://example.com/$request_uri/x"` + urlChars},
		{AnnRedirectTo, "https://example.com/<x>", `Invalid value: "https://example.com/<x>"` + urlChars},
		{AnnRedirectTo, "https://example.com/a\\b", `Invalid value: "https://example.com/a\\b"` + urlChars},
		{AnnRedirectTo, "https://example.com/?$request_uri", `Invalid value: "https://example.com/?$request_uri": $request_uri brings the request's query: end the URL with a path before it`},
		{AnnRedirectTo, "https://example.com/a#x$request_uri", `Invalid value: "https://example.com/a#x$request_uri": $request_uri brings the request's query: end the URL with a path before it`},
		// app-root.
		{AnnAppRoot, "/" + strings.Repeat("a", MaxRedirectURLLength-1), ""},
		{AnnAppRoot, "/" + strings.Repeat("a", MaxRedirectURLLength), "Too long: may not be more than 2048 bytes"},
		{AnnAppRoot, "/a?b=c&d=%20", ""},
		{AnnAppRoot, "/a/", ""},
		{AnnAppRoot, "", `Invalid value: ""` + appPath},
		{AnnAppRoot, "app", `Invalid value: "app"` + appPath},
		{AnnAppRoot, "/a b", `Invalid value: "/a b"` + appPath},
		{AnnAppRoot, "/é", `Invalid value: "/é"` + appPath},
		{AnnAppRoot, "/$x", `Invalid value: "/$x"` + appPath},
		{AnnAppRoot, "///", `Invalid value: "///"` + appPath},
		// redirect-code: exact strings only.
		{AnnRedirectCode, "302", ""},
		{AnnRedirectCode, "303", ""},
		{AnnRedirectCode, "307", ""},
		{AnnRedirectCode, " 301", `Unsupported value: " 301": supported values: "301", "302", "303", "307", "308"`},
		{AnnRedirectCode, "", `Unsupported value: "": supported values: "301", "302", "303", "307", "308"`},
		// ip-denylist: CIDR edge forms, IPv6, zones; the error names the entry.
		{AnnIPDenylist, "", ""},
		{AnnIPDenylist, "0.0.0.0/0 ::/0", ""},
		{AnnIPDenylist, "10.0.0.1/32 2001:db8::/128 ::ffff:10.0.0.1", ""},
		{AnnIPDenylist, "10.0.0.1/33", `Invalid value: "10.0.0.1/33"` + notIP},
		{AnnIPDenylist, "2001:db8::/129", `Invalid value: "2001:db8::/129"` + notIP},
		{AnnIPDenylist, "10.0.0.1 fe80::1%eth0", `Invalid value: "fe80::1%eth0"` + notIP},
		{AnnIPDenylist, "10.0.0.256", `Invalid value: "10.0.0.256"` + notIP},
		{AnnIPDenylist, "010.0.0.1", `Invalid value: "010.0.0.1"` + notIP},
		{AnnIPDenylist, "10.0.0.1/", `Invalid value: "10.0.0.1/"` + notIP},
		{AnnIPDenylist, "10.0.0.0/8/8", `Invalid value: "10.0.0.0/8/8"` + notIP},
		{AnnIPDenylist, "10.0.0.1,10.0.0.2", `Invalid value: "10.0.0.1,10.0.0.2"` + notIP},
		{AnnIPDenylist, "10.0.0.1\t10.0.0.2", `Invalid value: "10.0.0.1\t10.0.0.2": must not contain control characters such as newlines or tabs`},
		{AnnIPDenylist, extMoreIPs(MaxAllowlistEntries), ""},
		{AnnIPDenylist, extMoreIPs(MaxAllowlistEntries + 1), "Too many: 10001: must have at most 10000 items"},
		{AnnRateLimitExempt, extMoreIPs(MaxAllowlistEntries + 1), "Too many: 10001: must have at most 10000 items"},
		{AnnRateLimitExempt, "::1 bad 10.0.0.1", `Invalid value: "bad"` + notIP},
		// rate-limit-status: 429 only.
		{AnnRateLimitStatus, "503", `Unsupported value: "503": supported values: "429"`},
		{AnnRateLimitStatus, "", `Unsupported value: "": supported values: "429"`},
	}
	for _, c := range cases {
		got := extMoreValidate(t, c.key, c.value)
		want := c.want
		if want != "" {
			want = "metadata.annotations[" + c.key + "]: " + want
		}
		if strings.HasPrefix(c.want, "Too long") || strings.HasPrefix(c.want, "Too many") {
			if !strings.HasPrefix(got, "metadata.annotations["+c.key+"]: ") || !strings.HasSuffix(got, c.want) {
				t.Errorf("%s=%.40q...: got %q, want %q", c.key, c.value, got, c.want)
			}
			continue
		}
		if got != want {
			t.Errorf("%s=%.80q:\n got %q\nwant %q", c.key, c.value, got, want)
		}
	}
}

func TestExtMoreOverrides(t *testing.T) {
	cases := []struct {
		name string
		ann  map[string]string
		want Overrides
		errs int
	}{
		{"body size 8M", map[string]string{AnnMaxBodySize: "8M"}, Overrides{MaxBodySize: BodySize{Set: true, Bytes: 8 << 20}}, 0},
		{"body size at the maximum", map[string]string{AnnMaxBodySize: "1024g"}, Overrides{MaxBodySize: BodySize{Set: true, Bytes: MaxBodySize}}, 0},
		{"invalid body size is not set", map[string]string{AnnMaxBodySize: "8 m"}, Overrides{}, 1},
		{"redirect code 308", map[string]string{AnnRedirectCode: "308"}, Overrides{RedirectCode: 308}, 0},
		{"invalid redirect code is not set", map[string]string{AnnRedirectCode: "300"}, Overrides{}, 1},
		{"invalid redirect-to is not set", map[string]string{AnnRedirectTo: "ftp://x"}, Overrides{}, 1},
		{"invalid app-root is not set", map[string]string{AnnAppRoot: "/"}, Overrides{}, 1},
		{"invalid rate-limit-status is not set", map[string]string{AnnRateLimitStatus: "430"}, Overrides{}, 1},
		{"invalid exempt list is dropped (fails open)", map[string]string{AnnRateLimitExempt: "10.0.0.1 bad"}, Overrides{}, 1},
		{"deny list blank", map[string]string{AnnIPDenylist: " "}, Overrides{IPDenylist: []string{}}, 0},
		{"deny list with a control character is kept", map[string]string{AnnIPDenylist: "10.0.0.1\n10.0.0.2"},
			Overrides{IPDenylist: []string{"10.0.0.1", "10.0.0.2"}}, 1},
		{"deny list over the limit is kept", map[string]string{AnnIPDenylist: extMoreIPs(MaxAllowlistEntries + 1)},
			Overrides{IPDenylist: strings.Fields(extMoreIPs(MaxAllowlistEntries + 1))}, 1},
		{"exempt IPv6", map[string]string{AnnRateLimitExempt: "2001:db8::/32"}, Overrides{RateLimitExempt: []string{"2001:db8::/32"}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, errs := ParseAnnotations(c.ann, annotationsPath)
			if len(errs) != c.errs {
				t.Errorf("errors %v, want %d", errs, c.errs)
			}
			if !reflect.DeepEqual(o, c.want) {
				t.Errorf("overrides\n got %+v\nwant %+v", o, c.want)
			}
		})
	}
}

func TestExtMoreWarnings(t *testing.T) {
	deny := "metadata.annotations[" + AnnIPDenylist + "]: "
	exempt := "metadata.annotations[" + AnnRateLimitExempt + "]: "
	spaces := func(read string) string {
		return "has leading, trailing or repeated spaces; routeshift reads " + read +
			", but OpenShift's router ignores such a list and lets every source in: separate the entries with single spaces"
	}
	needsRateLimit := `: has no effect unless haproxy.router.openshift.io/rate-limit-connections is "true"`
	cases := []struct {
		name string
		ann  map[string]string
		want []string
	}{
		{"deny list, single spaces", map[string]string{AnnIPDenylist: "10.0.0.1 10.0.0.2"}, nil},
		{"deny list, double space", map[string]string{AnnIPDenylist: "10.0.0.1  10.0.0.2"}, []string{deny + spaces("the 2 entries between them")}},
		{"deny list, leading space", map[string]string{AnnIPDenylist: " 10.0.0.1"}, []string{deny + spaces("its one entry")}},
		{"deny list, trailing space", map[string]string{AnnIPDenylist: "::1 10.0.0.1 10.0.0.2 "}, []string{deny + spaces("the 3 entries between them")}},
		{"deny list, blank", map[string]string{AnnIPDenylist: "  "}, nil},
		{"invalid deny list is not warned about", map[string]string{AnnIPDenylist: " bad"}, nil},
		{"exempt without rate limit", map[string]string{AnnRateLimitExempt: "10.0.0.0/8"}, []string{"metadata.annotations[" + AnnRateLimitExempt + "]" + needsRateLimit}},
		{"exempt with rate limit false", map[string]string{AnnRateLimitExempt: "10.0.0.0/8", AnnRateLimit: "false"},
			[]string{"metadata.annotations[" + AnnRateLimitExempt + "]" + needsRateLimit}},
		{"exempt with rate limit", map[string]string{AnnRateLimitExempt: "10.0.0.0/8", AnnRateLimit: "true"}, nil},
		{"exempt with spaces and no rate limit", map[string]string{AnnRateLimitExempt: "10.0.0.0/8 "},
			[]string{"metadata.annotations[" + AnnRateLimitExempt + "]" + needsRateLimit, exempt + spaces("its one entry")}},
		{"status with rate limit", map[string]string{AnnRateLimitStatus: "429", AnnRateLimit: "true"}, nil},
		{"status with rate limit 1", map[string]string{AnnRateLimitStatus: "429", AnnRateLimit: "1"},
			[]string{`metadata.annotations[` + AnnRateLimit + `]: "1" is read as true; "true" is the documented spelling`}},
		{"redirect code alone", map[string]string{AnnRedirectCode: "301"}, nil},
		{"body size and app-root", map[string]string{AnnMaxBodySize: "1m", AnnAppRoot: "/app"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := route(func(r *Route) { r.Annotations = c.ann })
			if got := Warnings(r, WarningOptions{}); !reflect.DeepEqual(got, c.want) {
				t.Errorf("warnings\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestExtMoreRefusedOutsideSet(t *testing.T) {
	var got []string
	for _, a := range refusedOutside {
		got = append(got, a.Key)
	}
	slices.Sort(got)
	want := []string{AnnAppRoot, AnnAuthBasicSecret, AnnCanaryBackend, AnnCanaryByCookie, AnnCanaryByHeader, AnnCanaryByHeaderPattern,
		AnnCanaryByHeaderValue, AnnIPDenylist, AnnMaxBodySize, AnnRateLimitStatus, AnnRedirectTo, AnnWWWRedirect}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("refused outside HTTP:\n got %q\nwant %q", got, want)
	}
}

// TestExtMorePassthroughUpdate: a stored passthrough route keeps its
// annotation only with the same value; the refusal names the new value.
func TestExtMorePassthroughUpdate(t *testing.T) {
	pass := withTLS(TLSConfig{Termination: TLSTerminationPassthrough})
	msg := func(k, v string) string {
		return "metadata.annotations[" + k + `]: Invalid value: "` + v + `": has no effect on passthrough routes, whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)`
	}
	cases := []struct {
		name     string
		old, new []func(*Route)
		want     []string
	}{
		{"value changed", []func(*Route){pass, withAnnotation(AnnMaxBodySize, "1m")}, []func(*Route){pass, withAnnotation(AnnMaxBodySize, "2m")},
			[]string{msg(AnnMaxBodySize, "2m")}},
		{"annotation added", []func(*Route){pass}, []func(*Route){pass, withAnnotation(AnnAppRoot, "/app")}, []string{msg(AnnAppRoot, "/app")}},
		{"other annotation changed", []func(*Route){pass, withAnnotation(AnnIPDenylist, "10.0.0.1"), withAnnotation("team", "a")},
			[]func(*Route){pass, withAnnotation(AnnIPDenylist, "10.0.0.1"), withAnnotation("team", "b")}, nil},
		{"auth secret kept", []func(*Route){pass, withAnnotation(AnnAuthBasicSecret, "users")},
			[]func(*Route){pass, withAnnotation(AnnAuthBasicSecret, "users")}, nil},
		{"one kept, one added", []func(*Route){pass, withAnnotation(AnnRedirectTo, "https://a.example.com")},
			[]func(*Route){pass, withAnnotation(AnnRedirectTo, "https://a.example.com"), withAnnotation(AnnWWWRedirect, "true")},
			[]string{msg(AnnWWWRedirect, "true")}},
		{"moved to edge", []func(*Route){pass, withAnnotation(AnnMaxBodySize, "1m")},
			[]func(*Route){withTLS(TLSConfig{Termination: TLSTerminationEdge}), withAnnotation(AnnMaxBodySize, "1m")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old, next := route(c.old...), route(c.new...)
			old.ResourceVersion, next.ResourceVersion = "1", "1"
			sameMessages(t, ValidateRouteUpdate(next, old, ValidateOptions{}), c.want)
		})
	}
}

func TestExtMoreOpenShiftIgnores(t *testing.T) {
	cases := []struct {
		name string
		ann  map[string]string
		want []string
	}{
		{"nil", nil, nil},
		{"empty", map[string]string{}, nil},
		{"new annotations, sorted", map[string]string{AnnWWWRedirect: "true", AnnCanaryBackend: "c", AnnAuthBasicSecret: "u", AnnAuthBasicRealm: "r"},
			[]string{AnnAuthBasicRealm, AnnAuthBasicSecret, AnnCanaryBackend, AnnWWWRedirect}},
		{"case of the key matters", map[string]string{"RouteShift.io/max-body-size": "1m", "routeshift.io/Max-Body-Size": "1m"}, nil},
		{"invalid value still listed", map[string]string{AnnRateLimitExempt: "bad"}, []string{AnnRateLimitExempt}},
	}
	for _, c := range cases {
		if got := OpenShiftIgnores(c.ann); !slices.Equal(got, c.want) {
			t.Errorf("%s: OpenShiftIgnores = %q, want %q", c.name, got, c.want)
		}
	}
	for k, want := range map[string]bool{
		"routeshift.io/x": true, AnnMaxBodySize: true, "routeshift.io": false, "ROUTESHIFT.IO/x": false,
		"x.routeshift.io/y": false, "routeshift.iox/y": false, "": false,
	} {
		if got := IsRouteshiftAnnotation(k); got != want {
			t.Errorf("IsRouteshiftAnnotation(%q) = %t, want %t", k, got, want)
		}
	}
}
