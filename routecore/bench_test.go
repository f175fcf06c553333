package routecore

import "testing"

// benchAnnotationValues is a valid value of every router annotation of the
// catalogue, for the "all-annotations" case of BenchmarkValidate.
var benchAnnotationValues = map[string]string{
	AnnBalance: "roundrobin", AnnDisableCookies: "true", AnnCookieName: "c", AnnCookieNameLegacy: "c", AnnCookieSameSite: "Lax",
	AnnPodConcurrentConnections: "10", AnnRateLimit: "true", AnnRateLimitConcurrentTCP: "10", AnnRateLimitRateHTTP: "10",
	AnnRateLimitRateTCP: "10", AnnTimeout: "5500ms", AnnTimeoutTunnel: "30m", AnnRewriteTarget: "/v2", AnnHealthCheckInterval: "5s",
	AnnIPWhitelist: "10.0.0.1 10.1.0.0/16", AnnIPAllowlist: "192.168.1.0/24 2001:db8::/32",
	AnnHSTSHeader: "max-age=31536000;includeSubDomains;preload", AnnPoolSize: "4", AnnPathType: "Exact",
	AnnSetForwardedHeaders: "if-none", AnnH1AdjustCase: "true",
}

// benchCertManagerAnnotations ask cert-manager for a certificate as a
// team would, for the "cert-manager" case of BenchmarkValidate.
var benchCertManagerAnnotations = map[string]string{
	"cert-manager.io/cluster-issuer": "letsencrypt", "cert-manager.io/alt-names": "www.example.com,api.example.com",
	"cert-manager.io/duration": "2160h", "cert-manager.io/renew-before": "360h",
	"cert-manager.io/private-key-algorithm": "ECDSA", "cert-manager.io/private-key-size": "256",
	"cert-manager.io/subject-organizations": "Example Inc",
}

// allRouterAnnotations is a route with every router annotation of the
// catalogue set; it fails when benchAnnotationValues misses one or holds
// one the catalogue no longer has.
func allRouterAnnotations(tb testing.TB) *Route {
	tb.Helper()
	all := route(func(r *Route) { r.Spec.Path = "/api" })
	for _, a := range routerCatalogue {
		v, ok := benchAnnotationValues[a.Key]
		if !ok {
			tb.Fatalf("benchAnnotationValues has no value for the catalogue annotation %s: add one", a.Key)
		}
		withAnnotation(a.Key, v)(all)
	}
	if len(all.Annotations) != len(benchAnnotationValues) {
		tb.Fatalf("benchAnnotationValues has %d keys, the catalogue %d: remove the keys the catalogue no longer has", len(benchAnnotationValues), len(all.Annotations))
	}
	return all
}

// TestBenchmarkRoutesValid: the routes BenchmarkValidate measures are
// valid, and its all-annotations route sets every router annotation.
func TestBenchmarkRoutesValid(t *testing.T) {
	for name, r := range benchRoutes(t) {
		if errs := ValidateRoute(r, ValidateOptions{}); len(errs) > 0 {
			t.Errorf("%s is invalid: %v", name, errs)
		}
	}
}

// benchRoutes are the routes BenchmarkValidate measures.
func benchRoutes(tb testing.TB) map[string]*Route {
	p := testCerts(tb)
	edge := withTLS(TLSConfig{Termination: TLSTerminationEdge,
		Certificate: string(p.Leaf.CertPEM), Key: string(p.Leaf.KeyPEM), CACertificate: string(p.CA.CertPEM)})
	certManager := route(withTLS(TLSConfig{Termination: TLSTerminationEdge}))
	for k, v := range benchCertManagerAnnotations {
		withAnnotation(k, v)(certManager)
	}
	return map[string]*Route{"plain": route(), "edge-rsa2048-cert-key-ca": route(edge),
		"all-annotations": allRouterAnnotations(tb), "cert-manager": certManager}
}

// BenchmarkValidate measures ValidateRoute on four routes: a plain route,
// an edge route with a 2048-bit RSA certificate, key and CA, a route with
// every router annotation of the catalogue set, and an edge route asking
// cert-manager for its certificate.
func BenchmarkValidate(b *testing.B) {
	routes := benchRoutes(b)
	for _, name := range []string{"plain", "edge-rsa2048-cert-key-ca", "all-annotations", "cert-manager"} {
		r := routes[name]
		if errs := ValidateRoute(r, ValidateOptions{}); len(errs) > 0 {
			b.Fatalf("%s is invalid: %v", name, errs)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ValidateRoute(r, ValidateOptions{})
			}
		})
	}
}
