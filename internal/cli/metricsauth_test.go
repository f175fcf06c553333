package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/routeshift/routeshift/internal/settings"
)

// TestMetricsAuthLocal: the checks that need no API server. basic lets in
// exactly the stats credentials, none lets everyone in, and kubernetes
// metricsAuthCase is a metrics check's mode and credentials.
type metricsAuthCase struct{ mode, user, password string }

// turns away a request without a bearer token before asking anyone.
func TestMetricsAuthLocal(t *testing.T) {
	basic := metricsAuthCase{mode: settings.MetricsAuthBasic, user: "admin", password: "s3cret"}
	cases := []struct {
		name         string
		cfg          metricsAuthCase
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
		{"none", metricsAuthCase{mode: settings.MetricsAuthNone}, func(*http.Request) {}, http.StatusOK, "", "metrics"},
		{"kubernetes, no token", metricsAuthCase{mode: settings.MetricsAuthKubernetes}, func(*http.Request) {}, http.StatusUnauthorized,
			`Bearer realm="routeshift metrics"`, "send a bearer token of a user who may get routers/metrics public in route.openshift.io (the ClusterRole routeshift:router-metrics-reader grants it)"},
		{"kubernetes, basic credentials", metricsAuthCase{mode: settings.MetricsAuthKubernetes}, func(r *http.Request) { r.SetBasicAuth("admin", "s3cret") },
			http.StatusUnauthorized, `Bearer realm="routeshift metrics"`, "Unauthorized"},
		{"kubernetes, lower-case scheme without a token", metricsAuthCase{mode: settings.MetricsAuthKubernetes}, func(r *http.Request) { r.Header.Set("Authorization", "bearer") },
			http.StatusUnauthorized, `Bearer realm="routeshift metrics"`, "Unauthorized: send a bearer token"},
		{"kubernetes, empty token", metricsAuthCase{mode: settings.MetricsAuthKubernetes}, func(r *http.Request) { r.Header.Set("Authorization", "Bearer  ") },
			http.StatusUnauthorized, `Bearer realm="routeshift metrics"`, "Unauthorized"},
		{"unresolved mode fails closed", metricsAuthCase{mode: "auto"}, func(*http.Request) {}, http.StatusUnauthorized,
			`Bearer realm="routeshift metrics"`, "Unauthorized"},
	}
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("metrics\n")) })
	// An API server nobody listens on: a case that reached the reviews
	// would answer 500.
	clients, err := kubernetes.NewForConfig(&rest.Config{Host: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.cfg
			auth, err := newMetricsAuth(d.mode, d.user, d.password, routerMetricsAccess("public"), clients)
			if err != nil {
				t.Fatal(err)
			}
			h := auth.wrap(metrics)
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

// TestUnavailable: a TokenReview that could not be made is told from the
// API server's answer that the token is not valid (both come back as
// errors from the authenticator, the first in an aggregate).
func TestUnavailable(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"the API server's answer", errors.New("[invalid bearer token, token lookup failed]"), false},
		{"the answer, aggregated", utilerrors.NewAggregate([]error{errors.New("invalid bearer token")}), false},
		{"the review refused", apierrors.NewForbidden(schema.GroupResource{Group: "authentication.k8s.io", Resource: "tokenreviews"}, "", errors.New("no RBAC")), true},
		{"the review refused, aggregated", utilerrors.NewAggregate([]error{apierrors.NewServiceUnavailable("starting")}), true},
		{"no connection", &url.Error{Op: "Post", URL: "https://127.0.0.1:1", Err: errors.New("connection refused")}, true},
		{"out of time", fmt.Errorf("review: %w", context.DeadlineExceeded), true},
	}
	for _, c := range cases {
		if got := unavailable(c.err); got != c.want {
			t.Errorf("%s: unavailable(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
