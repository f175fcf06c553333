package nginx

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/routecore"
)

func TestDefaults(t *testing.T) {
	noTLSRedirect := DefaultGlobals()
	noTLSRedirect.SSLRedirect, noTLSRedirect.HSTS = false, false
	custom := DefaultGlobals()
	custom.ProxyReadTimeout, custom.ProxySendTimeout, custom.HTTPRedirectCode = 30, 30, 302
	custom.HSTSMaxAge, custom.HSTSIncludeSubdomains, custom.HSTSPreload = 600, false, true
	custom.ProxyBodySize, custom.WhitelistSourceRange = "0", []string{"10.0.0.0/8", "192.168.0.0/16"}
	custom.DenylistSourceRange = []string{"192.0.2.0/24", "2001:db8::1"}
	redirect301 := DefaultGlobals()
	redirect301.HTTPRedirectCode = 301
	uneven := DefaultGlobals()
	uneven.ProxySendTimeout, uneven.ForceSSLRedirect = 90, true

	for _, tc := range []struct {
		name     string
		in       map[string]string
		tls      bool
		g        Globals
		ann      map[string]string
		insecure routecore.InsecureEdgeTerminationPolicyType
		// defaults are the keys and verdicts of the default findings.
		defaults map[string]Verdict
	}{
		{name: "plain", g: DefaultGlobals(),
			ann:      annotations(annCookies, "true", annTimeout, "60s", routecore.AnnHSTSHeader, absent, annBody, "1m", annCode, absent, annDeny, absent),
			defaults: map[string]Verdict{"affinity": Exact, "proxy-read-timeout": Exact, "proxy-body-size": Approximate}},
		{name: "tls", tls: true, g: DefaultGlobals(),
			ann:      annotations(annCookies, "true", annTimeout, "60s", routecore.AnnHSTSHeader, "max-age=31536000;includeSubDomains", annBody, "1m", annCode, "308"),
			insecure: routecore.InsecureEdgeTerminationPolicyRedirect,
			defaults: map[string]Verdict{"affinity": Exact, "proxy-read-timeout": Exact, "proxy-body-size": Approximate, "ssl-redirect": Exact, "hsts": Exact}},
		{name: "tls, ConfigMap without redirect or HSTS", tls: true, g: noTLSRedirect,
			ann:      annotations(routecore.AnnHSTSHeader, absent, annCode, absent),
			insecure: routecore.InsecureEdgeTerminationPolicyAllow,
			defaults: map[string]Verdict{"affinity": Exact, "proxy-read-timeout": Exact, "proxy-body-size": Approximate, "ssl-redirect": Exact}},
		{name: "tls, custom ConfigMap", tls: true, g: custom,
			ann: annotations(annTimeout, absent, routecore.AnnHSTSHeader, "max-age=600;preload", annAllow, "10.0.0.0/8 192.168.0.0/16",
				annBody, absent, annCode, absent, annDeny, "192.0.2.0/24 2001:db8::1"),
			insecure: routecore.InsecureEdgeTerminationPolicyRedirect,
			defaults: map[string]Verdict{"affinity": Exact, "ssl-redirect": Exact, "hsts": Exact, "whitelist-source-range": Approximate, "denylist-source-range": Exact}},
		{name: "uneven timeouts, forced redirect without TLS", g: uneven,
			ann:      annotations(annTimeout, "90s", annCode, absent),
			defaults: map[string]Verdict{"affinity": Exact, "proxy-read-timeout": Approximate, "proxy-body-size": Approximate, "force-ssl-redirect": NotSupported}},
		{name: "forced redirect without TLS, redirected elsewhere first", g: uneven, in: kv("permanent-redirect", "https://example.org"),
			ann:      annotations(annRedirect, "https://example.org", annCode, "301"),
			defaults: map[string]Verdict{"affinity": Exact, "proxy-read-timeout": Approximate, "proxy-body-size": Approximate}},
		{name: "tls, redirected elsewhere before HTTPS", tls: true, g: DefaultGlobals(), in: kv("temporal-redirect", "https://example.org/$request_uri"),
			ann:      annotations(annRedirect, "https://example.org/$request_uri", annCode, "302"),
			insecure: routecore.InsecureEdgeTerminationPolicyAllow,
			defaults: map[string]Verdict{"affinity": Exact, "proxy-read-timeout": Exact, "proxy-body-size": Approximate, "ssl-redirect": Exact, "hsts": Exact}},
		{name: "tls, redirect code 301", tls: true, g: redirect301,
			ann:      annotations(annCode, "301"),
			insecure: routecore.InsecureEdgeTerminationPolicyRedirect,
			defaults: map[string]Verdict{"affinity": Exact, "proxy-read-timeout": Exact, "proxy-body-size": Approximate, "ssl-redirect": Exact, "hsts": Exact}},
		{name: "annotations replace the defaults", tls: true, g: custom,
			in: kv("affinity", "cookie", "proxy-read-timeout", "5", "ssl-redirect", "false", "proxy-body-size", "2m", "whitelist-source-range", "1.2.3.4",
				"denylist-source-range", "1.2.3.5"),
			ann:      annotations(annCookies, absent, annTimeout, "30s", annAllow, "1.2.3.4", annBody, "2m", annDeny, "1.2.3.5", annCode, absent),
			insecure: routecore.InsecureEdgeTerminationPolicyAllow,
			defaults: map[string]Verdict{"hsts": Exact}},
		{name: "passthrough has none", tls: true, g: DefaultGlobals(), in: kv("ssl-passthrough", "true"),
			ann: annotations(annCookies, absent, annTimeout, absent, routecore.AnnHSTSHeader, absent, annBody, absent, annCode, absent)},
		{name: "canary has none", tls: true, g: DefaultGlobals(), in: kv("canary", "true", "canary-weight", "10"),
			ann: annotations(annCookies, absent, annTimeout, absent, routecore.AnnHSTSHeader, absent, annBody, absent, annCode, absent)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv := Convert(Input{Annotations: tc.in, TLS: tc.tls, Globals: tc.g})
			checkMap(t, "annotation", tc.ann, conv.Annotations)
			if conv.InsecureEdgeTerminationPolicy != tc.insecure {
				t.Errorf("insecureEdgeTerminationPolicy %q, want %q", conv.InsecureEdgeTerminationPolicy, tc.insecure)
			}
			got := map[string]Verdict{}
			for _, f := range conv.Findings {
				if f.Default {
					got[f.Key] = f.Verdict
					checkCaveat(t, f.Key, f.Caveat)
					if f.Value != "" {
						t.Errorf("default finding %s has a value %q", f.Key, f.Value)
					}
				}
			}
			if !maps.Equal(got, tc.defaults) {
				t.Errorf("default findings %v, want %v", got, tc.defaults)
			}
			path := "/"
			if conv.Termination == routecore.TLSTerminationPassthrough {
				path = ""
			}
			checkValid(t, conv, tc.tls, path)
		})
	}
}

// TestLimitStatus converts rate limits under ConfigMaps whose limit status
// codes differ: the Routes answer 429 when ingress-nginx answers 429 past
// one of the Ingress's limits, else close the connection.
func TestLimitStatus(t *testing.T) {
	g := func(req, conn int) Globals {
		g := DefaultGlobals()
		g.LimitReqStatusCode, g.LimitConnStatusCode = req, conn
		return g
	}
	for _, tc := range []struct {
		name   string
		in     map[string]string
		g      Globals
		status string
		// caveats are what the findings' caveats say, by key.
		caveats map[string]string
	}{
		{name: "defaults close", in: kv("limit-rps", "5", "limit-connections", "3"), g: DefaultGlobals(), status: absent,
			caveats: map[string]string{"limit-rps": "close the connection past it, where ingress-nginx answers 503", "limit-connections": "where ingress-nginx answers 503"}},
		{name: "429 for requests", in: kv("limit-rps", "5"), g: g(429, 503), status: "429",
			caveats: map[string]string{"limit-rps": "answer 429 with Retry-After past it (" + annStatus + "), as ingress-nginx does"}},
		{name: "429 for connections", in: kv("limit-connections", "3"), g: g(503, 429), status: "429",
			caveats: map[string]string{"limit-connections": "as ingress-nginx does"}},
		{name: "429 for requests only, connections limited", in: kv("limit-connections", "3"), g: g(429, 503), status: absent,
			caveats: map[string]string{"limit-connections": "close the connection past it, where ingress-nginx answers 503"}},
		{name: "mixed: one status for the Route", in: kv("limit-rpm", "60", "limit-connections", "3"), g: g(429, 503), status: "429",
			caveats: map[string]string{"limit-rpm": "as ingress-nginx does", "limit-connections": "which the Ingress's other limit needs), where ingress-nginx answers 503"}},
		{name: "another status closes", in: kv("limit-rps", "5"), g: g(500, 503), status: absent,
			caveats: map[string]string{"limit-rps": "where ingress-nginx answers 500"}},
		{name: "no limit, no status", in: kv("limit-rps", "0"), g: g(429, 429), status: absent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv := Convert(Input{Annotations: tc.in, Globals: tc.g})
			checkMap(t, "annotation", annotations(annStatus, tc.status), conv.Annotations)
			for key, want := range tc.caveats {
				f, _ := finding(conv, key)
				if !strings.Contains(f.Caveat, want) {
					t.Errorf("%s: caveat %q does not say %q", key, f.Caveat, want)
				}
				checkCaveat(t, key, f.Caveat)
			}
			checkValid(t, conv, false, "/")
		})
	}
}

// TestConfigMapDefaultsFailClosed: a ConfigMap denylist the router cannot
// take refuses every client on the Routes of Ingresses without their own.
func TestConfigMapDefaultsFailClosed(t *testing.T) {
	g, findings := GlobalsFromConfigMap(map[string]string{"denylist-source-range": "10.0.0.0/8,evil.example.com"})
	f := findings[0]
	if f.Verdict != NotSupported || !strings.Contains(f.Caveat, "refuses every client") || !strings.Contains(f.Caveat, `"10.0.0.0/8,evil.example.com"`) {
		t.Errorf("finding %+v", f)
	}
	checkCaveat(t, f.Key, f.Caveat)
	conv := Convert(Input{Globals: g})
	checkMap(t, "annotation", annotations(annDeny, denyAll), conv.Annotations)
	checkValid(t, conv, false, "/")
	conv = Convert(Input{Annotations: kv("denylist-source-range", "10.1.0.0/16"), Globals: g})
	checkMap(t, "annotation", annotations(annDeny, "10.1.0.0/16"), conv.Annotations)

	g, _ = GlobalsFromConfigMap(map[string]string{"denylist-source-range": tooManyRanges})
	if strings.Join(g.DenylistSourceRange, " ") != denyAll {
		t.Errorf("a denylist of %d ranges gives %d ranges", routecore.MaxAllowlistEntries+1, len(g.DenylistSourceRange))
	}
}

func TestStickinessDefaultCaveat(t *testing.T) {
	f, ok := defaultFinding(Convert(Input{Globals: DefaultGlobals()}), "affinity")
	if !ok || f.Verdict != Exact || f.Caveat != "ingress-nginx is not sticky by default; Routes are, so cookies are turned off." {
		t.Errorf("stickiness default: %+v", f)
	}
}

// realistic is an Ingress's annotations as ingress-nginx users write them.
func realistic() map[string]string {
	return kv("rewrite-target", "/$2", "use-regex", "true", "ssl-redirect", "true", "force-ssl-redirect", "false",
		"proxy-read-timeout", "120", "proxy-send-timeout", "120", "proxy-body-size", "50m", "proxy-connect-timeout", "10",
		"whitelist-source-range", "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16", "limit-rps", "20", "limit-connections", "10",
		"enable-cors", "true", "cors-allow-origin", "https://app.example.com", "cors-allow-credentials", "true",
		"affinity", "cookie", "session-cookie-name", "route", "session-cookie-samesite", "Lax", "session-cookie-max-age", "3600",
		"backend-protocol", "HTTPS", "proxy-ssl-secret", "web/backend-ca", "proxy-ssl-verify", "on",
		"configuration-snippet", "more_set_headers \"X-Frame-Options: DENY\";", "server-alias", "www.example.com,example.org",
		"x-forwarded-prefix", "/api", "upstream-vhost", "backend.web.svc", "custom-http-errors", "404,503", "rewrite-targte", "/")
}

// TestDeterministic converts the same annotations many times (map order
// varies) and wants the same Conversion, findings sorted by key.
func TestDeterministic(t *testing.T) {
	in := Input{Annotations: realistic(), TLS: true, Globals: DefaultGlobals(), Namespace: "web"}
	first := Convert(in)
	if !slices.IsSortedFunc(first.Findings, func(a, b Finding) int { return strings.Compare(a.Key, b.Key) }) {
		t.Errorf("findings are not sorted: %v", first.Findings)
	}
	for i := range 50 {
		if got := Convert(in); !reflect.DeepEqual(got, first) {
			t.Fatalf("conversion %d differs:\n%+v\n%+v", i, got, first)
		}
	}
	checkValid(t, first, true, "/api")
	if first.Worst() != Refused {
		t.Errorf("worst verdict %s, want refused (configuration-snippet)", first.Worst())
	}
	if w := (&Conversion{}).Worst(); w != Exact {
		t.Errorf("worst of no findings %s", w)
	}
}

func TestAppProtocolPatch(t *testing.T) {
	got := AppProtocolPatch("grpc", 1, AppProtocolH2C)
	want := `kubectl patch service grpc --type=json -p '[{"op":"add","path":"/spec/ports/1/appProtocol","value":"kubernetes.io/h2c"}]'`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func BenchmarkConvert(b *testing.B) {
	in := Input{Annotations: realistic(), TLS: true, Globals: DefaultGlobals(), Namespace: "web"}
	b.ReportAllocs()
	for b.Loop() {
		conv := Convert(in)
		if len(conv.Findings) == 0 {
			b.Fatal(fmt.Sprint(conv))
		}
	}
}
