package nginx

import (
	"fmt"
	"strings"

	"github.com/routeshift/routeshift/routecore"
)

// routerServerTimeout is the router's default server timeout
// (ROUTER_DEFAULT_SERVER_TIMEOUT), in seconds.
const routerServerTimeout = 30

// defaults makes explicit, as findings with Default set, the behaviours
// ingress-nginx has without annotations (or with its ConfigMap's values)
// that differ from the router's defaults and that users notice: no
// stickiness, a 60 s server timeout, the redirect to HTTPS (with 308) and
// HSTS on TLS hosts, the 1 MiB body limit and the ConfigMap's allowlist
// and denylist. None applies to canary Ingresses (the primary's apply) or
// passthrough ones (no HTTP).
func (c *converter) defaults() {
	if c.passthrough || c.canary {
		return
	}
	g := c.in.Globals
	add := func(key string, v Verdict, caveat string) {
		c.out.Findings = append(c.out.Findings, Finding{Key: key, Verdict: v, Caveat: caveat, Default: true})
	}
	if !c.present("affinity") {
		c.set(routecore.AnnDisableCookies, "true")
		add("affinity", Exact, "ingress-nginx is not sticky by default; Routes are, so cookies are turned off.")
	}
	if !c.present("proxy-read-timeout") && !c.present("proxy-send-timeout") {
		if t := int64(max(g.ProxyReadTimeout, g.ProxySendTimeout)); t != routerServerTimeout {
			timeout, capped := seconds(t)
			c.set(routecore.AnnTimeout, timeout)
			v, caveat := Exact, fmt.Sprintf("ingress-nginx waits %d s for endpoints (proxy-read-timeout and proxy-send-timeout), the router %d s, so the Routes' timeout is %s.", t, routerServerTimeout, timeout)
			if g.ProxyReadTimeout != g.ProxySendTimeout || capped {
				v = Approximate
				caveat = fmt.Sprintf("ingress-nginx waits %d s to read from endpoints and %d s to send to them, the router %d s for both, so the Routes' timeout is the longer, %s",
					g.ProxyReadTimeout, g.ProxySendTimeout, routerServerTimeout, timeout)
				if capped {
					caveat += ", the longest the router takes (about 24.8 days)"
				}
				caveat += "."
			}
			add("proxy-read-timeout", v, caveat)
		}
	}
	if c.in.TLS && !c.present("ssl-redirect") && !c.present("force-ssl-redirect") {
		switch {
		case (g.SSLRedirect || g.ForceSSLRedirect) && c.redirects():
			add("ssl-redirect", Exact, c.redirectsFirst())
		case g.SSLRedirect || g.ForceSSLRedirect:
			tail, exact := c.redirectCode()
			v := Approximate
			if exact {
				v = Exact
			}
			add("ssl-redirect", v, "ingress-nginx redirects plain HTTP to HTTPS on TLS hosts by default, and so do the Routes (insecureEdgeTerminationPolicy Redirect)"+tail+".")
		default:
			add("ssl-redirect", Exact, "ingress-nginx's ConfigMap turns off the redirect to HTTPS (ssl-redirect false), so the Routes serve plain HTTP too (insecureEdgeTerminationPolicy Allow).")
		}
	}
	if !c.in.TLS && g.ForceSSLRedirect && !c.present("force-ssl-redirect") && !c.terminatesTLS() && !c.redirects() {
		add("force-ssl-redirect", NotSupported, "ingress-nginx's ConfigMap redirects every host to HTTPS (force-ssl-redirect true), but the router redirects only Routes that terminate TLS: add spec.tls to the Ingress.")
	}
	if !c.present("proxy-body-size") && !isZeroSize(g.ProxyBodySize) {
		if c.setChecked(routecore.AnnMaxBodySize, g.ProxyBodySize) {
			add("proxy-body-size", Approximate, fmt.Sprintf("ingress-nginx refuses request bodies over %s by default (413), and so do the Routes (%s %s), but %s.",
				g.ProxyBodySize, routecore.AnnMaxBodySize, g.ProxyBodySize, chunkedBodies))
		} else {
			add("proxy-body-size", NotSupported, fmt.Sprintf("ingress-nginx refuses request bodies over %s by default (413), a size %s does not take: set the limit on the Ingresses.", g.ProxyBodySize, routecore.AnnMaxBodySize))
		}
	}
	if c.in.TLS && g.HSTS {
		c.set(routecore.AnnHSTSHeader, g.hstsHeader())
		add("hsts", Exact, "ingress-nginx sends Strict-Transport-Security on TLS hosts by default, and so do the Routes ("+routecore.AnnHSTSHeader+" "+g.hstsHeader()+").")
	}
	if len(g.WhitelistSourceRange) > 0 && !c.present("allowlist-source-range") && !c.present("whitelist-source-range") {
		c.set(routecore.AnnIPAllowlist, strings.Join(g.WhitelistSourceRange, " "))
		add("whitelist-source-range", Approximate, "ingress-nginx's ConfigMap allows only "+strings.Join(g.WhitelistSourceRange, ",")+" on every Ingress, and so do the Routes ("+routecore.AnnIPAllowlist+"), closing the connections of other clients where ingress-nginx answers 403.")
	}
	if len(g.DenylistSourceRange) > 0 && !c.present("denylist-source-range") {
		c.set(routecore.AnnIPDenylist, strings.Join(g.DenylistSourceRange, " "))
		add("denylist-source-range", Exact, "ingress-nginx's ConfigMap refuses "+strings.Join(g.DenylistSourceRange, ",")+" on every Ingress (403), and so do the Routes ("+routecore.AnnIPDenylist+").")
	}
}

// finish settles what depends on several annotations: the policy for
// plain HTTP once the termination is known, and what passthrough Routes
// cannot have.
func (c *converter) finish() {
	switch {
	case c.passthrough:
		c.out.Annotations, c.out.RequestHeaders, c.out.ResponseHeaders = nil, nil, nil
		c.out.InsecureEdgeTerminationPolicy, c.out.DestinationCASecret, c.out.AppProtocol = "", "", ""
		c.out.UseRegex, c.out.RewriteTarget, c.out.ExtraHosts = false, "", nil
	case c.canary:
	case c.terminatesTLS():
		c.out.InsecureEdgeTerminationPolicy = c.insecurePolicy()
		if code := c.httpsRedirectCode(); code != "" && c.out.InsecureEdgeTerminationPolicy == routecore.InsecureEdgeTerminationPolicyRedirect {
			c.set(routecore.AnnRedirectCode, code)
		}
	}
}

// hstsHeader is the Strict-Transport-Security value ingress-nginx sends.
func (g Globals) hstsHeader() string {
	h := fmt.Sprintf("max-age=%d", g.HSTSMaxAge)
	if g.HSTSIncludeSubdomains {
		h += ";includeSubDomains"
	}
	if g.HSTSPreload {
		h += ";preload"
	}
	return h
}
