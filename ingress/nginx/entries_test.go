package nginx

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/routecore"
)

// absent in a want map means the annotation or header must not be there.
const absent = "<absent>"

// entryCase is one conversion of the per-entry table: annotations in, the
// finding of key and the Conversion's fields out. Fields of want left zero
// are not checked (maps: only the keys listed).
type entryCase struct {
	key     string
	in      map[string]string
	tls     bool
	verdict Verdict
	// also are the verdicts of other findings.
	also map[string]Verdict

	ann                 map[string]string
	term                routecore.TLSTerminationType
	insecure            routecore.InsecureEdgeTerminationPolicyType
	destCA, appProtocol string
	req, resp           map[string]string
	hosts               []string
	canary              *Canary
	noCanary, regex     bool
	target              string
	caveatHas           string
}

var (
	annTimeout  = routecore.AnnTimeout
	annCookies  = routecore.AnnDisableCookies
	annAllow    = routecore.AnnIPAllowlist
	annBalance  = routecore.AnnBalance
	annRate     = routecore.AnnRateLimit
	annRateHTTP = routecore.AnnRateLimitRateHTTP
	annBody     = routecore.AnnMaxBodySize
	annDeny     = routecore.AnnIPDenylist
	annRedirect = routecore.AnnRedirectTo
	annCode     = routecore.AnnRedirectCode
	annAppRoot  = routecore.AnnAppRoot
	annExempt   = routecore.AnnRateLimitExempt
	annStatus   = routecore.AnnRateLimitStatus

	// tooManyRanges lists one range more than a Route takes.
	tooManyRanges = func() string {
		list := make([]string, routecore.MaxAllowlistEntries+1)
		for i := range list {
			list[i] = fmt.Sprintf("10.%d.%d.0/24", i/256, i%256)
		}
		return strings.Join(list, ",")
	}()
)

func annotations(pairs ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}

// entryCases covers every entry of the table (TestEveryEntryHasACase).
var entryCases = []entryCase{
	// TLS.
	{key: "ssl-passthrough", in: kv("ssl-passthrough", "true", "rewrite-target", "/", "whitelist-source-range", "10.0.0.0/8", "configuration-snippet", "x"), verdict: Exact,
		also: map[string]Verdict{"rewrite-target": Exact, "whitelist-source-range": Exact, "configuration-snippet": Refused},
		term: routecore.TLSTerminationPassthrough, ann: annotations(annCookies, absent, annAllow, absent, annTimeout, absent), target: ""},
	{key: "ssl-passthrough", in: kv("ssl-passthrough", "false"), verdict: Exact, ann: annotations(annCookies, "true")},
	{key: "ssl-passthrough", in: kv("ssl-passthrough", "yes"), verdict: NotSupported, caveatHas: `"yes"`},
	{key: "ssl-redirect", in: kv("ssl-redirect", "true"), tls: true, verdict: Exact, insecure: routecore.InsecureEdgeTerminationPolicyRedirect,
		ann: annotations(annCode, "308"), caveatHas: "with 308 as in ingress-nginx (" + annCode + ")"},
	{key: "ssl-redirect", in: kv("ssl-redirect", "false"), tls: true, verdict: Exact, insecure: routecore.InsecureEdgeTerminationPolicyAllow, ann: annotations(annCode, absent)},
	{key: "ssl-redirect", in: kv("ssl-redirect", "true", "permanent-redirect", "https://example.org"), tls: true, verdict: Exact,
		insecure: routecore.InsecureEdgeTerminationPolicyAllow, ann: annotations(annRedirect, "https://example.org", annCode, "301"), caveatHas: "permanent-redirect answers every request"},
	{key: "ssl-redirect", in: kv("ssl-redirect", "true"), verdict: Exact, caveatHas: "spec.tls"},
	{key: "ssl-redirect", in: kv("ssl-redirect", "nope"), tls: true, verdict: NotSupported, insecure: routecore.InsecureEdgeTerminationPolicyRedirect},
	{key: "force-ssl-redirect", in: kv("force-ssl-redirect", "true"), verdict: NotSupported, caveatHas: "spec.tls"},
	{key: "force-ssl-redirect", in: kv("force-ssl-redirect", "true", "ssl-redirect", "false"), tls: true, verdict: Exact,
		also: map[string]Verdict{"ssl-redirect": Exact}, insecure: routecore.InsecureEdgeTerminationPolicyRedirect, ann: annotations(annCode, "308")},
	{key: "force-ssl-redirect", in: kv("force-ssl-redirect", "true", "backend-protocol", "HTTPS"), verdict: Exact,
		term: routecore.TLSTerminationReencrypt, insecure: routecore.InsecureEdgeTerminationPolicyRedirect, ann: annotations(annCode, "308")},
	{key: "force-ssl-redirect", in: kv("force-ssl-redirect", "true", "temporal-redirect", "https://example.org/$request_uri"), verdict: Exact,
		ann: annotations(annRedirect, "https://example.org/$request_uri", annCode, "302"), caveatHas: "temporal-redirect answers every request"},
	{key: "force-ssl-redirect", in: kv("force-ssl-redirect", "false"), tls: true, verdict: Exact, insecure: routecore.InsecureEdgeTerminationPolicyRedirect},
	{key: "force-ssl-redirect", in: kv("force-ssl-redirect", "1x"), verdict: NotSupported},
	{key: "preserve-trailing-slash", in: kv("preserve-trailing-slash", "true"), tls: true, verdict: Exact},
	{key: "use-port-in-redirects", in: kv("use-port-in-redirects", "true"), verdict: NotSupported},
	{key: "backend-protocol", in: kv("backend-protocol", "HTTPS"), tls: true, verdict: Exact,
		term: routecore.TLSTerminationReencrypt, insecure: routecore.InsecureEdgeTerminationPolicyRedirect},
	{key: "backend-protocol", in: kv("backend-protocol", "HTTPS"), verdict: Exact,
		term: routecore.TLSTerminationReencrypt, insecure: routecore.InsecureEdgeTerminationPolicyAllow, caveatHas: "default certificate"},
	{key: "backend-protocol", in: kv("backend-protocol", "GRPC"), verdict: Approximate, appProtocol: AppProtocolH2C, caveatHas: "kubectl patch service"},
	{key: "backend-protocol", in: kv("backend-protocol", "grpcs"), tls: true, verdict: Approximate,
		term: routecore.TLSTerminationReencrypt, appProtocol: AppProtocolH2},
	{key: "backend-protocol", in: kv("backend-protocol", "HTTP"), verdict: Exact},
	{key: "backend-protocol", in: kv("backend-protocol", "FCGI"), verdict: NotSupported},
	{key: "backend-protocol", in: kv("backend-protocol", "AUTO_HTTP"), verdict: NotSupported},
	{key: "backend-protocol", in: kv("backend-protocol", "HTTP2"), verdict: NotSupported, caveatHas: `"HTTP2"`},
	{key: "proxy-ssl-secret", in: kv("proxy-ssl-secret", "ns/backend-ca", "proxy-ssl-verify", "on", "backend-protocol", "HTTPS"), tls: true,
		verdict: Approximate, also: map[string]Verdict{"proxy-ssl-verify": Exact}, term: routecore.TLSTerminationReencrypt, destCA: "backend-ca"},
	{key: "proxy-ssl-secret", in: kv("proxy-ssl-secret", "other/backend-ca", "proxy-ssl-verify", "on", "backend-protocol", "HTTPS"), tls: true,
		term: routecore.TLSTerminationReencrypt, verdict: NotSupported, caveatHas: "copy the Secret's ca.crt"},
	{key: "proxy-ssl-secret", in: kv("proxy-ssl-secret", "ns/backend-ca", "backend-protocol", "HTTPS"), tls: true, term: routecore.TLSTerminationReencrypt, verdict: Approximate, caveatHas: "does not verify"},
	{key: "proxy-ssl-secret", in: kv("proxy-ssl-secret", "ns/backend-ca"), verdict: Exact, caveatHas: "no effect"},
	{key: "proxy-ssl-secret", in: kv("proxy-ssl-secret", "a/b/c", "backend-protocol", "HTTPS"), term: routecore.TLSTerminationReencrypt, verdict: NotSupported},
	{key: "proxy-ssl-verify", in: kv("proxy-ssl-verify", "on", "backend-protocol", "HTTPS"), term: routecore.TLSTerminationReencrypt, verdict: NotSupported, caveatHas: "proxy-ssl-secret"},
	{key: "proxy-ssl-verify", in: kv("proxy-ssl-verify", "off"), verdict: Exact},
	{key: "proxy-ssl-verify", in: kv("proxy-ssl-verify", "on"), verdict: Exact, caveatHas: "no effect"},
	{key: "proxy-ssl-verify", in: kv("proxy-ssl-verify", "maybe"), verdict: NotSupported},
	{key: "proxy-ssl-verify-depth", in: kv("proxy-ssl-verify-depth", "2"), verdict: NotSupported},
	{key: "proxy-ssl-ciphers", in: kv("proxy-ssl-ciphers", "HIGH"), verdict: NotSupported},
	{key: "proxy-ssl-protocols", in: kv("proxy-ssl-protocols", "TLSv1.3"), verdict: NotSupported},
	{key: "proxy-ssl-name", in: kv("proxy-ssl-name", "backend.internal"), verdict: NotSupported},
	{key: "proxy-ssl-server-name", in: kv("proxy-ssl-server-name", "on"), verdict: NotSupported},
	{key: "ssl-ciphers", in: kv("ssl-ciphers", "HIGH"), verdict: RouterWide, caveatHas: "ROUTER_CIPHERS"},
	{key: "ssl-prefer-server-ciphers", in: kv("ssl-prefer-server-ciphers", "true"), verdict: RouterWide},
	{key: "auth-tls-secret", in: kv("auth-tls-secret", "ns/ca"), tls: true, verdict: RouterWide, caveatHas: "ROUTER_MUTUAL_TLS_AUTH_CA"},
	{key: "auth-tls-verify-client", in: kv("auth-tls-verify-client", "on"), tls: true, verdict: RouterWide, caveatHas: "ROUTER_MUTUAL_TLS_AUTH"},
	{key: "auth-tls-verify-depth", in: kv("auth-tls-verify-depth", "1"), verdict: NotSupported},
	{key: "auth-tls-error-page", in: kv("auth-tls-error-page", "https://example.com/error"), verdict: NotSupported},
	{key: "auth-tls-pass-certificate-to-upstream", in: kv("auth-tls-pass-certificate-to-upstream", "true"), verdict: RouterWide},
	{key: "auth-tls-match-cn", in: kv("auth-tls-match-cn", "CN=client"), verdict: RouterWide, caveatHas: "ROUTER_MUTUAL_TLS_AUTH_FILTER"},

	// Routing.
	{key: "rewrite-target", in: kv("rewrite-target", "/$2"), verdict: Approximate, regex: true, target: "/$2"},
	{key: "rewrite-target", in: kv("rewrite-target", ""), verdict: NotSupported},
	{key: "use-regex", in: kv("use-regex", "true"), verdict: Approximate, regex: true},
	{key: "use-regex", in: kv("use-regex", "false"), verdict: Exact},
	{key: "use-regex", in: kv("use-regex", "false", "rewrite-target", "/"), verdict: Approximate, regex: true, target: "/"},
	{key: "use-regex", in: kv("use-regex", "sometimes"), verdict: NotSupported},
	{key: "app-root", in: kv("app-root", "/app"), verdict: Exact, ann: annotations(annAppRoot, "/app")},
	{key: "app-root", in: kv("app-root", "/app/?lang=en"), tls: true, verdict: Exact, ann: annotations(annAppRoot, "/app/?lang=en"),
		insecure: routecore.InsecureEdgeTerminationPolicyRedirect},
	{key: "app-root", in: kv("app-root", "app"), verdict: NotSupported, ann: annotations(annAppRoot, absent), caveatHas: "does not redirect /"},
	{key: "app-root", in: kv("app-root", "https://example.org/app"), verdict: NotSupported, ann: annotations(annAppRoot, absent)},
	{key: "app-root", in: kv("app-root", "/"), verdict: NotSupported, ann: annotations(annAppRoot, absent), caveatHas: "other than /"},
	{key: "app-root", in: kv("app-root", "/app/$1"), verdict: NotSupported, ann: annotations(annAppRoot, absent)},
	{key: "permanent-redirect", in: kv("permanent-redirect", "https://example.org"), verdict: Exact,
		ann: annotations(annRedirect, "https://example.org", annCode, "301")},
	{key: "permanent-redirect", in: kv("permanent-redirect", "https://example.org/new$request_uri"), tls: true, verdict: Exact,
		ann: annotations(annRedirect, "https://example.org/new$request_uri", annCode, "301"), insecure: routecore.InsecureEdgeTerminationPolicyAllow,
		caveatHas: "$request_uri appending"},
	{key: "permanent-redirect", in: kv("permanent-redirect", "https://$host/new"), verdict: NotSupported,
		ann: annotations(annRedirect, absent, annCode, absent), caveatHas: "write the URL literally"},
	{key: "permanent-redirect", in: kv("permanent-redirect", "https://example.org/$request_uri/x"), verdict: NotSupported, ann: annotations(annRedirect, absent)},
	{key: "permanent-redirect", in: kv("permanent-redirect", "https://example.org/?a=1$request_uri"), verdict: NotSupported, ann: annotations(annRedirect, absent)},
	{key: "permanent-redirect", in: kv("permanent-redirect", "/elsewhere"), tls: true, verdict: NotSupported,
		ann: annotations(annRedirect, absent, annCode, "308"), insecure: routecore.InsecureEdgeTerminationPolicyRedirect, caveatHas: "absolute"},
	{key: "permanent-redirect", in: kv("permanent-redirect", ""), verdict: Exact, ann: annotations(annRedirect, absent)},
	{key: "permanent-redirect", in: kv("permanent-redirect", "https://a.example.org", "temporal-redirect", "https://b.example.org"), verdict: Exact,
		also: map[string]Verdict{"temporal-redirect": Exact}, ann: annotations(annRedirect, "https://b.example.org", annCode, "302"), caveatHas: "temporal-redirect wins"},
	{key: "permanent-redirect-code", in: kv("permanent-redirect", "https://example.org", "permanent-redirect-code", "308"), verdict: Exact,
		also: map[string]Verdict{"permanent-redirect": Exact}, ann: annotations(annRedirect, "https://example.org", annCode, "308")},
	{key: "permanent-redirect-code", in: kv("permanent-redirect-code", "308"), verdict: Exact, caveatHas: "no effect", ann: annotations(annCode, absent)},
	{key: "permanent-redirect-code", in: kv("permanent-redirect", "https://example.org", "permanent-redirect-code", "304"), verdict: NotSupported,
		ann: annotations(annCode, "301"), caveatHas: "write one of those"},
	{key: "permanent-redirect-code", in: kv("permanent-redirect", "https://example.org", "permanent-redirect-code", "200"), verdict: Exact,
		ann: annotations(annCode, "301"), caveatHas: "from 300 to 308"},
	{key: "permanent-redirect-code", in: kv("permanent-redirect", "https://example.org", "permanent-redirect-code", "moved"), verdict: NotSupported,
		also: map[string]Verdict{"permanent-redirect": Exact}, ann: annotations(annRedirect, absent, annCode, absent)},
	{key: "permanent-redirect-code", in: kv("permanent-redirect", "https://$host", "permanent-redirect-code", "308"), verdict: NotSupported,
		ann: annotations(annCode, absent)},
	{key: "temporal-redirect", in: kv("temporal-redirect", "https://example.org"), verdict: Exact,
		ann: annotations(annRedirect, "https://example.org", annCode, "302")},
	{key: "temporal-redirect", in: kv("temporal-redirect", "ftp://example.org"), verdict: NotSupported, ann: annotations(annRedirect, absent)},
	{key: "temporal-redirect-code", in: kv("temporal-redirect", "https://example.org", "temporal-redirect-code", "307"), verdict: Exact,
		ann: annotations(annCode, "307")},
	{key: "temporal-redirect-code", in: kv("temporal-redirect", "https://example.org", "temporal-redirect-code", "308"), verdict: Exact,
		ann: annotations(annCode, "302"), caveatHas: "from 300 to 307"},
	{key: "temporal-redirect-code", in: kv("permanent-redirect", "https://example.org", "temporal-redirect-code", "307"), verdict: Exact,
		ann: annotations(annCode, "301"), caveatHas: "no effect"},
	{key: "from-to-www-redirect", in: kv("from-to-www-redirect", "true"), verdict: Approximate,
		ann: annotations(routecore.AnnWWWRedirect, "true", annCode, absent), caveatHas: "unless a Route names that host itself"},
	{key: "from-to-www-redirect", in: kv("from-to-www-redirect", "false"), verdict: Exact, ann: annotations(routecore.AnnWWWRedirect, absent)},
	{key: "from-to-www-redirect", in: kv("from-to-www-redirect", "yes"), verdict: NotSupported, ann: annotations(routecore.AnnWWWRedirect, absent)},
	{key: "server-alias", in: kv("server-alias", "a.example.com, b.example.com"), verdict: Exact, hosts: []string{"a.example.com", "b.example.com"}},
	{key: "server-alias", in: kv("server-alias", "*.example.com,c.example.com"), verdict: Approximate, hosts: []string{"c.example.com"}, caveatHas: "*.example.com"},
	{key: "server-alias", in: kv("server-alias", "~^www\\d+$"), verdict: NotSupported},
	{key: "default-backend", in: kv("default-backend", "fallback"), verdict: RouterWide, caveatHas: "ROUTER_ERRORFILE_503"},
	{key: "custom-http-errors", in: kv("custom-http-errors", "404,503"), verdict: RouterWide, caveatHas: "ROUTER_ERRORFILE_404"},
	{key: "disable-proxy-intercept-errors", in: kv("disable-proxy-intercept-errors", "true"), verdict: Exact},
	{key: "upstream-vhost", in: kv("upstream-vhost", "backend.internal"), tls: true, verdict: Exact, req: annotations("Host", "backend.internal")},
	{key: "upstream-vhost", in: kv("upstream-vhost", "50%.internal"), verdict: Exact, req: annotations("Host", "50%%.internal")},
	{key: "upstream-vhost", in: kv("upstream-vhost", "$host"), verdict: NotSupported, req: annotations("Host", absent)},
	{key: "x-forwarded-prefix", in: kv("x-forwarded-prefix", "/path"), tls: true, verdict: Exact, req: annotations("X-Forwarded-Prefix", "/path")},
	{key: "custom-headers", in: kv("custom-headers", "ns/headers"), verdict: NotSupported},
	{key: "connection-proxy-header", in: kv("connection-proxy-header", "keep-alive"), verdict: NotSupported},
	{key: "proxy-http-version", in: kv("proxy-http-version", "1.1"), verdict: Exact},
	{key: "proxy-http-version", in: kv("proxy-http-version", "1.0"), verdict: NotSupported},
	{key: "proxy-http-version", in: kv("proxy-http-version", "2"), verdict: NotSupported},
	{key: "proxy-redirect-from", in: kv("proxy-redirect-from", "http://a/"), verdict: NotSupported},
	{key: "proxy-redirect-to", in: kv("proxy-redirect-to", "http://b/"), verdict: NotSupported},
	{key: "proxy-cookie-domain", in: kv("proxy-cookie-domain", "a b"), verdict: NotSupported},
	{key: "proxy-cookie-path", in: kv("proxy-cookie-path", "/a /b"), verdict: NotSupported},
	{key: "http2-push-preload", in: kv("http2-push-preload", "true"), verdict: NotSupported},
	{key: "mirror-target", in: kv("mirror-target", "https://test$request_uri"), verdict: NotSupported},
	{key: "mirror-host", in: kv("mirror-host", "test"), verdict: NotSupported},
	{key: "mirror-request-body", in: kv("mirror-request-body", "off"), verdict: NotSupported},
	{key: "fastcgi-index", in: kv("fastcgi-index", "index.php"), verdict: NotSupported},
	{key: "fastcgi-params-configmap", in: kv("fastcgi-params-configmap", "params"), verdict: NotSupported},

	// Canaries.
	{key: "canary", in: kv("canary", "true", "canary-weight", "20"), verdict: Exact, also: map[string]Verdict{"canary-weight": Exact},
		canary: &Canary{Weight: 20, Total: 100}, ann: annotations(annCookies, absent)},
	{key: "canary", in: kv("canary", "false"), verdict: Exact, noCanary: true},
	{key: "canary", in: kv("canary", "maybe"), verdict: NotSupported, noCanary: true},
	{key: "canary", in: kv("canary", "true", "rewrite-target", "/", "affinity", "cookie"), verdict: Exact,
		also: map[string]Verdict{"rewrite-target": Exact, "affinity": Approximate}, canary: &Canary{Weight: 0, Total: 100}, target: ""},
	{key: "canary-weight", in: kv("canary", "true", "canary-weight", "200"), verdict: Exact, canary: &Canary{Weight: 100, Total: 100}},
	{key: "canary-weight", in: kv("canary-weight", "20"), verdict: Exact, noCanary: true, caveatHas: "no effect"},
	{key: "canary-weight", in: kv("canary", "true", "canary-weight", "-1"), verdict: NotSupported, canary: &Canary{Weight: 0, Total: 100}},
	{key: "canary-weight-total", in: kv("canary", "true", "canary-weight", "5", "canary-weight-total", "10"), verdict: Exact, canary: &Canary{Weight: 5, Total: 10}},
	{key: "canary-weight-total", in: kv("canary", "true", "canary-weight-total", "x"), verdict: NotSupported, canary: &Canary{Weight: 0, Total: 100}},
	{key: "canary-by-header", in: kv("canary", "true", "canary-by-header", "X-Canary"), verdict: Exact,
		canary: &Canary{Weight: 0, Total: 100, ByRequest: map[string]string{routecore.AnnCanaryByHeader: "X-Canary"}}},
	{key: "canary-by-header", in: kv("canary-by-header", "X-Canary"), verdict: Exact, noCanary: true},
	{key: "canary-by-header", in: kv("canary", "true", "canary-by-header", "X Canary"), verdict: NotSupported, canary: &Canary{Total: 100},
		caveatHas: "chosen by weight only"},
	{key: "canary-by-header-value", in: kv("canary", "true", "canary-by-header", "X", "canary-by-header-value", "yes"), verdict: Exact,
		canary: &Canary{Total: 100, ByRequest: map[string]string{routecore.AnnCanaryByHeader: "X", routecore.AnnCanaryByHeaderValue: "yes"}}},
	{key: "canary-by-header-value", in: kv("canary", "true", "canary-by-header-value", "yes"), verdict: Exact, canary: &Canary{Total: 100},
		caveatHas: "no effect"},
	{key: "canary-by-header-pattern", in: kv("canary", "true", "canary-by-header", "X", "canary-by-header-pattern", "^y"), verdict: Approximate,
		canary: &Canary{Total: 100, ByRequest: map[string]string{routecore.AnnCanaryByHeader: "X", routecore.AnnCanaryByHeaderPattern: "^y"}}},
	{key: "canary-by-header-pattern", in: kv("canary", "true", "canary-by-header", "X", "canary-by-header-value", "v", "canary-by-header-pattern", "^y"),
		verdict: Exact, caveatHas: "canary-by-header-value wins",
		canary: &Canary{Total: 100, ByRequest: map[string]string{routecore.AnnCanaryByHeader: "X", routecore.AnnCanaryByHeaderValue: "v"}}},
	{key: "canary-by-header-pattern", in: kv("canary", "true", "canary-by-header", "X", "canary-by-header-pattern", `\p{L}`), verdict: NotSupported,
		canary: &Canary{Total: 100}},
	{key: "canary-by-cookie", in: kv("canary", "true", "canary-by-cookie", "canary"), verdict: Exact,
		canary: &Canary{Total: 100, ByRequest: map[string]string{routecore.AnnCanaryByCookie: "canary"}}},

	// Balancing and affinity.
	{key: "affinity", in: kv("affinity", "cookie"), verdict: Approximate, ann: annotations(annCookies, absent)},
	{key: "affinity", in: kv("affinity", "ip"), verdict: NotSupported, ann: annotations(annCookies, "true")},
	{key: "affinity-mode", in: kv("affinity", "cookie", "affinity-mode", "persistent"), verdict: Exact},
	{key: "affinity-mode", in: kv("affinity", "cookie", "affinity-mode", "balanced"), verdict: Approximate},
	{key: "affinity-mode", in: kv("affinity", "cookie", "affinity-mode", "sometimes"), verdict: NotSupported},
	{key: "affinity-mode", in: kv("affinity-mode", "persistent"), verdict: Exact, caveatHas: "no effect"},
	{key: "affinity-canary-behavior", in: kv("affinity", "cookie", "affinity-canary-behavior", "sticky"), verdict: Exact},
	{key: "affinity-canary-behavior", in: kv("affinity", "cookie", "affinity-canary-behavior", "legacy"), verdict: Approximate},
	{key: "session-cookie-name", in: kv("affinity", "cookie", "session-cookie-name", "SESSION"), verdict: Exact, ann: annotations(routecore.AnnCookieName, "SESSION")},
	{key: "session-cookie-name", in: kv("affinity", "cookie", "session-cookie-name", "bad name;"), verdict: NotSupported, ann: annotations(routecore.AnnCookieName, absent)},
	{key: "session-cookie-name", in: kv("session-cookie-name", "SESSION"), verdict: Exact, ann: annotations(routecore.AnnCookieName, absent, annCookies, "true")},
	{key: "session-cookie-samesite", in: kv("affinity", "cookie", "session-cookie-samesite", "lax"), tls: true, verdict: Exact, ann: annotations(routecore.AnnCookieSameSite, "Lax")},
	{key: "session-cookie-samesite", in: kv("affinity", "cookie", "session-cookie-samesite", "Strict"), verdict: Approximate, ann: annotations(routecore.AnnCookieSameSite, absent)},
	{key: "session-cookie-samesite", in: kv("affinity", "cookie", "session-cookie-samesite", "Sometimes"), tls: true, verdict: NotSupported},
	{key: "session-cookie-conditional-samesite-none", in: kv("affinity", "cookie", "session-cookie-conditional-samesite-none", "true"), verdict: NotSupported},
	{key: "session-cookie-secure", in: kv("affinity", "cookie", "session-cookie-secure", "true"), tls: true, verdict: Approximate},
	{key: "session-cookie-secure", in: kv("affinity", "cookie", "session-cookie-secure", "yes"), verdict: NotSupported},
	{key: "session-cookie-path", in: kv("affinity", "cookie", "session-cookie-path", "/"), verdict: Approximate},
	{key: "session-cookie-domain", in: kv("affinity", "cookie", "session-cookie-domain", "example.com"), verdict: NotSupported},
	{key: "session-cookie-expires", in: kv("affinity", "cookie", "session-cookie-expires", "172800"), verdict: NotSupported},
	{key: "session-cookie-expires", in: kv("session-cookie-expires", "172800"), verdict: Exact},
	{key: "session-cookie-max-age", in: kv("affinity", "cookie", "session-cookie-max-age", "172800"), verdict: NotSupported},
	{key: "session-cookie-change-on-failure", in: kv("affinity", "cookie", "session-cookie-change-on-failure", "true"), verdict: Approximate},
	{key: "load-balance", in: kv("load-balance", "round_robin"), verdict: Exact, ann: annotations(annBalance, "roundrobin")},
	{key: "load-balance", in: kv("load-balance", "ewma"), verdict: Approximate, ann: annotations(annBalance, "leastconn")},
	{key: "load-balance", in: kv("load-balance", "chash"), verdict: NotSupported, ann: annotations(annBalance, absent), caveatHas: "internal"},
	{key: "load-balance", in: kv("load-balance", "least_conn"), verdict: NotSupported, ann: annotations(annBalance, absent)},
	{key: "load-balance", in: kv("load-balance", "ewma", "upstream-hash-by", "$remote_addr"), verdict: Exact, ann: annotations(annBalance, "source")},
	{key: "upstream-hash-by", in: kv("upstream-hash-by", "$binary_remote_addr"), verdict: Exact, ann: annotations(annBalance, "source")},
	{key: "upstream-hash-by", in: kv("upstream-hash-by", "$request_uri"), verdict: NotSupported, ann: annotations(annBalance, absent)},
	{key: "upstream-hash-by-subset", in: kv("upstream-hash-by-subset", "true"), verdict: NotSupported},
	{key: "upstream-hash-by-subset-size", in: kv("upstream-hash-by-subset-size", "3"), verdict: NotSupported},
	{key: "service-upstream", in: kv("service-upstream", "true"), verdict: Approximate},
	{key: "service-upstream", in: kv("service-upstream", "false"), verdict: Exact},
	{key: "service-upstream", in: kv("service-upstream", "t r u e"), verdict: NotSupported},

	// Limits and timeouts.
	{key: "whitelist-source-range", in: kv("whitelist-source-range", " 10.0.0.0/8, 192.168.1.1 ,2001:db8::/32"), verdict: Approximate,
		ann: annotations(annAllow, "10.0.0.0/8 192.168.1.1 2001:db8::/32")},
	{key: "whitelist-source-range", in: kv("whitelist-source-range", "10.0.0.0/8", "allowlist-source-range", "192.168.0.0/16"), verdict: Exact,
		also: map[string]Verdict{"allowlist-source-range": Approximate}, ann: annotations(annAllow, "192.168.0.0/16")},
	{key: "allowlist-source-range", in: kv("allowlist-source-range", "10.0.0.0/8,10.0.0.300"), verdict: Approximate,
		ann: annotations(annAllow, denyEveryone), caveatHas: "10.0.0.300"},
	{key: "allowlist-source-range", in: kv("allowlist-source-range", " , "), verdict: Approximate, ann: annotations(annAllow, denyEveryone)},
	{key: "allowlist-source-range", in: kv("allowlist-source-range", "", "whitelist-source-range", "10.0.0.0/8"), verdict: Exact,
		also: map[string]Verdict{"whitelist-source-range": Approximate}, ann: annotations(annAllow, "10.0.0.0/8")},
	{key: "denylist-source-range", in: kv("denylist-source-range", " 10.0.0.0/8, 192.168.1.1 ,2001:db8::/32"), verdict: Exact,
		ann: annotations(annDeny, "10.0.0.0/8 192.168.1.1 2001:db8::/32")},
	{key: "denylist-source-range", in: kv("denylist-source-range", "10.0.0.0/8", "allowlist-source-range", "10.0.0.0/8"), verdict: Exact,
		ann: annotations(annDeny, "10.0.0.0/8", annAllow, "10.0.0.0/8")},
	{key: "denylist-source-range", in: kv("denylist-source-range", "10.0.0.0/8,10.0.0.300"), verdict: Approximate,
		ann: annotations(annDeny, denyAll), caveatHas: "10.0.0.300"},
	{key: "denylist-source-range", in: kv("denylist-source-range", " , "), verdict: Approximate, ann: annotations(annDeny, denyAll)},
	{key: "denylist-source-range", in: kv("denylist-source-range", tooManyRanges), verdict: NotSupported, ann: annotations(annDeny, denyAll), caveatHas: "wider CIDRs"},
	{key: "limit-connections", in: kv("limit-connections", "5"), verdict: Approximate,
		ann: annotations(annRate, "true", routecore.AnnRateLimitConcurrentTCP, "5", annStatus, absent), caveatHas: "where ingress-nginx answers 503"},
	{key: "limit-connections", in: kv("limit-connections", "0"), verdict: Exact, ann: annotations(annRate, absent)},
	{key: "limit-rps", in: kv("limit-rps", "5"), verdict: Approximate, ann: annotations(annRate, "true", annRateHTTP, "50")},
	{key: "limit-rps", in: kv("limit-rps", "five"), verdict: NotSupported, ann: annotations(annRate, absent)},
	{key: "limit-rps", in: kv("limit-rps", "2147483647"), verdict: Approximate, ann: annotations(annRate, "true", annRateHTTP, "2147483647")},
	{key: "limit-rpm", in: kv("limit-rpm", "100"), verdict: Approximate, ann: annotations(annRate, "true", annRateHTTP, "17")},
	{key: "limit-rpm", in: kv("limit-rpm", "60", "limit-rps", "5"), verdict: Approximate, also: map[string]Verdict{"limit-rps": Approximate},
		ann: annotations(annRateHTTP, "10")},
	{key: "limit-burst-multiplier", in: kv("limit-rps", "5", "limit-burst-multiplier", "2"), verdict: NotSupported},
	{key: "limit-burst-multiplier", in: kv("limit-burst-multiplier", "2"), verdict: Exact},
	{key: "limit-rate", in: kv("limit-rate", "100"), verdict: NotSupported},
	{key: "limit-rate-after", in: kv("limit-rate-after", "100"), verdict: NotSupported},
	{key: "limit-whitelist", in: kv("limit-whitelist", "10.0.0.0/8"), verdict: Exact, ann: annotations(annExempt, absent), caveatHas: "no effect"},
	{key: "limit-whitelist", in: kv("limit-whitelist", "10.0.0.0/8", "limit-rps", "5"), verdict: Exact, ann: annotations(annRate, "true", annExempt, "10.0.0.0/8")},
	{key: "limit-whitelist", in: kv("limit-whitelist", "10.0.0.0/8", "limit-allowlist", "192.168.0.0/16", "limit-rpm", "60"), verdict: Exact,
		also: map[string]Verdict{"limit-allowlist": Exact}, ann: annotations(annExempt, "192.168.0.0/16"), caveatHas: "limit-allowlist wins"},
	{key: "limit-allowlist", in: kv("limit-allowlist", "10.0.0.0/8, 2001:db8::/32", "limit-connections", "3"), verdict: Exact,
		ann: annotations(annExempt, "10.0.0.0/8 2001:db8::/32")},
	{key: "limit-allowlist", in: kv("limit-allowlist", "", "limit-whitelist", "10.0.0.0/8", "limit-rps", "5"), verdict: Exact,
		also: map[string]Verdict{"limit-whitelist": Exact}, ann: annotations(annExempt, "10.0.0.0/8")},
	{key: "limit-allowlist", in: kv("limit-allowlist", "10.0.0.0/8,office", "limit-rps", "5"), verdict: NotSupported,
		ann: annotations(annRate, "true", annExempt, absent), caveatHas: "exempt no client"},
	{key: "limit-allowlist", in: kv("limit-allowlist", tooManyRanges, "limit-rps", "5"), verdict: NotSupported,
		ann: annotations(annRate, "true", annExempt, absent), caveatHas: "wider CIDRs"},
	{key: "proxy-read-timeout", in: kv("proxy-read-timeout", "120"), verdict: Approximate, ann: annotations(annTimeout, "120s")},
	{key: "proxy-read-timeout", in: kv("proxy-read-timeout", "10"), verdict: Approximate, ann: annotations(annTimeout, "60s")},
	{key: "proxy-read-timeout", in: kv("proxy-read-timeout", "120", "proxy-send-timeout", "120"), verdict: Exact,
		also: map[string]Verdict{"proxy-send-timeout": Exact}, ann: annotations(annTimeout, "120s")},
	{key: "proxy-send-timeout", in: kv("proxy-send-timeout", "30s"), verdict: NotSupported, ann: annotations(annTimeout, "60s")},
	{key: "proxy-send-timeout", in: kv("proxy-send-timeout", "3600"), verdict: Approximate, ann: annotations(annTimeout, "3600s")},
	{key: "proxy-connect-timeout", in: kv("proxy-connect-timeout", "10"), verdict: RouterWide, caveatHas: "ROUTER_DEFAULT_CONNECT_TIMEOUT"},
	{key: "proxy-next-upstream", in: kv("proxy-next-upstream", "error timeout"), verdict: Approximate},
	{key: "proxy-next-upstream-tries", in: kv("proxy-next-upstream-tries", "5"), verdict: NotSupported},
	{key: "proxy-next-upstream-timeout", in: kv("proxy-next-upstream-timeout", "5"), verdict: NotSupported},
	{key: "proxy-request-buffering", in: kv("proxy-request-buffering", "off"), verdict: Exact},
	{key: "proxy-request-buffering", in: kv("proxy-request-buffering", "on"), verdict: Approximate},
	{key: "proxy-buffering", in: kv("proxy-buffering", "off"), verdict: Exact},
	{key: "proxy-buffering", in: kv("proxy-buffering", "yes"), verdict: NotSupported},
	{key: "proxy-body-size", in: kv("proxy-body-size", "8m"), verdict: Approximate, ann: annotations(annBody, "8m"), caveatHas: "chunked"},
	{key: "proxy-body-size", in: kv("proxy-body-size", "512K"), tls: true, verdict: Approximate, ann: annotations(annBody, "512K")},
	{key: "proxy-body-size", in: kv("proxy-body-size", "0"), verdict: Exact, ann: annotations(annBody, "0")},
	{key: "proxy-body-size", in: kv("proxy-body-size", "8 MB"), verdict: NotSupported, ann: annotations(annBody, "1m"), caveatHas: "ConfigMap's 1m"},
	{key: "proxy-body-size", in: kv("proxy-body-size", "2000g"), verdict: Approximate, ann: annotations(annBody, "0"), caveatHas: "1024g"},
	{key: "client-body-buffer-size", in: kv("client-body-buffer-size", "1m"), verdict: RouterWide, caveatHas: "ROUTER_BUF_SIZE"},
	{key: "proxy-buffer-size", in: kv("proxy-buffer-size", "8k"), verdict: RouterWide, caveatHas: "ROUTER_BUF_SIZE"},
	{key: "proxy-buffers-number", in: kv("proxy-buffers-number", "4"), verdict: NotSupported},
	{key: "proxy-busy-buffers-size", in: kv("proxy-busy-buffers-size", "16k"), verdict: NotSupported},
	{key: "proxy-max-temp-file-size", in: kv("proxy-max-temp-file-size", "0"), verdict: NotSupported},

	// Snippets, authentication, CORS, logs, tracing, firewall.
	{key: "configuration-snippet", in: kv("configuration-snippet", "more_set_headers x;"), verdict: Refused},
	{key: "server-snippet", in: kv("server-snippet", "return 301 https://m.example.com;"), verdict: Refused},
	{key: "auth-snippet", in: kv("auth-snippet", "proxy_set_header Foo 42;"), verdict: Refused},
	{key: "stream-snippet", in: kv("stream-snippet", "server {}"), verdict: Refused},
	{key: "modsecurity-snippet", in: kv("modsecurity-snippet", "SecRuleEngine On"), verdict: Refused},
	{key: "auth-type", in: kv("auth-type", "basic"), verdict: NotSupported, caveatHas: "Name the htpasswd Secret"},
	{key: "auth-type", in: kv("auth-type", "basic", "auth-secret", "basic-auth"), verdict: Approximate,
		ann: annotations(routecore.AnnAuthBasicSecret, "basic-auth"), caveatHas: "re-hash with htpasswd -B"},
	{key: "auth-type", in: kv("auth-type", "digest", "auth-secret", "basic-auth"), verdict: NotSupported,
		ann: annotations(routecore.AnnAuthBasicSecret, absent), caveatHas: "no digest authentication"},
	{key: "auth-secret", in: kv("auth-secret", "basic-auth"), verdict: NotSupported, ann: annotations(routecore.AnnAuthBasicSecret, absent)},
	{key: "auth-secret", in: kv("auth-type", "basic", "auth-secret", "other/basic-auth"), verdict: NotSupported,
		ann: annotations(routecore.AnnAuthBasicSecret, absent), caveatHas: "another namespace"},
	{key: "auth-secret-type", in: kv("auth-type", "basic", "auth-secret", "basic-auth", "auth-secret-type", "auth-map"), verdict: NotSupported,
		ann: annotations(routecore.AnnAuthBasicSecret, absent), caveatHas: "Only auth-file Secrets"},
	{key: "auth-realm", in: kv("auth-type", "basic", "auth-secret", "basic-auth", "auth-realm", "Staff only"), verdict: Exact,
		ann: annotations(routecore.AnnAuthBasicSecret, "basic-auth", routecore.AnnAuthBasicRealm, "Staff only")},
	{key: "auth-realm", in: kv("auth-type", "basic", "auth-secret", "basic-auth", "auth-realm", `Say "hi"`), verdict: NotSupported,
		ann: annotations(routecore.AnnAuthBasicRealm, absent)},
	{key: "auth-url", in: kv("auth-url", "https://auth.example.com/check"), verdict: NotSupported},
	{key: "auth-method", in: kv("auth-method", "GET"), verdict: NotSupported},
	{key: "auth-signin", in: kv("auth-signin", "https://auth.example.com/start"), verdict: NotSupported},
	{key: "auth-signin-redirect-param", in: kv("auth-signin-redirect-param", "rd"), verdict: NotSupported},
	{key: "auth-response-headers", in: kv("auth-response-headers", "X-User"), verdict: NotSupported},
	{key: "auth-request-redirect", in: kv("auth-request-redirect", "https://x"), verdict: NotSupported},
	{key: "auth-cache-key", in: kv("auth-cache-key", "$remote_user"), verdict: NotSupported},
	{key: "auth-cache-duration", in: kv("auth-cache-duration", "200 5m"), verdict: NotSupported},
	{key: "auth-always-set-cookie", in: kv("auth-always-set-cookie", "true"), verdict: NotSupported},
	{key: "auth-keepalive", in: kv("auth-keepalive", "10"), verdict: NotSupported},
	{key: "auth-keepalive-share-vars", in: kv("auth-keepalive-share-vars", "true"), verdict: NotSupported},
	{key: "auth-keepalive-requests", in: kv("auth-keepalive-requests", "100"), verdict: NotSupported},
	{key: "auth-keepalive-timeout", in: kv("auth-keepalive-timeout", "60"), verdict: NotSupported},
	{key: "auth-proxy-set-headers", in: kv("auth-proxy-set-headers", "ns/headers"), verdict: NotSupported},
	{key: "enable-global-auth", in: kv("enable-global-auth", "false"), verdict: Exact},
	{key: "satisfy", in: kv("satisfy", "any"), verdict: NotSupported},
	{key: "enable-cors", in: kv("enable-cors", "true"), tls: true, verdict: Approximate, resp: annotations(
		"Access-Control-Allow-Origin", "*", "Access-Control-Allow-Methods", corsDefaultMethods, "Access-Control-Allow-Headers", corsDefaultHeaders,
		"Access-Control-Allow-Credentials", "true", "Access-Control-Max-Age", "1728000", "Access-Control-Expose-Headers", absent)},
	{key: "enable-cors", in: kv("enable-cors", "false"), verdict: Exact, resp: annotations("Access-Control-Allow-Origin", absent)},
	{key: "enable-cors", in: kv("enable-cors", "on"), verdict: NotSupported, resp: annotations("Access-Control-Allow-Origin", absent)},
	{key: "cors-allow-origin", in: kv("enable-cors", "true", "cors-allow-origin", "https://a.example.com"), verdict: Approximate,
		resp: annotations("Access-Control-Allow-Origin", "https://a.example.com")},
	{key: "cors-allow-origin", in: kv("enable-cors", "true", "cors-allow-origin", "https://a.example.com:8443, http://b.example.com"), verdict: Approximate,
		resp: annotations("Access-Control-Allow-Origin", "https://a.example.com:8443"), caveatHas: "http://b.example.com"},
	{key: "cors-allow-origin", in: kv("enable-cors", "true", "cors-allow-origin", "https://*.example.com"), verdict: NotSupported,
		resp: annotations("Access-Control-Allow-Origin", absent)},
	{key: "cors-allow-origin", in: kv("enable-cors", "true", "cors-allow-origin", "example dot com"), verdict: NotSupported,
		resp: annotations("Access-Control-Allow-Origin", "*")},
	{key: "cors-allow-origin", in: kv("cors-allow-origin", "https://a.example.com"), verdict: Exact, caveatHas: "no effect",
		resp: annotations("Access-Control-Allow-Origin", absent)},
	{key: "cors-allow-methods", in: kv("enable-cors", "true", "cors-allow-methods", "GET, POST"), verdict: Exact,
		resp: annotations("Access-Control-Allow-Methods", "GET, POST")},
	{key: "cors-allow-methods", in: kv("enable-cors", "true", "cors-allow-methods", "GET; DROP"), verdict: NotSupported,
		resp: annotations("Access-Control-Allow-Methods", corsDefaultMethods)},
	{key: "cors-allow-headers", in: kv("enable-cors", "true", "cors-allow-headers", "X-Custom, X_Other"), verdict: Exact,
		resp: annotations("Access-Control-Allow-Headers", "X-Custom, X_Other")},
	{key: "cors-expose-headers", in: kv("enable-cors", "true", "cors-expose-headers", "*, X-Foo"), verdict: Exact,
		resp: annotations("Access-Control-Expose-Headers", "*, X-Foo")},
	{key: "cors-allow-credentials", in: kv("enable-cors", "true", "cors-allow-credentials", "false"), verdict: Exact,
		resp: annotations("Access-Control-Allow-Credentials", absent)},
	{key: "cors-allow-credentials", in: kv("enable-cors", "true", "cors-allow-credentials", "nah"), verdict: NotSupported,
		resp: annotations("Access-Control-Allow-Credentials", "true")},
	{key: "cors-max-age", in: kv("enable-cors", "true", "cors-max-age", "600"), verdict: Exact, resp: annotations("Access-Control-Max-Age", "600")},
	{key: "cors-max-age", in: kv("enable-cors", "true", "cors-max-age", "ten"), verdict: NotSupported, resp: annotations("Access-Control-Max-Age", "1728000")},
	{key: "enable-access-log", in: kv("enable-access-log", "false"), verdict: RouterWide, caveatHas: "ROUTER_SYSLOG_ADDRESS"},
	{key: "enable-rewrite-log", in: kv("enable-rewrite-log", "true"), verdict: NotSupported},
	{key: "enable-opentelemetry", in: kv("enable-opentelemetry", "true"), verdict: NotSupported},
	{key: "opentelemetry-trust-incoming-span", in: kv("opentelemetry-trust-incoming-span", "true"), verdict: NotSupported},
	{key: "opentelemetry-operation-name", in: kv("opentelemetry-operation-name", "op"), verdict: NotSupported},
	{key: "enable-modsecurity", in: kv("enable-modsecurity", "true"), verdict: NotSupported},
	{key: "enable-owasp-core-rules", in: kv("enable-owasp-core-rules", "true"), verdict: NotSupported},
	{key: "modsecurity-transaction-id", in: kv("modsecurity-transaction-id", "$request_id"), verdict: NotSupported},
}

func (tc entryCase) name() string {
	var parts []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range tc.in {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, strings.TrimPrefix(k, Prefix)+"="+tc.in[k])
	}
	name := strings.Join(parts, ",")
	if tc.tls {
		name += ",tls"
	}
	return name
}

func TestEntries(t *testing.T) {
	for _, tc := range entryCases {
		t.Run(tc.name(), func(t *testing.T) {
			conv := Convert(Input{Annotations: tc.in, TLS: tc.tls, Globals: DefaultGlobals(), Namespace: "ns"})
			f, ok := finding(conv, tc.key)
			if !ok {
				t.Fatalf("no finding for %s in %+v", tc.key, conv.Findings)
			}
			if f.Verdict != tc.verdict {
				t.Errorf("%s: verdict %s, want %s (%s)", tc.key, f.Verdict, tc.verdict, f.Caveat)
			}
			if !strings.Contains(f.Caveat, tc.caveatHas) {
				t.Errorf("%s: caveat %q does not say %q", tc.key, f.Caveat, tc.caveatHas)
			}
			checkCaveat(t, tc.key, f.Caveat)
			for key, v := range tc.also {
				if g, _ := finding(conv, key); g.Verdict != v {
					t.Errorf("%s: verdict %s, want %s (%s)", key, g.Verdict, v, g.Caveat)
				}
			}
			checkFields(t, tc, conv)
			path := "/"
			if conv.Termination == routecore.TLSTerminationPassthrough {
				path = ""
			}
			checkValid(t, conv, tc.tls, path)
		})
	}
}

func checkFields(t *testing.T, tc entryCase, conv Conversion) {
	t.Helper()
	checkMap(t, "annotation", tc.ann, conv.Annotations)
	checkMap(t, "request header", tc.req, headers(conv.RequestHeaders))
	checkMap(t, "response header", tc.resp, headers(conv.ResponseHeaders))
	if conv.Termination != tc.term {
		t.Errorf("termination %q, want %q", conv.Termination, tc.term)
	}
	if tc.insecure != "" && conv.InsecureEdgeTerminationPolicy != tc.insecure {
		t.Errorf("insecureEdgeTerminationPolicy %q, want %q", conv.InsecureEdgeTerminationPolicy, tc.insecure)
	}
	if conv.DestinationCASecret != tc.destCA {
		t.Errorf("destination CA secret %q, want %q", conv.DestinationCASecret, tc.destCA)
	}
	if conv.AppProtocol != tc.appProtocol {
		t.Errorf("appProtocol %q, want %q", conv.AppProtocol, tc.appProtocol)
	}
	if tc.hosts != nil && !slices.Equal(conv.ExtraHosts, tc.hosts) {
		t.Errorf("extra hosts %q, want %q", conv.ExtraHosts, tc.hosts)
	}
	switch {
	case tc.canary != nil && (conv.Canary == nil || !reflect.DeepEqual(*conv.Canary, *tc.canary)):
		t.Errorf("canary %+v, want %+v", conv.Canary, tc.canary)
	case tc.noCanary && conv.Canary != nil:
		t.Errorf("canary %+v, want none", conv.Canary)
	}
	if conv.UseRegex != tc.regex || conv.RewriteTarget != tc.target {
		t.Errorf("use-regex %t, rewrite target %q; want %t, %q", conv.UseRegex, conv.RewriteTarget, tc.regex, tc.target)
	}
}

func checkMap(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for k, v := range want {
		g, ok := got[k]
		switch {
		case v == absent && ok:
			t.Errorf("%s %s = %q, want none", what, k, g)
		case v != absent && g != v:
			t.Errorf("%s %s = %q, want %q", what, k, g, v)
		}
	}
}

// checkCaveat fails unless a caveat is one non-empty sentence: it starts
// with a capital, a lower-case annotation value or key, and ends with a
// period or question mark.
func checkCaveat(t *testing.T, key, caveat string) {
	t.Helper()
	if caveat == "" || !(strings.HasSuffix(caveat, ".") || strings.HasSuffix(caveat, "?")) {
		t.Errorf("%s: caveat %q is not a sentence ending with a period", key, caveat)
	}
	if strings.Contains(strings.TrimSuffix(caveat, "."), ". ") {
		t.Errorf("%s: caveat %q has more than one sentence", key, caveat)
	}
}

// TestEveryEntryHasACase fails for the entries no case of entryCases
// exercises.
func TestEveryEntryHasACase(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range entryCases {
		covered[tc.key] = true
	}
	var missing []string
	for _, e := range Table() {
		if !covered[e.Annotation] {
			missing = append(missing, e.Annotation)
		}
	}
	if len(missing) > 0 {
		t.Errorf("entries without a case in entryCases: %s", strings.Join(missing, ", "))
	}
	for key := range covered {
		if _, ok := Lookup(key); !ok {
			t.Errorf("entryCases has a case for %s, which the table does not know", key)
		}
	}
}

func TestTable(t *testing.T) {
	table := Table()
	if len(table) < 120 {
		t.Errorf("the table has %d entries; ingress-nginx documents more", len(table))
	}
	counts := map[Verdict]int{}
	for i, e := range table {
		if i > 0 && table[i-1].Annotation >= e.Annotation {
			t.Errorf("entries %s and %s are not sorted or are duplicates", table[i-1].Annotation, e.Annotation)
		}
		if !slices.Contains(Verdicts(), e.Verdict) {
			t.Errorf("%s: verdict %q is not one of %v", e.Annotation, e.Verdict, Verdicts())
		}
		checkCaveat(t, e.Annotation, e.Caveat)
		if strings.HasPrefix(e.Annotation, Prefix) || strings.TrimSpace(e.Annotation) != e.Annotation {
			t.Errorf("%q: annotation must be the key without prefix", e.Annotation)
		}
		if strings.HasSuffix(e.Annotation, "-snippet") != (e.Verdict == Refused) {
			t.Errorf("%s: snippets, and only they, are refused (verdict %s)", e.Annotation, e.Verdict)
		}
		if e.Verdict == RouterWide && !strings.Contains(e.Caveat, "ROUTER_") {
			t.Errorf("%s: a router-wide caveat names the router setting: %q", e.Annotation, e.Caveat)
		}
		counts[e.Verdict]++
		if got, ok := Lookup(Prefix + e.Annotation); !ok || got.Annotation != e.Annotation {
			t.Errorf("Lookup(%s) = %v, %t", Prefix+e.Annotation, got.Annotation, ok)
		}
	}
	t.Logf("verdicts: %v", counts)
	if _, ok := Lookup("no-such-annotation"); ok {
		t.Error("Lookup found an unknown annotation")
	}
}

func TestUnknownAnnotations(t *testing.T) {
	for _, tc := range []struct{ key, near string }{
		{"rewrite-targte", Prefix + "rewrite-target"},
		{"whitelist-source-ranges", Prefix + "whitelist-source-range"},
		{"enable-cros", Prefix + "enable-cors"},
		{"something-else-entirely-xyz", ""},
	} {
		conv := Convert(Input{Annotations: kv(tc.key, "x"), Globals: DefaultGlobals()})
		f, ok := finding(conv, tc.key)
		if !ok || f.Verdict != NotSupported {
			t.Errorf("%s: finding %+v, want not supported", tc.key, f)
			continue
		}
		checkCaveat(t, tc.key, f.Caveat)
		if tc.near != "" && !strings.Contains(f.Caveat, fmt.Sprintf("did you mean %s?", tc.near)) {
			t.Errorf("%s: caveat %q does not suggest %s", tc.key, f.Caveat, tc.near)
		}
		if tc.near == "" && strings.Contains(f.Caveat, "did you mean") {
			t.Errorf("%s: caveat %q suggests a key", tc.key, f.Caveat)
		}
	}
	// Annotations of other prefixes are not ingress-nginx's.
	conv := Convert(Input{Annotations: map[string]string{"kubernetes.io/ingress.class": "nginx", routecore.AnnTimeout: "5s"}, Globals: DefaultGlobals()})
	for _, f := range conv.Findings {
		if !f.Default {
			t.Errorf("finding for a key without the prefix: %+v", f)
		}
	}
}

// TestOddValuesStayValid converts every annotation with values ingress-nginx
// users get wrong, alone and with the annotations that give it an effect,
// without TLS under ingress-nginx's defaults and with TLS under a ConfigMap
// that changes the statuses and denies a range, and wants Routes routecore accepts (every Route annotation
// the conversion emits passes routecore's validation) and one-sentence
// caveats.
func TestOddValuesStayValid(t *testing.T) {
	values := []string{"", " ", "x", "-1", "0", "1", "true", "false", "on", "cookie", "%", "100%", "$host", "a\nb", "2147483647",
		"99999999999999999999", "/", "/$2", "a,b", ",", "10.0.0.0/8", "*", "https://*.example.com", "HTTPS", "GRPCS", "Strict",
		"ns/name", "other/name", strings.Repeat("a", 300), "8m", "/app", "/app?x=\"y\"", "304", "429",
		"https://example.com/$request_uri", "https://example.com$request_uri", "https://$host$request_uri", "http://a b", "ftp://example.com",
		"https://example.com/" + strings.Repeat("a", 2100)}
	companions := [][]string{nil, {"enable-cors", "true"}, {"affinity", "cookie"}, {"canary", "true"},
		{"backend-protocol", "HTTPS", "proxy-ssl-verify", "on"}, {"limit-rps", "3"}, {"limit-connections", "2"},
		{"permanent-redirect", "https://example.com/new$request_uri"}}
	statuses := DefaultGlobals()
	statuses.LimitReqStatusCode, statuses.LimitConnStatusCode, statuses.HTTPRedirectCode = 429, 429, 301
	statuses.DenylistSourceRange = []string{"192.0.2.0/24"}
	for _, e := range Table() {
		for _, comp := range companions {
			for _, v := range values {
				in := kv(comp...)
				in[Prefix+e.Annotation] = v
				for _, tls := range []bool{false, true} {
					g := DefaultGlobals()
					if tls {
						g = statuses
					}
					conv := Convert(Input{Annotations: in, TLS: tls, Globals: g, Namespace: "ns"})
					f, ok := finding(conv, e.Annotation)
					if !ok || !slices.Contains(Verdicts(), f.Verdict) {
						t.Errorf("%s=%q with %v: finding %+v", e.Annotation, v, comp, f)
					}
					checkCaveat(t, e.Annotation+"="+v, f.Caveat)
					path := "/"
					if conv.Termination == routecore.TLSTerminationPassthrough {
						path = ""
					}
					checkValid(t, conv, tls, path)
				}
			}
		}
	}
}
