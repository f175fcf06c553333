package routecore

import (
	"strings"
	"testing"
)

// TestRouterAnnotationScope: the keys whose values routeshift owns (and
// refuses control characters in) are those of router.openshift.io and any
// *.router.openshift.io, route.openshift.io and routeshift.io.
func TestRouterAnnotationScope(t *testing.T) {
	for key, want := range map[string]bool{
		"router.openshift.io/cookie_name":          true,
		"haproxy.router.openshift.io/timeout":      true,
		"anything.router.openshift.io/x":           true,
		"route.openshift.io/owner":                 true,
		"routeshift.io/path-type":                  true,
		"router.openshift.io":                      false,
		"xrouter.openshift.io/a":                   false,
		"sub.routeshift.io/a":                      false,
		"sub.route.openshift.io/a":                 false,
		HostGeneratedAnnotation:                    false,
		"example.com/router.openshift.io":          false,
		"kubectl.kubernetes.io/last-applied-state": false,
	} {
		if got := RouterAnnotationScope(key); got != want {
			t.Errorf("RouterAnnotationScope(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestAnnotationErrors: control characters are refused in router
// annotations only; key errors come with the metadata, before the value
// errors; each kind comes in key order, whatever the map's order.
func TestAnnotationErrors(t *testing.T) {
	ctl := func(key, quoted string) string {
		return "metadata.annotations[" + key + "]: Invalid value: " + quoted + ": must not contain control characters such as newlines or tabs"
	}
	keyErr := func(key string) string {
		return `metadata.annotations: Invalid value: "` + key + `": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	}
	tests := []struct {
		name        string
		annotations map[string]string
		want        []string
	}{
		{"control characters outside the router's keys", map[string]string{"example.com/notes": "a\nb", HostGeneratedAnnotation: "true\n"}, nil},
		{"DEL in a router key", map[string]string{"routeshift.io/owner": "a\x7f"}, []string{ctl("routeshift.io/owner", `"a\x7f"`)}},
		{"C1 control in a router key", map[string]string{"route.openshift.io/owner": "a\u0085"}, []string{ctl("route.openshift.io/owner", `"a\u0085"`)}},
		{"a non-ASCII letter is no control character", map[string]string{"route.openshift.io/owner": "Zoë"}, nil},
		{"values in key order", map[string]string{
			"routeshift.io/b": "x\n", AnnCookieName: "a b", AnnTimeout: "soon", "haproxy.router.openshift.io/a": "\t",
		}, []string{
			ctl("haproxy.router.openshift.io/a", `"\t"`),
			`metadata.annotations[haproxy.router.openshift.io/timeout]: Invalid value: "soon": ` + timeUnitDetail,
			`metadata.annotations[router.openshift.io/cookie_name]: Invalid value: "a b": must consist of letters, digits, '_' and '-'`,
			ctl("routeshift.io/b", `"x\n"`),
		}},
		{"keys in key order, before the values", map[string]string{"z z": "1", "a a": "2", AnnBalance: "fast"}, []string{
			keyErr("a a"), keyErr("z z"),
			`metadata.annotations[haproxy.router.openshift.io/balance]: Unsupported value: "fast": supported values: "roundrobin", "leastconn", "source", "random"`,
		}},
		{"a bad router key is judged as a key and by its value", map[string]string{"routeshift.io/my key": "a\nb"}, []string{
			keyErr("routeshift.io/my key"), ctl("routeshift.io/my key", `"a\nb"`),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 10 {
				sameMessages(t, ValidateRoute(route(func(r *Route) { r.Annotations = tt.annotations }), ValidateOptions{}), tt.want)
			}
		})
	}
}

// TestAnnotationErrorsOrderAmongMetadata: annotation key errors come
// after ObjectMeta's (labels) and before the name length, the finalizers
// and the annotation values.
func TestAnnotationErrorsOrderAmongMetadata(t *testing.T) {
	r := route(func(r *Route) {
		r.Name = strings.Repeat("n", 64)
		r.Labels = map[string]string{"tier": "front end"}
		r.Annotations = map[string]string{"bad key": "1", AnnPoolSize: "0"}
		r.Finalizers = []string{"cleanup"}
	})
	got := messages(ValidateRoute(r, ValidateOptions{}))
	prefixes := []string{"metadata.labels:", `metadata.annotations: Invalid value: "bad key"`, "metadata.name:", "metadata.finalizers[0]:", "metadata.annotations[router.openshift.io/pool-size]:"}
	if len(got) != len(prefixes) {
		t.Fatalf("errors %q, want %d", got, len(prefixes))
	}
	for i, p := range prefixes {
		if !strings.HasPrefix(got[i], p) {
			t.Errorf("error %d = %q, want it to start with %q", i, got[i], p)
		}
	}
}

// TestAnnotationValuesOnUpdate: a value is judged again only when it
// changed (or is new); keys are always judged; the router's options skip
// values, never keys.
func TestAnnotationValuesOnUpdate(t *testing.T) {
	bad := `metadata.annotations[haproxy.router.openshift.io/timeout]: Invalid value: "soon": ` + timeUnitDetail
	tests := []struct {
		name     string
		old, new map[string]string
		opts     ValidateOptions
		want     []string
	}{
		{"unchanged bad value", map[string]string{AnnTimeout: "soon"}, map[string]string{AnnTimeout: "soon"}, ValidateOptions{}, nil},
		{"bad value added", nil, map[string]string{AnnTimeout: "soon"}, ValidateOptions{}, []string{bad}},
		{"good value made bad", map[string]string{AnnTimeout: "5s"}, map[string]string{AnnTimeout: "soon"}, ValidateOptions{}, []string{bad}},
		{"bad value removed", map[string]string{AnnTimeout: "soon"}, nil, ValidateOptions{}, nil},
		{"bad value moved to another key", map[string]string{AnnTimeout: "soon"}, map[string]string{AnnTimeoutTunnel: "soon"}, ValidateOptions{},
			[]string{`metadata.annotations[haproxy.router.openshift.io/timeout-tunnel]: Invalid value: "soon": ` + timeUnitDetail}},
		{"unchanged control character", map[string]string{"routeshift.io/x": "a\nb"}, map[string]string{"routeshift.io/x": "a\nb"}, ValidateOptions{}, nil},
		{"router: values skipped", nil, map[string]string{AnnTimeout: "soon"}, ValidateOptions{SkipAnnotationValues: true}, nil},
		{"router: keys judged", nil, map[string]string{"bad key": "1"}, ValidateOptions{SkipAnnotationValues: true},
			[]string{`metadata.annotations: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := route(func(r *Route) { r.Annotations = tt.old })
			updated := route(func(r *Route) { r.Annotations = tt.new })
			sameMessages(t, ValidateRouteUpdate(updated, old, tt.opts), tt.want)
		})
	}
}
