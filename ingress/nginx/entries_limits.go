package nginx

import (
	"fmt"
	"math"
	"net/netip"
	"strconv"
	"strings"

	"github.com/routeshift/routeshift/routecore"
)

// denyEveryone is an allowlist no client matches (the unspecified
// addresses are never a source): what an allowlist ingress-nginx cannot
// read becomes, as ingress-nginx then denies every request.
const denyEveryone = "0.0.0.0/32 ::/128"

// denyAll is a denylist every client matches: what a denylist the router
// cannot take becomes, so that no source it meant to keep out gets in.
const denyAll = "0.0.0.0/0 ::/0"

// chunkedBodies says, as the end of a sentence, how far the router checks
// bodies without Content-Length against routeshift.io/max-body-size.
const chunkedBodies = "a chunked body (without Content-Length) is checked only as far as the router buffers it (ROUTER_BUF_SIZE less ROUTER_MAX_REWRITE_SIZE, 24k by default), so one over a larger limit reaches the endpoints"

// limitEntries are the annotations about who may send what: source
// ranges, rate limits, timeouts, request bodies and buffering.
var limitEntries = []Entry{
	{Annotation: "whitelist-source-range", Verdict: Approximate,
		Caveat:  allowlistCaveat + " (older name of allowlist-source-range, which wins).",
		convert: convertAllowlist},
	{Annotation: "allowlist-source-range", Verdict: Approximate,
		Caveat:  allowlistCaveat + ".",
		convert: convertAllowlist},
	{Annotation: "denylist-source-range", Verdict: Exact,
		Caveat:  "Its ranges become the Routes' " + routecore.AnnIPDenylist + ", separated by spaces, and the router answers their clients 403 as ingress-nginx does (a list it cannot read refuses every client).",
		convert: convertDenylist},
	{Annotation: "limit-connections", Verdict: Approximate,
		Caveat:  "The Routes allow that many concurrent connections per client address (" + routecore.AnnRateLimitConcurrentTCP + ") and " + limitAnswer,
		convert: convertRateLimit},
	{Annotation: "limit-rps", Verdict: Approximate,
		Caveat:  "The Routes allow ten times that many requests per client address per 10 seconds (" + routecore.AnnRateLimitRateHTTP + "), without ingress-nginx's bursts of limit-burst-multiplier times the rate, and " + limitAnswer,
		convert: convertRateLimit},
	{Annotation: "limit-rpm", Verdict: Approximate,
		Caveat:  "The Routes allow a sixth of that many requests (rounded up) per client address per 10 seconds (" + routecore.AnnRateLimitRateHTTP + "), without ingress-nginx's bursts, and " + limitAnswer,
		convert: convertRateLimit},
	{Annotation: "limit-burst-multiplier", Verdict: NotSupported,
		Caveat:  "The router counts a client's requests over 10 seconds and has no separate burst allowance.",
		convert: needsRequestLimit},
	{Annotation: "limit-rate", Verdict: NotSupported,
		Caveat: "The router does not limit the bandwidth of responses."},
	{Annotation: "limit-rate-after", Verdict: NotSupported,
		Caveat: "The router does not limit the bandwidth of responses."},
	{Annotation: "limit-whitelist", Verdict: Exact,
		Caveat:  limitAllowlistCaveat + " (older name of limit-allowlist, which wins).",
		convert: convertLimitAllowlist},
	{Annotation: "limit-allowlist", Verdict: Exact,
		Caveat:  limitAllowlistCaveat + ".",
		convert: convertLimitAllowlist},
	{Annotation: "proxy-read-timeout", Verdict: Approximate,
		Caveat:  "The Routes' timeout (" + routecore.AnnTimeout + ") is the longer of proxy-read-timeout and proxy-send-timeout, in seconds, as the router has one server timeout for both directions.",
		convert: convertTimeout},
	{Annotation: "proxy-send-timeout", Verdict: Approximate,
		Caveat:  "The Routes' timeout (" + routecore.AnnTimeout + ") is the longer of proxy-read-timeout and proxy-send-timeout, in seconds, as the router has one server timeout for both directions.",
		convert: convertTimeout},
	{Annotation: "proxy-connect-timeout", Verdict: RouterWide,
		Caveat: "The connect timeout is the router's, for every Route: ROUTER_DEFAULT_CONNECT_TIMEOUT."},
	{Annotation: "proxy-next-upstream", Verdict: Approximate,
		Caveat: "The router retries another endpoint when a connection to one fails (option redispatch), whatever the conditions listed, and never retries a request an endpoint has received."},
	{Annotation: "proxy-next-upstream-tries", Verdict: NotSupported,
		Caveat: "The router's retry count is fixed (3 connection attempts); it cannot be set per Route."},
	{Annotation: "proxy-next-upstream-timeout", Verdict: NotSupported,
		Caveat: "The router bounds retries by their count, not by time."},
	{Annotation: "proxy-request-buffering", Verdict: Approximate,
		Caveat:  "The router streams request bodies to the endpoints as off does; it does not read them whole first.",
		convert: convertOnOff("off")},
	{Annotation: "proxy-buffering", Verdict: Approximate,
		Caveat:  "The router streams responses to clients as off (the default) does; it never buffers them whole.",
		convert: convertOnOff("off")},
	{Annotation: "proxy-body-size", Verdict: Approximate,
		Caveat:  "It becomes the Routes' " + routecore.AnnMaxBodySize + ", and a request whose Content-Length is over it is answered 413 as in ingress-nginx, but " + chunkedBodies + ".",
		convert: convertBodySize},
	{Annotation: "client-body-buffer-size", Verdict: RouterWide,
		Caveat: "The router streams request bodies through buffers of ROUTER_BUF_SIZE, for every Route; it never spools them to disk."},
	{Annotation: "proxy-buffer-size", Verdict: RouterWide,
		Caveat: "The router's buffer size is ROUTER_BUF_SIZE, for every Route; response headers must fit in it."},
	{Annotation: "proxy-buffers-number", Verdict: NotSupported,
		Caveat: "The router streams responses through one buffer of ROUTER_BUF_SIZE per direction; there is no number of buffers to set."},
	{Annotation: "proxy-busy-buffers-size", Verdict: NotSupported,
		Caveat: "The router streams responses through one buffer of ROUTER_BUF_SIZE per direction; there are no busy buffers to size."},
	{Annotation: "proxy-max-temp-file-size", Verdict: NotSupported,
		Caveat: "The router never spools responses to temporary files."},
}

const allowlistCaveat = "Its ranges become the Routes' " + routecore.AnnIPAllowlist + ", separated by spaces, and the router closes the connections of other clients where ingress-nginx answers 403"

const limitAllowlistCaveat = "Its ranges become the Routes' " + routecore.AnnRateLimitExempt + ", separated by spaces: the rate limits neither count nor refuse their clients, as in ingress-nginx"

// limitAnswer ends the caveats of the rate limits: what a client past the
// limit gets.
const limitAnswer = "close the connection past it where ingress-nginx answers 503, or answer 429 with Retry-After (" + routecore.AnnRateLimitStatus + ") when ingress-nginx's ConfigMap sets the limit's status code to 429."

// isIPOrCIDR accepts an IPv4 or IPv6 address or prefix, without zone, as
// the router's allowlist does.
func isIPOrCIDR(s string) bool {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return err == nil && p.Addr().Zone() == ""
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Zone() == ""
}

// convertAllowlist converts allowlist-source-range, or its older name when
// it is empty or absent (ingress-nginx reads the older name only then).
// A list ingress-nginx cannot read denies every request there, so it
// becomes an allowlist no client matches.
func convertAllowlist(c *converter, f *Finding) {
	allowlist, _ := c.value("allowlist-source-range")
	whitelist, _ := c.value("whitelist-source-range")
	switch {
	case f.Key == "whitelist-source-range" && allowlist != "":
		f.Verdict, f.Caveat = Exact, "allowlist-source-range wins over it, in ingress-nginx as in the conversion."
		return
	case f.Key == "allowlist-source-range" && allowlist == "" && whitelist != "":
		f.Verdict, f.Caveat = Exact, "It is empty, so whitelist-source-range applies, in ingress-nginx as in the conversion."
		return
	}
	entries, bad := sourceRanges(f.Value)
	if len(entries) == 0 || len(bad) > 0 {
		c.set(routecore.AnnIPAllowlist, denyEveryone)
		what := fmt.Sprintf("%q is not an address or CIDR", strings.Join(bad, ","))
		if len(entries) == 0 {
			what = "the value lists no address"
		}
		f.Verdict = Approximate
		f.Caveat = what + ", so ingress-nginx denies every request (503), and the Routes' allowlist (" + denyEveryone + ") lets no client in either."
		return
	}
	if len(entries) > routecore.MaxAllowlistEntries {
		f.Verdict = NotSupported
		f.Caveat = fmt.Sprintf("The router takes at most %d ranges per Route, and this lists %d: merge them into wider CIDRs.", routecore.MaxAllowlistEntries, len(entries))
		c.set(routecore.AnnIPAllowlist, denyEveryone)
		return
	}
	c.set(routecore.AnnIPAllowlist, strings.Join(entries, " "))
}

// requestLimit is the Routes' rate-http, requests per client address per
// 10 seconds, from limit-rps and limit-rpm (the stricter when both are
// set, as ingress-nginx applies both); 0 for none.
func (c *converter) requestLimit() int64 {
	limit := int64(0)
	if rps, ok := c.intValue("limit-rps", 1); ok {
		limit = min(rps*10, math.MaxInt32)
	}
	if rpm, ok := c.intValue("limit-rpm", 1); ok {
		if per10 := (rpm + 5) / 6; limit == 0 || per10 < limit {
			limit = per10
		}
	}
	return limit
}

// rateLimited reports whether the Routes get rate limits: limit-connections,
// limit-rps or limit-rpm above 0.
func (c *converter) rateLimited() bool {
	_, conn := c.intValue("limit-connections", 1)
	return conn || c.requestLimit() > 0
}

// limitStatus is the status ingress-nginx answers past the limit of key
// (its ConfigMap's limit-conn-status-code or limit-req-status-code).
func (c *converter) limitStatus(key string) int {
	if key == "limit-connections" {
		return c.in.Globals.LimitConnStatusCode
	}
	return c.in.Globals.LimitReqStatusCode
}

// limitsAnswer429 reports whether the Routes' rate limits answer 429: a
// Route has one status for all its limits, so they do when ingress-nginx
// answers 429 past any of the Ingress's limits (the router answers only
// 429; without it, it closes the connection).
func (c *converter) limitsAnswer429() bool {
	_, conn := c.intValue("limit-connections", 1)
	return conn && c.in.Globals.LimitConnStatusCode == 429 || c.requestLimit() > 0 && c.in.Globals.LimitReqStatusCode == 429
}

// pastLimit says, as the end of a caveat, what a client past the limit of
// key gets from the Routes and from ingress-nginx.
func (c *converter) pastLimit(key string) string {
	status := c.limitStatus(key)
	switch {
	case !c.limitsAnswer429():
		return fmt.Sprintf("close the connection past it, where ingress-nginx answers %d", status)
	case status == 429:
		return "answer 429 with Retry-After past it (" + routecore.AnnRateLimitStatus + "), as ingress-nginx does"
	}
	return fmt.Sprintf("answer 429 with Retry-After past it (%s, which the Ingress's other limit needs), where ingress-nginx answers %d", routecore.AnnRateLimitStatus, status)
}

func convertRateLimit(c *converter, f *Finding) {
	n, ok := c.intValue(f.Key, 0)
	switch {
	case !ok:
		invalid(f, "a whole number", "does not limit, nor do the Routes")
		return
	case n == 0:
		f.Verdict, f.Caveat = Exact, "0 means no limit, in ingress-nginx as on the Routes."
		return
	}
	c.set(routecore.AnnRateLimit, "true")
	if c.limitsAnswer429() {
		c.set(routecore.AnnRateLimitStatus, "429")
	}
	if f.Key == "limit-connections" {
		c.set(routecore.AnnRateLimitConcurrentTCP, strconv.FormatInt(n, 10))
		f.Caveat = fmt.Sprintf("The Routes allow %d concurrent connections per client address (%s) and %s.", n, routecore.AnnRateLimitConcurrentTCP, c.pastLimit(f.Key))
		return
	}
	limit := c.requestLimit()
	c.set(routecore.AnnRateLimitRateHTTP, strconv.FormatInt(limit, 10))
	f.Caveat = fmt.Sprintf("The Routes allow %d requests per client address per 10 seconds (%s), without ingress-nginx's bursts of limit-burst-multiplier times the rate, and %s.",
		limit, routecore.AnnRateLimitRateHTTP, c.pastLimit(f.Key))
}

// convertLimitAllowlist converts limit-allowlist, or its older name when it
// is empty or absent (ingress-nginx reads the older name only then). A
// list the router cannot take exempts no client: the limits stay.
func convertLimitAllowlist(c *converter, f *Finding) {
	allowlist, _ := c.value("limit-allowlist")
	whitelist, _ := c.value("limit-whitelist")
	switch {
	case f.Key == "limit-whitelist" && allowlist != "":
		f.Verdict, f.Caveat = Exact, "limit-allowlist wins over it, in ingress-nginx as in the conversion."
		return
	case f.Key == "limit-allowlist" && allowlist == "" && whitelist != "":
		f.Verdict, f.Caveat = Exact, "It is empty, so limit-whitelist applies, in ingress-nginx as in the conversion."
		return
	case !c.rateLimited():
		noEffect(f, "limit-connections, limit-rps or limit-rpm")
		return
	}
	entries, bad := sourceRanges(f.Value)
	switch {
	case len(entries) == 0:
		f.Verdict, f.Caveat = Exact, "It lists no address, so every client is counted, in ingress-nginx as on the Routes."
	case len(bad) > 0:
		f.Verdict = NotSupported
		f.Caveat = fmt.Sprintf("%q is not an address or CIDR, so ingress-nginx refuses the list (and with it the Ingress's rate limits), while the Routes keep the limits and exempt no client: fix the list.", strings.Join(bad, ","))
	case !c.setChecked(routecore.AnnRateLimitExempt, strings.Join(entries, " ")):
		f.Verdict = NotSupported
		f.Caveat = fmt.Sprintf("The router takes at most %d ranges per Route, and this lists %d, so the Routes exempt no client: merge them into wider CIDRs.", routecore.MaxAllowlistEntries, len(entries))
	}
}

// convertDenylist converts denylist-source-range. A list ingress-nginx
// cannot read denies every request there; one the router cannot take
// would let in the sources it keeps out: both become a denylist every
// client matches.
func convertDenylist(c *converter, f *Finding) {
	entries, bad := sourceRanges(f.Value)
	switch {
	case len(entries) == 0 || len(bad) > 0:
		c.set(routecore.AnnIPDenylist, denyAll)
		what := fmt.Sprintf("%q is not an address or CIDR", strings.Join(bad, ","))
		if len(entries) == 0 {
			what = "the value lists no address"
		}
		f.Verdict = Approximate
		f.Caveat = what + ", so ingress-nginx denies every request (503), and the Routes' denylist (" + denyAll + ") refuses every client (403)."
	case !c.setChecked(routecore.AnnIPDenylist, strings.Join(entries, " ")):
		c.set(routecore.AnnIPDenylist, denyAll)
		f.Verdict = NotSupported
		f.Caveat = fmt.Sprintf("The router takes at most %d ranges per Route, and this lists %d, so the Routes refuse every client (%s): merge them into wider CIDRs.", routecore.MaxAllowlistEntries, len(entries), denyAll)
	}
}

func needsRequestLimit(c *converter, f *Finding) {
	if c.requestLimit() == 0 {
		noEffect(f, "limit-rps or limit-rpm")
	}
}

// timeouts are ingress-nginx's read and send timeouts for the Ingress, in
// seconds: the annotations' when valid, else its ConfigMap's.
func (c *converter) timeouts() (read, send int64) {
	read, send = int64(c.in.Globals.ProxyReadTimeout), int64(c.in.Globals.ProxySendTimeout)
	if n, ok := c.intValue("proxy-read-timeout", 1); ok {
		read = n
	}
	if n, ok := c.intValue("proxy-send-timeout", 1); ok {
		send = n
	}
	return read, send
}

func convertTimeout(c *converter, f *Finding) {
	read, send := c.timeouts()
	timeout, capped := seconds(max(read, send))
	c.set(routecore.AnnTimeout, timeout)
	switch _, ok := c.intValue(f.Key, 1); {
	case !ok:
		global := c.in.Globals.ProxyReadTimeout
		if f.Key == "proxy-send-timeout" {
			global = c.in.Globals.ProxySendTimeout
		}
		invalid(f, "a whole number of seconds from 1 up", fmt.Sprintf("keeps its ConfigMap's %d, as the Routes' timeout (%s) does", global, timeout))
	case capped:
		f.Verdict = Approximate
		f.Caveat = fmt.Sprintf("The Routes' timeout is %s, the longest the router takes (about 24.8 days).", timeout)
	default:
		f.Caveat = fmt.Sprintf("The Routes' timeout is %s, the longer of proxy-read-timeout (%d) and proxy-send-timeout (%d), as the router has one server timeout for both directions.",
			timeout, read, send)
		if read == send {
			f.Verdict = Exact
		}
	}
}

// convertOnOff judges an on/off annotation whose value same is what the
// router does.
func convertOnOff(same string) func(c *converter, f *Finding) {
	return func(c *converter, f *Finding) {
		v, _ := c.value(f.Key)
		switch {
		case v != "on" && v != "off":
			invalid(f, "on or off", "keeps its ConfigMap's setting")
		case v == same:
			f.Verdict, f.Caveat = Exact, "The router streams bodies as "+same+" does."
		}
	}
}

// nginxSize reports whether ingress-nginx takes v as a size: digits,
// optionally followed by k, m or g (either case).
func nginxSize(v string) bool {
	digits := strings.TrimRight(v, "kKmMgG")
	return digits != "" && len(v)-len(digits) <= 1 && strings.Trim(digits, "0123456789") == ""
}

// isZeroSize reports whether a size routecore accepts is 0 (no limit).
func isZeroSize(v string) bool {
	n, err := routecore.ParseBodySize(v)
	return err == nil && n == 0
}

func convertBodySize(c *converter, f *Finding) {
	v, _ := c.value(f.Key)
	switch {
	case !nginxSize(v):
		// ingress-nginx keeps its ConfigMap's limit, as defaults does for
		// an Ingress without the annotation.
		global := c.in.Globals.ProxyBodySize
		if !isZeroSize(global) {
			c.setChecked(routecore.AnnMaxBodySize, global)
		}
		invalid(f, "a size such as 8m, 512k or 0", "applies its ConfigMap's "+global+", as the Routes do")
	case !c.setChecked(routecore.AnnMaxBodySize, v):
		c.set(routecore.AnnMaxBodySize, "0")
		f.Verdict, f.Caveat = Approximate, "The router's largest limit is 1024g, so the Routes do not limit request bodies ("+routecore.AnnMaxBodySize+" 0)."
	case isZeroSize(v):
		f.Verdict, f.Caveat = Exact, "0 means no limit, in ingress-nginx as on the Routes ("+routecore.AnnMaxBodySize+" 0, whatever the router's ROUTER_MAX_BODY_SIZE)."
	}
}
