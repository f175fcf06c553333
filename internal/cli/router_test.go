package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/spf13/pflag"

	"github.com/routeshift/routeshift/internal/settings"
)

// TestRouterMutualTLSNeedsCA: a router asked for client certificates
// without the CA bundle to verify them stops before serving anything (it
// would otherwise trust no one, or everyone), and says what to set.
func TestRouterMutualTLSNeedsCA(t *testing.T) {
	t.Setenv("ROUTER_MUTUAL_TLS_AUTH", "required")
	_, stderr, code := run(t, "", "router", "--kubeconfig", unreachableKubeconfig(t), "--working-dir", t.TempDir())
	if code == 0 || !strings.Contains(stderr, "ROUTER_MUTUAL_TLS_AUTH_CA: must name the PEM bundle of the certificate authorities") {
		t.Errorf("exit %d, stderr:\n%s\nwant a refusal naming ROUTER_MUTUAL_TLS_AUTH_CA", code, stderr)
	}
}

// unreachableKubeconfig writes a kubeconfig whose API server cannot be
// reached (nothing listens on port 1): a command that gets as far as
// talking to the cluster hangs or fails on the connection instead of
// returning the error under test.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: nobody
  user: {token: "x"}
contexts:
- name: nowhere
  context: {cluster: nowhere, user: nobody}
current-context: nowhere
`
	if err := os.WriteFile(p, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// runRouterCmd runs `routeshift router` with args (after a kubeconfig of an
// unreachable cluster and a working directory) and fails the test if it
// has not returned within 30 s, which means it got past the checks under
// test to the cluster.
func runRouterCmd(t *testing.T, args ...string) (stderr string, code int) {
	t.Helper()
	args = append([]string{"router", "--kubeconfig", unreachableKubeconfig(t), "--working-dir", t.TempDir()}, args...)
	type result struct {
		stderr string
		code   int
	}
	done := make(chan result, 1)
	go func() {
		_, stderr, code := run(t, "", args...)
		done <- result{stderr, code}
	}()
	select {
	case r := <-done:
		return r.stderr, r.code
	case <-time.After(30 * time.Second):
		t.Fatalf("routeshift %s still running after 30s: it went on to the cluster", strings.Join(args, " "))
		return "", 0
	}
}

// noNamespace is the refusal of a router that knows no namespace, as
// router.Router.Run returns it and Execute prints it.
const noNamespace = "error: ROUTER_SERVICE_NAMESPACE (or $POD_NAMESPACE) is required to write route status: " +
	"the replicas of a router elect the one that writes in a Lease there; set it, or set ROUTER_UPDATE_STATUS=false\n"

// TestRouterNeedsNamespace: a router that writes status (the default) and
// is given neither ROUTER_SERVICE_NAMESPACE, --namespace nor $POD_NAMESPACE
// refuses to start, naming the variables, before it talks to the cluster.
func TestRouterNeedsNamespace(t *testing.T) {
	t.Setenv("ROUTER_SERVICE_NAMESPACE", "")
	t.Setenv("POD_NAMESPACE", "")
	stderr, code := runRouterCmd(t)
	if code != 1 || stderr != noNamespace {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and\n%s", code, stderr, noNamespace)
	}
}

// TestRouterNamespaceSources: where a router's namespace comes from, in
// order: --namespace, ROUTER_SERVICE_NAMESPACE, $POD_NAMESPACE; with none
// it is empty, which Router.Run refuses (TestRouterNeedsNamespace).
func TestRouterNamespaceSources(t *testing.T) {
	tests := []struct {
		name                  string
		serviceNS, podNS, arg string
		want                  string
	}{
		{name: "none"},
		{name: "POD_NAMESPACE", podNS: "pod-ns", want: "pod-ns"},
		{name: "ROUTER_SERVICE_NAMESPACE wins over POD_NAMESPACE", serviceNS: "svc-ns", podNS: "pod-ns", want: "svc-ns"},
		{name: "--namespace wins over both", serviceNS: "svc-ns", podNS: "pod-ns", arg: "flag-ns", want: "flag-ns"},
		{name: "--namespace alone", arg: "flag-ns", want: "flag-ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ROUTER_SERVICE_NAMESPACE", tt.serviceNS)
			t.Setenv("POD_NAMESPACE", tt.podNS)
			fs := pflag.NewFlagSet("router", pflag.ContinueOnError)
			parse := settings.AddFlags(fs, os.Getenv)
			var args []string
			if tt.arg != "" {
				args = []string{"--namespace", tt.arg}
			}
			if err := fs.Parse(args); err != nil {
				t.Fatal(err)
			}
			cfg, err := parse()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Router.Namespace != tt.want {
				t.Errorf("namespace %q, want %q", cfg.Router.Namespace, tt.want)
			}
		})
	}
}

// TestRouterMetricsType: ROUTER_METRICS_TYPE (--metrics-type) accepts
// "haproxy", the default, which adds the HAProxy exporter to the router's
// /metrics registry, and "" (router metrics only), which only the flag can
// give: an empty variable counts as unset. Other values are refused before
// anything starts. Each accepted run goes on to the namespace refusal,
// which comes before the cluster is reached.
func TestRouterMetricsType(t *testing.T) {
	tests := []struct {
		name         string
		env          *string // nil: unset
		args         []string
		wantExporter bool
		wantStderr   string
	}{
		{name: "default", wantExporter: true, wantStderr: noNamespace},
		{name: "haproxy", env: strPtr("haproxy"), wantExporter: true, wantStderr: noNamespace},
		{name: "empty variable is unset", env: strPtr(""), wantExporter: true, wantStderr: noNamespace},
		{name: "empty flag: router metrics only", env: strPtr("haproxy"), args: []string{"--metrics-type="}, wantStderr: noNamespace},
		{name: "invalid variable", env: strPtr("prometheus"),
			wantStderr: "error: ROUTER_METRICS_TYPE (--metrics-type) \"prometheus\": use one of , haproxy\n"},
		{name: "invalid flag", args: []string{"--metrics-type", "openshift"},
			wantStderr: "error: ROUTER_METRICS_TYPE (--metrics-type) \"openshift\": use one of , haproxy\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ROUTER_SERVICE_NAMESPACE", "")
			t.Setenv("POD_NAMESPACE", "")
			if tt.env == nil {
				t.Setenv("ROUTER_METRICS_TYPE", "")
				os.Unsetenv("ROUTER_METRICS_TYPE")
			} else {
				t.Setenv("ROUTER_METRICS_TYPE", *tt.env)
			}
			stderr, code := runRouterCmd(t, tt.args...)
			if code != 1 || stderr != tt.wantStderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and\n%s", code, stderr, tt.wantStderr)
			}
			if stderr != noNamespace {
				return // refused before a registry is made
			}
			// The same settings, from the same variable and flags, give
			// the router's registry the exporter or not.
			fs := pflag.NewFlagSet("router", pflag.ContinueOnError)
			parse := settings.AddFlags(fs, os.Getenv)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := parse()
			if err != nil {
				t.Fatal(err)
			}
			if got := exporterRegistered(t, cfg); got != tt.wantExporter {
				t.Errorf("HAProxy exporter registered: %v, want %v", got, tt.wantExporter)
			}
		})
	}
}

func strPtr(s string) *string { return &s }

// exporterRegistered reports whether the registry a router with cfg serves
// on /metrics holds HAProxy's statistics.
func exporterRegistered(t *testing.T, cfg settings.Config) bool {
	t.Helper()
	reg, _, _, err := newRouterRegistry()
	if err != nil {
		t.Fatal(err)
	}
	stats := func(context.Context) (string, error) { return "", errors.New("no HAProxy in this test") }
	if err := registerExporter(reg, cfg, stats); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(mfs, func(mf *dto.MetricFamily) bool { return mf.GetName() == "haproxy_exporter_up" })
}

// TestRenderServicePort: render reads Services: a Route whose numeric
// targetPort is the Service's port (80, to the pods' 8080) gets the
// endpoints behind that port; without the Service it gets none (the
// router serves 503, as OpenShift's does).
func TestRenderServicePort(t *testing.T) {
	const route = `apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: web, namespace: shop}
spec:
  host: shop.example.com
  to: {kind: Service, name: web}
  port: {targetPort: 80}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-abcde, namespace: shop, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
ports: [{name: http, port: 8080, protocol: TCP}]
endpoints: [{addresses: [10.1.0.10], conditions: {ready: true}}]
`
	const service = `---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
`
	for _, tt := range []struct {
		name, input string
		served      bool
	}{
		{"with the Service", route + service, true},
		{"without it", route, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			stdout, stderr, code := run(t, tt.input, "render", "-f", "-", "--dir", dir)
			if code != 0 || stdout != "shop/web admitted\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			backends, err := filepath.Glob(filepath.Join(dir, "conf", "backends", "*.cfg"))
			if err != nil || len(backends) == 0 {
				t.Fatalf("no backend files in %s: %v", dir, err)
			}
			var config strings.Builder
			for _, b := range backends {
				data, err := os.ReadFile(b)
				if err != nil {
					t.Fatal(err)
				}
				config.Write(data)
			}
			if got := strings.Contains(config.String(), " 10.1.0.10:8080 "); got != tt.served {
				t.Errorf("the backends serve 10.1.0.10:8080: %v, want %v\n%s", got, tt.served, config.String())
			}
		})
	}
}
