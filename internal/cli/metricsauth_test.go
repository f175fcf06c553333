package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/haproxy"
)

// TestMetricsAuthLocal: the checks that need no API server. basic lets in
// exactly the stats credentials, none lets everyone in, and kubernetes
// turns away a request without a bearer token before asking anyone.
func TestMetricsAuthLocal(t *testing.T) {
	basic := haproxy.DataPlaneConfig{MetricsAuth: haproxy.MetricsAuthBasic, StatsUsername: "admin", StatsPassword: "s3cret"}
	cases := []struct {
		name         string
		cfg          haproxy.DataPlaneConfig
		prepare      func(*http.Request)
		status       int
		authenticate string // WWW-Authenticate
		body         string
	}{
		{"basic, right credentials", basic, func(r *http.Request) { r.SetBasicAuth("admin", "s3cret") }, http.StatusOK, "", "metrics"},
		{"basic, wrong password", basic, func(r *http.Request) { r.SetBasicAuth("admin", "s3cre") }, http.StatusUnauthorized,
			`Basic realm="routeshift metrics"`, "send the router's STATS_USERNAME and STATS_PASSWORD"},
		{"basic, wrong user", basic, func(r *http.Request) { r.SetBasicAuth("root", "s3cret") }, http.StatusUnauthorized, `Basic realm="routeshift metrics"`, "Unauthorized"},
		{"basic, no credentials", basic, func(*http.Request) {}, http.StatusUnauthorized, `Basic realm="routeshift metrics"`, "Unauthorized"},
		{"basic, a bearer token", basic, func(r *http.Request) { r.Header.Set("Authorization", "Bearer x") }, http.StatusUnauthorized, `Basic realm="routeshift metrics"`, "Unauthorized"},
		{"none", haproxy.DataPlaneConfig{MetricsAuth: haproxy.MetricsAuthNone}, func(*http.Request) {}, http.StatusOK, "", "metrics"},
		{"kubernetes, no token", haproxy.DataPlaneConfig{MetricsAuth: haproxy.MetricsAuthKubernetes}, func(*http.Request) {}, http.StatusUnauthorized,
			`Bearer realm="routeshift metrics"`, "send a bearer token of a user who may get routers/metrics public in route.openshift.io (the ClusterRole routeshift:router-metrics-reader grants it)"},
		{"kubernetes, basic credentials", haproxy.DataPlaneConfig{MetricsAuth: haproxy.MetricsAuthKubernetes}, func(r *http.Request) { r.SetBasicAuth("admin", "s3cret") },
			http.StatusUnauthorized, `Bearer realm="routeshift metrics"`, "Unauthorized"},
		{"kubernetes, empty token", haproxy.DataPlaneConfig{MetricsAuth: haproxy.MetricsAuthKubernetes}, func(r *http.Request) { r.Header.Set("Authorization", "Bearer  ") },
			http.StatusUnauthorized, `Bearer realm="routeshift metrics"`, "Unauthorized"},
		{"unresolved mode fails closed", haproxy.DataPlaneConfig{MetricsAuth: "auto"}, func(*http.Request) {}, http.StatusUnauthorized,
			`Bearer realm="routeshift metrics"`, "Unauthorized"},
	}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("metrics\n")) })
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// No API client: a case that reached the reviews would panic.
			d := c.cfg
			h := newMetricsAuth(d.MetricsAuth, d.StatsUsername, d.StatsPassword, routerMetricsAccess("public"), nil).wrap(metrics)
			req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			c.prepare(req)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != c.status || rec.Header().Get("WWW-Authenticate") != c.authenticate || !strings.Contains(rec.Body.String(), c.body) {
				t.Errorf("status %d, WWW-Authenticate %q, body %q; want %d, %q, a body with %q",
					rec.Code, rec.Header().Get("WWW-Authenticate"), rec.Body.String(), c.status, c.authenticate, c.body)
			}
		})
	}
}
