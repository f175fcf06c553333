package install

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/routeshift/routeshift/tests/framework"
)

// scraperRBAC is a service account of the test bound to the install's two
// metrics reader roles, for installs that make no scraper of their own.
const scraperRBAC = `apiVersion: v1
kind: ServiceAccount
metadata: {name: install-test-scraper, namespace: routeshift}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: install-test-scraper-router}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "routeshift:router-metrics-reader"}
subjects: [{kind: ServiceAccount, name: install-test-scraper, namespace: routeshift}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: install-test-scraper-manager}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "routeshift:metrics-reader"}
subjects: [{kind: ServiceAccount, name: install-test-scraper, namespace: routeshift}]
`

// scraperToken is a token of the service account the install's monitors
// scrape with, or of the test's own scraper when it has none.
func (inst *installation) scraperToken(t *testing.T) string {
	sa := ""
	for _, o := range inst.objs {
		if o.GetKind() == "ServiceAccount" && strings.HasSuffix(o.GetName(), "-metrics-scraper") {
			sa = o.GetName()
		}
	}
	if sa == "" {
		if out, errOut, err := inst.cp.KubectlStdin(t, scraperRBAC, "apply", "-f", "-"); err != nil {
			t.Fatalf("applying the test's scraper: %v\n%s%s", err, out, errOut)
		}
		sa = "install-test-scraper"
	}
	tr, err := kubernetes.NewForConfigOrDie(inst.cp.Config).CoreV1().ServiceAccounts("routeshift").CreateToken(context.Background(), sa,
		&authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a token of service account routeshift/%s: %v", sa, err)
	}
	return tr.Status.Token
}

// scrapeNames GETs a /metrics URL with a bearer token and returns the
// names of the samples it serves (a histogram's _bucket, _sum and _count,
// as a query names them).
func scrapeNames(url, token string) (map[string]bool, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("%s: %s %s", url, resp.Status, body)
	}
	names := map[string]bool{}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		line := lines.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		names[line[:strings.IndexAny(line, "{ ")]] = true
	}
	return names, lines.Err()
}

// checkMetrics: the token of the scraper (the chart's, when it makes
// one) reads every pod's /metrics, and every metric the chart's
// PrometheusRule and dashboards name is among what the manager and the
// router serve once they have worked (admission, an Ingress converted,
// traffic served). HAProxy's statistics are missing from a scrape while
// the router cannot read them (during a reload), so the check scrapes
// again until all are there or the deadline passes.
func (inst *installation) checkMetrics(t *testing.T) {
	token := inst.scraperToken(t)
	wanted := monitoredMetrics(t)
	framework.EventuallyWithin(t, 2*time.Minute, "the manager and the router serve every metric the chart's monitoring names", func() error {
		served := map[string]bool{}
		for name, p := range inst.pods {
			names, err := scrapeNames(fmt.Sprintf("http://127.0.0.1:%d/metrics", p.Ports["metrics"]), token)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			maps.Copy(served, names)
		}
		var missing []string
		for _, name := range slices.Sorted(maps.Keys(wanted)) {
			if !served[name] {
				missing = append(missing, fmt.Sprintf("%s names the metric %s, which neither the manager nor the router serves", wanted[name], name))
			}
		}
		if len(missing) > 0 {
			return errors.New(strings.Join(missing, "\n"))
		}
		return nil
	})
}
