// Package routertest builds Routes for the tests of the router and of its
// data planes: valid, defaulted Routes with a fixed age, and modifiers
// that read like what they set. It must not import the router itself
// (router/), whose own tests use it.
package routertest

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/routecore"
)

// Epoch is the creation time of a Route of age 0.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Route is a valid, defaulted Route to service "svc" (weight 100) created
// age seconds after Epoch, with mods applied.
func Route(ns, name, host string, age int, mods ...func(*routecore.Route)) *routecore.Route {
	w := int32(100)
	r := &routecore.Route{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(fmt.Sprintf("uid-%s-%s", ns, name)),
			ResourceVersion: "1", CreationTimestamp: metav1.NewTime(Epoch.Add(time.Duration(age) * time.Second))},
		Spec: routecore.RouteSpec{Host: host, To: routecore.RouteTargetReference{Kind: "Service", Name: "svc", Weight: &w},
			WildcardPolicy: routecore.WildcardPolicyNone},
	}
	for _, m := range mods {
		m(r)
	}
	return r
}

// WithPath sets spec.path.
func WithPath(p string) func(*routecore.Route) { return func(r *routecore.Route) { r.Spec.Path = p } }

// Wildcard sets wildcardPolicy Subdomain.
func Wildcard(r *routecore.Route) { r.Spec.WildcardPolicy = routecore.WildcardPolicySubdomain }

// WithLabels sets the labels, given as key, value, key, value...
func WithLabels(kv ...string) func(*routecore.Route) {
	return func(r *routecore.Route) {
		r.Labels = map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			r.Labels[kv[i]] = kv[i+1]
		}
	}
}

// WithTLS sets spec.tls with termination t and nothing else.
func WithTLS(t routecore.TLSTerminationType) func(*routecore.Route) {
	return func(r *routecore.Route) { r.Spec.TLS = &routecore.TLSConfig{Termination: t} }
}
