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

// limitEntries are the annotations about who may send what: source
// ranges, rate limits, timeouts, request bodies and buffering.
var limitEntries = []Entry{
	{Annotation: "whitelist-source-range", Verdict: Approximate,
		Caveat:  allowlistCaveat + " (older name of allowlist-source-range, which wins).",
		convert: convertAllowlist},
	{Annotation: "allowlist-source-range", Verdict: Approximate,
		Caveat:  allowlistCaveat + ".",
		convert: convertAllowlist},
	{Annotation: "denylist-source-range", Verdict: NotSupported,
		Caveat: "The router has allowlists only: list the allowed ranges in allowlist-source-range, or block the ranges in front of the router."},
	{Annotation: "limit-connections", Verdict: Approximate,
		Caveat:  "The Routes allow that many concurrent connections per client address (" + routecore.AnnRateLimitConcurrentTCP + ") and close the others, where ingress-nginx answers 503.",
		convert: convertRateLimit},
	{Annotation: "limit-rps", Verdict: Approximate,
		Caveat:  "The Routes allow ten times that many requests per client address per 10 seconds (" + routecore.AnnRateLimitRateHTTP + ") and close the connection past it, where ingress-nginx answers 503 and allows bursts of limit-burst-multiplier times the rate.",
		convert: convertRateLimit},
	{Annotation: "limit-rpm", Verdict: Approximate,
		Caveat:  "The Routes allow a sixth of that many requests (rounded up) per client address per 10 seconds (" + routecore.AnnRateLimitRateHTTP + ") and close the connection past it, where ingress-nginx answers 503 and allows bursts.",
		convert: convertRateLimit},
	{Annotation: "limit-burst-multiplier", Verdict: NotSupported,
		Caveat:  "The router counts a client's requests over 10 seconds and has no separate burst allowance.",
		convert: needsRequestLimit},
	{Annotation: "limit-rate", Verdict: NotSupported,
		Caveat: "The router does not limit the bandwidth of responses."},
	{Annotation: "limit-rate-after", Verdict: NotSupported,
		Caveat: "The router does not limit the bandwidth of responses."},
	{Annotation: "limit-whitelist", Verdict: NotSupported,
		Caveat: "The router's rate limits apply to every client address; no range can be exempted."},
	{Annotation: "limit-allowlist", Verdict: NotSupported,
		Caveat: "The router's rate limits apply to every client address; no range can be exempted."},
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
	{Annotation: "proxy-body-size", Verdict: NotSupported,
		Caveat:  "The router does not limit request bodies yet, so bodies over the limit reach the endpoints, which must refuse them themselves.",
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
	entries := splitList(f.Value)
	var bad []string
	for _, e := range entries {
		if !isIPOrCIDR(e) {
			bad = append(bad, e)
		}
	}
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
	if f.Key == "limit-connections" {
		c.set(routecore.AnnRateLimitConcurrentTCP, strconv.FormatInt(n, 10))
		f.Caveat = fmt.Sprintf("The Routes allow %d concurrent connections per client address (%s) and close the others, where ingress-nginx answers 503.", n, routecore.AnnRateLimitConcurrentTCP)
		return
	}
	limit := c.requestLimit()
	c.set(routecore.AnnRateLimitRateHTTP, strconv.FormatInt(limit, 10))
	f.Caveat = fmt.Sprintf("The Routes allow %d requests per client address per 10 seconds (%s) and close the connection past it, where ingress-nginx answers 503 and allows bursts of limit-burst-multiplier times the rate.",
		limit, routecore.AnnRateLimitRateHTTP)
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

func convertBodySize(c *converter, f *Finding) {
	v, _ := c.value(f.Key)
	if v == "0" {
		f.Verdict, f.Caveat = Exact, "0 means no limit, and the router does not limit request bodies either."
	}
}
