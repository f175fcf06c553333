package haproxy

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/routecore"
)

func targetPort(p intstr.IntOrString) func(*routecore.Route) {
	return func(r *routecore.Route) { r.Spec.Port = &routecore.RoutePort{TargetPort: p} }
}

// noEndpoint is nil when x is the 503 of a route whose backend has no
// server (HAProxy's own page: the route matched, no endpoint did).
func noEndpoint(x reply) error {
	if x.err != nil || x.code != http.StatusServiceUnavailable || x.header.Get("X-Backend") != "" {
		return fmt.Errorf("%v, want a 503 that no backend served", x)
	}
	return nil
}

func wantNoEndpoint(t *testing.T, what string, x reply) {
	t.Helper()
	if err := noEndpoint(x); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

// TestTrafficTargetPortServicePort: spec.port.targetPort selects the
// endpoints' port by name or number; a number that no endpoint port has but
// the Service's spec.ports[].port has (the Service port 80 in front of the
// pods' port) reaches the endpoints of that Service port, where OpenShift's
// router would answer 503. The Service arriving, changing and leaving is
// followed.
func TestTrafficTargetPortServicePort(t *testing.T) {
	r := newTrafficRouter(t)
	b := newBackend(t, "pod", nil, nil) // its EndpointSlice port is named "http"
	r.endpoints("ns", "svc", b)
	r.route(rt("ns", "by-name", "by-name.example.com", 1, targetPort(intstr.FromString("http"))))
	r.route(rt("ns", "by-pod-port", "by-pod-port.example.com", 2, targetPort(intstr.FromInt32(b.port))))
	r.route(rt("ns", "by-service-port", "by-service-port.example.com", 3, targetPort(intstr.FromInt32(80))))
	r.start()
	wantServed(t, "targetPort by name", r.get("by-name.example.com", "/"), "pod")
	wantServed(t, "targetPort by the endpoint's port", r.get("by-pod-port.example.com", "/"), "pod")
	wantNoEndpoint(t, "targetPort 80 before the Service is known", r.get("by-service-port.example.com", "/"))

	service := func(port int32, name string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "svc"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: name, Port: port, Protocol: corev1.ProtocolTCP}}}}
	}
	r.store.SetService(service(80, "http"))
	r.publish()
	r.servedBy("by-service-port.example.com", "/", "pod")
	wantServed(t, "targetPort by name, with the Service known", r.get("by-name.example.com", "/"), "pod")

	// The Service's port 80 now names another endpoint port: nothing serves it.
	r.store.SetService(service(80, "metrics"))
	r.publish()
	eventually(t, 20*time.Second, "targetPort 80 answers 503 once port 80 names no endpoint port", func() error {
		return noEndpoint(r.get("by-service-port.example.com", "/"))
	})

	r.store.SetService(service(80, "http"))
	r.publish()
	r.servedBy("by-service-port.example.com", "/", "pod")
	r.store.DeleteService("ns", "svc")
	r.publish()
	eventually(t, 20*time.Second, "targetPort 80 answers 503 once the Service is gone", func() error {
		return noEndpoint(r.get("by-service-port.example.com", "/"))
	})
	wantServed(t, "targetPort by the endpoint's port, Service gone", r.get("by-pod-port.example.com", "/"), "pod")
}
