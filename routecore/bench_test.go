package routecore

import "testing"

// BenchmarkValidate measures ValidateRoute on the three routes the issue
// names: a plain route, an edge route with a 2048-bit RSA certificate, key
// and CA, and a route with every annotation set.
func BenchmarkValidate(b *testing.B) {
	p := testCerts(b)
	all := route()
	for k, v := range map[string]string{
		AnnBalance: "roundrobin", AnnDisableCookies: "true", AnnCookieName: "c", AnnCookieNameLegacy: "c", AnnCookieSameSite: "Lax",
		AnnPodConcurrentConnections: "10", AnnRateLimit: "true", AnnRateLimitConcurrentTCP: "10", AnnRateLimitRateHTTP: "10",
		AnnRateLimitRateTCP: "10", AnnTimeout: "5500ms", AnnHealthCheckInterval: "5s", AnnIPWhitelist: "10.0.0.1 10.1.0.0/16",
		AnnIPAllowlist: "192.168.1.0/24 2001:db8::/32", AnnHSTSHeader: "max-age=31536000;includeSubDomains;preload",
		AnnPoolSize: "4", AnnPathType: "Exact",
	} {
		withAnnotation(k, v)(all)
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
