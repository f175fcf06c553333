package ingressnginx

import (
	"crypto/tls"
	"fmt"
	"maps"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// routerServerTimeout is the router's default server timeout
// (ROUTER_DEFAULT_SERVER_TIMEOUT, 30 s unless set), lowered so that the
// timeout tests take seconds: a backend answering after slowDelay outlasts
// it, as one answering after 35 s outlasts the 30 s default, and answers
// within ingress-nginx's 60 s default and within a timeout of 6 s.
const (
	routerServerTimeout = 2 * time.Second
	slowDelay           = 4 * time.Second
)

// TestIngressNginx runs the package's behaviour tests in parallel against
// one router (with HAProxy) serving the Routes converted from
// ingress-nginx Ingresses. The router reloads at most every second (not
// every 5 s), so that each test's new Routes are served sooner.
func TestIngressNginx(t *testing.T) {
	cp := framework.Cluster(t)
	r := cp.StartRouter(t, "ingressnginx", "--default-server-timeout", routerServerTimeout.String(), "--interval", "1s")
	e := &env{cp: cp, router: r}
	tests := []struct {
		name string
		run  func(*testing.T, *env)
	}{
		{"Stickiness", testStickiness},
		{"Rewrite", testRewrite},
		{"Allowlist", testAllowlist},
		{"RedirectToHTTPS", testRedirect},
		{"Timeouts", testTimeouts},
		{"CORS", testCORS},
		{"CanaryWeight", testCanary},
		{"UpstreamVhost", testUpstreamVhost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, e)
		})
	}
}

// testStickiness: without an affinity annotation ingress-nginx balances
// every request, so the converted Route sets no sticky cookie and a client
// keeping cookies reaches both endpoints; with affinity cookie and
// session-cookie-name SESSION, the response sets cookie SESSION and the
// requests that send it back all reach one endpoint.
func testStickiness(t *testing.T, e *env) {
	ns := e.cp.CreateNamespace(t, "sticky")
	svc := e.service(t, ns, "web", startBackend(t, "a", 0), startBackend(t, "b", 0))
	tests := []struct {
		name        string
		host        string
		annotations map[string]string
		sticky      bool
	}{
		{"no affinity", "sticky-off.example.com", nil, false},
		{"affinity cookie", "sticky-on.example.com", map[string]string{"affinity": "cookie", "session-cookie-name": "SESSION"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := objectName(tc.name)
			ing := nginxIngress(ns, name, tc.host, "/", networkingv1.PathTypePrefix, svc.Name, "", tc.annotations)
			route := e.convert(t, name, svc, ing)
			if !tc.sticky {
				if v := route.Annotations[routecore.AnnDisableCookies]; v != "true" {
					t.Errorf("Route annotation %s = %q, want \"true\"", routecore.AnnDisableCookies, v)
				}
				checkNotSticky(t, e, route)
				return
			}
			checkSticky(t, e, route, "SESSION")
		})
	}
}

// checkNotSticky sends requests for the route's host with a client that
// keeps cookies: no response may set a cookie, and both endpoints answer.
func checkNotSticky(t *testing.T, e *env, route *routecore.Route) {
	t.Helper()
	c := newClient(true, nil)
	seen := map[string]int{}
	framework.Eventually(t, "both endpoints reached by a client keeping cookies", func() error {
		got, err := e.get(c, route.Spec.Host, "/")
		if err != nil {
			return err
		}
		if sc := got.header.Values("Set-Cookie"); len(sc) > 0 {
			t.Fatalf("response sets cookies %q: ingress-nginx sets none without affinity", sc)
		}
		if got.code != http.StatusOK || !got.ok {
			return fmt.Errorf("reply %v", got)
		}
		seen[got.echo.ID]++
		if seen["a"] == 0 || seen["b"] == 0 {
			return fmt.Errorf("reached %v", seen)
		}
		return nil
	})
}

// checkSticky waits until both endpoints answer requests without cookies,
// then checks that a response sets cookie name and that requests sending
// it back reach the endpoint that set it, every time.
func checkSticky(t *testing.T, e *env, route *routecore.Route, name string) {
	t.Helper()
	c := newClient(false, nil)
	seen := map[string]bool{}
	var first reply
	framework.Eventually(t, "both endpoints reached without the cookie", func() error {
		got, err := e.get(c, route.Spec.Host, "/")
		if err != nil {
			return err
		}
		if got.code != http.StatusOK || !got.ok {
			return fmt.Errorf("reply %v", got)
		}
		seen[got.echo.ID] = true
		first = got
		if !seen["a"] || !seen["b"] {
			return fmt.Errorf("reached %v", seen)
		}
		return nil
	})
	var cookie *http.Cookie
	for _, ck := range first.cookies {
		if ck.Name == name {
			cookie = ck
		}
	}
	if cookie == nil {
		t.Fatalf("response of endpoint %s sets cookies %q, want one named %s", first.echo.ID, first.header.Values("Set-Cookie"), name)
	}
	const requests = 20
	header := http.Header{"Cookie": {cookie.Name + "=" + cookie.Value}}
	for i := range requests {
		got, err := e.request(c, false, http.MethodGet, route.Spec.Host, "/", header)
		if err != nil {
			t.Fatal(err)
		}
		if got.code != http.StatusOK || got.echo.ID != first.echo.ID {
			t.Fatalf("request %d with cookie %s=%s: reply %v, want 200 from endpoint %s, which set the cookie",
				i, cookie.Name, cookie.Value, got, first.echo.ID)
		}
	}
}

// testRewrite: use-regex with rewrite-target /$2 on path /api(/|$)(.*)
// sends /api/x to the backend as /x, as ingress-nginx does, and does not
// serve /apix, which the regular expression does not match.
func testRewrite(t *testing.T, e *env) {
	ns := e.cp.CreateNamespace(t, "rewrite")
	svc := e.service(t, ns, "api", startBackend(t, "api", 0))
	const host = "rewrite.example.com"
	ing := nginxIngress(ns, "api", host, "/api(/|$)(.*)", "", svc.Name, "",
		map[string]string{"use-regex": "true", "rewrite-target": "/$2"})
	e.convert(t, "api", svc, ing)
	c := newClient(false, nil)
	e.waitServed(t, c, false, host, "/api/")
	tests := []struct {
		path string
		// want is the path the backend receives; "" when the request
		// must not reach it.
		want string
	}{
		{"/api/x", "/x"},
		{"/api/a/b", "/a/b"},
		{"/api/", "/"},
		{"/api", "/"},
		{"/apix", ""},
	}
	for _, tc := range tests {
		got, err := e.get(c, host, tc.path)
		switch {
		case err != nil:
			t.Errorf("GET %s: %v", tc.path, err)
		case tc.want == "" && got.ok:
			t.Errorf("GET %s reached the backend as %s; the regular expression does not match it", tc.path, got.echo.Path)
		case tc.want != "" && (got.code != http.StatusOK || !got.ok || got.echo.Path != tc.want):
			t.Errorf("GET %s: reply %v, want 200 with the backend seeing path %s", tc.path, got, tc.want)
		}
	}
}

// testAllowlist: whitelist-source-range lets in the clients of its ranges
// only. The conversion documents that the router closes the connection of
// other clients where ingress-nginx answers 403; the requests here come
// from 127.0.0.1.
func testAllowlist(t *testing.T, e *env) {
	ns := e.cp.CreateNamespace(t, "allow")
	svc := e.service(t, ns, "web", startBackend(t, "web", 0))
	tests := []struct {
		name, host, ranges string
		allowed            bool
	}{
		{"other ranges", "allow-no.example.com", "10.0.0.0/8, 192.168.0.0/16", false},
		{"loopback listed", "allow-yes.example.com", "127.0.0.1/32,10.0.0.0/8", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := objectName(tc.name)
			e.convert(t, name, svc, nginxIngress(ns, name, tc.host, "/", networkingv1.PathTypePrefix, svc.Name, "",
				map[string]string{"whitelist-source-range": tc.ranges}))
			c := newClient(false, nil)
			if tc.allowed {
				e.waitServed(t, c, false, tc.host, "/")
				return
			}
			// 503 is the router's answer until it serves the Route; once
			// it does, every request is refused.
			check := func() error {
				got, err := e.get(c, tc.host, "/")
				switch {
				case got.ok:
					t.Fatalf("a client outside %s reached the backend: %v", tc.ranges, got)
				case refused(err):
					return nil
				case err != nil:
					return err
				}
				return fmt.Errorf("reply %v, want the connection closed with no reply", got)
			}
			framework.Eventually(t, "a client outside the ranges refused", check)
			for i := range 5 {
				if err := check(); err != nil {
					t.Fatalf("request %d after the first refusal: %v", i, err)
				}
			}
		})
	}
}

// testRedirect: a TLS Ingress is served over HTTPS with its Secret's
// certificate, and plain HTTP is redirected to HTTPS with ingress-nginx's
// status (308, its http-redirect-code, kept by routeshift.io/redirect-code),
// keeping path and query; with ssl-redirect "false" plain HTTP is served.
func testRedirect(t *testing.T, e *env) {
	ns := e.cp.CreateNamespace(t, "redirect")
	svc := e.service(t, ns, "web", startBackend(t, "web", 0))
	tests := []struct {
		name, host  string
		annotations map[string]string
		redirect    bool
	}{
		{"default", "tls-redirect.example.com", nil, true},
		{"ssl-redirect false", "tls-plain.example.com", map[string]string{"ssl-redirect": "false"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := objectName(tc.name)
			secret, pool, cert := tlsSecret(t, ns, name+"-tls", tc.host)
			e.convert(t, name, svc, secret, nginxIngress(ns, name, tc.host, "/", networkingv1.PathTypePrefix, svc.Name, secret.Name, tc.annotations))

			// HTTPS with the Secret's certificate, verified by its CA.
			https := newClient(false, &tls.Config{ServerName: tc.host, RootCAs: pool})
			got := e.waitServed(t, https, true, tc.host, "/")
			if peer := got.tls.PeerCertificates[0]; !peer.Equal(cert) {
				t.Errorf("HTTPS served certificate %s, want the Secret's", peer.Subject)
			}
			// ingress-nginx's default hsts: a year, with subdomains.
			if v := got.header.Get("Strict-Transport-Security"); !sameDirectives(v, hstsDefault) {
				t.Errorf("HTTPS reply's Strict-Transport-Security %q, want %q", v, hstsDefault)
			}

			plain := newClient(false, nil)
			got, err := e.get(plain, tc.host, "/some/path?q=1")
			if err != nil {
				t.Fatal(err)
			}
			if !tc.redirect {
				if got.code != http.StatusOK || !got.ok {
					t.Errorf("plain HTTP: reply %v, want 200 from the backend", got)
				}
				if v := got.header.Values("Strict-Transport-Security"); len(v) > 0 {
					t.Errorf("plain HTTP reply has Strict-Transport-Security %q; browsers ignore it there and ingress-nginx sends it over HTTPS only", v)
				}
				return
			}
			want := "https://" + tc.host + "/some/path?q=1"
			if got.code != http.StatusPermanentRedirect || got.ok || got.header.Get("Location") != want {
				t.Errorf("plain HTTP: %d Location %q (backend reached %t), want 308 (ingress-nginx's) to %s",
					got.code, got.header.Get("Location"), got.ok, want)
			}
		})
	}
}

// hstsDefault is the Strict-Transport-Security ingress-nginx sends on TLS
// hosts by default (ConfigMap hsts, hsts-max-age, hsts-include-subdomains).
const hstsDefault = "max-age=31536000; includeSubDomains"

// sameDirectives reports whether two Strict-Transport-Security values
// have the same directives, whatever their order, case and spacing.
func sameDirectives(a, b string) bool {
	set := func(v string) map[string]bool {
		out := map[string]bool{}
		for d := range strings.SplitSeq(v, ";") {
			if d = strings.ToLower(strings.TrimSpace(d)); d != "" {
				out[d] = true
			}
		}
		return out
	}
	return maps.Equal(set(a), set(b))
}

// testTimeouts: a backend answering after slowDelay, longer than the
// router's default server timeout, times out (504) through a plain Route,
// as the router does without the conversion, but is answered through a
// converted Route, which makes ingress-nginx's 60 s default explicit; with
// proxy-read-timeout and proxy-send-timeout of 6 s it is answered, of 1 s
// it times out.
func testTimeouts(t *testing.T, e *env) {
	ns := e.cp.CreateNamespace(t, "timeout")
	tests := []struct {
		name string
		// annotations are the Ingress's; nil with convert false for a
		// plain Route.
		convert     bool
		annotations map[string]string
		want        int
	}{
		{"plain Route", false, nil, http.StatusGatewayTimeout},
		{"ingress-nginx default", true, nil, http.StatusOK},
		{"timeouts 6s", true, map[string]string{"proxy-read-timeout": "6", "proxy-send-timeout": "6"}, http.StatusOK},
		{"timeouts 1s", true, map[string]string{"proxy-read-timeout": "1", "proxy-send-timeout": "1"}, http.StatusGatewayTimeout},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := objectName(tc.name)
			host := fmt.Sprintf("timeout-%d.example.com", i)
			svc := e.service(t, ns, name, startBackend(t, name, slowDelay))
			if tc.convert {
				route := e.convert(t, name, svc, nginxIngress(ns, name, host, "/", networkingv1.PathTypePrefix, svc.Name, "", tc.annotations))
				t.Logf("Route annotation %s = %q", routecore.AnnTimeout, route.Annotations[routecore.AnnTimeout])
			} else {
				w := int32(100)
				e.create(t, &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: routecore.RouteSpec{
					Host: host, To: routecore.RouteTargetReference{Kind: "Service", Name: svc.Name, Weight: &w},
					Port: &routecore.RoutePort{TargetPort: intstr.FromString("http")}, WildcardPolicy: routecore.WildcardPolicyNone}})
			}
			c := newClient(false, nil)
			e.waitServed(t, c, false, host, "/")
			got, err := e.get(c, host, slowPath)
			if err != nil {
				t.Fatal(err)
			}
			if got.code != tc.want {
				t.Errorf("GET %s (answered after %v; router default server timeout %v): reply %v, want %d",
					slowPath, slowDelay, routerServerTimeout, got, tc.want)
			}
		})
	}
}

// CORS headers ingress-nginx sends with enable-cors when only the origin
// is set: its defaults for the other cors-* annotations (those of its
// internal/ingress/annotations/cors/main.go, which its annotation
// documentation lists), written here independently of the conversion.
const (
	corsDefaultMethods = "GET, PUT, POST, DELETE, PATCH, OPTIONS"
	corsDefaultHeaders = "DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization"
	corsDefaultMaxAge  = "1728000"
)

// testCORS: enable-cors with cors-allow-origin gives responses (to a
// request from that origin) ingress-nginx's CORS headers: the origin and
// the default methods, headers, credentials and max age.
func testCORS(t *testing.T, e *env) {
	ns := e.cp.CreateNamespace(t, "cors")
	svc := e.service(t, ns, "web", startBackend(t, "web", 0))
	const host, origin = "cors.example.com", "https://shop.example.com"
	e.convert(t, "cors", svc, nginxIngress(ns, "cors", host, "/", networkingv1.PathTypePrefix, svc.Name, "",
		map[string]string{"enable-cors": "true", "cors-allow-origin": origin}))
	c := newClient(false, nil)
	e.waitServed(t, c, false, host, "/")
	got, err := e.request(c, false, http.MethodGet, host, "/", http.Header{"Origin": {origin}})
	if err != nil {
		t.Fatal(err)
	}
	if got.code != http.StatusOK || !got.ok {
		t.Fatalf("reply %v, want 200 from the backend", got)
	}
	for _, h := range []struct{ name, want string }{
		{"Access-Control-Allow-Origin", origin},
		{"Access-Control-Allow-Methods", corsDefaultMethods},
		{"Access-Control-Allow-Headers", corsDefaultHeaders},
		{"Access-Control-Allow-Credentials", "true"},
		{"Access-Control-Max-Age", corsDefaultMaxAge},
	} {
		if v := got.header.Values(h.name); len(v) != 1 || v[0] != h.want {
			t.Errorf("response header %s = %q, want %q", h.name, v, h.want)
		}
	}
}

// testCanary: a canary Ingress with canary-weight 30 for the host and path
// of a primary Ingress becomes an alternate backend of the primary's one
// Route, and receives 30 % of the requests, within a binomial bound.
func testCanary(t *testing.T, e *env) {
	ns := e.cp.CreateNamespace(t, "canary")
	web := e.service(t, ns, "web", startBackend(t, "web", 0))
	canary := e.service(t, ns, "web-canary", startBackend(t, "web-canary", 0))
	const host = "canary.example.com"
	primaryIng := nginxIngress(ns, "web", host, "/", networkingv1.PathTypePrefix, web.Name, "", nil)
	canaryIng := nginxIngress(ns, "web-canary", host, "/", networkingv1.PathTypePrefix, canary.Name, "",
		map[string]string{"canary": "true", "canary-weight": "30"})
	e.create(t, primaryIng, canaryIng)
	results := translate(t, web, canary, primaryIng, canaryIng)
	if res := results["web-canary"]; !res.Canary || len(res.Routes) != 0 {
		t.Fatalf("canary Ingress: canary %t with %d Routes, want a canary with none", res.Canary, len(res.Routes))
	}
	routes := e.createRoutes(t, results["web"])
	if len(routes) != 1 || len(routes[0].Spec.AlternateBackends) != 1 || routes[0].Spec.AlternateBackends[0].Name != canary.Name {
		t.Fatalf("primary Ingress made Routes %+v, want one with alternate backend %s", routes, canary.Name)
	}

	c := newClient(false, nil)
	seen := map[string]bool{}
	framework.Eventually(t, "both services reached", func() error {
		got, err := e.get(c, host, "/")
		if err != nil {
			return err
		}
		if got.code != http.StatusOK || !got.ok {
			return fmt.Errorf("reply %v", got)
		}
		seen[got.echo.ID] = true
		if !seen["web"] || !seen["web-canary"] {
			return fmt.Errorf("reached %v", seen)
		}
		return nil
	})

	// Each request on a new connection without cookies (stickiness is
	// off), so each is balanced on its own. The count of canary replies
	// is Binomial(n, p) if the split were random; HAProxy's weighted
	// round robin is deterministic and lands nearer, but the bound is
	// the binomial one: 5 standard deviations.
	const n, p = 1000, 0.30
	sd := math.Sqrt(n * p * (1 - p))
	tolerance := 5 * sd
	counts := map[string]int{}
	for i := range n {
		got, err := e.get(c, host, "/")
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got.code != http.StatusOK || !got.ok {
			t.Fatalf("request %d: reply %v", i, got)
		}
		counts[got.echo.ID]++
	}
	t.Logf("replies by service: %v (expected canary share %v of %d, tolerance ±%.1f)", counts, p, n, tolerance)
	if counts["web"]+counts["web-canary"] != n {
		t.Errorf("replies %v: some came from neither service", counts)
	}
	if d := math.Abs(float64(counts["web-canary"]) - n*p); d > tolerance {
		t.Errorf("canary answered %d of %d requests, want %v ± %.1f (5 binomial standard deviations)", counts["web-canary"], n, n*p, tolerance)
	}
}

// testUpstreamVhost: upstream-vhost makes the backend see that Host.
func testUpstreamVhost(t *testing.T, e *env) {
	ns := e.cp.CreateNamespace(t, "vhost")
	svc := e.service(t, ns, "web", startBackend(t, "web", 0))
	const host, vhost = "vhost.example.com", "internal.svc.local"
	e.convert(t, "vhost", svc, nginxIngress(ns, "vhost", host, "/", networkingv1.PathTypePrefix, svc.Name, "",
		map[string]string{"upstream-vhost": vhost}))
	got := e.waitServed(t, newClient(false, nil), false, host, "/")
	if got.echo.Host != vhost {
		t.Errorf("backend saw Host %q, want %q", got.echo.Host, vhost)
	}
}
