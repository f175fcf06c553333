package router

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestRouterMetricsAuth: with the default settings a router lets only
// users who may get its routers/metrics read /metrics, as the API server
// answers a TokenReview and a SubjectAccessReview asked with the router's
// own service account (manifests/rbac); /healthz stays open. The page
// carries routeshift_build_info. With the stats credentials set, /metrics
// takes them instead.
func TestRouterMetricsAuth(t *testing.T) {
	cp := framework.Cluster(t)
	r := cp.StartRouter(t, "metrics-auth")

	// A role limited to another router's metrics does not open this one.
	const otherRouterRBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: routeshift-test:other-router-metrics}
rules: [{apiGroups: [route.openshift.io], resources: [routers/metrics], resourceNames: [another-router], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: routeshift-test:other-router-metrics}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "routeshift-test:other-router-metrics"}
subjects: [{kind: ServiceAccount, name: other-router-scraper, namespace: routeshift}]
`
	if _, errOut, err := cp.KubectlStdin(t, otherRouterRBAC, "apply", "-f", "-"); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	nobody := cp.ServiceAccountToken(t, "routeshift", "nobody")
	other := cp.ServiceAccountToken(t, "routeshift", "other-router-scraper")

	cases := []struct {
		name, path, authorization string
		status                    int
		body                      string
	}{
		{"no token", "/metrics", "", http.StatusUnauthorized,
			"Unauthorized: send a bearer token of a user who may get routers/metrics metrics-auth in route.openshift.io (the ClusterRole routeshift:router-metrics-reader grants it)"},
		{"a token the API server does not know", "/metrics", "Bearer not-a-token", http.StatusUnauthorized,
			"Unauthorized: the API server does not accept the token"},
		{"a user without the role", "/metrics", "Bearer " + nobody, http.StatusForbidden,
			`Forbidden: user "system:serviceaccount:routeshift:nobody" may not get routers/metrics metrics-auth in route.openshift.io (bind the ClusterRole routeshift:router-metrics-reader)`},
		{"a role for another router", "/metrics", "Bearer " + other, http.StatusForbidden,
			`Forbidden: user "system:serviceaccount:routeshift:other-router-scraper" may not get routers/metrics metrics-auth`},
		{"a user with the role", "/metrics", "Bearer " + r.MetricsToken, http.StatusOK, "template_router_reload_seconds"},
		{"the same token again (remembered)", "/metrics", "Bearer " + r.MetricsToken, http.StatusOK, "template_router_reload_seconds"},
		{"healthz needs nothing", "/healthz", "", http.StatusOK, "ok"},
		{"readiness needs nothing", "/healthz/ready", "", http.StatusOK, "ok"},
	}
	buildInfo := regexp.MustCompile(`(?m)^routeshift_build_info\{commit="[^"]+",goversion="go[^"]+",version="[^"]+"\} 1$`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body, err := r.GetListen(c.path, c.authorization)
			if err != nil || status != c.status || !strings.Contains(body, c.body) {
				t.Errorf("GET %s: %d %q, %v; want %d and a body with %q", c.path, status, body, err, c.status, c.body)
			}
			if c.path == "/metrics" && status == http.StatusOK && !buildInfo.MatchString(body) {
				t.Errorf("/metrics has no routeshift_build_info series of value 1 with version, commit and Go version (%d bytes)", len(body))
			}
		})
	}

	t.Run("basic with the stats credentials", func(t *testing.T) {
		b := cp.StartRouter(t, "metrics-basic", "--stats-user", "admin", "--stats-password", "s3cret")
		cases := []struct {
			name, authorization string
			status              int
		}{
			{"a bearer token", "Bearer " + b.MetricsToken, http.StatusUnauthorized},
			{"a wrong password", "Basic YWRtaW46d3Jvbmc=", http.StatusUnauthorized}, // admin:wrong
			{"the stats credentials", "Basic YWRtaW46czNjcmV0", http.StatusOK},      // admin:s3cret
		}
		for _, c := range cases {
			status, body, err := b.GetListen("/metrics", c.authorization)
			if err != nil || status != c.status || (status == http.StatusOK) != strings.Contains(body, "template_router_reload_seconds") {
				t.Errorf("%s: %d %q, %v; want %d (metrics only with 200)", c.name, status, body, err, c.status)
			}
		}
	})
}
