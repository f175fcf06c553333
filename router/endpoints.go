package router

import (
	"cmp"
	"net/netip"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Addresses the router never sends traffic to, whatever an EndpointSlice
// says: cloud metadata services and the like. An EndpointSlice is written
// by users of selector-less Services, and must not turn the router into a
// proxy to the node's own secrets.
var (
	azureWireServer = netip.MustParseAddr("168.63.129.16")
	awsMetadataV6   = netip.MustParseAddr("fd00:ec2::254")
)

// AllowedEndpoint reports whether the router may route to ip: not
// unspecified, multicast, link-local (which includes 169.254.169.254, the
// metadata service) or a known metadata address, and not loopback unless
// allowLoopback (routeshift local, where backends run on loopback). IPv4
// addresses written as IPv6 are judged as IPv4.
func AllowedEndpoint(ip string, allowLoopback bool) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil || a.Zone() != "" {
		return false
	}
	a = a.Unmap() // IPv4-mapped ::ffff:a.b.c.d
	if b := a.As16(); a.Is6() && [12]byte(b[:12]) == [12]byte{} && !a.IsUnspecified() && !a.IsLoopback() {
		a = netip.AddrFrom4([4]byte(b[12:])) // IPv4-compatible ::a.b.c.d
	}
	switch {
	case a.IsUnspecified(), a.IsMulticast(), a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(),
		a == azureWireServer, a == awsMetadataV6:
		return false
	case a.IsLoopback():
		return allowLoopback
	}
	return true
}

// ServiceEndpointsFromSlices merges the EndpointSlices of one service into
// its ready TCP endpoints: not-ready and terminating endpoints are left out,
// as are addresses AllowedEndpoint refuses. The result is sorted by port
// name, address and port, without duplicates.
func ServiceEndpointsFromSlices(svc types.NamespacedName, slices_ []*discoveryv1.EndpointSlice, allowLoopback bool) *ServiceEndpoints {
	out := &ServiceEndpoints{Service: svc}
	for _, s := range slices_ {
		if s.AddressType == discoveryv1.AddressTypeFQDN {
			continue
		}
		for _, ep := range s.Endpoints {
			if (ep.Conditions.Ready != nil && !*ep.Conditions.Ready) || (ep.Conditions.Terminating != nil && *ep.Conditions.Terminating) {
				continue
			}
			target := ""
			if ep.TargetRef != nil && ep.TargetRef.Kind == "Pod" {
				target = ep.TargetRef.Name
			}
			for _, addr := range ep.Addresses {
				if !AllowedEndpoint(addr, allowLoopback) {
					continue
				}
				for _, p := range s.Ports {
					if p.Port == nil || (p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP) {
						continue
					}
					e := Endpoint{IP: addr, Port: *p.Port, TargetRef: target}
					if p.Name != nil {
						e.PortName = *p.Name
					}
					if p.AppProtocol != nil {
						e.AppProtocol = *p.AppProtocol
					}
					out.Endpoints = append(out.Endpoints, e)
				}
			}
		}
	}
	slices.SortFunc(out.Endpoints, func(a, b Endpoint) int {
		return cmp.Or(cmp.Compare(a.PortName, b.PortName), cmp.Compare(a.IP, b.IP), cmp.Compare(a.Port, b.Port))
	})
	out.Endpoints = slices.CompactFunc(out.Endpoints, func(a, b Endpoint) bool { return a.IP == b.IP && a.Port == b.Port })
	return out
}

// applyServiceProtocols gives each endpoint the application protocol of
// the Service port of the same name, when that port has one.
func (s *ServiceEndpoints) applyServiceProtocols() {
	for _, p := range s.Ports {
		if p.AppProtocol == "" {
			continue
		}
		for i := range s.Endpoints {
			if s.Endpoints[i].PortName == p.Name {
				s.Endpoints[i].AppProtocol = p.AppProtocol
			}
		}
	}
}

// Select returns the endpoints a route with targetPort reaches: all of them
// when targetPort is nil; else those whose port name, or port number, is
// targetPort. A number (or a string of digits) that is no endpoint's port
// but the port of the Service selects the endpoints of that service port,
// as a Service's clients reach them: targetPort 80 on a Service that maps
// port 80 to the pods' 8080 reaches the 8080 endpoints.
func (s *ServiceEndpoints) Select(targetPort *intstr.IntOrString) []Endpoint {
	if s == nil {
		return nil
	}
	if targetPort == nil {
		return s.Endpoints
	}
	number := targetPort.IntVal
	if targetPort.Type == intstr.String {
		n, err := strconv.ParseInt(targetPort.StrVal, 10, 32)
		if err != nil {
			n = -1
		}
		number = int32(n)
	}
	out := s.filter(func(e Endpoint) bool {
		return (targetPort.Type == intstr.String && (e.PortName == targetPort.StrVal || strconv.Itoa(int(e.Port)) == targetPort.StrVal)) ||
			(targetPort.Type == intstr.Int && e.Port == number)
	})
	if len(out) > 0 {
		return out
	}
	for _, p := range s.Ports {
		if p.Port == number {
			return s.filter(func(e Endpoint) bool { return e.PortName == p.Name })
		}
	}
	return nil
}

func (s *ServiceEndpoints) filter(keep func(Endpoint) bool) []Endpoint {
	var out []Endpoint
	for _, e := range s.Endpoints {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}
