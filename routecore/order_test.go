package routecore

import (
	"reflect"
	"strings"
	"testing"
)

// TestRuleOrder: errors come in the order of routeRules, the order users
// read them in: metadata, annotation values, cert-manager's rules, host,
// path, backends, port, TLS, wildcard policy, header actions,
// certificates.
func TestRuleOrder(t *testing.T) {
	r := route(func(r *Route) {
		r.Finalizers = []string{"cleanup"}
		r.Annotations = map[string]string{AnnTimeout: "soon", AnnCertDuration: "24h"}
		r.Spec.Host = "Host.example.com"
		r.Spec.Path = "api"
		r.Spec.To.Weight = weight(300)
		r.Spec.Port = &RoutePort{}
		r.Spec.TLS = &TLSConfig{Termination: TLSTerminationEdge, InsecureEdgeTerminationPolicy: "Deny", Certificate: "not a certificate"}
		r.Spec.WildcardPolicy = "All"
		r.Spec.HTTPHeaders = &RouteHTTPHeaders{Actions: RouteHTTPHeaderActions{Response: []RouteHTTPHeader{setHeader("", "v")}}}
	})
	var fields []string
	for _, e := range ValidateRoute(r, ValidateOptions{}) {
		if len(fields) == 0 || fields[len(fields)-1] != e.Field {
			fields = append(fields, e.Field)
		}
	}
	want := []string{
		"metadata.finalizers[0]",
		"metadata.annotations[haproxy.router.openshift.io/timeout]",
		"metadata.annotations[cert-manager.io/issuer]",
		"spec.host",
		"spec.path",
		"spec.to.weight",
		"spec.port.targetPort",
		"spec.tls.insecureEdgeTerminationPolicy",
		"spec.wildcardPolicy",
		"spec.httpHeaders.actions.response[0].name",
		"spec.tls.certificate",
	}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("errors on\n%s\nwant\n%s", strings.Join(fields, "\n"), strings.Join(want, "\n"))
	}
}

// TestValidationLeavesTheRouteAlone: validating, on create and on update,
// and collecting warnings change neither Route: the webhook and the router
// validate objects they go on to use.
func TestValidationLeavesTheRouteAlone(t *testing.T) {
	p := testCerts(t)
	mk := func() *Route {
		return route(func(r *Route) {
			r.Labels = map[string]string{"tier": "front"}
			r.Annotations = map[string]string{"b b": "1", AnnTimeout: "soon", AnnIPAllowlist: " 10.0.0.1  10.0.0.2", AnnCertIssuer: "ca", HostGeneratedAnnotation: "true"}
			r.Spec.Subdomain = "www"
			r.Spec.AlternateBackends = []RouteTargetReference{{Name: "b"}, {Name: "b"}}
			r.Spec.TLS = &TLSConfig{Termination: "Edge", Certificate: string(p.Leaf.CertPEM), Key: string(p.Other.KeyPEM)}
			r.Spec.HTTPHeaders = &RouteHTTPHeaders{Actions: RouteHTTPHeaderActions{Request: []RouteHTTPHeader{setHeader("X-B", "1"), setHeader("X-A", "2")}}}
		})
	}
	r, old := mk(), mk()
	old.Spec.Host = "old.example.com"
	ValidateRoute(r, ValidateOptions{})
	ValidateRouteUpdate(r, old, ValidateOptions{})
	Warnings(r, WarningOptions{GeneratedHostSuffix: "apps.example.com"})
	ValidateCertificates(r)
	RouteCertificate(r)
	ParseAnnotations(r.Annotations, nil)
	want, wantOld := mk(), mk()
	wantOld.Spec.Host = "old.example.com"
	if !reflect.DeepEqual(r, want) || !reflect.DeepEqual(old, wantOld) {
		t.Errorf("a Route changed:\n%+v\n%+v", r, old)
	}
}
