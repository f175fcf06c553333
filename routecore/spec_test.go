package routecore

import (
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestPathRules: a path starts with '/', has no '#', space or control
// character, is UTF-8 and at most MaxPathLength bytes; a query or
// percent-encoding is allowed; passthrough routes have none. Every
// broken rule is reported, in this order.
func TestPathRules(t *testing.T) {
	withPath := func(p string) func(*Route) { return func(r *Route) { r.Spec.Path = p } }
	passthrough := withTLS(TLSConfig{Termination: TLSTerminationPassthrough})
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"root", route(withPath("/")), nil},
		{"a query", route(withPath("/search?q=1")), nil},
		{"percent-encoding", route(withPath("/a%20b")), nil},
		{"non-ASCII", route(withPath("/café")), nil},
		{"edge", route(edge, withPath("/api")), nil},
		{"no slash, a space", route(withPath("a b")), []string{
			`spec.path: Invalid value: "a b": path must begin with /`,
			`spec.path: Invalid value: "a b": cannot contain # or spaces`}},
		{"passthrough, a space", route(passthrough, withPath("/a b")), []string{
			`spec.path: Invalid value: "/a b": passthrough termination does not support paths`,
			`spec.path: Invalid value: "/a b": cannot contain # or spaces`}},
		{"a newline", route(withPath("/a\nb")), []string{`spec.path: Invalid value: "/a\nb": cannot contain control characters such as tabs or newlines`}},
		{"DEL", route(withPath("/a\x7f")), []string{`spec.path: Invalid value: "/a\x7f": cannot contain control characters such as tabs or newlines`}},
		{"too long, with a space", route(withPath("/ " + strings.Repeat("p", MaxPathLength))), []string{
			"spec.path: Too long: may not be more than 2048 bytes",
			`spec.path: Invalid value: "/ ` + strings.Repeat("p", MaxPathLength) + `": cannot contain # or spaces`}},
		{"a space and a bad byte", route(withPath("/a b\xff")), []string{
			`spec.path: Invalid value: "/a b\xff": cannot contain # or spaces`,
			`spec.path: Invalid value: "/a b\xff": must be valid UTF-8`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{}), tt.want)
		})
	}
}

// TestPathRulesOnUpdate: the character and length rules apply to a
// changed path only; the leading slash and passthrough rules always.
func TestPathRulesOnUpdate(t *testing.T) {
	withPath := func(p string, mods ...func(*Route)) *Route {
		return route(append(mods, func(r *Route) { r.Spec.Path = p })...)
	}
	passthrough := withTLS(TLSConfig{Termination: TLSTerminationPassthrough})
	tests := []struct {
		name     string
		old, new *Route
		want     []string
	}{
		{"stored tab", withPath("/a\tb"), withPath("/a\tb", func(r *Route) { r.Labels = map[string]string{"a": "b"} }), nil},
		{"stored path made passthrough", withPath("/api"), withPath("/api", passthrough),
			[]string{`spec.path: Invalid value: "/api": passthrough termination does not support paths`}},
		{"stored path without slash", withPath("api"), withPath("api"), []string{`spec.path: Invalid value: "api": path must begin with /`}},
		{"path changed to a tab", withPath("/a"), withPath("/a\tb"),
			[]string{`spec.path: Invalid value: "/a\tb": cannot contain control characters such as tabs or newlines`}},
		{"path removed", withPath("/a b"), route(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRouteUpdate(tt.new, tt.old, ValidateOptions{}), tt.want)
		})
	}
}

// TestAlternateBackendRules: a Service named twice is reported once, at
// its second place; backends of other kinds or names are different keys;
// more than MaxAlternateBackends is one error besides the others.
func TestAlternateBackendRules(t *testing.T) {
	svc := func(name string) RouteTargetReference {
		return RouteTargetReference{Kind: "Service", Name: name, Weight: weight(1)}
	}
	alternates := func(refs ...RouteTargetReference) *Route {
		return route(func(r *Route) { r.Spec.AlternateBackends = refs })
	}
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"three different", alternates(svc("a"), svc("b"), svc("c")), nil},
		{"same name, other kind", alternates(svc("a"), RouteTargetReference{Kind: "Pod", Name: "a"}),
			[]string{`spec.alternateBackends[1].kind: Invalid value: "Pod": must reference a Service`}},
		{"same Service, other weights", alternates(svc("a"), RouteTargetReference{Kind: "Service", Name: "a", Weight: weight(9)}),
			[]string{`spec.alternateBackends[1]: Duplicate value: {"kind":"Service","name":"a"}`}},
		{"two Services twice", alternates(svc("a"), svc("b"), svc("b"), svc("a")), []string{
			"spec.alternateBackends: Required value: cannot specify more than 3 alternate backends",
			`spec.alternateBackends[2]: Duplicate value: {"kind":"Service","name":"b"}`,
			`spec.alternateBackends[3]: Duplicate value: {"kind":"Service","name":"a"}`}},
		{"five, one without name", alternates(svc("a"), svc("b"), svc("c"), svc("d"), RouteTargetReference{Kind: "Service"}), []string{
			"spec.alternateBackends: Required value: cannot specify more than 3 alternate backends",
			"spec.alternateBackends[4].name: Required value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{}), tt.want)
		})
	}
}

// TestWildcardPolicyOnUpdate: the policy cannot change, an empty policy
// being None.
func TestWildcardPolicyOnUpdate(t *testing.T) {
	policy := func(p WildcardPolicyType) *Route { return route(func(r *Route) { r.Spec.WildcardPolicy = p }) }
	tests := []struct {
		old, new WildcardPolicyType
		want     []string
	}{
		{WildcardPolicyNone, "", nil},
		{WildcardPolicySubdomain, WildcardPolicySubdomain, nil},
		{WildcardPolicySubdomain, WildcardPolicyNone, []string{`spec.wildcardPolicy: Invalid value: "None": field is immutable`}},
		{WildcardPolicySubdomain, "", []string{`spec.wildcardPolicy: Invalid value: "": field is immutable`}},
		{"", WildcardPolicySubdomain, []string{`spec.wildcardPolicy: Invalid value: "Subdomain": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(string(tt.old)+"->"+string(tt.new), func(t *testing.T) {
			sameMessages(t, ValidateRouteUpdate(policy(tt.new), policy(tt.old), ValidateOptions{}), tt.want)
		})
	}
}

// TestTargetPort: a port is named or numbered; only 0 and "" are refused
// (the string "0" names a port).
func TestTargetPort(t *testing.T) {
	for _, tt := range []struct {
		port intstr.IntOrString
		ok   bool
	}{
		{intstr.FromInt32(1), true},
		{intstr.FromInt32(65535), true},
		{intstr.FromString("https"), true},
		{intstr.FromString("0"), true},
		{intstr.FromInt32(0), false},
		{intstr.FromString(""), false},
	} {
		var want []string
		if !tt.ok {
			want = []string{"spec.port.targetPort: Required value"}
		}
		sameMessages(t, ValidateRoute(route(func(r *Route) { r.Spec.Port = &RoutePort{TargetPort: tt.port} }), ValidateOptions{}), want)
	}
}

// TestGeneratedHostLabelBoundary: for a generateName-only Route, the name
// the API server makes (the prefix cut to 58 characters, 5 more) and the
// namespace make the first label of its host: 63 characters pass, 64 do
// not.
func TestGeneratedHostLabelBoundary(t *testing.T) {
	tests := []struct {
		prefix, namespace string
		label             int
	}{
		{strings.Repeat("g", 53), "demo", 63},
		{strings.Repeat("g", 54), "demo", 64},
		{strings.Repeat("g", 80), "ns", 66},
		{"g", strings.Repeat("n", 56), 63},
		{"g", strings.Repeat("n", 57), 64},
	}
	for _, tt := range tests {
		r := route(func(r *Route) { r.Name, r.GenerateName, r.Namespace, r.Spec.Host = "", tt.prefix, tt.namespace, "" })
		var want []string
		if tt.label > 63 {
			want = []string{`metadata.generateName: Invalid value: "` + tt.prefix + `": the host generated for this Route would start with <name>-<namespace>, ` + strconv.Itoa(tt.label) + ` characters: must be no more than 63; shorten generateName or the namespace`}
		}
		sameMessages(t, ValidateRoute(r, ValidateOptions{}), want)
	}
}

// TestWildcardAndSubdomain: a Subdomain wildcard route names its host; a
// subdomain alone serves for None routes (the router adds its domain).
func TestWildcardAndSubdomain(t *testing.T) {
	spec := func(host, subdomain string, policy WildcardPolicyType) *Route {
		return route(func(r *Route) { r.Spec.Host, r.Spec.Subdomain, r.Spec.WildcardPolicy = host, subdomain, policy })
	}
	noHost := `spec.wildcardPolicy: Invalid value: "Subdomain": host name not specified for wildcard policy`
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"None with a subdomain", spec("", "shop", WildcardPolicyNone), nil},
		{"Subdomain with a host", spec("any.apps.example.com", "", WildcardPolicySubdomain), nil},
		{"Subdomain with a subdomain only", spec("", "shop", WildcardPolicySubdomain), []string{noHost}},
		{"Subdomain with a star host", spec("*.apps.example.com", "", WildcardPolicySubdomain), []string{
			`spec.host: Invalid value: "*.apps.example.com": ` + dns952Msg,
			`spec.host: Invalid value: "*.apps.example.com": ` + labelMsg}},
		{"bad host and bad subdomain", spec("A.example.com", "B", WildcardPolicyNone), []string{
			`spec.host: Invalid value: "A.example.com": ` + dns952Msg,
			`spec.host: Invalid value: "A.example.com": ` + labelMsg,
			`spec.subdomain: Invalid value: "B": ` + labelMsg}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{}), tt.want)
		})
	}
}

// TestGeneratedHostIsNotForeign: the host Default generates with a suffix
// is not reported as another cluster's by Warnings with the same suffix,
// and is reported with another.
func TestGeneratedHostIsNotForeign(t *testing.T) {
	r := route(func(r *Route) { r.Name, r.Spec.Host = "web.v2", "" })
	Default(r, nil, DefaultOptions{RouteSuffix: "apps.example.com"})
	if w := Warnings(r, WarningOptions{GeneratedHostSuffix: "apps.example.com"}); len(w) != 0 {
		t.Errorf("Warnings = %q", w)
	}
	if w := Warnings(r, WarningOptions{GeneratedHostSuffix: "apps.example.org"}); len(w) != 1 || !strings.Contains(w[0], "this cluster would generate web-v2-ns.apps.example.org") {
		t.Errorf("Warnings with another suffix = %q", w)
	}
}
