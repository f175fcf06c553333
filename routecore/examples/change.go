package examples

import (
	"strings"

	"github.com/routeshift/routeshift/routecore"
)

// Changes that examples make, so that each example reads as what it
// changes.

// Annotate sets an annotation.
func Annotate(key, value string) func(*routecore.Route) {
	return func(r *routecore.Route) {
		if r.Annotations == nil {
			r.Annotations = map[string]string{}
		}
		r.Annotations[key] = value
	}
}

// WithTLS sets spec.tls.
func WithTLS(t routecore.TLSConfig) func(*routecore.Route) {
	return func(r *routecore.Route) { r.Spec.TLS = &t }
}

// EdgeWith makes the Route edge-terminated with a certificate, its key
// and a CA certificate.
func EdgeWith(cert, key, ca string) func(*routecore.Route) {
	return WithTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: cert, Key: key, CACertificate: ca})
}

// Both makes each change in turn.
func Both(changes ...func(*routecore.Route)) func(*routecore.Route) {
	return func(r *routecore.Route) {
		for _, c := range changes {
			c(r)
		}
	}
}

// Unchanged is the change that changes nothing.
func Unchanged(*routecore.Route) {}

func labelled(r *routecore.Route) { r.Labels = map[string]string{"team": "shop"} }

func weight(w int32) *int32 { return &w }

func withWeight(w int32) func(*routecore.Route) {
	return func(r *routecore.Route) { r.Spec.To.Weight = weight(w) }
}

func headerSet(name, value string) routecore.RouteHTTPHeader {
	return routecore.RouteHTTPHeader{Name: name, Action: routecore.RouteHTTPHeaderActionUnion{
		Type: routecore.Set, Set: &routecore.RouteSetHTTPHeader{Value: value}}}
}

func responseHeaders(h ...routecore.RouteHTTPHeader) func(*routecore.Route) {
	return func(r *routecore.Route) {
		r.Spec.HTTPHeaders = &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{Response: h}}
	}
}

// label64 is a DNS label one character too long.
var label64 = strings.Repeat("x", 64)
