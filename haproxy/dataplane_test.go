package haproxy

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/router"
)

func requireHAProxy(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("haproxy"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("haproxy is not installed: run make tools")
		}
		t.Skip("haproxy is not installed")
	}
}

// liveDataPlane is a data-plane configuration on free loopback ports.
func liveDataPlane(t *testing.T) proxyconfig.Config {
	d := settings.Defaults().DataPlane
	d.WorkingDir = t.TempDir()
	d.BindAddress = "127.0.0.1"
	ports := freePorts(t, 4)
	d.HTTPPort, d.HTTPSPort, d.SNIPort, d.NoSNIPort = ports[0], ports[1], ports[2], ports[3]
	d.ReloadInterval = time.Second
	return d
}

// backend is a Go HTTP server on loopback answering with its name.
func backend(t *testing.T, name string) (string, int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, name) })}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "127.0.0.1", int32(l.Addr().(*net.TCPAddr).Port)
}

func sliceFor(ns, svc, ip string, port int32) *discoveryv1.EndpointSlice {
	ready := true
	name := "http"
	return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: svc + "-x", Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port}}}
}

func get(host string, port int, path string) (int, string, error) {
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// TestProcessServes: a snapshot published to the feed is served by HAProxy,
// and the data plane reports ready.
func TestProcessServes(t *testing.T) {
	requireHAProxy(t)
	d := liveDataPlane(t)
	ip, port := backend(t, "web")
	s := router.NewStore(router.AdmissionConfig{AllowLoopbackEndpoints: true})
	r := rt("ns", "web", "web.example.com", 1)
	r.Spec.To.Name = "web"
	s.SetRoute(r)
	s.SetEndpointSlice(sliceFor("ns", "web", ip, port))
	feed := &router.Feed{}
	p, err := NewDataPlane(d, DataPlaneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sub := feed.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.Serve(ctx, sub, router.FeedbackFunc(func(*router.Route, string) {})) }()
	defer func() { cancel(); <-done }()
	feed.Publish(s.Build(true))
	deadline := time.Now().Add(20 * time.Second)
	for !p.Ready() {
		if time.Now().After(deadline) {
			t.Fatal("not ready after 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, body, err := get("web.example.com", d.HTTPPort, "/")
	if err != nil || code != 200 || body != "web" {
		t.Fatalf("GET: %d %q %v", code, body, err)
	}
	if code, _, _ := get("nobody.example.com", d.HTTPPort, "/"); code != 503 {
		t.Errorf("unknown host: %d, want 503", code)
	}
}

func TestTickPeriod(t *testing.T) {
	cases := []struct {
		interval, want time.Duration
	}{
		{5 * time.Second, 500 * time.Millisecond},
		{time.Minute, 6 * time.Second},
		{200 * time.Millisecond, 50 * time.Millisecond},
		{50 * time.Millisecond, 50 * time.Millisecond},
		{0, 50 * time.Millisecond},
	}
	for _, c := range cases {
		if got := tickPeriod(c.interval); got != c.want {
			t.Errorf("tickPeriod(%v) = %v, want %v", c.interval, got, c.want)
		}
	}
}
