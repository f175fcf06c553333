package webhook

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestWebhookMetricsAuth: the webhook's /metrics (--metrics-auth
// kubernetes, the default) lets in only users who may get the non-resource
// URL /metrics, as the API server answers a TokenReview and a
// SubjectAccessReview asked with the manifests' RBAC; each refusal says
// what to do. The page carries routeshift_build_info.
func TestWebhookMetricsAuth(t *testing.T) {
	cp := framework.Cluster(t)
	w := cp.Webhook
	nobody := cp.ServiceAccountToken(t, "routeshift", "nobody")
	buildInfo := regexp.MustCompile(`(?m)^routeshift_build_info\{commit="[^"]+",goversion="go[^"]+",version="[^"]+"\} 1$`)
	cases := []struct {
		name, authorization string
		status              int
		body                string
	}{
		{"no token", "", http.StatusUnauthorized,
			"Unauthorized: send a bearer token of a user who may get the non-resource URL /metrics (the ClusterRole routeshift:metrics-reader grants it)"},
		{"a token the API server does not know", "Bearer not-a-token", http.StatusUnauthorized,
			"Unauthorized: the API server does not accept the token"},
		{"a user without the role", "Bearer " + nobody, http.StatusForbidden,
			`Forbidden: user "system:serviceaccount:routeshift:nobody" may not get the non-resource URL /metrics (bind the ClusterRole routeshift:metrics-reader)`},
		{"a user with the role", "Bearer " + w.MetricsToken, http.StatusOK, "controller_runtime_webhook_requests_total"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", w.MetricsPort), nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.authorization != "" {
				req.Header.Set("Authorization", c.authorization)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || !strings.Contains(string(body), c.body) {
				t.Errorf("GET /metrics: %d %.300q; want %d and a body with %q", resp.StatusCode, body, c.status, c.body)
			}
			if resp.StatusCode == http.StatusOK && !buildInfo.Match(body) {
				t.Errorf("/metrics has no routeshift_build_info series of value 1 with version, commit and Go version; its routeshift_ lines:\n%s",
					routeshiftLines(string(body)))
			}
		})
	}
}

// routeshiftLines returns the lines of a /metrics page about routeshift's
// own series.
func routeshiftLines(page string) string {
	var lines []string
	for _, l := range strings.Split(page, "\n") {
		if strings.Contains(l, "routeshift_") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
