package nginx

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDefaultGlobals(t *testing.T) {
	g := DefaultGlobals()
	if g.FromConfigMap || g.ProxyReadTimeout != 60 || g.ProxySendTimeout != 60 || g.ProxyBodySize != "1m" || !g.SSLRedirect ||
		g.HTTPRedirectCode != 308 || !g.HSTS || g.HSTSMaxAge != 31536000 || !g.HSTSIncludeSubdomains || g.HSTSPreload || g.LoadBalance != "round_robin" {
		t.Errorf("defaults: %+v", g)
	}
	assumed := g.Assumed()
	if len(assumed) == 0 {
		t.Fatal("no assumed defaults")
	}
	for _, s := range assumed {
		if key, value, ok := strings.Cut(s, " "); !ok || value == "" {
			t.Errorf("assumed: %q is not KEY VALUE", s)
		} else if _, known := LookupSetting(key); !known {
			t.Errorf("assumed: %q names no ConfigMap key", s)
		}
	}
	if !slices.Contains(assumed, "proxy-read-timeout 60") {
		t.Errorf("assumed: %q", assumed)
	}
	g.FromConfigMap = true
	if a := g.Assumed(); a != nil {
		t.Errorf("assumed with a ConfigMap: %q", a)
	}
}

func TestGlobalsFromConfigMap(t *testing.T) {
	g, findings := GlobalsFromConfigMap(map[string]string{
		"proxy-read-timeout":      "120",
		"proxy-send-timeout":      "soon",
		"proxy-body-size":         "8m",
		"ssl-redirect":            "false",
		"hsts":                    "true",
		"hsts-max-age":            "600",
		"hsts-include-subdomains": "false",
		"hsts-preload":            "true",
		"http-redirect-code":      "301",
		"load-balance":            "ewma",
		"use-forwarded-headers":   "true",
		"whitelist-source-range":  "10.0.0.0/8, 192.168.0.0/16",
		"denylist-source-range":   "192.0.2.1, 198.51.100.0/24",
		"limit-req-status-code":   "429",
		"limit-conn-status-code":  "200",
		"ssl-ciphers":             "HIGH",
		"server-snippet":          "return 404;",
		"use-geoip":               "true",
		"proxy-read-timout":       "5",
		"unheard-of-key-xyzzy":    "1",
	})
	want := DefaultGlobals()
	want.FromConfigMap = true
	want.ProxyReadTimeout, want.ProxyBodySize, want.SSLRedirect = 120, "8m", false
	want.HSTSMaxAge, want.HSTSIncludeSubdomains, want.HSTSPreload = 600, false, true
	want.HTTPRedirectCode, want.LoadBalance, want.UseForwardedHeaders = 301, "ewma", true
	want.WhitelistSourceRange = []string{"10.0.0.0/8", "192.168.0.0/16"}
	want.DenylistSourceRange = []string{"192.0.2.1", "198.51.100.0/24"}
	want.LimitReqStatusCode = 429
	if !reflect.DeepEqual(g, want) {
		t.Errorf("globals\n%+v, want\n%+v", g, want)
	}
	verdicts := map[string]Verdict{}
	for i, f := range findings {
		if i > 0 && findings[i-1].Key >= f.Key {
			t.Errorf("findings not sorted at %s", f.Key)
		}
		checkCaveat(t, f.Key, f.Caveat)
		verdicts[f.Key] = f.Verdict
	}
	for key, v := range map[string]Verdict{
		"proxy-read-timeout": Exact, "proxy-send-timeout": NotSupported, "ssl-ciphers": RouterWide, "server-snippet": Refused,
		"use-geoip": NotSupported, "proxy-read-timout": NotSupported, "unheard-of-key-xyzzy": NotSupported, "hsts": Exact,
		"proxy-body-size": Approximate, "http-redirect-code": Exact, "denylist-source-range": Exact, "limit-req-status-code": Approximate,
		"limit-conn-status-code": NotSupported,
	} {
		if verdicts[key] != v {
			t.Errorf("%s: verdict %s, want %s", key, verdicts[key], v)
		}
	}
	for _, f := range findings {
		switch f.Key {
		case "proxy-read-timout":
			if !strings.Contains(f.Caveat, "did you mean proxy-read-timeout?") {
				t.Errorf("misspelled key: %q", f.Caveat)
			}
		case "proxy-send-timeout":
			if !strings.Contains(f.Caveat, `"soon"`) {
				t.Errorf("invalid value: %q", f.Caveat)
			}
		}
	}
	if g.Assumed() != nil {
		t.Error("a ConfigMap's globals assume nothing")
	}

	// The ConfigMap's values reach the conversion (ssl-redirect false: no
	// redirect to HTTPS, so no redirect-code).
	conv := Convert(Input{TLS: true, Globals: g, Annotations: kv("limit-rps", "2")})
	checkMap(t, "annotation", annotations(annTimeout, "120s", "haproxy.router.openshift.io/hsts_header", "max-age=600;preload",
		annAllow, "10.0.0.0/8 192.168.0.0/16", annDeny, "192.0.2.1 198.51.100.0/24", annBody, "8m", annCode, absent, annStatus, "429"), conv.Annotations)
	checkValid(t, conv, true, "/")
}

func TestConfigMapTable(t *testing.T) {
	table := ConfigMapTable()
	if len(table) < 150 {
		t.Errorf("the ConfigMap table has %d keys; ingress-nginx documents more", len(table))
	}
	counts := map[Verdict]int{}
	for i, s := range table {
		if i > 0 && table[i-1].Key >= s.Key {
			t.Errorf("keys %s and %s are not sorted or are duplicates", table[i-1].Key, s.Key)
		}
		if !slices.Contains(Verdicts(), s.Verdict) {
			t.Errorf("%s: verdict %q", s.Key, s.Verdict)
		}
		checkCaveat(t, s.Key, s.Caveat)
		if s.Verdict == RouterWide && !strings.Contains(s.Caveat, "ROUTER_") && !strings.Contains(s.Caveat, "SSL_") && !strings.Contains(s.Caveat, "STATS_") {
			t.Errorf("%s: a router-wide caveat names the router setting: %q", s.Key, s.Caveat)
		}
		if s.parse != nil {
			g := DefaultGlobals()
			if want := s.parse(&g, ""); want != "" || !reflect.DeepEqual(g, DefaultGlobals()) {
				t.Errorf("%s: an empty value is not the default", s.Key)
			}
		}
		counts[s.Verdict]++
		if _, ok := LookupSetting(s.Key); !ok {
			t.Errorf("LookupSetting(%s) found nothing", s.Key)
		}
	}
	t.Logf("verdicts: %v", counts)
}
