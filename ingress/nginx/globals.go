package nginx

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/routeshift/routeshift/routecore"
)

// Globals are the settings of ingress-nginx's ConfigMap that change how
// the annotations of every Ingress (or their absence) convert.
type Globals struct {
	// FromConfigMap is true when the values come from a ConfigMap, false
	// when they are ingress-nginx's documented defaults (Assumed lists
	// them).
	FromConfigMap bool
	// ProxyReadTimeout and ProxySendTimeout are in seconds (60 by default).
	ProxyReadTimeout, ProxySendTimeout int
	// ProxyConnectTimeout is in seconds (5 by default).
	ProxyConnectTimeout int
	// ProxyBodySize is the request body limit in nginx's size syntax ("1m"
	// by default; "0" for none).
	ProxyBodySize string
	// SSLRedirect redirects plain HTTP to HTTPS on hosts with TLS (true by
	// default); ForceSSLRedirect on every host (false by default).
	SSLRedirect, ForceSSLRedirect bool
	// HTTPRedirectCode is the status of those redirects (308 by default).
	HTTPRedirectCode int
	// HSTS sends Strict-Transport-Security on TLS hosts (true by default)
	// with max-age HSTSMaxAge seconds (31536000), includeSubDomains
	// (true) and preload (false).
	HSTS                               bool
	HSTSMaxAge                         int64
	HSTSIncludeSubdomains, HSTSPreload bool
	// UseForwardedHeaders trusts the X-Forwarded-* headers clients send
	// (false by default).
	UseForwardedHeaders bool
	// LoadBalance is the balancing algorithm, round_robin or ewma
	// (round_robin by default).
	LoadBalance string
	// WhitelistSourceRange, when not empty, is the allowlist of every
	// Ingress without an allowlist annotation.
	WhitelistSourceRange []string
	// DenylistSourceRange, when not empty, is the denylist of every
	// Ingress without a denylist annotation.
	DenylistSourceRange []string
	// LimitReqStatusCode and LimitConnStatusCode are the statuses past the
	// request-rate limits (limit-rps, limit-rpm) and the connection limit
	// (limit-connections): 503 by default.
	LimitReqStatusCode, LimitConnStatusCode int
}

// DefaultGlobals returns ingress-nginx's documented defaults.
func DefaultGlobals() Globals {
	return Globals{
		ProxyReadTimeout: 60, ProxySendTimeout: 60, ProxyConnectTimeout: 5,
		ProxyBodySize: "1m",
		SSLRedirect:   true, HTTPRedirectCode: 308,
		HSTS: true, HSTSMaxAge: 31536000, HSTSIncludeSubdomains: true,
		LoadBalance:        "round_robin",
		LimitReqStatusCode: 503, LimitConnStatusCode: 503,
	}
}

// GlobalsFromConfigMap reads the data of ingress-nginx's ConfigMap: the
// Globals (defaults for the keys not set) and one finding per key, sorted:
// exact for the keys converted on each Route, router-wide naming the
// router setting, not supported otherwise; unknown keys are noted, and a
// value ingress-nginx would not read keeps the default.
func GlobalsFromConfigMap(data map[string]string) (Globals, []Finding) {
	g := DefaultGlobals()
	g.FromConfigMap = true
	var findings []Finding
	for _, key := range slices.Sorted(maps.Keys(data)) {
		v := strings.TrimSpace(data[key])
		f := Finding{Key: key, Value: data[key]}
		s, ok := LookupSetting(key)
		switch {
		case !ok:
			f.Verdict = NotSupported
			f.Caveat = "ingress-nginx documents no such ConfigMap key, so it had no effect there either"
			if near := closestSetting(key); near != "" {
				f.Caveat += "; did you mean " + near + "?"
			} else {
				f.Caveat += "."
			}
		default:
			f.Verdict, f.Caveat = s.Verdict, s.Caveat
			if s.parse != nil {
				switch want := s.parse(&g, v); {
				case want == "":
				case s.failClosed != "":
					f.Verdict = NotSupported
					f.Caveat = fmt.Sprintf("%q is not %s: nginx cannot load it, and %s.", f.Value, want, s.failClosed)
				default:
					invalid(&f, want, "keeps its default")
				}
			}
		}
		findings = append(findings, f)
	}
	return g, findings
}

// Assumed returns, when the Globals are ingress-nginx's defaults (no
// ConfigMap was given), each default the conversion assumed as
// "KEY VALUE", e.g. "proxy-read-timeout 60".
func (g Globals) Assumed() []string {
	if g.FromConfigMap {
		return nil
	}
	values := []struct{ key, value string }{
		{"proxy-read-timeout", strconv.Itoa(g.ProxyReadTimeout)},
		{"proxy-send-timeout", strconv.Itoa(g.ProxySendTimeout)},
		{"proxy-body-size", g.ProxyBodySize},
		{"ssl-redirect", strconv.FormatBool(g.SSLRedirect)},
		{"force-ssl-redirect", strconv.FormatBool(g.ForceSSLRedirect)},
		{"http-redirect-code", strconv.Itoa(g.HTTPRedirectCode)},
		{"hsts", strconv.FormatBool(g.HSTS)},
		{"hsts-max-age", strconv.FormatInt(g.HSTSMaxAge, 10)},
		{"hsts-include-subdomains", strconv.FormatBool(g.HSTSIncludeSubdomains)},
		{"hsts-preload", strconv.FormatBool(g.HSTSPreload)},
		{"load-balance", g.LoadBalance},
		{"whitelist-source-range", strings.Join(g.WhitelistSourceRange, ",")},
		{"denylist-source-range", strings.Join(g.DenylistSourceRange, ",")},
		{"limit-req-status-code", strconv.Itoa(g.LimitReqStatusCode)},
		{"limit-conn-status-code", strconv.Itoa(g.LimitConnStatusCode)},
	}
	out := make([]string, 0, len(values))
	for _, kv := range values {
		if kv.value == "" {
			kv.value = `""`
		}
		out = append(out, kv.key+" "+kv.value)
	}
	return out
}

// Parsers of the ConfigMap keys the Globals hold: each sets its field and
// returns "" or, for a value ingress-nginx would not read, what the value
// should have been (the field is then left alone). An empty value is
// valid and means the default.

func parseSeconds(field func(*Globals) *int) func(*Globals, string) string {
	return func(g *Globals, v string) string {
		if v == "" {
			return ""
		}
		n, ok := parseInt(v, 1)
		if !ok {
			return "a whole number of seconds from 1 up"
		}
		*field(g) = int(n)
		return ""
	}
}

func parseBool(field func(*Globals) *bool) func(*Globals, string) string {
	return func(g *Globals, v string) string {
		if v == "" {
			return ""
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "true or false"
		}
		*field(g) = b
		return ""
	}
}

func parseBodySize(g *Globals, v string) string {
	if v == "" {
		return ""
	}
	if checkRouteValue(routecore.AnnMaxBodySize, v) != nil {
		return "a size such as 1m, 512k or 0 (at most 1024g)"
	}
	g.ProxyBodySize = v
	return ""
}

func parseRedirectCode(g *Globals, v string) string {
	if v == "" {
		return ""
	}
	switch v {
	case "301", "302", "307", "308":
		g.HTTPRedirectCode, _ = strconv.Atoi(v)
		return ""
	}
	return "301, 302, 307 or 308"
}

func parseHSTSMaxAge(g *Globals, v string) string {
	if v == "" {
		return ""
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return "a whole number of seconds"
	}
	g.HSTSMaxAge = n
	return ""
}

func parseLoadBalance(g *Globals, v string) string {
	switch v {
	case "":
	case "round_robin", "ewma":
		g.LoadBalance = v
	default:
		return "round_robin or ewma"
	}
	return ""
}

// parseStatusCode reads an error status (400 to 599), the statuses nginx
// answers past a limit with.
func parseStatusCode(field func(*Globals) *int) func(*Globals, string) string {
	return func(g *Globals, v string) string {
		if v == "" {
			return ""
		}
		n, ok := parseInt(v, 400)
		if !ok || n > 599 {
			return "a status from 400 to 599"
		}
		*field(g) = int(n)
		return ""
	}
}

// parseDenylist reads the ConfigMap's denylist. A list the router cannot
// take fails closed: nginx does not load such a configuration, and
// dropping the list would let in the sources it keeps out, so every Route
// without its own denylist refuses every client.
func parseDenylist(g *Globals, v string) string {
	list, bad := sourceRanges(v)
	if len(bad) > 0 || checkRouteValue(routecore.AnnIPDenylist, strings.Join(list, " ")) != nil {
		g.DenylistSourceRange = strings.Fields(denyAll)
		return fmt.Sprintf("a comma-separated list of at most %d addresses and CIDRs", routecore.MaxAllowlistEntries)
	}
	g.DenylistSourceRange = list
	return ""
}

func parseWhitelist(g *Globals, v string) string {
	list := splitList(v)
	for _, e := range list {
		if !isIPOrCIDR(e) {
			return "a comma-separated list of addresses and CIDRs"
		}
	}
	g.WhitelistSourceRange = list
	return ""
}
