package framework

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RouterServiceAccount is the user name routers run as.
const RouterServiceAccount = "system:serviceaccount:routeshift:router"

// Router is `routeshift router` running against the control plane as the
// router's service account, with only the permissions manifests/rbac grants
// it.
type Router struct {
	*Process
	// ListenPort serves /healthz, /healthz/ready and /metrics.
	ListenPort int
	// HTTPPort and HTTPSPort are HAProxy's public ports on 127.0.0.1.
	HTTPPort, HTTPSPort int
	// WorkingDir holds HAProxy's configuration.
	WorkingDir string
	// MetricsToken is a bearer token allowed to read /metrics: that of
	// the ServiceAccount routeshift/metrics-scraper, bound to the
	// manifests' ClusterRole routeshift:router-metrics-reader.
	MetricsToken string
}

// MetricsScraper is the ServiceAccount whose token reads the /metrics of
// routers and of the manager.
const MetricsScraper = "metrics-scraper"

const metricsScraperRBAC = `apiVersion: v1
kind: ServiceAccount
metadata: {name: metrics-scraper, namespace: routeshift}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: routeshift-test:metrics-scraper}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "routeshift:router-metrics-reader"}
subjects: [{kind: ServiceAccount, name: metrics-scraper, namespace: routeshift}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: routeshift-test:manager-metrics-scraper}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "routeshift:metrics-reader"}
subjects: [{kind: ServiceAccount, name: metrics-scraper, namespace: routeshift}]
`

// metricsScraperToken binds MetricsScraper to the manifests' metrics reader
// roles and returns a token of it.
func (cp *ControlPlane) metricsScraperToken() (string, error) {
	if _, err := cp.kubectlStdin(metricsScraperRBAC, "apply", "-f", "-"); err != nil {
		return "", fmt.Errorf("applying the metrics scraper's RBAC: %w", err)
	}
	return cp.serviceAccountToken("routeshift", MetricsScraper)
}

// Metrics GETs the router's /metrics with MetricsToken.
func (r *Router) Metrics() (status int, body string, err error) {
	return r.GetListen("/metrics", "Bearer "+r.MetricsToken)
}

// GetListen GETs path on the router's ROUTER_LISTEN_ADDR with the
// Authorization header given (none when empty).
func (r *Router) GetListen(path, authorization string) (status int, body string, err error) {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", r.ListenPort, path), nil)
	if err != nil {
		return 0, "", err
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// ServiceAccountToken returns a bearer token of ServiceAccount namespace/name
// (created if missing) from the TokenRequest API, valid for an hour.
func (cp *ControlPlane) ServiceAccountToken(t testing.TB, namespace, name string) string {
	t.Helper()
	token, err := cp.serviceAccountToken(namespace, name)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

func (cp *ControlPlane) serviceAccountToken(namespace, name string) (string, error) {
	sa := fmt.Sprintf("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s, namespace: %s}\n", name, namespace)
	if _, err := cp.kubectlStdin(sa, "apply", "-f", "-"); err != nil {
		return "", fmt.Errorf("creating ServiceAccount %s/%s: %w", namespace, name, err)
	}
	out, err := cp.kubectlStdin("", "create", "token", name, "-n", namespace, "--duration", "1h")
	if err != nil {
		return "", fmt.Errorf("kubectl create token %s -n %s: %w", name, namespace, err)
	}
	return strings.TrimSpace(out), nil
}

// StartRouter runs a router named name with extra flags and waits until it
// is ready; it is stopped when the test ends.
func (cp *ControlPlane) StartRouter(t testing.TB, name string, flags ...string) *Router {
	t.Helper()
	r := cp.LaunchRouter(t, name, flags...)
	if err := WaitHTTP(context.Background(), fmt.Sprintf("http://127.0.0.1:%d/healthz/ready", r.ListenPort), 60*time.Second, r.Process); err != nil {
		t.Fatalf("%v\nrouter output:\n%s", err, r.Output())
	}
	return r
}

// LaunchRouter runs a router as StartRouter does, but waits only until it
// is alive (/healthz answers 200), not until HAProxy serves.
func (cp *ControlPlane) LaunchRouter(t testing.TB, name string, flags ...string) *Router {
	t.Helper()
	ctx := context.Background()
	bin, err := cp.Routeshift()
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "routeshift"}}
	if err := cp.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if out, err := cp.kubectl("apply", "-f", filepath.Join(cp.RepoRoot, "manifests", "rbac", "router.yaml")); err != nil {
		t.Fatalf("applying the router's RBAC: %v\n%s", err, out)
	}
	if err := cp.grantRouterLease(name); err != nil {
		t.Fatal(err)
	}
	token, err := cp.metricsScraperToken()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := cp.KubeconfigAs(RouterServiceAccount, "system:serviceaccounts", "system:serviceaccounts:routeshift", "system:authenticated")
	if err != nil {
		t.Fatal(err)
	}
	var ports [5]int
	for i := range ports {
		if ports[i], err = FreePort(); err != nil {
			t.Fatal(err)
		}
	}
	work, err := os.MkdirTemp(cp.tempDir, "router-")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"router", "--kubeconfig", kubeconfig, "--name", name, "--namespace", "routeshift",
		"--listen-addr", fmt.Sprintf("127.0.0.1:%d", ports[0]), "--log-level", "debug",
		"--bind-address", "127.0.0.1", "--http-port", fmt.Sprint(ports[1]), "--https-port", fmt.Sprint(ports[2]),
		"--sni-port", fmt.Sprint(ports[3]), "--no-sni-port", fmt.Sprint(ports[4]), "--working-dir", work,
		// No load balancer to drain from: SIGTERM stops it at once.
		"--drain-seconds=0"}, flags...)
	p, err := startProcess("routeshift router "+name, bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	r := &Router{Process: p, ListenPort: ports[0], HTTPPort: ports[1], HTTPSPort: ports[2], WorkingDir: work, MetricsToken: token}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("router %s did not stop cleanly: %v\n%s", name, err, p.Output())
		} else if t.Failed() {
			t.Logf("router %s output:\n%s", name, p.Output())
		}
	})
	if err := WaitHTTP(ctx, fmt.Sprintf("http://127.0.0.1:%d/healthz", ports[0]), 60*time.Second, p); err != nil {
		t.Fatalf("%v\nrouter output:\n%s", err, p.Output())
	}
	return r
}
