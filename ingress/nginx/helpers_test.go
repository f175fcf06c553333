package nginx

import (
	"maps"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/routecore"
)

// kv builds annotations from key, value pairs; keys are given without
// Prefix.
func kv(pairs ...string) map[string]string {
	m := make(map[string]string, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		m[Prefix+pairs[i]] = pairs[i+1]
	}
	return m
}

// routeFor is a Route carrying what a Conversion gives, as the Ingress
// translation would build it: host, a Service, TLS edge for TLS Ingresses
// unless the conversion says otherwise.
func routeFor(conv Conversion, tls bool, path string) *routecore.Route {
	r := &routecore.Route{
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", Annotations: maps.Clone(conv.Annotations)},
		Spec: routecore.RouteSpec{Host: "www.example.com", Path: path,
			To: routecore.RouteTargetReference{Kind: "Service", Name: "svc"}},
	}
	term := conv.Termination
	if term == "" && tls {
		term = routecore.TLSTerminationEdge
	}
	if term != "" {
		r.Spec.TLS = &routecore.TLSConfig{Termination: term, InsecureEdgeTerminationPolicy: conv.InsecureEdgeTerminationPolicy}
	}
	if len(conv.RequestHeaders) > 0 || len(conv.ResponseHeaders) > 0 {
		r.Spec.HTTPHeaders = &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{
			Request: conv.RequestHeaders, Response: conv.ResponseHeaders}}
	}
	return r
}

// checkValid fails when routecore refuses the Route a Conversion gives, or
// warns about one of the annotations the conversion set.
func checkValid(t *testing.T, conv Conversion, tls bool, path string) {
	t.Helper()
	r := routeFor(conv, tls, path)
	routecore.Default(r, nil, routecore.DefaultOptions{})
	if errs := routecore.ValidateRoute(r, routecore.ValidateOptions{}); len(errs) > 0 {
		t.Errorf("routecore refuses the converted Route: %v", errs.ToAggregate())
	}
	for _, host := range conv.ExtraHosts {
		alias := routeFor(conv, tls, path)
		alias.Spec.Host = host
		routecore.Default(alias, nil, routecore.DefaultOptions{})
		if errs := routecore.ValidateRoute(alias, routecore.ValidateOptions{}); len(errs) > 0 {
			t.Errorf("routecore refuses the Route of alias %q: %v", host, errs.ToAggregate())
		}
	}
	for _, w := range routecore.Warnings(r, routecore.WarningOptions{}) {
		for k := range conv.Annotations {
			if strings.Contains(w, k) && !expectedWarning(k, w) {
				t.Errorf("routecore warns about %s: %s", k, w)
			}
		}
	}
}

// expectedWarning reports whether routecore's warning about a converted
// annotation says what ingress-nginx did too: a Route that redirects every
// request (permanent-redirect) never reaches its services.
func expectedWarning(key, warning string) bool {
	return key == routecore.AnnRedirectTo && strings.Contains(warning, "every request is redirected")
}

// finding returns the finding for key that is not a default.
func finding(conv Conversion, key string) (Finding, bool) {
	i := slices.IndexFunc(conv.Findings, func(f Finding) bool { return f.Key == key && !f.Default })
	if i < 0 {
		return Finding{}, false
	}
	return conv.Findings[i], true
}

// defaultFinding returns the default finding for key.
func defaultFinding(conv Conversion, key string) (Finding, bool) {
	i := slices.IndexFunc(conv.Findings, func(f Finding) bool { return f.Key == key && f.Default })
	if i < 0 {
		return Finding{}, false
	}
	return conv.Findings[i], true
}

// headers maps header names to their Set values.
func headers(list []routecore.RouteHTTPHeader) map[string]string {
	m := map[string]string{}
	for _, h := range list {
		if h.Action.Set != nil {
			m[h.Name] = h.Action.Set.Value
		}
	}
	return m
}
