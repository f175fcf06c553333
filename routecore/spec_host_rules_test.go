package routecore

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestSpecValidateHost: the subdomain rule gives one error in OpenShift's
// words; the label rule, when asked for, one error per message of each bad
// label (a label both too long and badly formed gives two); every error is
// on the given path with the whole host as its value.
func TestSpecValidateHost(t *testing.T) {
	path := field.NewPath("status", "ingress").Index(0).Child("host")
	const tooLong = "must be no more than 63 characters"
	long := strings.Repeat("a", 64)
	tests := []struct {
		host        string
		checkLabels bool
		want        []string // details, in order
	}{
		{"a", true, nil},
		{"10.0.0.1", true, nil},
		{"xn--bcher-kva.example", true, nil},
		{"0-0.example", true, nil},
		{long + ".example.com", false, nil},
		{long + ".example.com", true, []string{tooLong}},
		{"WWW.example.com", false, []string{dns952Msg}},
		{"WWW.example.com", true, []string{dns952Msg, labelMsg}},
		{"bücher.example", true, []string{dns952Msg, labelMsg}},
		{"A" + long[1:] + ".example.com", true, []string{dns952Msg, tooLong, labelMsg}},
		{"a b.example.com", true, []string{dns952Msg, labelMsg}},
		{".example.com", true, []string{dns952Msg, labelMsg}},
		{"www.example.com.", false, []string{dns952Msg}},
	}
	for _, tt := range tests {
		errs := validateHost(tt.host, tt.checkLabels, path)
		var got []string
		for _, e := range errs {
			if e.Type != field.ErrorTypeInvalid || e.Field != path.String() || e.BadValue != tt.host {
				t.Errorf("validateHost(%q, %v): error %#v not Invalid on %s with the host as value", tt.host, tt.checkLabels, e, path)
			}
			got = append(got, e.Detail)
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("validateHost(%q, %v) = %q, want %q", tt.host, tt.checkLabels, got, tt.want)
		}
	}
}

// TestSpecValidateSubdomain: spec.subdomain reports its length on the whole
// value, then one error per bad label, the label as the value and its
// messages joined with ", ".
func TestSpecValidateSubdomain(t *testing.T) {
	path := field.NewPath("spec", "subdomain")
	upper64 := strings.Repeat("X", 64)
	over := strings.Repeat(strings.Repeat("s", 63)+".", 4) // 256 characters, the last label empty
	tests := []struct {
		subdomain string
		values    []string
		details   []string
	}{
		{"shop", nil, nil},
		{"0", nil, nil},
		{"shop-eu.apps", nil, nil},
		{upper64, []string{upper64}, []string{"must be no more than 63 characters, " + labelMsg}},
		{"shop.", []string{""}, []string{labelMsg}},
		{"café.eu", []string{"café"}, []string{labelMsg}},
		{"Shop.eu.Apps", []string{"Shop", "Apps"}, []string{labelMsg, labelMsg}},
		{over, []string{over, ""}, []string{"must be no more than 253 characters", labelMsg}},
	}
	for _, tt := range tests {
		errs := validateSubdomain(tt.subdomain, path)
		if len(errs) != len(tt.details) {
			t.Errorf("validateSubdomain(%q) = %q, want %d errors", tt.subdomain, messages(errs), len(tt.details))
			continue
		}
		for i, e := range errs {
			if e.Type != field.ErrorTypeInvalid || e.Field != "spec.subdomain" || e.BadValue != tt.values[i] || e.Detail != tt.details[i] {
				t.Errorf("validateSubdomain(%q)[%d] = %q on %s, value %q; want %q, value %q", tt.subdomain, i, e.Detail, e.Field, e.BadValue, tt.details[i], tt.values[i])
			}
		}
	}
}

// TestSpecHostLabelsValid: a stored host passes the label rule when every
// dot-separated label is a lower-case DNS label of 1 to 63 characters; no
// host has no label to fail.
func TestSpecHostLabelsValid(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"www.example.com", true},
		{"a", true},
		{strings.Repeat("a", 63) + ".b", true},
		{"xn--bcher-kva.example", true},
		{strings.Repeat("a", 64) + ".b", false},
		{"Www.example.com", false},
		{"www..example.com", false},
		{"www.example.com.", false},
		{"*.example.com", false},
		{"-www.example.com", false},
		{"www-.example.com", false},
		{"ww_w.example.com", false},
		{"bücher.example", false},
		{"", true},
	}
	for _, tt := range tests {
		if got := hostLabelsValid(tt.host); got != tt.want {
			t.Errorf("hostLabelsValid(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

// TestSpecHostLabelRuleOnUpdate: on update the label rule judges a changed
// host whose stored host passed it, unless the new Route carries the
// allow-non-dns-compliant-host annotation set to "true"; an unchanged
// host is never judged by it, whatever the annotation.
func TestSpecHostLabelRuleOnUpdate(t *testing.T) {
	long := strings.Repeat("a", 64) + ".example.com"
	longer := strings.Repeat("b", 64) + ".example.com"
	allow := withAnnotation(AllowNonDNSCompliantHostAnnotation, "true")
	host := func(h string, mods ...func(*Route)) *Route {
		return route(append(mods, func(r *Route) { r.Spec.Host = h })...)
	}
	tooLong := func(h string) string {
		return `spec.host: Invalid value: "` + h + `": must be no more than 63 characters`
	}
	tests := []struct {
		name     string
		old, new *Route
		want     []string
	}{
		{"annotation dropped, long host unchanged", host(long, allow), host(long), nil},
		{"annotation dropped, long host changed", host(long, allow), host(longer), nil},
		{"annotation kept, valid host made long", host("www.example.com", allow), host(long, allow), nil},
		{"annotation added with the long host", host("www.example.com"), host(long, allow), nil},
		{"annotation dropped, valid host made long", host("www.example.com", allow), host(long), []string{tooLong(long)}},
		{"annotation False, valid host made long", host("www.example.com"), host(long, withAnnotation(AllowNonDNSCompliantHostAnnotation, "false")), []string{tooLong(long)}},
		{"host set where only a subdomain was", route(func(r *Route) { r.Spec.Subdomain = "shop" }),
			host(long, func(r *Route) { r.Spec.Subdomain = "shop" }), []string{tooLong(long)}},
		{"valid host made upper case: both rules", host("www.example.com"), host("WWW.example.com"), []string{
			`spec.host: Invalid value: "WWW.example.com": ` + dns952Msg,
			`spec.host: Invalid value: "WWW.example.com": ` + labelMsg}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRouteUpdate(tt.new, tt.old, ValidateOptions{}), tt.want)
		})
	}
}

// TestSpecGeneratedHostMeetsHostRules: a host Default generates for a named
// Route is judged like any host: <name>-<namespace> must fit in one label
// of 63 characters and the whole host in 253.
func TestSpecGeneratedHostMeetsHostRules(t *testing.T) {
	suffix240 := strings.Repeat(strings.Repeat("s", 59)+".", 4)[:239] + "t"
	ofLength := func(s string, n int) string {
		if len(s) != n {
			t.Fatalf("%q has %d characters, not %d", s, len(s), n)
		}
		return s
	}
	tests := []struct {
		name, routeName, namespace, suffix string
		host                               string
		want                               []string
	}{
		{"first label of 63", strings.Repeat("w", 30), strings.Repeat("n", 32), "apps.example.com",
			strings.Repeat("w", 30) + "-" + strings.Repeat("n", 32) + ".apps.example.com", nil},
		{"first label of 64", strings.Repeat("w", 30), strings.Repeat("n", 33), "apps.example.com",
			strings.Repeat("w", 30) + "-" + strings.Repeat("n", 33) + ".apps.example.com", []string{"must be no more than 63 characters"}},
		{"dotted name", "web.v2", "shop", "", "web-v2-shop." + DefaultRouteSuffix, nil},
		{"host of 253", strings.Repeat("w", 6), strings.Repeat("n", 5), suffix240, ofLength(strings.Repeat("w", 6)+"-"+strings.Repeat("n", 5)+"."+suffix240, 253), nil},
		{"host of 254", strings.Repeat("w", 6), strings.Repeat("n", 6), suffix240, ofLength(strings.Repeat("w", 6)+"-"+strings.Repeat("n", 6)+"."+suffix240, 254), []string{dns952Msg}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := route(func(r *Route) { r.Name, r.Namespace, r.Spec.Host = tt.routeName, tt.namespace, "" })
			Default(r, nil, DefaultOptions{RouteSuffix: tt.suffix})
			if r.Spec.Host != tt.host || r.Annotations[HostGeneratedAnnotation] != "true" {
				t.Fatalf("generated host %q (%d), annotation %q; want %q (%d)", r.Spec.Host, len(r.Spec.Host), r.Annotations[HostGeneratedAnnotation], tt.host, len(tt.host))
			}
			var want []string
			for _, d := range tt.want {
				want = append(want, `spec.host: Invalid value: "`+tt.host+`": `+d)
			}
			sameMessages(t, ValidateRoute(r, ValidateOptions{}), want)
		})
	}
}

// TestSpecGenerateHostComposes: GenerateHost only composes; it neither
// lowers the case nor checks what it is given, that is the host rules'
// business.
func TestSpecGenerateHostComposes(t *testing.T) {
	tests := []struct {
		name, namespace, suffix, want string
	}{
		{"Web", "Shop", "Apps.Example.com", "Web-Shop.Apps.Example.com"},
		{"web.", "shop", "apps.example.com", "web--shop.apps.example.com"},
		{".web", "shop", "apps.example.com", "-web-shop.apps.example.com"},
		{"café", "shop", "apps.example.com", "café-shop.apps.example.com"},
		{"web", "shop", ".apps.example.com", "web-shop..apps.example.com"},
		{"web", "sh.op", "apps.example.com", "web-sh.op.apps.example.com"},
	}
	for _, tt := range tests {
		if got := GenerateHost(tt.name, tt.namespace, tt.suffix); got != tt.want {
			t.Errorf("GenerateHost(%q, %q, %q) = %q, want %q", tt.name, tt.namespace, tt.suffix, got, tt.want)
		}
	}
}
