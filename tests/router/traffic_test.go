package router

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// backend is an HTTP server on the machine's own address (Kubernetes
// refuses loopback endpoints) that answers with its name.
func backend(t *testing.T, name string) (ip string, port int32) {
	t.Helper()
	l, ip, port := hostListener(t)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, name)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ip, port
}

// endpointSlice lists the backends of service web as ready endpoints on
// port "http".
func endpointSlice(ns string, addrs map[string]int32) *discoveryv1.EndpointSlice {
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1",
		Labels: map[string]string{discoveryv1.LabelServiceName: "web"}}, AddressType: discoveryv1.AddressTypeIPv4}
	var port int32
	ready := true
	for ip, p := range addrs {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
		port = p
	}
	name := "http"
	es.Ports = []discoveryv1.EndpointPort{{Name: &name, Port: &port}}
	return es
}

// get asks the router's port for host and returns the status and body.
func get(client *http.Client, url, host string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	req.Host = host
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// counterSum reads a counter from the router's /metrics, summed over its
// series: a counter with labels has none before it first counts.
func counterSum(t *testing.T, r *framework.Router, name string) float64 {
	t.Helper()
	series, err := scrape(r)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for s, v := range series {
		if s == name || strings.HasPrefix(s, name+"{") {
			sum += v
		}
	}
	return sum
}

// scrape reads the router's /metrics as series ("name" or
// "name{labels}", as written) and their values.
func scrape(r *framework.Router) (map[string]float64, error) {
	status, body, err := r.Metrics()
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %d %s", status, body)
	}
	series := map[string]float64{}
	for line := range strings.SplitSeq(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("/metrics line %q has no value", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("/metrics line %q: %v", line, err)
		}
		series[line[:i]] = v
	}
	return series, nil
}

// routerMetricsAfterFirstLoad checks what /metrics holds once the router
// has loaded a configuration and served ns/plain over HTTP: the router's
// reload and write timings with observations, HAProxy's counters of the
// public frontend and of the plain route's backend and servers (columns
// of ROUTER_METRICS_HAPROXY_EXPORTED's default), and the
// exporter's own series reporting a successful scrape.
func routerMetricsAfterFirstLoad(series map[string]float64, ns string) error {
	var problems []string
	atLeast := func(name string, min float64) {
		if v, ok := series[name]; !ok || v < min {
			problems = append(problems, fmt.Sprintf("%s = %v (present %v), want at least %v", name, v, ok, min))
		}
	}
	atLeast("template_router_reload_seconds_count", 1)
	atLeast("template_router_write_config_seconds_count", 1)
	atLeast(`haproxy_frontend_connections_total{frontend="public"}`, 1)
	atLeast(`haproxy_frontend_http_responses_total{code="2xx",frontend="public"}`, 1)
	atLeast(fmt.Sprintf(`haproxy_backend_up{backend="be_http:%s:plain"}`, ns), 1)
	// Server rows are exported (fewer servers than the threshold), so the
	// response counters are the servers' and not the backend's.
	anyAtLeast := func(prefix string, min float64) {
		for name, v := range series {
			if strings.HasPrefix(name, prefix) && v >= min {
				return
			}
		}
		problems = append(problems, fmt.Sprintf("no %s...} series is at least %v", prefix, min))
	}
	anyAtLeast(fmt.Sprintf(`haproxy_server_up{backend="be_http:%s:plain",server=`, ns), 1)
	anyAtLeast(fmt.Sprintf(`haproxy_server_http_responses_total{backend="be_http:%s:plain",code="2xx",server=`, ns), 1)
	atLeast("haproxy_exporter_up", 1)
	atLeast("haproxy_exporter_total_scrapes", 1)
	if v, ok := series["haproxy_exporter_csv_parse_failures"]; !ok || v != 0 {
		problems = append(problems, fmt.Sprintf("haproxy_exporter_csv_parse_failures = %v (present %v), want 0", v, ok))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// TestRouterServesTraffic: `routeshift router`, running with its service
// account's permissions against the real API server, serves a Route
// through HAProxy over HTTP and edge TLS, reports the reload timings and
// HAProxy's counters on /metrics, follows endpoint changes without
// reloading, and stops serving a deleted Route.
func TestRouterServesTraffic(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "traffic")
	ipA, portA := backend(t, "pod-a")
	_, portB := backend(t, "pod-b")
	// Both backends listen on the machine's address on different ports: an
	// EndpointSlice has one set of ports, so pod-b gets a second slice.
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: corev1.ServiceSpec{
		Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}}}
	create(t, cp, svc, endpointSlice(ns, map[string]int32{ipA: portA}))
	plain := route(ns, "plain", "plain.example.com", nil)
	plain.Spec.Port = &routecore.RoutePort{TargetPort: intstr.FromString("http")}
	edge := route(ns, "edge", "edge.example.com", nil)
	edge.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}
	create(t, cp, plain, edge)

	r := cp.StartRouter(t, "traffic")
	waitStatus(t, cp, ns, "plain", "traffic: True")
	httpURL := fmt.Sprintf("http://127.0.0.1:%d/", r.HTTPPort)
	httpsURL := fmt.Sprintf("https://127.0.0.1:%d/", r.HTTPSPort)
	client := &http.Client{Timeout: 5 * time.Second}
	framework.Eventually(t, "plain.example.com served by pod-a", func() error {
		if code, body, err := get(client, httpURL, "plain.example.com"); err != nil || code != 200 || body != "pod-a" {
			return fmt.Errorf("%d %q %v", code, body, err)
		}
		return nil
	})
	// Edge TLS with the router's default certificate, chosen by SNI.
	tlsClient := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{ServerName: "edge.example.com", InsecureSkipVerify: true}}}
	framework.Eventually(t, "edge.example.com served over TLS", func() error {
		if code, body, err := get(tlsClient, httpsURL, "edge.example.com"); err != nil || code != 200 || body != "pod-a" {
			return fmt.Errorf("%d %q %v", code, body, err)
		}
		return nil
	})

	// The first load is timed, and HAProxy's counters are exported. The
	// exporter re-scrapes HAProxy at most every 5 s: retry until a scrape
	// after the requests above.
	framework.Eventually(t, "/metrics after the first load", func() error {
		series, err := scrape(r)
		if err != nil {
			return err
		}
		return routerMetricsAfterFirstLoad(series, ns)
	})

	// A second endpoint: reached through the runtime API, no reload.
	reloads := counterSum(t, r, "routeshift_router_reloads_total")
	es := endpointSlice(ns, map[string]int32{ipA: portA})
	es.Name = "web-2"
	p := portB
	es.Ports[0].Port = &p
	create(t, cp, es)
	seen := map[string]bool{}
	framework.Eventually(t, "both endpoints reached", func() error {
		_, body, _ := get(client, httpURL, "plain.example.com")
		seen[body] = true
		if !seen["pod-a"] || !seen["pod-b"] {
			return fmt.Errorf("reached %v", seen)
		}
		return nil
	})
	if n := counterSum(t, r, "routeshift_router_reloads_total"); n != reloads {
		t.Errorf("adding an endpoint reloaded HAProxy %v times, want 0", n-reloads)
	}

	// A deleted Route is no longer served.
	if err := cp.Client.Delete(ctx, plain); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, "plain.example.com no longer served", func() error {
		if code, _, err := get(client, httpURL, "plain.example.com"); err != nil || code != http.StatusServiceUnavailable {
			return fmt.Errorf("%d %v", code, err)
		}
		return nil
	})
}
