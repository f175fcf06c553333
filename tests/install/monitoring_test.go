package install

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// documentedAlerts are the alerts docs/operations.md lists, each under a
// heading of its name.
var documentedAlerts = []string{
	"RouteshiftAdmissionErrors",
	"RouteshiftIngressRouteWriteErrors",
	"RouteshiftRouterHAProxyRestarted",
	"RouteshiftRouterHAProxyStatisticsDown",
	"RouteshiftRouterReloadFailing",
}

// query is a PromQL expression of the chart's monitoring objects and where
// it is.
type query struct {
	Where, Expr string
	// AllNamespaces marks the query that lists the namespaces to choose
	// from; every other one selects one namespace.
	AllNamespaces bool
}

// dashboardVariables are the values the test gives the dashboards'
// variables before parsing their queries: what Grafana substitutes.
var dashboardVariables = strings.NewReplacer("$__rate_interval", "5m", "$namespace", "routeshift", "$pod", ".*")

// monitoringQueries renders the chart with every monitoring object on
// and returns the queries of its PrometheusRule and dashboards, with the
// dashboards' variables substituted.
func monitoringQueries(t *testing.T) []query {
	objs, err := renderChart(chartDir(), "routeshift", "routeshift", chartValues["host-network+extras"])
	if err != nil {
		t.Fatal(err)
	}
	var queries []query
	for _, o := range objs {
		switch o.GetKind() {
		case "PrometheusRule":
			queries = append(queries, ruleQueries(t, o)...)
		case "ConfigMap":
			data, _, _ := unstructured.NestedStringMap(o.Object, "data")
			for name, dashboard := range data {
				queries = append(queries, dashboardQueries(t, name, []byte(dashboard))...)
			}
		}
	}
	return queries
}

// ruleQueries checks a PrometheusRule's groups as Prometheus loads a rule
// file (every expression and annotation template parses, no unknown
// field) and returns its expressions.
func ruleQueries(t *testing.T, o *unstructured.Unstructured) []query {
	groups, _, _ := unstructured.NestedFieldNoCopy(o.Object, "spec")
	raw, err := yaml.Marshal(groups)
	if err != nil {
		t.Fatal(err)
	}
	rgs, errs := rulefmt.Parse(raw, false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.New(slog.DiscardHandler))
	for _, err := range errs {
		t.Errorf("PrometheusRule %s: %v", o.GetName(), err)
	}
	if rgs == nil {
		t.FailNow()
	}
	var queries []query
	for _, g := range rgs.Groups {
		for _, r := range g.Rules {
			queries = append(queries, query{Where: "PrometheusRule " + o.GetName() + " alert " + r.Alert, Expr: r.Expr})
		}
	}
	return queries
}

// dashboard is what the test reads of a Grafana dashboard.
type dashboard struct {
	UID, Title string
	Panels     []struct {
		Type, Title string
		Datasource  struct{ UID string }
		Targets     []struct{ Expr string }
	}
	Templating struct {
		List []struct {
			Name, Type string
			Query      json.RawMessage
		}
	}
}

// dashboardQueries parses a dashboard and returns the queries of its
// panels and variables.
func dashboardQueries(t *testing.T, name string, raw []byte) []query {
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("dashboard %s is not JSON: %v", name, err)
	}
	if d.UID == "" || d.Title == "" || len(d.Panels) == 0 {
		t.Errorf("dashboard %s: uid %q, title %q, %d panels; want all three", name, d.UID, d.Title, len(d.Panels))
	}
	var queries []query
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 || p.Datasource.UID != "${datasource}" {
			t.Errorf("dashboard %s panel %q: %d queries, data source %q; want queries on ${datasource}", name, p.Title, len(p.Targets), p.Datasource.UID)
		}
		for _, target := range p.Targets {
			queries = append(queries, query{Where: fmt.Sprintf("dashboard %s panel %q", name, p.Title), Expr: dashboardVariables.Replace(target.Expr)})
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q struct{ Query string }
		if err := json.Unmarshal(v.Query, &q); err != nil {
			t.Fatalf("dashboard %s variable %s: %v", name, v.Name, err)
		}
		queries = append(queries, query{Where: fmt.Sprintf("dashboard %s variable %s", name, v.Name), Expr: labelValuesSelector(t, q.Query),
			AllNamespaces: v.Name == "namespace"})
	}
	return queries
}

// labelValues matches Grafana's label_values(SELECTOR, LABEL).
var labelValues = regexp.MustCompile(`^label_values\((.+), *[a-zA-Z_][a-zA-Z0-9_]*\)$`)

// labelValuesSelector is the series selector of a label_values query.
func labelValuesSelector(t *testing.T, q string) string {
	m := labelValues.FindStringSubmatch(q)
	if m == nil {
		t.Fatalf("dashboard variable query %q is not label_values(SELECTOR, LABEL)", q)
	}
	return dashboardVariables.Replace(m[1])
}

// selectors parses a query and returns its series selectors.
func selectors(q query) ([]*parser.VectorSelector, error) {
	expr, err := parser.NewParser(parser.Options{}).ParseExpr(q.Expr)
	if err != nil {
		return nil, fmt.Errorf("%s: %q does not parse: %w", q.Where, q.Expr, err)
	}
	var out []*parser.VectorSelector
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			out = append(out, vs)
		}
		return nil
	})
	return out, nil
}

// metricName is the metric a selector names.
func metricName(vs *parser.VectorSelector) string {
	if vs.Name != "" {
		return vs.Name
	}
	for _, m := range vs.LabelMatchers {
		if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
			return m.Value
		}
	}
	return ""
}

// TestChartMonitoring: the chart's PrometheusRule loads as Prometheus
// loads rules and holds the alerts docs/operations.md lists, each with a
// runbook link to its heading there; every query of the rule and of the
// dashboards parses, names a metric and selects the release's namespace
// only. TestInstall checks that every metric they name is served.
func TestChartMonitoring(t *testing.T) {
	queries := monitoringQueries(t)
	var alerts []string
	for _, q := range queries {
		if name, ok := strings.CutPrefix(q.Where, "PrometheusRule routeshift alert "); ok {
			alerts = append(alerts, name)
		}
		vss, err := selectors(q)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(vss) == 0 {
			t.Errorf("%s: %q selects no series", q.Where, q.Expr)
		}
		for _, vs := range vss {
			if metricName(vs) == "" || !q.AllNamespaces && !slices.ContainsFunc(vs.LabelMatchers, func(m *labels.Matcher) bool {
				return m.Name == "namespace" && m.Type == labels.MatchEqual && m.Value == "routeshift"
			}) {
				t.Errorf("%s: selector %s must name a metric and select namespace=%q", q.Where, vs, "routeshift")
			}
		}
	}
	slices.Sort(alerts)
	if !slices.Equal(alerts, documentedAlerts) {
		t.Errorf("the PrometheusRule's alerts are %q, want those of docs/operations.md %q", alerts, documentedAlerts)
	}
	checkRunbooks(t)
}

// checkRunbooks: each alert's runbook_url is docs/operations.md at the
// anchor of a heading named after the alert.
func checkRunbooks(t *testing.T) {
	objs, err := renderChart(chartDir(), "routeshift", "routeshift", chartValues["host-network+extras"])
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetKind() != "PrometheusRule" {
			continue
		}
		groups, _, _ := unstructured.NestedSlice(o.Object, "spec", "groups")
		for _, g := range groups {
			rules, _, _ := unstructured.NestedSlice(g.(map[string]any), "rules")
			for _, r := range rules {
				alert, _, _ := unstructured.NestedString(r.(map[string]any), "alert")
				url, _, _ := unstructured.NestedString(r.(map[string]any), "annotations", "runbook_url")
				want := "https://github.com/routeshift/routeshift/blob/main/docs/operations.md#" + strings.ToLower(alert)
				if url != want {
					t.Errorf("alert %s: runbook_url %q, want %q", alert, url, want)
				}
				if !regexp.MustCompile(`(?m)^#+ ` + alert + `$`).Match(doc) {
					t.Errorf("alert %s: docs/operations.md has no heading %q for its runbook link", alert, alert)
				}
			}
		}
	}
}

// monitoredMetrics are the metrics the chart's monitoring objects name,
// each with the first place that names it.
func monitoredMetrics(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, q := range monitoringQueries(t) {
		vss, err := selectors(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, vs := range vss {
			if _, seen := out[metricName(vs)]; !seen {
				out[metricName(vs)] = q.Where
			}
		}
	}
	return out
}
