package router

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/routecore"
)

// TestAllowedEndpoint: the addresses a router never routes to, in every way
// they can be written.
func TestAllowedEndpoint(t *testing.T) {
	tests := []struct {
		ip                    string
		allowed, withLoopback bool
	}{
		{"10.1.2.3", true, true},
		{"192.168.0.10", true, true},
		{"2001:db8::1", true, true},
		{"fd00:10::5", true, true},
		{"127.0.0.1", false, true},
		{"127.5.6.7", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true},
		{"169.254.169.254", false, false},
		{"169.254.1.1", false, false},
		{"fe80::1", false, false},
		{"224.0.0.1", false, false},
		{"239.255.255.250", false, false},
		{"ff02::1", false, false},
		{"0.0.0.0", false, false},
		{"::", false, false},
		{"168.63.129.16", false, false},
		{"fd00:ec2::254", false, false},
		{"::ffff:169.254.169.254", false, false},
		{"::ffff:168.63.129.16", false, false},
		{"::ffff:0.0.0.0", false, false},
		{"::ffff:224.0.0.1", false, false},
		{"::169.254.169.254", false, false},
		{"::168.63.129.16", false, false},
		{"::ffff:10.1.2.3", true, true},
		{"fe80::1%eth0", false, false},
		{"not-an-address", false, false},
		{"", false, false},
		{"10.1.2", false, false},
	}
	for _, tt := range tests {
		if got := AllowedEndpoint(tt.ip, false); got != tt.allowed {
			t.Errorf("AllowedEndpoint(%q, false) = %v, want %v", tt.ip, got, tt.allowed)
		}
		if got := AllowedEndpoint(tt.ip, true); got != tt.withLoopback {
			t.Errorf("AllowedEndpoint(%q, true) = %v, want %v", tt.ip, got, tt.withLoopback)
		}
	}
}

// sliceEndpoint is an EndpointSlice endpoint with its conditions: "ready",
// "not-ready", "terminating" (ready and terminating, as while a pod shuts
// down) or "" (no conditions written: ready).
func sliceEndpoint(cond, pod string, addrs ...string) discoveryv1.Endpoint {
	yes, no := true, false
	e := discoveryv1.Endpoint{Addresses: addrs}
	switch cond {
	case "ready":
		e.Conditions.Ready = &yes
	case "not-ready":
		e.Conditions.Ready = &no
	case "terminating":
		e.Conditions.Ready, e.Conditions.Terminating = &yes, &yes
	}
	if pod != "" {
		e.TargetRef = &corev1.ObjectReference{Kind: "Pod", Name: pod}
	}
	return e
}

// slicePort is an EndpointSlice port; protocol "" leaves it unset (TCP).
func slicePort(name string, number int32, protocol corev1.Protocol) discoveryv1.EndpointPort {
	p := discoveryv1.EndpointPort{Port: &number}
	if name != "" {
		p.Name = &name
	}
	if protocol != "" {
		p.Protocol = &protocol
	}
	return p
}

// webSlice is an EndpointSlice of the service ns/web.
func webSlice(name string, family discoveryv1.AddressType, ports []discoveryv1.EndpointPort, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: family, Ports: ports, Endpoints: eps,
	}
}

// showEndpoints renders endpoints as "portname ip:port pod", in order.
func showEndpoints(eps []Endpoint) string {
	var out []string
	for _, e := range eps {
		out = append(out, strings.TrimSpace(fmt.Sprintf("%s %s %s", e.PortName, e.IP+":"+fmt.Sprint(e.Port), e.TargetRef)))
	}
	return strings.Join(out, ", ")
}

// TestServiceEndpointsFromSlices: which endpoints of a service's
// EndpointSlices the router serves, and in which order.
func TestServiceEndpointsFromSlices(t *testing.T) {
	http := []discoveryv1.EndpointPort{slicePort("http", 8080, "")}
	tcp := corev1.ProtocolTCP
	tests := []struct {
		name          string
		slices        []*discoveryv1.EndpointSlice
		allowLoopback bool
		want          string
	}{
		{"ready endpoints and those without conditions are served",
			[]*discoveryv1.EndpointSlice{webSlice("a", discoveryv1.AddressTypeIPv4, http,
				sliceEndpoint("ready", "p1", "10.0.0.1"), sliceEndpoint("", "p2", "10.0.0.2"))},
			false, "http 10.0.0.1:8080 p1, http 10.0.0.2:8080 p2"},
		{"not-ready and terminating endpoints are left out",
			[]*discoveryv1.EndpointSlice{webSlice("a", discoveryv1.AddressTypeIPv4, http,
				sliceEndpoint("not-ready", "p1", "10.0.0.1"), sliceEndpoint("terminating", "p2", "10.0.0.2"), sliceEndpoint("ready", "p3", "10.0.0.3"))},
			false, "http 10.0.0.3:8080 p3"},
		{"loopback is refused unless allowed",
			[]*discoveryv1.EndpointSlice{webSlice("a", discoveryv1.AddressTypeIPv4, http,
				sliceEndpoint("ready", "", "127.0.0.1"), sliceEndpoint("ready", "", "10.0.0.1"))},
			false, "http 10.0.0.1:8080"},
		{"loopback allowed",
			[]*discoveryv1.EndpointSlice{webSlice("a", discoveryv1.AddressTypeIPv4, http,
				sliceEndpoint("ready", "", "127.0.0.1"), sliceEndpoint("ready", "", "10.0.0.1"))},
			true, "http 10.0.0.1:8080, http 127.0.0.1:8080"},
		{"metadata, link-local, multicast and unspecified addresses are refused, loopback allowed or not",
			[]*discoveryv1.EndpointSlice{
				webSlice("a", discoveryv1.AddressTypeIPv4, http, sliceEndpoint("ready", "", "169.254.169.254", "169.254.3.3", "224.0.0.5", "0.0.0.0", "168.63.129.16", "10.0.0.9")),
				webSlice("b", discoveryv1.AddressTypeIPv6, http, sliceEndpoint("ready", "", "fd00:ec2::254", "fe80::2", "ff02::2", "::", "::ffff:169.254.169.254", "fd00::9"))},
			true, "http 10.0.0.9:8080, http fd00::9:8080"},
		{"FQDN slices are ignored",
			[]*discoveryv1.EndpointSlice{webSlice("a", discoveryv1.AddressTypeFQDN, http, sliceEndpoint("ready", "", "db.example.com")),
				webSlice("b", discoveryv1.AddressTypeIPv4, http, sliceEndpoint("ready", "", "10.0.0.1"))},
			false, "http 10.0.0.1:8080"},
		{"UDP and SCTP ports and ports without a number are left out",
			[]*discoveryv1.EndpointSlice{webSlice("a", discoveryv1.AddressTypeIPv4,
				[]discoveryv1.EndpointPort{slicePort("dns", 53, corev1.ProtocolUDP), slicePort("sctp", 9, corev1.ProtocolSCTP), {Name: ptrTo("none")}, slicePort("http", 8080, tcp)},
				sliceEndpoint("ready", "", "10.0.0.1"))},
			false, "http 10.0.0.1:8080"},
		{"several slices merge, sorted by port name, address and port, without duplicates",
			[]*discoveryv1.EndpointSlice{
				webSlice("a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{slicePort("metrics", 9090, ""), slicePort("http", 8080, "")},
					sliceEndpoint("ready", "", "10.0.0.2"), sliceEndpoint("ready", "", "10.0.0.1")),
				webSlice("b", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{slicePort("http", 8080, ""), slicePort("metrics", 9090, "")},
					sliceEndpoint("ready", "", "10.0.0.1"), sliceEndpoint("ready", "", "10.0.0.3"))},
			false, "http 10.0.0.1:8080, http 10.0.0.2:8080, http 10.0.0.3:8080, metrics 10.0.0.1:9090, metrics 10.0.0.2:9090, metrics 10.0.0.3:9090"},
		{"an unnamed port",
			[]*discoveryv1.EndpointSlice{webSlice("a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{slicePort("", 8080, "")},
				sliceEndpoint("ready", "", "10.0.0.1"))},
			false, "10.0.0.1:8080"},
		{"no slices", nil, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := types.NamespacedName{Namespace: "ns", Name: "web"}
			got := ServiceEndpointsFromSlices(svc, tt.slices, tt.allowLoopback)
			if got.Service != svc {
				t.Errorf("service %v, want %v", got.Service, svc)
			}
			if s := showEndpoints(got.Endpoints); s != tt.want {
				t.Errorf("endpoints\n  %s\nwant\n  %s", s, tt.want)
			}
		})
	}
	t.Run("the app protocol is kept", func(t *testing.T) {
		p := slicePort("grpc", 9000, "")
		p.AppProtocol = ptrTo("kubernetes.io/h2c")
		got := ServiceEndpointsFromSlices(types.NamespacedName{Namespace: "ns", Name: "web"},
			[]*discoveryv1.EndpointSlice{webSlice("a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{p}, sliceEndpoint("ready", "", "10.0.0.1"))}, false)
		if len(got.Endpoints) != 1 || got.Endpoints[0].AppProtocol != "kubernetes.io/h2c" {
			t.Errorf("endpoints %+v, want one with app protocol kubernetes.io/h2c", got.Endpoints)
		}
	})
}

func ptrTo[T any](v T) *T { return &v }

// TestSelect: the endpoints a route's targetPort selects, by port name or
// number, or by the Service's port number.
func TestSelect(t *testing.T) {
	eps := &ServiceEndpoints{
		Endpoints: []Endpoint{
			{IP: "10.0.0.1", Port: 8080, PortName: "http"}, {IP: "10.0.0.2", Port: 8080, PortName: "http"},
			{IP: "10.0.0.1", Port: 9090, PortName: "metrics"},
		},
		Ports: []ServicePort{{Port: 80, Name: "http"}, {Port: 9100, Name: "metrics"}, {Port: 8080, Name: "metrics"}},
	}
	num, str := intstr.FromInt32, intstr.FromString
	tests := []struct {
		name       string
		targetPort *intstr.IntOrString
		want       string
	}{
		{"no targetPort: every port", nil, "http 10.0.0.1:8080, http 10.0.0.2:8080, metrics 10.0.0.1:9090"},
		{"by name", ptrTo(str("metrics")), "metrics 10.0.0.1:9090"},
		{"by endpoint port number", ptrTo(num(8080)), "http 10.0.0.1:8080, http 10.0.0.2:8080"},
		{"by endpoint port number written as a string", ptrTo(str("9090")), "metrics 10.0.0.1:9090"},
		{"by service port number", ptrTo(num(80)), "http 10.0.0.1:8080, http 10.0.0.2:8080"},
		{"by service port number written as a string", ptrTo(str("9100")), "metrics 10.0.0.1:9090"},
		{"an endpoint port wins over a service port of the same number", ptrTo(num(8080)), "http 10.0.0.1:8080, http 10.0.0.2:8080"},
		{"an unknown name", ptrTo(str("https")), ""},
		{"an unknown number", ptrTo(num(443)), ""},
	}
	for _, tt := range tests {
		if got := showEndpoints(eps.Select(tt.targetPort)); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
	if got := (*ServiceEndpoints)(nil).Select(nil); got != nil {
		t.Errorf("a service without endpoints selects %v", got)
	}
}

// TestRouteTargetPort: through the Store, a route's spec.port.targetPort by
// name or number selects the endpoint ports of its service, and a route
// without one gets them all; once the Service is known, a number that is a
// service port selects the endpoints behind it.
func TestRouteTargetPort(t *testing.T) {
	s := NewStore(AdmissionConfig{})
	s.SetEndpointSlice(webSlice("web-a", discoveryv1.AddressTypeIPv4,
		[]discoveryv1.EndpointPort{slicePort("http", 8080, ""), slicePort("metrics", 9090, "")},
		sliceEndpoint("ready", "p1", "10.0.0.1"), sliceEndpoint("ready", "p2", "10.0.0.2")))
	withPort := func(tp intstr.IntOrString) func(*routecore.Route) {
		return func(r *routecore.Route) { r.Spec.Port = &routecore.RoutePort{TargetPort: tp} }
	}
	routes := map[string]*routecore.Route{
		"by-name":    rt("ns", "by-name", "a.example.com", 1, withPort(intstr.FromString("metrics"))),
		"by-number":  rt("ns", "by-number", "b.example.com", 2, withPort(intstr.FromInt32(8080))),
		"by-string":  rt("ns", "by-string", "c.example.com", 3, withPort(intstr.FromString("9090"))),
		"unknown":    rt("ns", "unknown", "e.example.com", 5, withPort(intstr.FromInt32(443))),
		"by-service": rt("ns", "by-service", "f.example.com", 6, withPort(intstr.FromInt32(80))),
		"none":       rt("ns", "none", "d.example.com", 4),
	}
	for _, r := range routes {
		r.Spec.To.Name = "web"
		s.SetRoute(r)
	}
	selected := func(snap Snapshot, name string) string {
		t.Helper()
		r, ok := snap.Routes.Get("ns/" + name)
		if !ok {
			t.Fatalf("ns/%s is not served", name)
		}
		svc, _ := snap.Services.Get(r.Backends[0].Service.String())
		return showEndpoints(svc.Select(r.TargetPort))
	}
	want := map[string]string{
		"by-name":    "metrics 10.0.0.1:9090 p1, metrics 10.0.0.2:9090 p2",
		"by-number":  "http 10.0.0.1:8080 p1, http 10.0.0.2:8080 p2",
		"by-string":  "metrics 10.0.0.1:9090 p1, metrics 10.0.0.2:9090 p2",
		"unknown":    "",
		"by-service": "", // the Service is not known yet: 503, as OpenShift\'s router serves
		"none":       "http 10.0.0.1:8080 p1, http 10.0.0.2:8080 p2, metrics 10.0.0.1:9090 p1, metrics 10.0.0.2:9090 p2",
	}
	snap := s.Build(true)
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if got := selected(snap, name); got != want[name] {
			t.Errorf("%s selects %q, want %q", name, got, want[name])
		}
	}
	s.SetService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}})
	snap = s.Build(true)
	if got, want := selected(snap, "by-service"), "http 10.0.0.1:8080 p1, http 10.0.0.2:8080 p2"; got != want {
		t.Errorf("with the Service, by-service selects %q, want %q", got, want)
	}
}
