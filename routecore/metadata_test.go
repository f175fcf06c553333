package routecore

import (
	"strings"
	"testing"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
)

// TestMetadataRules pins the object metadata rules a Route shares with
// every Kubernetes object (names, labels, annotation keys and size,
// finalizers) and routeshift's own: a name of at most 63 characters, and
// for a generateName-only Route a generated host whose first label fits.
func TestMetadataRules(t *testing.T) {
	keyMsg := "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
	// The largest annotation value that fits the size limit next to its key.
	fits := apivalidation.TotalAnnotationSizeLimitB - len("example.com/blob")
	tests := []struct {
		name  string
		route *Route
		want  []string
	}{
		{"finalizers of Kubernetes", route(func(r *Route) { r.Finalizers = []string{"kubernetes", "orphan"} }), nil},
		{"foregroundDeletion", route(func(r *Route) { r.Finalizers = []string{"foregroundDeletion"} }), nil},
		{"orphan and foregroundDeletion together", route(func(r *Route) { r.Finalizers = []string{"orphan", "foregroundDeletion"} }),
			[]string{`metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set`}},
		{"a qualified finalizer", route(func(r *Route) { r.Finalizers = []string{"example.com/cleanup"} }), nil},
		{"an unqualified finalizer after a good one", route(func(r *Route) { r.Finalizers = []string{"kubernetes", "Cleanup"} }),
			[]string{`metadata.finalizers[1]: Invalid value: "Cleanup": name is neither a standard finalizer name nor is it fully qualified`}},
		{"label key with a prefix", route(func(r *Route) { r.Labels = map[string]string{"example.com/tier": "front"} }), nil},
		{"label key too long", route(func(r *Route) { r.Labels = map[string]string{strings.Repeat("k", 64): "v"} }),
			[]string{`metadata.labels: Invalid value: "` + strings.Repeat("k", 64) + `": name part must be no more than 63 bytes`}},
		{"annotation key in capitals", route(withAnnotation("Example.COM/Team", "shop")), nil},
		{"annotation key with two slashes", route(withAnnotation("a/b/c", "x")),
			[]string{`metadata.annotations: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`}},
		{"annotation key ending in a dot", route(withAnnotation("team.", "x")),
			[]string{`metadata.annotations: Invalid value: "team.": ` + keyMsg}},
		{"annotations at the size limit", route(withAnnotation("example.com/blob", strings.Repeat("x", fits))), nil},
		{"annotations a byte over", route(withAnnotation("example.com/blob", strings.Repeat("x", fits+1))),
			[]string{"metadata.annotations: Too long: may not be more than 262144 bytes"}},
		{"name of 63 with dots", route(func(r *Route) { r.Name = strings.Repeat("a.", 31) + "a" }), nil},
		{"generateName with a subdomain", route(func(r *Route) {
			r.Name, r.GenerateName, r.Spec.Host, r.Spec.Subdomain = "", strings.Repeat("g", 60), "", "shop"
		}), nil},
		{"generateName of a wildcard Route", route(func(r *Route) {
			r.Name, r.GenerateName, r.Spec.WildcardPolicy = "", strings.Repeat("g", 60), WildcardPolicySubdomain
		}), nil},
		{"generateName without namespace", route(func(r *Route) {
			r.Name, r.GenerateName, r.Spec.Host, r.Namespace = "", strings.Repeat("g", 60), "", ""
		}), []string{"metadata.namespace: Required value"}},
		{"generateName and name: the name decides", route(func(r *Route) {
			r.GenerateName, r.Spec.Host = strings.Repeat("g", 60), ""
		}), nil},
		{"generateName with dots, made dashes in the host", route(func(r *Route) {
			r.Name, r.GenerateName, r.Spec.Host = "", "a.b.c-", ""
		}), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRoute(tt.route, ValidateOptions{}), tt.want)
		})
	}
}

// TestMetadataRulesOnUpdate: the name and namespace cannot change, a name
// over 63 characters is not judged again, and a resource version is not
// needed (offline and admission copies may lack one).
func TestMetadataRulesOnUpdate(t *testing.T) {
	long := strings.Repeat("n", 64)
	tests := []struct {
		name     string
		old, new *Route
		want     []string
	}{
		{"namespace changed", route(), route(func(r *Route) { r.Namespace = "other" }),
			[]string{`metadata.namespace: Invalid value: "other": field is immutable`}},
		{"long name, unchanged", route(func(r *Route) { r.Name = long }), route(func(r *Route) { r.Name = long }), nil},
		{"resource versions on neither", route(), route(), nil},
		{"resource version on the stored Route only", route(func(r *Route) { r.ResourceVersion = "7" }), route(), nil},
		{"resource version on the new Route only", route(), route(func(r *Route) { r.ResourceVersion = "8" }), nil},
		{"uid changed", route(func(r *Route) { r.UID = "a" }), route(func(r *Route) { r.UID = "b" }),
			[]string{`metadata.uid: Invalid value: "b": field is immutable`}},
		{"generateName-only rules are for create", route(func(r *Route) { r.GenerateName = strings.Repeat("g", 60) }),
			route(func(r *Route) { r.GenerateName, r.Spec.Host = strings.Repeat("g", 60), "" }), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, ValidateRouteUpdate(tt.new, tt.old, ValidateOptions{}), tt.want)
		})
	}
}
