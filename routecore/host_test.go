package routecore

import (
	"strings"
	"testing"
)

// TestGenerateHost: <name, dots made dashes>-<namespace>.<suffix>; nothing
// without a name or a namespace; the default suffix for an empty one.
func TestGenerateHost(t *testing.T) {
	tests := []struct {
		name, namespace, suffix, want string
	}{
		{"web", "shop", "apps.example.com", "web-shop.apps.example.com"},
		{"web", "shop", "", "web-shop.router.default.svc.cluster.local"},
		{"www.v2", "shop", "apps.example.com", "www-v2-shop.apps.example.com"},
		{"a..b", "ns", "s.example", "a--b-ns.s.example"},
		{"", "shop", "apps.example.com", ""},
		{"web", "", "apps.example.com", ""},
	}
	for _, tt := range tests {
		if got := GenerateHost(tt.name, tt.namespace, tt.suffix); got != tt.want {
			t.Errorf("GenerateHost(%q, %q, %q) = %q, want %q", tt.name, tt.namespace, tt.suffix, got, tt.want)
		}
	}
}

// TestHostRules: spec.host is a lower-case DNS subdomain of at most 253
// characters (one error in OpenShift's words), and each of its labels a
// DNS label of at most 63 (one error per bad label, all on the whole
// host), unless route.openshift.io/allow-non-dns-compliant-host is
// exactly "true".
func TestHostRules(t *testing.T) {
	allow := withAnnotation(AllowNonDNSCompliantHostAnnotation, "true")
	host := func(h string) func(*Route) { return func(r *Route) { r.Spec.Host = h } }
	sub := func(h string) string { return `spec.host: Invalid value: "` + h + `": ` + dns952Msg }
	label := func(h string) string { return `spec.host: Invalid value: "` + h + `": ` + labelMsg }
	tooLong := func(h string) string {
		return `spec.host: Invalid value: "` + h + `": must be no more than 63 characters`
	}
	label63 := strings.Repeat("a", 63)
	label64 := strings.Repeat("a", 64)
	at253 := strings.Repeat(label63+".", 3) + strings.Repeat("b", 61)
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"single label", route(host("localhost")), nil},
		{"digits only", route(host("123.456")), nil},
		{"label of 63", route(host(label63 + ".example.com")), nil},
		{"253 characters", route(host(at253)), nil},
		{"254 characters", route(host(at253 + "b")), []string{sub(at253 + "b")}},
		{"label of 64", route(host(label64 + ".example.com")), []string{tooLong(label64 + ".example.com")}},
		{"two labels of 64", route(host(label64 + "." + label64)), []string{tooLong(label64 + "." + label64), tooLong(label64 + "." + label64)}},
		{"two bad labels", route(host("A.B.example.com")), []string{sub("A.B.example.com"), label("A.B.example.com"), label("A.B.example.com")}},
		{"leading hyphen", route(host("-www.example.com")), []string{sub("-www.example.com"), label("-www.example.com")}},
		{"trailing hyphen in a label", route(host("www-.example.com")), []string{sub("www-.example.com"), label("www-.example.com")}},
		{"empty label", route(host("www..example.com")), []string{sub("www..example.com"), label("www..example.com")}},
		{"wildcard label", route(host("*.example.com")), []string{sub("*.example.com"), label("*.example.com")}},
		{"underscore", route(host("_dmarc.example.com")), []string{sub("_dmarc.example.com"), label("_dmarc.example.com")}},
		{"label of 64 allowed by the annotation", route(allow, host(label64+".example.com")), nil},
		{"the annotation keeps the subdomain rule", route(allow, host("www_x.example.com")), []string{sub("www_x.example.com")}},
		{"the annotation must be exactly true", route(withAnnotation(AllowNonDNSCompliantHostAnnotation, "True"), host(label64+".example.com")),
			[]string{tooLong(label64 + ".example.com")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{}), tt.want)
		})
	}
}

// TestSubdomainRules: spec.subdomain has at most 253 characters and DNS
// labels, each bad label named in its error.
func TestSubdomainRules(t *testing.T) {
	sub := func(s string) func(*Route) { return func(r *Route) { r.Spec.Host, r.Spec.Subdomain = "", s } }
	at253 := strings.Repeat(strings.Repeat("s", 63)+".", 3) + strings.Repeat("t", 61)
	label := func(l string) string { return `spec.subdomain: Invalid value: "` + l + `": ` + labelMsg }
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"several labels", route(sub("shop.eu")), nil},
		{"253 characters", route(sub(at253)), nil},
		{"254 characters", route(sub(at253 + "t")), []string{`spec.subdomain: Invalid value: "` + at253 + `t": must be no more than 253 characters`}},
		{"two bad labels", route(sub("Shop.EU")), []string{label("Shop"), label("EU")}},
		{"empty label", route(sub("shop..eu")), []string{label("")}},
		{"label of 64", route(sub(strings.Repeat("x", 64))), []string{`spec.subdomain: Invalid value: "` + strings.Repeat("x", 64) + `": must be no more than 63 characters`}},
		{"bad label with a host too", route(func(r *Route) { r.Spec.Subdomain = "Shop" }), []string{label("Shop")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{}), tt.want)
		})
	}
}

// TestHostRulesOnUpdate: the label rule ratchets: it checks a changed
// host only when the stored one passed it; the subdomain rule always
// applies.
func TestHostRulesOnUpdate(t *testing.T) {
	label64 := strings.Repeat("a", 64)
	host := func(h string) *Route { return route(func(r *Route) { r.Spec.Host = h }) }
	tooLong := func(h string) string {
		return `spec.host: Invalid value: "` + h + `": must be no more than 63 characters`
	}
	tests := []struct {
		name     string
		old, new *Route
		want     []string
	}{
		{"valid to valid", host("a.example.com"), host("b.example.com"), nil},
		{"valid to a long label", host("a.example.com"), host(label64 + ".example.com"), []string{tooLong(label64 + ".example.com")}},
		{"long label kept", host(label64 + ".example.com"), host(label64 + ".example.com"), nil},
		{"long label to another", host(label64 + ".example.com"), host(label64 + "b.example.com"), nil},
		{"long label to upper case", host(label64 + ".example.com"), host("A.example.com"), []string{`spec.host: Invalid value: "A.example.com": ` + dns952Msg}},
		{"host removed: the stored one is kept by Default", host("a.example.com"), host(""), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Default(tt.new, tt.old, DefaultOptions{})
			sameMessages(t, ValidateRouteUpdate(tt.new, tt.old, ValidateOptions{}), tt.want)
		})
	}
}
