package router

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestRouterIsolatesARouteHAProxyRefuses: on a control plane without the
// webhook, a tenant creates an edge Route whose certificate HAProxy
// refuses to load (a 1024-bit RSA key, which Go and routecore accept).
// `routeshift router` keeps serving the other Routes, serves Routes
// created afterwards, applies endpoint changes, reports the Route
// Admitted=False with reason RouteNotServable and HAProxy's words, counts
// it in routeshift_router_routes_not_servable, and serves it once it is
// fixed.
func TestRouterIsolatesARouteHAProxyRefuses(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := isolatedNamespace(t, cp, "isolation", nil)
	ipA, portA := backend(t, "pod-a")
	ipB, portB := backend(t, "pod-b")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: corev1.ServiceSpec{
		Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}}}
	slice := endpointSlice(ns, map[string]int32{ipA: portA})
	create(t, cp, svc, slice, route(ns, "good", "good.example.com", nil))
	r := cp.StartRouter(t, "isolation", "--namespace-labels", only(ns))
	waitStatus(t, cp, ns, "good", "isolation: True")
	httpURL := fmt.Sprintf("http://127.0.0.1:%d/", r.HTTPPort)
	plain := &http.Client{Timeout: 5 * time.Second}
	served := func(host, want string) func() error {
		return func() error {
			if code, body, err := get(plain, httpURL, host); err != nil || code != 200 || body != want {
				return fmt.Errorf("%s: %d %q %v", host, code, body, err)
			}
			return nil
		}
	}
	framework.Eventually(t, "good.example.com served by pod-a", served("good.example.com", "pod-a"))

	cert, key, err := fixtures.WeakCertificate("weak.example.com")
	if err != nil {
		t.Fatal(err)
	}
	weak := route(ns, "weak", "weak.example.com", nil)
	weak.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: cert, Key: key}
	create(t, cp, weak)
	got := waitStatus(t, cp, ns, "weak", "isolation: False RouteNotServable")
	in, _ := entryOf(got, "isolation")
	if msg := in.Conditions[0].Message; !strings.Contains(msg, "unable to load SSL certificate") || !strings.HasPrefix(msg, "HAProxy refuses this route's configuration: ") {
		t.Errorf("message %q, want HAProxy's words", msg)
	}
	if in.Host != "weak.example.com" {
		t.Errorf("entry %+v, want the route's host", in)
	}
	framework.Eventually(t, "routeshift_router_routes_not_servable counts the route", func() error {
		if v := counterSum(t, r, "routeshift_router_routes_not_servable"); v != 1 {
			return fmt.Errorf("routeshift_router_routes_not_servable = %v", v)
		}
		return nil
	})

	// Another Route, created afterwards, is served; an endpoint change applies.
	create(t, cp, route(ns, "later", "later.example.com", nil))
	waitStatus(t, cp, ns, "later", "isolation: True")
	framework.Eventually(t, "later.example.com served by pod-a", served("later.example.com", "pod-a"))
	moved := endpointSlice(ns, map[string]int32{ipB: portB})
	if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(slice), slice); err != nil {
		t.Fatal(err)
	}
	slice.Endpoints, slice.Ports = moved.Endpoints, moved.Ports
	if err := cp.Client.Update(ctx, slice); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, "good.example.com served by pod-b after the endpoint change", served("good.example.com", "pod-b"))

	// The weak Route answers 503 on its host over TLS (closed, not
	// another Route's backend).
	tlsClient := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{ServerName: "weak.example.com", InsecureSkipVerify: true}}}
	httpsURL := fmt.Sprintf("https://127.0.0.1:%d/", r.HTTPSPort)
	if code, _, err := get(tlsClient, httpsURL, "weak.example.com"); err != nil || code != http.StatusServiceUnavailable {
		t.Errorf("weak.example.com over TLS: %d %v, want 503", code, err)
	}

	// Fixed (the router's default certificate instead), it is served.
	fixed := getRoute(t, cp, ns, "weak")
	fixed.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}
	if err := cp.Client.Update(ctx, fixed); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, cp, ns, "weak", "isolation: True")
	framework.Eventually(t, "the fixed route is served over TLS", func() error {
		if code, body, err := get(tlsClient, httpsURL, "weak.example.com"); err != nil || code != 200 || body != "pod-b" {
			return fmt.Errorf("%d %q %v", code, body, err)
		}
		return nil
	})
	framework.Eventually(t, "routeshift_router_routes_not_servable back to 0", func() error {
		if v := counterSum(t, r, "routeshift_router_routes_not_servable"); v != 0 {
			return fmt.Errorf("routeshift_router_routes_not_servable = %v", v)
		}
		return nil
	})
}
