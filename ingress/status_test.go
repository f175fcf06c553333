package ingress

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/routecore"
)

// lb is a load-balancer entry: an IP address when addr looks like one
// (digits and dots, or with a colon), else a hostname.
func lb(addr string) networkingv1.IngressLoadBalancerIngress {
	if strings.Contains(addr, ":") || strings.Trim(addr, "0123456789.") == "" {
		return networkingv1.IngressLoadBalancerIngress{IP: addr}
	}
	return networkingv1.IngressLoadBalancerIngress{Hostname: addr}
}

func lbs(addrs ...string) []networkingv1.IngressLoadBalancerIngress {
	var out []networkingv1.IngressLoadBalancerIngress
	for _, a := range addrs {
		out = append(out, lb(a))
	}
	return out
}

// statusRoute is an owned Route with routers' status entries.
func statusRoute(name string, entries ...routecore.RouteIngress) routecore.Route {
	return routecore.Route{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: routecore.RouteStatus{Ingress: entries}}
}

// admittedBy and rejectedBy are a router's status entry with its canonical
// hostname.
func admittedBy(router, canonical string) routecore.RouteIngress {
	return routecore.RouteIngress{RouterName: router, RouterCanonicalHostname: canonical,
		Conditions: []routecore.RouteIngressCondition{{Type: routecore.RouteAdmitted, Status: corev1.ConditionTrue}}}
}

func rejectedBy(router, canonical string) routecore.RouteIngress {
	return routecore.RouteIngress{RouterName: router, RouterCanonicalHostname: canonical,
		Conditions: []routecore.RouteIngressCondition{{Type: routecore.RouteAdmitted, Status: corev1.ConditionFalse, Reason: "HostAlreadyClaimed"}}}
}

// withStatus sets the Ingress's load-balancer entries.
func withStatus(entries ...networkingv1.IngressLoadBalancerIngress) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) { ing.Status.LoadBalancer.Ingress = entries }
}

func TestPlanLoadBalancer(t *testing.T) {
	a, b := "web-aaaaa", "web-bbbbb"
	both := map[string]bool{a: true, b: true}
	tests := []struct {
		name      string
		ing       *networkingv1.Ingress
		owned     []routecore.Route
		kept      map[string]bool
		want      []networkingv1.IngressLoadBalancerIngress
		published string
		unusable  []unusableCanonicalHostname
	}{
		{name: "no routers, nothing written", ing: ingress(), kept: both},
		{name: "admitting routers, sorted, each once",
			ing:   ingress(),
			owned: []routecore.Route{statusRoute(a, admittedBy("public", "public.example.com"), admittedBy("internal", "internal.example.com")), statusRoute(b, admittedBy("public", "public.example.com"))},
			kept:  both, want: lbs("internal.example.com", "public.example.com"), published: "internal.example.com,public.example.com"},
		{name: "an IP address goes into ip, in canonical form",
			ing:   ingress(),
			owned: []routecore.Route{statusRoute(a, admittedBy("v4", "192.0.2.10"), admittedBy("v6", "2001:DB8:0::10"), admittedBy("zeros", "198.051.100.007"), admittedBy("name", "router.example.com"))},
			kept:  both, want: lbs("192.0.2.10", "198.51.100.7", "2001:db8::10", "router.example.com"),
			published: "192.0.2.10,198.51.100.7,2001:db8::10,router.example.com"},
		{name: "a value neither name nor address is left out",
			ing:   ingress(),
			owned: []routecore.Route{statusRoute(a, admittedBy("bad", "Router_1.example.com"), admittedBy("public", "public.example.com"))},
			kept:  both, want: lbs("public.example.com"), published: "public.example.com",
			unusable: []unusableCanonicalHostname{{Route: a, Router: "bad", Value: "Router_1.example.com"}}},
		{name: "a router that did not admit, or admitted a Route being deleted, is not listed",
			ing:   ingress(withStatus(lbs("public.example.com", "shard.example.com")...)),
			owned: []routecore.Route{statusRoute(a, rejectedBy("public", "public.example.com")), statusRoute(b, admittedBy("shard", "shard.example.com"))},
			kept:  map[string]bool{a: true}},
		{name: "other controllers' entries are kept as they are",
			ing: ingress(withStatus(networkingv1.IngressLoadBalancerIngress{IP: "10.0.0.1", Ports: []networkingv1.IngressPortStatus{{Port: 443, Protocol: corev1.ProtocolTCP}}},
				lb("lb.example.com"))),
			owned: []routecore.Route{statusRoute(a, admittedBy("public", "public.example.com"))},
			kept:  both,
			want: []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.1", Ports: []networkingv1.IngressPortStatus{{Port: 443, Protocol: corev1.ProtocolTCP}}},
				lb("lb.example.com"), lb("public.example.com")},
			published: "public.example.com"},
		{name: "a recorded entry no Route names any more is dropped, other controllers' are kept",
			ing:   ingress(withStatus(lbs("10.0.0.1", "192.0.2.10", "gone.example.com", "lb.example.com", "public.example.com")...), annotation(PublishedAddressesAnnotation, "192.0.2.10,gone.example.com,public.example.com")),
			owned: []routecore.Route{statusRoute(a, admittedBy("public", "public.example.com"))},
			kept:  both, want: lbs("10.0.0.1", "lb.example.com", "public.example.com"), published: "public.example.com"},
		{name: "without a record, an entry that a Route names is ours",
			ing:   ingress(withStatus(lbs("internal.example.com", "lb.example.com")...)),
			owned: []routecore.Route{statusRoute(a, rejectedBy("internal", "internal.example.com"))},
			kept:  both, want: lbs("lb.example.com")},
		{name: "without a record or a Route naming it, an entry is another controller's",
			ing:  ingress(withStatus(lbs("gone.example.com")...)),
			kept: both, want: lbs("gone.example.com")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planLoadBalancer(tt.ing, tt.owned, tt.kept)
			want := loadBalancerPlan{Ingress: tt.want, Published: tt.published, Unusable: tt.unusable}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("planLoadBalancer:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// The API server refuses an IP address as an entry's hostname; every value
// that parses as one, as the API server parses it, becomes the entry's ip.
func TestLoadBalancerEntry(t *testing.T) {
	tests := []struct {
		canonical string
		want      networkingv1.IngressLoadBalancerIngress
		ok        bool
	}{
		{"router.apps.example.com", lb("router.apps.example.com"), true},
		{"192.0.2.10", lb("192.0.2.10"), true},
		{"010.000.002.010", lb("10.0.2.10"), true},
		{"::ffff:192.0.2.10", lb("192.0.2.10"), true},
		{"2001:0db8::0010", lb("2001:db8::10"), true},
		{"1.2.3", networkingv1.IngressLoadBalancerIngress{Hostname: "1.2.3"}, true}, // not an address: a DNS name
		{"Router.example.com", networkingv1.IngressLoadBalancerIngress{}, false},
		{"router.example.com.", networkingv1.IngressLoadBalancerIngress{}, false},
		{"fe80::1%eth0", networkingv1.IngressLoadBalancerIngress{}, false},
	}
	for _, tt := range tests {
		got, ok := loadBalancerEntry(tt.canonical)
		if !reflect.DeepEqual(got, tt.want) || ok != tt.ok {
			t.Errorf("loadBalancerEntry(%q) = %+v, %v; want %+v, %v", tt.canonical, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPublishedAddresses(t *testing.T) {
	tests := []struct {
		value string
		want  []string
	}{
		{"", nil},
		{"a.example.com", []string{"a.example.com"}},
		{" a.example.com, 192.0.2.1 ,,", []string{"a.example.com", "192.0.2.1"}},
	}
	for _, tt := range tests {
		got := publishedAddresses(ingress(annotation(PublishedAddressesAnnotation, tt.value)))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("publishedAddresses(%q) = %q, want %q", tt.value, got, tt.want)
		}
	}
}

// The controller's record of the status stays on the Ingress: copied to
// the Routes, it would change them whenever a router comes or goes.
func TestPublishedAddressesNotCopiedToRoutes(t *testing.T) {
	ing := ingress(rule("www.example.com", path("/", "web", portName("http"))),
		annotation(PublishedAddressesAnnotation, "router.example.com"), annotation("example.com/team", "shop"))
	res := Translate(ing, objects(web()), DefaultControllerName)
	if len(res.Routes) != 1 {
		t.Fatalf("routes %+v, problems %q", res.Routes, res.Problems)
	}
	if got, want := res.Routes[0].Annotations, map[string]string{"example.com/team": "shop"}; !reflect.DeepEqual(got, want) {
		t.Errorf("route annotations %v, want %v", got, want)
	}
}
