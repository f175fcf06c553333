package nginx

import (
	"fmt"
	"strings"

	"github.com/routeshift/routeshift/routecore"
)

// balanceEntries are the annotations about how requests are spread over
// the endpoints: algorithms, hashing and session affinity.
var balanceEntries = []Entry{
	{Annotation: "affinity", Verdict: Approximate,
		Caveat:  "cookie keeps the Routes' sticky-session cookie (named after the Route unless session-cookie-name is set), which pins a client to its endpoint as affinity-mode persistent does; without it the cookies are turned off.",
		convert: convertAffinity},
	{Annotation: "affinity-mode", Verdict: Approximate,
		Caveat:  "The router's cookie pins a client to its endpoint until that endpoint goes away, as persistent does; balanced's rebalancing when endpoints are added has no counterpart.",
		convert: convertAffinityMode},
	{Annotation: "affinity-canary-behavior", Verdict: Approximate,
		Caveat:  "The router's cookie names the endpoint, canary or not, so a client sent to the canary stays there as sticky does; legacy has no counterpart.",
		convert: convertAffinityCanary},
	{Annotation: "session-cookie-name", Verdict: Exact,
		Caveat:  "The Routes' sticky-session cookie gets this name (" + routecore.AnnCookieName + ").",
		convert: convertCookieName},
	{Annotation: "session-cookie-samesite", Verdict: Exact,
		Caveat:  "The cookie's SameSite attribute (" + routecore.AnnCookieSameSite + "), which the router sets only on Routes that terminate TLS.",
		convert: convertCookieSameSite},
	{Annotation: "session-cookie-conditional-samesite-none", Verdict: NotSupported,
		Caveat:  "The router sends SameSite=None to every browser, including those that mishandle it.",
		convert: needsAffinity},
	{Annotation: "session-cookie-secure", Verdict: Approximate,
		Caveat:  "The router marks its cookie Secure on Routes that terminate TLS when SameSite is None (its default there), whatever the value.",
		convert: convertCookieSecure},
	{Annotation: "session-cookie-path", Verdict: Approximate,
		Caveat:  "The router's cookie has no Path attribute, so browsers send it back under the path of the request that got it, not under the annotation's path.",
		convert: needsAffinity},
	{Annotation: "session-cookie-domain", Verdict: NotSupported,
		Caveat:  "The router's cookie has no Domain attribute: browsers send it back to the host that set it only.",
		convert: needsAffinity},
	{Annotation: "session-cookie-expires", Verdict: NotSupported,
		Caveat:  "The router's cookie is a session cookie: it lasts until the browser closes.",
		convert: needsAffinity},
	{Annotation: "session-cookie-max-age", Verdict: NotSupported,
		Caveat:  "The router's cookie is a session cookie: it lasts until the browser closes.",
		convert: needsAffinity},
	{Annotation: "session-cookie-change-on-failure", Verdict: Approximate,
		Caveat:  "The router sends a client whose endpoint is down to another endpoint and gives it a new cookie, whatever the value; a failed request alone does not move it.",
		convert: needsAffinity},
	{Annotation: "load-balance", Verdict: Approximate,
		Caveat:  "round_robin becomes " + routecore.AnnBalance + " roundrobin; ewma becomes leastconn, which weighs endpoints by open connections rather than by response time.",
		convert: convertLoadBalance},
	{Annotation: "upstream-hash-by", Verdict: Approximate,
		Caveat:  "$remote_addr and $binary_remote_addr become " + routecore.AnnBalance + " source (a consistent hash of the client's address); the router cannot hash other keys.",
		convert: convertHashBy},
	{Annotation: "upstream-hash-by-subset", Verdict: NotSupported,
		Caveat: "The router hashes a client to one endpoint, not to a subset of them."},
	{Annotation: "upstream-hash-by-subset-size", Verdict: NotSupported,
		Caveat: "The router hashes a client to one endpoint, not to a subset of them."},
	{Annotation: "service-upstream", Verdict: Approximate,
		Caveat:  "The router always balances over the Service's endpoints itself, never through the Service's cluster IP.",
		convert: convertServiceUpstream},
}

// sticky reports whether the Ingress asks for cookie affinity.
func (c *converter) sticky() bool {
	v, _ := c.value("affinity")
	return v == "cookie"
}

func convertAffinity(c *converter, f *Finding) {
	if !c.sticky() {
		c.set(routecore.AnnDisableCookies, "true")
		invalid(f, `"cookie"`, "is not sticky, so the Routes' cookies are turned off")
	}
}

// needsAffinity leaves the entry's verdict, unless cookie affinity is off:
// then the annotation has no effect.
func needsAffinity(c *converter, f *Finding) {
	if !c.sticky() {
		noEffect(f, "affinity: cookie")
	}
}

func convertAffinityMode(c *converter, f *Finding) {
	convertStickyChoice(c, f, "persistent", "The router's cookie pins a client to its endpoint until that endpoint goes away.",
		"balanced", "balanced or persistent", "rebalances as balanced does; the router's cookie pins a client to its endpoint as persistent does")
}

func convertAffinityCanary(c *converter, f *Finding) {
	convertStickyChoice(c, f, "sticky", "The router's cookie names the endpoint, canary or not, so a client sent to the canary stays there.",
		"legacy", "sticky or legacy", "keeps canary clients on the canary (sticky), as the router's cookie does")
}

// convertStickyChoice judges an annotation that picks one of two
// behaviours of cookie affinity: exact is the value the router's cookie
// behaves as (then the verdict is exact), other the value it keeps the
// entry's verdict for; anything else is invalid.
func convertStickyChoice(c *converter, f *Finding, exact, exactCaveat, other, want, fallback string) {
	v, _ := c.value(f.Key)
	switch {
	case !c.sticky():
		noEffect(f, "affinity: cookie")
	case v == exact:
		f.Verdict, f.Caveat = Exact, exactCaveat
	case v != other:
		invalid(f, want, fallback)
	}
}

func convertCookieName(c *converter, f *Finding) {
	v, _ := c.value(f.Key)
	switch {
	case !c.sticky():
		noEffect(f, "affinity: cookie")
	case routecore.ValidateCookieName(v) != nil:
		f.Verdict = NotSupported
		f.Caveat = fmt.Sprintf("%q is not a cookie name the router takes (letters, digits, '_' and '-'), so the cookie is named after the Route.", v)
	default:
		c.set(routecore.AnnCookieName, v)
	}
}

func convertCookieSameSite(c *converter, f *Finding) {
	v, _ := c.value(f.Key)
	var value string
	for _, s := range []string{"Strict", "Lax", "None"} {
		if strings.EqualFold(v, s) {
			value = s
		}
	}
	switch {
	case !c.sticky():
		noEffect(f, "affinity: cookie")
	case value == "":
		invalid(f, "Strict, Lax or None", "sends no SameSite attribute; the router sends None on Routes that terminate TLS")
	case !c.terminatesTLS():
		f.Verdict = Approximate
		f.Caveat = "The router sets SameSite only on Routes that terminate TLS; this Ingress's Routes have no TLS, so their cookie has none."
	default:
		c.set(routecore.AnnCookieSameSite, value)
		f.Caveat = "The cookie's SameSite attribute is " + value + " (" + routecore.AnnCookieSameSite + ")."
	}
}

func convertCookieSecure(c *converter, f *Finding) {
	if !c.sticky() {
		noEffect(f, "affinity: cookie")
		return
	}
	if _, ok := c.boolValue(f.Key); !ok {
		invalid(f, "true or false", "does not mark the cookie Secure; the router marks it Secure on Routes that terminate TLS when SameSite is None")
	}
}

func convertLoadBalance(c *converter, f *Finding) {
	v, _ := c.value(f.Key)
	switch {
	case c.hashBySource():
		f.Verdict, f.Caveat = Exact, "upstream-hash-by wins over it, in ingress-nginx as on the Route."
	case v == "round_robin":
		c.set(routecore.AnnBalance, string(routecore.BalanceRoundRobin))
		f.Verdict, f.Caveat = Exact, "The Routes balance round-robin ("+routecore.AnnBalance+" roundrobin)."
	case v == "ewma":
		c.set(routecore.AnnBalance, string(routecore.BalanceLeastConn))
		f.Verdict, f.Caveat = Approximate, "The Routes balance with leastconn, which weighs endpoints by open connections rather than by response time."
	case v == "chash" || v == "chashsubset" || v == "sticky_balanced" || v == "sticky_persistent":
		f.Verdict = NotSupported
		f.Caveat = fmt.Sprintf("%s is one of ingress-nginx's internal balancers, which upstream-hash-by and affinity choose, so the Routes keep the router's ROUTER_LOAD_BALANCE_ALGORITHM.", v)
	default:
		invalid(f, "round_robin or ewma", fmt.Sprintf("balances with its ConfigMap's load-balance (%s); the Routes keep the router's ROUTER_LOAD_BALANCE_ALGORITHM", c.in.Globals.LoadBalance))
	}
}

// hashBySource reports whether upstream-hash-by hashes the client's
// address, which balance source does.
func (c *converter) hashBySource() bool {
	v, _ := c.value("upstream-hash-by")
	return v == "$remote_addr" || v == "$binary_remote_addr" || v == "${remote_addr}" || v == "${binary_remote_addr}"
}

func convertHashBy(c *converter, f *Finding) {
	if !c.hashBySource() {
		f.Verdict = NotSupported
		f.Caveat = fmt.Sprintf("The router hashes only the client's address (balance source), not %q: use $remote_addr, or affinity cookie to keep a client on one endpoint.", f.Value)
		return
	}
	c.set(routecore.AnnBalance, string(routecore.BalanceSource))
	f.Verdict, f.Caveat = Exact, "The Routes hash the client's address to an endpoint ("+routecore.AnnBalance+" source, consistent hashing)."
}

func convertServiceUpstream(c *converter, f *Finding) {
	b, ok := c.boolValue(f.Key)
	switch {
	case !ok:
		invalid(f, "true or false", "balances over the endpoints, as the router does")
	case !b:
		f.Verdict, f.Caveat = Exact, "false is the default: requests are balanced over the Service's endpoints."
	}
}
