package router

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestLoadBalancerAddress: a load balancer's first host name, else its
// first IP address.
func TestLoadBalancerAddress(t *testing.T) {
	tests := []struct {
		name    string
		ingress []corev1.LoadBalancerIngress
		want    string
	}{
		{"none yet", nil, ""},
		{"an IP address", []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}}, "203.0.113.7"},
		{"a host name", []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}, "lb.example.com"},
		{"a host name wins over an earlier IP address",
			[]corev1.LoadBalancerIngress{{IP: "203.0.113.7"}, {Hostname: "lb.example.com"}}, "lb.example.com"},
		{"dual stack: the first IP address", []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}, {IP: "2001:db8::7"}}, "203.0.113.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &corev1.Service{Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: tt.ingress}}}
			if got := LoadBalancerAddress(svc); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPublishedAddress: ROUTER_CANONICAL_HOSTNAME, else
// ROUTER_PUBLISH_STATUS_ADDRESS, else the address of the published
// Service's load balancer, which only then is followed.
func TestPublishedAddress(t *testing.T) {
	router := types.NamespacedName{Namespace: "routeshift", Name: "routeshift-router"}
	tests := []struct {
		name       string
		cfg        Config
		want       string
		wantFollow bool
	}{
		{"nothing set", Config{}, "", false},
		{"canonical hostname", Config{CanonicalHostname: "apps.example.com"}, "apps.example.com", false},
		{"fixed address", Config{PublishStatusAddress: "203.0.113.7"}, "203.0.113.7", false},
		{"canonical hostname wins", Config{CanonicalHostname: "apps.example.com", PublishStatusAddress: "203.0.113.7", PublishService: router},
			"apps.example.com", false},
		{"fixed address wins over the Service", Config{PublishStatusAddress: "203.0.113.7", PublishService: router}, "203.0.113.7", false},
		{"the Service", Config{PublishService: router}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Name = "public"
			id := tt.cfg.StatusIdentity()
			svc, follow := tt.cfg.PublishedService()
			if id != (StatusIdentity{RouterName: "public", CanonicalHostname: tt.want}) || follow != tt.wantFollow || follow && svc != router {
				t.Errorf("identity %+v, follows %v %v; want address %q, follows %v", id, svc, follow, tt.want, tt.wantFollow)
			}
		})
	}
}
