package routecore

import "testing"

// benchAnnotationValues is a valid value of every catalogue annotation, for
// the "all-annotations" case of BenchmarkValidate.
var benchAnnotationValues = map[string]string{
	AnnBalance: "roundrobin", AnnDisableCookies: "true", AnnCookieName: "c", AnnCookieNameLegacy: "c", AnnCookieSameSite: "Lax",
	AnnPodConcurrentConnections: "10", AnnRateLimit: "true", AnnRateLimitConcurrentTCP: "10", AnnRateLimitRateHTTP: "10",
	AnnRateLimitRateTCP: "10", AnnTimeout: "5500ms", AnnTimeoutTunnel: "30m", AnnRewriteTarget: "/v2", AnnHealthCheckInterval: "5s",
	AnnIPWhitelist: "10.0.0.1 10.1.0.0/16", AnnIPAllowlist: "192.168.1.0/24 2001:db8::/32",
	AnnHSTSHeader: "max-age=31536000;includeSubDomains;preload", AnnPoolSize: "4", AnnPathType: "Exact",
}

// BenchmarkValidate measures ValidateRoute on three routes: a plain route,
// an edge route with a 2048-bit RSA certificate, key and CA, and a route
// with every annotation of the catalogue set.
func BenchmarkValidate(b *testing.B) {
	p := testCerts(b)
	all := route(func(r *Route) { r.Spec.Path = "/api" })
	for _, a := range AnnotationCatalogue {
		v, ok := benchAnnotationValues[a.Key]
		if !ok {
			b.Fatalf("benchAnnotationValues has no value for the catalogue annotation %s: add one", a.Key)
		}
		withAnnotation(a.Key, v)(all)
	}
	if len(all.Annotations) != len(benchAnnotationValues) {
		b.Fatalf("benchAnnotationValues has %d keys, the catalogue %d: remove the keys the catalogue no longer has", len(benchAnnotationValues), len(all.Annotations))
	}
	cases := []struct {
		name  string
		route *Route
	}{
		{"plain", route()},
		{"edge-rsa2048-cert-key-ca", route(withTLS(TLSConfig{Termination: TLSTerminationEdge,
			Certificate: string(p.Leaf.CertPEM), Key: string(p.Leaf.KeyPEM), CACertificate: string(p.CA.CertPEM)}))},
		{"all-annotations", all},
	}
	for _, c := range cases {
		if errs := ValidateRoute(c.route, ValidateOptions{}); len(errs) > 0 {
			b.Fatalf("%s is invalid: %v", c.name, errs)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ValidateRoute(c.route, ValidateOptions{})
			}
		})
	}
}
