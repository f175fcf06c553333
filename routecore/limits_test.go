package routecore

import (
	"fmt"
	"strings"
	"testing"
)

// TestLimits: every limit of values that reach HAProxy's configuration
// accepts a value of exactly the limit and refuses one byte more, with the
// message a user reads.
func TestLimits(t *testing.T) {
	ann := func(key string) string { return "metadata.annotations[" + key + "]" }
	path := func(n int) string { return "/" + strings.Repeat("p", n-1) }
	hsts := func(n int) string { return "max-age=" + strings.Repeat("1", n-len("max-age=")) }
	allowlist := func(n int) string { return strings.TrimSpace(strings.Repeat("10.0.0.1 ", n)) }
	set := func(name string, n int) RouteHTTPHeader {
		return RouteHTTPHeader{Name: name, Action: RouteHTTPHeaderActionUnion{Type: Set, Set: &RouteSetHTTPHeader{Value: strings.Repeat("v", n)}}}
	}
	request := func(list ...RouteHTTPHeader) func(*Route) {
		return func(r *Route) {
			r.Spec.TLS = &TLSConfig{Termination: TLSTerminationEdge}
			r.Spec.HTTPHeaders = &RouteHTTPHeaders{Actions: RouteHTTPHeaderActions{Request: list}}
		}
	}
	// Two Set actions whose values take n bytes in all.
	headers := func(n int) func(*Route) {
		return request(set("X-A", n/2), set("X-B", n-n/2))
	}
	tests := []struct {
		name          string
		atLimit, over *Route
		want          string
	}{
		{"spec.path", route(func(r *Route) { r.Spec.Path = path(MaxPathLength) }), route(func(r *Route) { r.Spec.Path = path(MaxPathLength + 1) }),
			"spec.path: Too long: may not be more than 2048 bytes"},
		{"rewrite-target", route(withAnnotation(AnnRewriteTarget, path(MaxRewriteTargetLength))), route(withAnnotation(AnnRewriteTarget, path(MaxRewriteTargetLength+1))),
			ann(AnnRewriteTarget) + ": Too long: may not be more than 2048 bytes"},
		{"cookie_name", route(withAnnotation(AnnCookieName, strings.Repeat("c", MaxCookieNameLength))), route(withAnnotation(AnnCookieName, strings.Repeat("c", MaxCookieNameLength+1))),
			ann(AnnCookieName) + ": Too long: may not be more than 1024 bytes"},
		{"hsts_header", route(withAnnotation(AnnHSTSHeader, hsts(MaxHSTSHeaderLength))), route(withAnnotation(AnnHSTSHeader, hsts(MaxHSTSHeaderLength+1))),
			ann(AnnHSTSHeader) + ": Too long: may not be more than 1024 bytes"},
		{"ip_allowlist", route(withAnnotation(AnnIPAllowlist, allowlist(MaxAllowlistEntries))), route(withAnnotation(AnnIPAllowlist, allowlist(MaxAllowlistEntries+1))),
			ann(AnnIPAllowlist) + ": Too many: 10001: must have at most 10000 items"},
		{"header name", route(request(set(strings.Repeat("n", MaxHeaderNameLength), 1))), route(request(set(strings.Repeat("n", MaxHeaderNameLength+1), 1))),
			`spec.httpHeaders.actions.request[0].name: Invalid value: "` + strings.Repeat("n", MaxHeaderNameLength+1) + `": name exceeds the maximum length, which is 255`},
		{"header value", route(request(set("X-A", MaxHeaderValueLength))), route(request(set("X-A", MaxHeaderValueLength+1))),
			`spec.httpHeaders.actions.request[0].action.set.value: Invalid value: "` + strings.Repeat("v", MaxHeaderValueLength+1) + `": value exceeds the maximum length, which is 16384`},
		{"header values in all", route(headers(MaxHeaderValuesTotal)), route(headers(MaxHeaderValuesTotal + 1)),
			"spec.httpHeaders.actions.request: Invalid value: 16385: the values of the headers to set may add up to at most 16384 bytes, so that they fit in HAProxy's buffer with the message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs := ValidateRoute(tt.atLimit, ValidateOptions{}); len(errs) > 0 {
				t.Errorf("at the limit: %s", shorten(messages(errs)))
			}
			errs := ValidateRoute(tt.over, ValidateOptions{})
			if got := messages(errs); len(got) != 1 || got[0] != tt.want {
				t.Errorf("one byte over:\n got: %s\nwant: %s", shorten(got), shorten([]string{tt.want}))
			}
		})
	}
}

// shorten keeps failure output readable when messages quote long values.
func shorten(msgs []string) string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		if len(m) > 300 {
			m = fmt.Sprintf("%s…(%d bytes)…%s", m[:150], len(m), m[len(m)-150:])
		}
		out[i] = m
	}
	return fmt.Sprintf("%q", out)
}

// TestLimitsRatchet: a stored route over a limit stays editable as long as
// the value over the limit does not change.
func TestLimitsRatchet(t *testing.T) {
	long := "/" + strings.Repeat("p", MaxPathLength)
	set := RouteHTTPHeader{Name: "X-A", Action: RouteHTTPHeaderActionUnion{Type: Set, Set: &RouteSetHTTPHeader{Value: strings.Repeat("v", MaxHeaderValueLength)}}}
	over := func(r *Route) {
		r.Spec.Path = long
		r.Spec.TLS = &TLSConfig{Termination: TLSTerminationEdge}
		r.Spec.HTTPHeaders = &RouteHTTPHeaders{Actions: RouteHTTPHeaderActions{Response: []RouteHTTPHeader{set, set}}}
		r.Spec.HTTPHeaders.Actions.Response[1].Name = "X-B"
		r.Annotations = map[string]string{AnnRewriteTarget: long}
	}
	old := route(over)
	edited := route(over, func(r *Route) { r.Labels = map[string]string{"team": "a"} })
	if errs := ValidateRouteUpdate(edited, old, ValidateOptions{}); len(errs) > 0 {
		t.Errorf("unchanged values over the limits: %s", shorten(messages(errs)))
	}
	changed := route(over, func(r *Route) { r.Spec.Path = long + "x"; r.Annotations[AnnRewriteTarget] = long + "x" })
	if got := ValidateRouteUpdate(changed, old, ValidateOptions{}); len(got) != 2 {
		t.Errorf("changed values over the limits: want 2 errors, got %s", shorten(messages(got)))
	}
}
