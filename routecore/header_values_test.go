package routecore

import (
	"fmt"
	"strings"
	"testing"
)

// TestHeaderValueGrammar: a header value is literal text without control
// characters or a lone '%', "%%", and %[fetch(,converter)*] with optional
// {Q,X,E} flags, where the fetch is the direction's hdr(NAME) or
// ssl_c_der and the converters lower and base64.
func TestHeaderValueGrammar(t *testing.T) {
	tests := []struct {
		direction, value string
		ok               bool
	}{
		{"response", "DENY", true},
		{"response", `max-age=31536000; "quoted"`, true},
		{"response", "Zoë", true},
		{"response", "100%%", true},
		{"response", "%[res.hdr(X-A)]", true},
		{"response", "%[res.hdr(x-a),lower]", true},
		{"response", "%[res.hdr(A),lower,base64]", true},
		{"response", "%[ssl_c_der]", true},
		{"response", "%[ssl_c_der,base64]", true},
		{"response", "%{+Q}[res.hdr(A)]", true},
		{"response", "%{+Q,-X,E}[ssl_c_der]", true},
		{"response", "a %[res.hdr(A)] b %[ssl_c_der]", true},
		{"request", "%[req.hdr(Host)]", true},
		{"request", "%[req.hdr(Host),lower]", true},
		{"request", "%[ssl_c_der,base64]", true},
		{"response", "%", false},
		{"response", "50%", false},
		{"response", "%%%", false},
		{"response", "%[res.hdr()]", false},
		{"response", "%[res.hdr(A)", false},
		{"response", "%[res.hdr(A_B)]", false},
		{"response", "%[res.hdr(A),upper]", false},
		{"response", "%[res.hdr(A),lower,]", false},
		{"response", "%{Z}[ssl_c_der]", false},
		{"response", "%{}[ssl_c_der]", false},
		{"response", "%[ssl_c_s_dn]", false},
		{"response", "%[req.hdr(Host)]", false},
		{"request", "%[res.hdr(A)]", false},
		{"request", "a\x7fb", false},
		{"request", "a\rb", false},
	}
	for _, tt := range tests {
		t.Run(tt.direction+"/"+tt.value, func(t *testing.T) {
			h := []RouteHTTPHeader{setHeader("X-A", tt.value)}
			r, fetch := route(edge, withHeaders(h, nil)), "res.hdr"
			if tt.direction == "request" {
				r, fetch = route(edge, withHeaders(nil, h)), "req.hdr"
			}
			var want []string
			if !tt.ok {
				want = []string{"spec.httpHeaders.actions." + tt.direction + fmt.Sprintf("[0].action.set.value: Invalid value: %q: ", tt.value) + headerValueMessage(fetch)}
			}
			sameMessages(t, ValidateRoute(r, ValidateOptions{}), want)
		})
	}
}

// TestHeaderNames: names are HTTP tokens; the four reserved names are
// refused in any case, in both directions, for Set and Delete alike.
func TestHeaderNames(t *testing.T) {
	reserved := "Forbidden: the following headers may not be modified using this API: strict-transport-security, proxy, cookie, set-cookie"
	tests := []struct {
		name string
		h    RouteHTTPHeader
		want string
	}{
		{"token characters", setHeader("X_A.b!#$%&'*+^`|~", "v"), ""},
		{"a name that contains a reserved one", deleteHeader("X-Cookie"), ""},
		{"colon", setHeader("X:A", "v"), `Invalid value: "X:A": name must be a valid HTTP header name as defined in RFC 2616 section 4.2`},
		{"parenthesis", setHeader("X(A)", "v"), `Invalid value: "X(A)": name must be a valid HTTP header name as defined in RFC 2616 section 4.2`},
		{"non-ASCII", setHeader("Ä", "v"), `Invalid value: "Ä": name must be a valid HTTP header name as defined in RFC 2616 section 4.2`},
		{"255 characters", setHeader(strings.Repeat("n", 255), "v"), ""},
		{"STRICT-TRANSPORT-SECURITY", setHeader("STRICT-TRANSPORT-SECURITY", "v"), reserved},
		{"proxy, deleted", deleteHeader("proxy"), reserved},
		{"Set-cookie", setHeader("Set-cookie", "v"), reserved},
	}
	for _, tt := range tests {
		for _, direction := range []string{"response", "request"} {
			t.Run(tt.name+"/"+direction, func(t *testing.T) {
				r := route(edge, withHeaders([]RouteHTTPHeader{tt.h}, nil))
				if direction == "request" {
					r = route(edge, withHeaders(nil, []RouteHTTPHeader{tt.h}))
				}
				var want []string
				if tt.want != "" {
					want = []string{"spec.httpHeaders.actions." + direction + "[0].name: " + tt.want}
				}
				sameMessages(t, ValidateRoute(r, ValidateOptions{}), want)
			})
		}
	}
}

// TestHeaderErrorOrder: response errors come before request errors; in a
// list, each action's duplicate, name and action errors in turn.
func TestHeaderErrorOrder(t *testing.T) {
	r := route(edge, withHeaders(
		[]RouteHTTPHeader{setHeader("Set-Cookie", "v"), {Name: "Set-Cookie", Action: RouteHTTPHeaderActionUnion{Type: "Add"}}},
		[]RouteHTTPHeader{setHeader("", "")},
	))
	sameMessages(t, ValidateRoute(r, ValidateOptions{}), []string{
		"spec.httpHeaders.actions.response[0].name: Forbidden: the following headers may not be modified using this API: strict-transport-security, proxy, cookie, set-cookie",
		`spec.httpHeaders.actions.response[1].name: Duplicate value: "Set-Cookie"`,
		"spec.httpHeaders.actions.response[1].name: Forbidden: the following headers may not be modified using this API: strict-transport-security, proxy, cookie, set-cookie",
		`spec.httpHeaders.actions.response[1].action.type: Invalid value: "Add": type must be "Set" or "Delete"`,
		"spec.httpHeaders.actions.request[0].name: Required value",
		"spec.httpHeaders.actions.request[0].action.set.value: Required value",
	})
	r = route(edge, withHeaders(nil, []RouteHTTPHeader{deleteHeader("X-A"),
		{Name: "X-A", Action: RouteHTTPHeaderActionUnion{Type: Delete, Set: &RouteSetHTTPHeader{Value: "v"}}}}))
	sameMessages(t, ValidateRoute(r, ValidateOptions{}), []string{
		`spec.httpHeaders.actions.request[1].name: Duplicate value: "X-A"`,
		"spec.httpHeaders.actions.request[1].action.set: Required value: set is required when type is Set, and forbidden otherwise",
	})
}

// TestHeaderValuesTotal: the total of a list's Set values is judged once
// every action is valid, counting Set actions only, and on update only
// when the list changed (in any way, order included).
func TestHeaderValuesTotal(t *testing.T) {
	half := strings.Repeat("v", MaxHeaderValuesTotal/2)
	over := []RouteHTTPHeader{setHeader("X-A", half), setHeader("X-B", half), setHeader("X-C", "v")}
	overErr := "spec.httpHeaders.actions.response: Invalid value: 16385: the values of the headers to set may add up to at most 16384 bytes, so that they fit in HAProxy's buffer with the message"
	tests := []struct {
		name     string
		old, new *Route
		want     []string
	}{
		{"at the total, with deletes", nil, route(edge, withHeaders([]RouteHTTPHeader{setHeader("X-A", half), setHeader("X-B", half), deleteHeader("X-C")}, nil)), nil},
		{"over the total", nil, route(edge, withHeaders(over, nil)), []string{overErr}},
		{"over the total in both directions: each list on its own", nil, route(edge, withHeaders(over[:2], over[:2])), nil},
		{"over the total with a bad value: the value only", nil, route(edge, withHeaders(append(over[:2:2], setHeader("X-C", "%")), nil)),
			[]string{`spec.httpHeaders.actions.response[2].action.set.value: Invalid value: "%": ` + headerValueMessage("res.hdr")}},
		{"stored over the total, unchanged", route(edge, withHeaders(over, nil)), route(edge, withHeaders(over, nil), func(r *Route) { r.Spec.Path = "/x" }), nil},
		{"stored over the total, reordered", route(edge, withHeaders(over, nil)),
			route(edge, withHeaders([]RouteHTTPHeader{over[2], over[0], over[1]}, nil)), []string{overErr}},
		{"stored over the total, request list changed", route(edge, withHeaders(over, nil)),
			route(edge, withHeaders(over, []RouteHTTPHeader{setHeader("X-D", "v")})), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.old == nil {
				sameMessages(t, ValidateRoute(tt.new, ValidateOptions{}), tt.want)
				return
			}
			sameMessages(t, ValidateRouteUpdate(tt.new, tt.old, ValidateOptions{}), tt.want)
		})
	}
}
