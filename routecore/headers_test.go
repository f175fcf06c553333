package routecore

import (
	"fmt"
	"testing"
)

func withHeaders(response, request []RouteHTTPHeader) func(*Route) {
	return func(r *Route) {
		r.Spec.HTTPHeaders = &RouteHTTPHeaders{Actions: RouteHTTPHeaderActions{Response: response, Request: request}}
	}
}

func setHeader(name, value string) RouteHTTPHeader {
	return RouteHTTPHeader{Name: name, Action: RouteHTTPHeaderActionUnion{Type: Set, Set: &RouteSetHTTPHeader{Value: value}}}
}

func deleteHeader(name string) RouteHTTPHeader {
	return RouteHTTPHeader{Name: name, Action: RouteHTTPHeaderActionUnion{Type: Delete}}
}

// TestValidateHeaders pins the spec.httpHeaders rules, accepted and refused,
// to the messages a user reads.
func TestValidateHeaders(t *testing.T) {
	const resp = "spec.httpHeaders.actions.response"
	const req = "spec.httpHeaders.actions.request"
	responseFmt := "Either header value provided is not in correct format or the converter specified is not allowed. The dynamic header value  may use HAProxy's %[] syntax and otherwise must be a valid HTTP header value as defined in https://datatracker.ietf.org/doc/html/rfc7230#section-3.2 Sample fetchers allowed are res.hdr, ssl_c_der. Converters allowed are lower, base64."
	many := make([]RouteHTTPHeader, 21)
	for i := range many {
		many[i] = setHeader(fmt.Sprintf("X-H%d", i), "v")
	}
	edge := withTLS(TLSConfig{Termination: TLSTerminationEdge})
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{name: "set and delete on edge", route: route(edge, withHeaders(
			[]RouteHTTPHeader{setHeader("X-Frame-Options", "DENY"), deleteHeader("X-Powered-By")},
			[]RouteHTTPHeader{setHeader("X-Client", "%[req.hdr(host),lower]"), setHeader("X-Cert", "%{+Q}[ssl_c_der,base64]"), setHeader("X-Pct", "100%%")}))},
		{name: "headers on a plain route", route: route(withHeaders([]RouteHTTPHeader{setHeader("X-A", "b")}, nil))},
		{name: "empty actions on passthrough", route: route(withTLS(TLSConfig{Termination: TLSTerminationPassthrough}), withHeaders(nil, nil))},
		{name: "21 request headers", route: route(edge, withHeaders(nil, many)),
			want: []string{req + ": Invalid value: 21: request headers list can't exceed 20 items"}},
		{name: "duplicate name", route: route(edge, withHeaders([]RouteHTTPHeader{setHeader("X-Frame-Options", "DENY"), deleteHeader("X-Frame-Options")}, nil)),
			want: []string{resp + `[1].name: Duplicate value: "X-Frame-Options"`}},
		{name: "names differing in case are not duplicates", route: route(edge, withHeaders([]RouteHTTPHeader{setHeader("X-A", "1"), setHeader("x-a", "2")}, nil))},
		{name: "reserved name", route: route(edge, withHeaders(nil, []RouteHTTPHeader{deleteHeader("Cookie")})),
			want: []string{req + "[0].name: Forbidden: the following headers may not be modified using this API: strict-transport-security, proxy, cookie, set-cookie"}},
		{name: "Delete with value", route: route(edge, withHeaders([]RouteHTTPHeader{{Name: "X-A", Action: RouteHTTPHeaderActionUnion{Type: Delete, Set: &RouteSetHTTPHeader{Value: "v"}}}}, nil)),
			want: []string{resp + "[0].action.set: Required value: set is required when type is Set, and forbidden otherwise"}},
		{name: "lone percent", route: route(edge, withHeaders([]RouteHTTPHeader{setHeader("X-A", "100%")}, nil)),
			want: []string{resp + `[0].action.set.value: Invalid value: "100%": ` + responseFmt}},
		{name: "newline in value", route: route(edge, withHeaders([]RouteHTTPHeader{setHeader("X-A", "a\nb")}, nil)),
			want: []string{resp + `[0].action.set.value: Invalid value: "a\nb": ` + responseFmt}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{}), tt.want)
		})
	}
}
