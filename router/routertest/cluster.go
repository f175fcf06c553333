package routertest

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
)

// Cluster is the benchmarks' mix of routes: per 10 routes 4 plain HTTP, 3
// edge with the default certificate, 1 edge with its own certificate, 1
// reencrypt and 1 passthrough; 50 namespaces; every route its own service
// with an EndpointSlice of 2 endpoints.
type Cluster struct {
	Routes []*routecore.Route
	Slices []*discoveryv1.EndpointSlice
}

// NewCluster is a Cluster of n routes.
func NewCluster(tb testing.TB, n int) Cluster {
	p, err := fixtures.Certificates()
	if err != nil {
		tb.Fatal(err)
	}
	var c Cluster
	ready, tcp := true, corev1.ProtocolTCP
	port, portName := int32(8080), "http"
	for i := range n {
		ns := fmt.Sprintf("ns%d", i%50)
		r := Route(ns, fmt.Sprintf("r%d", i), fmt.Sprintf("r%d-%s.apps.example.com", i, ns), i)
		r.Spec.To.Name = r.Name
		switch i % 10 {
		case 4, 5, 6:
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyRedirect}
		case 7:
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: string(p.Leaf.CertPEM), Key: string(p.Leaf.KeyPEM)}
		case 8:
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationReencrypt, DestinationCACertificate: string(p.CA.CertPEM)}
		case 9:
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough}
		}
		c.Routes = append(c.Routes, r)
		c.Slices = append(c.Slices, &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: r.Name + "-abcde", Labels: map[string]string{discoveryv1.LabelServiceName: r.Name}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{
				{Addresses: []string{fmt.Sprintf("10.%d.%d.1", i/256%256, i%256)}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
				{Addresses: []string{fmt.Sprintf("10.%d.%d.2", i/256%256, i%256)}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
			},
			Ports: []discoveryv1.EndpointPort{{Name: &portName, Port: &port, Protocol: &tcp}},
		})
	}
	return c
}

// Loader is what a Cluster is loaded into: the router's Store.
type Loader interface {
	SetRoute(*routecore.Route)
	SetEndpointSlice(*discoveryv1.EndpointSlice)
}

// LoadInto puts the cluster's routes, then extra, then its EndpointSlices
// into s.
func (c Cluster) LoadInto(s Loader, extra ...*routecore.Route) {
	for _, r := range append(c.Routes, extra...) {
		s.SetRoute(r)
	}
	for _, es := range c.Slices {
		s.SetEndpointSlice(es)
	}
}

// RouteChanges are successive versions of one route, each with a new
// resource version and another path. Benchmarks keep it outside b.Run, as
// -count runs a sub-benchmark again on the same store: a counter restarting
// from 0 would re-apply versions the store already has.
type RouteChanges struct {
	Route *routecore.Route
	n     int
}

// Next is the next version of the route.
func (rc *RouteChanges) Next() *routecore.Route {
	rc.n++
	rc.Route = rc.Route.DeepCopy()
	rc.Route.ResourceVersion = fmt.Sprint("bench-", rc.n)
	rc.Route.Spec.Path = fmt.Sprintf("/v%d", rc.n%2)
	return rc.Route
}
