package routecore

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestHeaderValuePatterns: the value grammar of each direction on its own:
// literal text is any character but '%' and the controls; "%%" is a
// literal '%'; a dynamic part is %[fetch(,converter)*] with an optional
// {flags} list of Q, X and E, each optionally signed, where the fetch name
// is exact (case included) and a header name has letters, digits and '-'.
func TestHeaderValuePatterns(t *testing.T) {
	tests := []struct {
		value             string
		request, response bool
	}{
		{"€ and ü", true, true},
		{"%%%%", true, true},
		{"%%[x]", true, true},
		{"%[ssl_c_der]%[ssl_c_der]", true, true},
		{"%{Q}[ssl_c_der]", true, true},
		{"%{-E}[ssl_c_der,lower,lower]", true, true},
		{"%[ssl_c_der],lower", true, true},
		{"%[req.hdr(X-Forwarded-For2)]", true, false},
		{"%[res.hdr(Content-Type),base64,lower]", false, true},
		{"%{+Q,}[ssl_c_der]", false, false},
		{"%{+QX}[ssl_c_der]", false, false},
		{"%{ Q}[ssl_c_der]", false, false},
		{"%[ ssl_c_der]", false, false},
		{"%[ssl_c_der ]", false, false},
		{"%[SSL_C_DER]", false, false},
		{"%[REQ.HDR(A)]", false, false},
		{"%[hdr(A)]", false, false},
		{"%[req.hdr(a b)]", false, false},
		{"%[req.hdr(A),LOWER]", false, false},
		{"%[ssl_c_der,base64(1)]", false, false},
		{"%[]", false, false},
		{"a\tb", false, false},
		{"a\x00b", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		if got := requestHeaderValue.MatchString(tt.value); got != tt.request {
			t.Errorf("request value %q: matched %v, want %v", tt.value, got, tt.request)
		}
		if got := responseHeaderValue.MatchString(tt.value); got != tt.response {
			t.Errorf("response value %q: matched %v, want %v", tt.value, got, tt.response)
		}
	}
	if !strings.Contains(headerValueMessage("req.hdr"), "Sample fetchers allowed are req.hdr, ssl_c_der.") ||
		!strings.Contains(headerValueMessage("res.hdr"), "Sample fetchers allowed are res.hdr, ssl_c_der.") {
		t.Error("the value message does not name the direction's fetch")
	}
}

// TestValidateHeaderName: a name is required, then limited in length,
// then checked against the reserved names (any case, exact otherwise),
// then against the token grammar; one error at most, on the given path.
func TestValidateHeaderName(t *testing.T) {
	path := field.NewPath("spec", "httpHeaders", "actions", "request").Index(3).Child("name")
	const reserved = "Forbidden: the following headers may not be modified using this API: strict-transport-security, proxy, cookie, set-cookie"
	const token = "name must be a valid HTTP header name as defined in RFC 2616 section 4.2"
	long := strings.Repeat(" ", MaxHeaderNameLength+1)
	tests := []struct {
		name, want string
	}{
		{"", "Required value"},
		{" ", `Invalid value: " ": ` + token},
		{long, `Invalid value: "` + long + `": name exceeds the maximum length, which is 255`},
		{strings.Repeat("a", MaxHeaderNameLength), ""},
		{"PROXY", reserved},
		{"Cookie", reserved},
		{"Strict-Transport-Security", reserved},
		{"Cookie2", ""},
		{"Set-Cookie ", `Invalid value: "Set-Cookie ": ` + token},
		{"Proxy-Authorization", ""},
		{"X-Ä", `Invalid value: "X-Ä": ` + token},
		{"X/A", `Invalid value: "X/A": ` + token},
		{"X\"A", `Invalid value: "X\"A": ` + token},
		{"1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			if tt.want != "" {
				want = []string{path.String() + ": " + tt.want}
			}
			sameMessages(t, validateHeaderName(tt.name, path), want)
		})
	}
}

// TestValidateHeaderAction: the type is Set or Delete exactly; set is
// given with Set and only with Set; a Set value is required, limited in
// length and then matched against the direction's grammar; one error at
// most, on the given path.
func TestValidateHeaderAction(t *testing.T) {
	path := field.NewPath("spec", "httpHeaders", "actions", "response").Index(0).Child("action")
	const p = "spec.httpHeaders.actions.response[0].action"
	set := func(v string) *RouteSetHTTPHeader { return &RouteSetHTTPHeader{Value: v} }
	over := strings.Repeat("%", MaxHeaderValueLength+1)
	tests := []struct {
		name string
		a    RouteHTTPHeaderActionUnion
		want string
	}{
		{"Set", RouteHTTPHeaderActionUnion{Type: Set, Set: set("v")}, ""},
		{"Delete", RouteHTTPHeaderActionUnion{Type: Delete}, ""},
		{"no type", RouteHTTPHeaderActionUnion{}, p + `.type: Invalid value: "": type must be "Set" or "Delete"`},
		{"set in lower case", RouteHTTPHeaderActionUnion{Type: "set", Set: set("v")}, p + `.type: Invalid value: "set": type must be "Set" or "Delete"`},
		{"Set without set", RouteHTTPHeaderActionUnion{Type: Set}, p + ".set: Required value: set is required when type is Set, and forbidden otherwise"},
		{"Set with an empty value", RouteHTTPHeaderActionUnion{Type: Set, Set: set("")}, p + ".set.value: Required value"},
		{"value too long, whatever its characters", RouteHTTPHeaderActionUnion{Type: Set, Set: set(over)},
			p + `.set.value: Invalid value: "` + over + `": value exceeds the maximum length, which is 16384`},
		{"value of the other direction", RouteHTTPHeaderActionUnion{Type: Set, Set: set("%[req.hdr(A)]")},
			p + `.set.value: Invalid value: "%[req.hdr(A)]": ` + headerValueMessage("res.hdr")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			if tt.want != "" {
				want = []string{tt.want}
			}
			got := validateHeaderAction(&tt.a, responseHeaderValue, "res.hdr", path)
			if strings.Join(messages(got), "\n") != strings.Join(want, "\n") {
				t.Errorf("errors:\n got: %s\nwant: %s", shorten(messages(got)), shorten(want))
			}
		})
	}
}

// TestHeadersOnTerminations: header actions are refused on passthrough
// routes (on spec.tls.termination, once for both directions, before the
// actions' own errors) and accepted on every other termination.
func TestHeadersOnTerminations(t *testing.T) {
	const refused = `spec.tls.termination: Invalid value: "passthrough": only edge and re-encrypt routes are supported for providing customized headers.`
	one := []RouteHTTPHeader{setHeader("X-A", "v")}
	passthrough := withTLS(TLSConfig{Termination: TLSTerminationPassthrough})
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"passthrough, response", route(passthrough, withHeaders(one, nil)), []string{refused}},
		{"passthrough, request", route(passthrough, withHeaders(nil, one)), []string{refused}},
		{"passthrough, both", route(passthrough, withHeaders(one, one)), []string{refused}},
		{"passthrough, and a bad name", route(passthrough, withHeaders([]RouteHTTPHeader{deleteHeader("Proxy")}, nil)), []string{refused,
			"spec.httpHeaders.actions.response[0].name: Forbidden: the following headers may not be modified using this API: strict-transport-security, proxy, cookie, set-cookie"}},
		{"reencrypt", route(withTLS(TLSConfig{Termination: TLSTerminationReencrypt}), withHeaders(one, one)), nil},
		{"edge", route(edge, withHeaders(one, one)), nil},
		{"no TLS", route(withHeaders(one, one)), nil},
		{"httpHeaders without actions", route(passthrough, func(r *Route) { r.Spec.HTTPHeaders = &RouteHTTPHeaders{} }), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{}), tt.want)
		})
	}
}

// TestHeaderListSize: each direction takes up to MaxHeaderActions
// actions; over it, the list alone is reported (its actions are not
// judged).
func TestHeaderListSize(t *testing.T) {
	list := func(n int, name string) []RouteHTTPHeader {
		out := make([]RouteHTTPHeader, n)
		for i := range out {
			out[i] = setHeader(fmt.Sprintf("%s%d", name, i), "v")
		}
		return out
	}
	sameMessages(t, ValidateRoute(route(edge, withHeaders(list(MaxHeaderActions, "X-"), list(MaxHeaderActions, "X-"))), ValidateOptions{}), nil)
	// Bad names beyond the limit are not reported.
	sameMessages(t, ValidateRoute(route(edge, withHeaders(list(MaxHeaderActions+1, "Bad Name "), nil)), ValidateOptions{}),
		[]string{"spec.httpHeaders.actions.response: Invalid value: 21: response headers list can't exceed 20 items"})
}

// TestHeaderValuesTotalInBytes: the total of the Set values is counted in
// bytes, Delete actions adding nothing; tooLong likewise measures bytes.
func TestHeaderValuesTotalInBytes(t *testing.T) {
	path := field.NewPath("spec", "httpHeaders", "actions", "request")
	euros := strings.Repeat("€", MaxHeaderValuesTotal/3) // 3 bytes each
	rest := MaxHeaderValuesTotal - len(euros)
	tests := []struct {
		name string
		list []RouteHTTPHeader
		want []string
	}{
		{"exactly the total", []RouteHTTPHeader{setHeader("X-A", euros), setHeader("X-B", strings.Repeat("v", rest)), deleteHeader("X-C")}, nil},
		{"a byte over", []RouteHTTPHeader{setHeader("X-A", euros), setHeader("X-B", strings.Repeat("v", rest+1))}, []string{
			"spec.httpHeaders.actions.request: Invalid value: 16385: the values of the headers to set may add up to at most 16384 bytes, so that they fit in HAProxy's buffer with the message"}},
		{"nothing to set", []RouteHTTPHeader{deleteHeader("X-A")}, nil},
		{"empty list", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, validateHeaderValuesTotal(tt.list, path), tt.want)
		})
	}
	p := field.NewPath("spec", "path")
	if err := tooLong(p, strings.Repeat("é", 2), 4); err != nil {
		t.Errorf("tooLong at the limit: %v", err)
	}
	if err := tooLong(p, strings.Repeat("é", 2)+"x", 4); err == nil || err.Error() != "spec.path: Too long: may not be more than 4 bytes" {
		t.Errorf("tooLong a byte over: %v", err)
	}
}
