package nginx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/routeshift/routeshift/routecore"
)

// Application protocols the router reads on a Service port to speak
// HTTP/2 to its endpoints: cleartext (edge and plain Routes) and over TLS
// by ALPN (reencrypt Routes).
const (
	AppProtocolH2C = "kubernetes.io/h2c"
	AppProtocolH2  = "h2"
)

// AppProtocolPatch is the kubectl command that sets the appProtocol of the
// port at portIndex of a Service: what a Conversion's AppProtocol asks of
// the Services its Routes send to.
func AppProtocolPatch(service string, portIndex int, appProtocol string) string {
	return fmt.Sprintf(`kubectl patch service %s --type=json -p '[{"op":"add","path":"/spec/ports/%d/appProtocol","value":%q}]'`,
		service, portIndex, appProtocol)
}

// tlsEntries are the annotations about TLS: termination, redirects to
// HTTPS, the protocol to the endpoints and client certificates.
var tlsEntries = []Entry{
	{Annotation: "ssl-passthrough", Verdict: Exact,
		Caveat:  "true makes the Route passthrough (TLS goes to the endpoints undecrypted), which, as in ingress-nginx, voids every other annotation.",
		convert: convertPassthrough},
	{Annotation: "ssl-redirect", Verdict: Exact,
		Caveat:  "true gives TLS Routes insecureEdgeTerminationPolicy Redirect, with ingress-nginx's http-redirect-code (308 by default) as " + routecore.AnnRedirectCode + ", and false gives Allow.",
		convert: convertRedirect},
	{Annotation: "force-ssl-redirect", Verdict: Approximate,
		Caveat:  "true gives TLS Routes insecureEdgeTerminationPolicy Redirect, with ingress-nginx's http-redirect-code (308 by default) as " + routecore.AnnRedirectCode + "; a Route without TLS cannot redirect, so add spec.tls or redirect at the load balancer that terminates TLS.",
		convert: convertRedirect},
	{Annotation: "preserve-trailing-slash", Verdict: Exact,
		Caveat: "The router's redirect to HTTPS always keeps the request's path and query as sent, trailing slash included."},
	{Annotation: "use-port-in-redirects", Verdict: NotSupported,
		Caveat: "The router's redirects name the request's host and the router's HTTPS port (ROUTER_HTTPS_REDIRECT_PORT); the port of the request is not kept."},
	{Annotation: "backend-protocol", Verdict: Approximate,
		Caveat:  "HTTPS makes the Route reencrypt, GRPC and GRPCS need the Service port's appProtocol (kubernetes.io/h2c, h2) to reach the endpoints over HTTP/2, and AUTO_HTTP and FCGI have no counterpart.",
		convert: convertBackendProtocol},
	{Annotation: "proxy-ssl-secret", Verdict: Approximate,
		Caveat:  "With proxy-ssl-verify on, its ca.crt becomes the Route's destination CA (the Secret must be in the Ingress's namespace); its tls.crt is not presented, as the router presents no client certificate to endpoints.",
		convert: convertProxySSLSecret},
	{Annotation: "proxy-ssl-verify", Verdict: Approximate,
		Caveat:  "on verifies reencrypted endpoints with proxy-ssl-secret's ca.crt (the Route's destination CA); off (the default) leaves them unverified unless the router has DEFAULT_DESTINATION_CA_PATH.",
		convert: convertProxySSLVerify},
	{Annotation: "proxy-ssl-verify-depth", Verdict: NotSupported,
		Caveat: "The router verifies endpoint certificate chains to any depth the destination CA allows; there is no per-Route depth."},
	{Annotation: "proxy-ssl-ciphers", Verdict: NotSupported,
		Caveat: "The router offers the same ciphers to every endpoint; there is no per-Route setting."},
	{Annotation: "proxy-ssl-protocols", Verdict: NotSupported,
		Caveat: "The router offers the same TLS versions to every endpoint; there is no per-Route setting."},
	{Annotation: "proxy-ssl-name", Verdict: NotSupported,
		Caveat: "The router cannot choose the name it verifies an endpoint's certificate against: it uses the Service's DNS name, and only with DEFAULT_DESTINATION_CA_PATH."},
	{Annotation: "proxy-ssl-server-name", Verdict: NotSupported,
		Caveat: "The router sends no server name (SNI) to reencrypted endpoints; endpoints must serve their certificate without it."},
	{Annotation: "ssl-ciphers", Verdict: RouterWide,
		Caveat: "Ciphers are the router's, for every host: ROUTER_CIPHERS (TLS 1.2) and ROUTER_CIPHERSUITES (TLS 1.3)."},
	{Annotation: "ssl-prefer-server-ciphers", Verdict: RouterWide,
		Caveat: "The router always prefers its own cipher order (ROUTER_CIPHERS), for every host."},
	{Annotation: "auth-tls-secret", Verdict: RouterWide,
		Caveat: "Client certificates are verified by the whole router, for every host, against ROUTER_MUTUAL_TLS_AUTH_CA when ROUTER_MUTUAL_TLS_AUTH is required or optional."},
	{Annotation: "auth-tls-verify-client", Verdict: RouterWide,
		Caveat: "ROUTER_MUTUAL_TLS_AUTH (required, optional or none) applies to every host of the router, and optional_no_ca has no counterpart."},
	{Annotation: "auth-tls-verify-depth", Verdict: NotSupported,
		Caveat: "The router verifies client certificate chains to any depth ROUTER_MUTUAL_TLS_AUTH_CA allows; there is no per-Route depth."},
	{Annotation: "auth-tls-error-page", Verdict: NotSupported,
		Caveat: "The router refuses a bad client certificate in the TLS handshake; it cannot redirect to an error page."},
	{Annotation: "auth-tls-pass-certificate-to-upstream", Verdict: RouterWide,
		Caveat: "With ROUTER_MUTUAL_TLS_AUTH the router passes the client certificate to the endpoints of every Route, base64 DER in X-SSL-Client-DER (not PEM in ssl-client-cert)."},
	{Annotation: "auth-tls-match-cn", Verdict: RouterWide,
		Caveat: "ROUTER_MUTUAL_TLS_AUTH_FILTER is a regular expression on the client certificate's subject, for every host of the router."},
}

func convertPassthrough(c *converter, f *Finding) {
	b, ok := c.boolValue(f.Key)
	switch {
	case !ok:
		invalid(f, "true or false", "decrypts TLS as without it, as the Route does")
	case b:
		c.out.Termination = routecore.TLSTerminationPassthrough
		f.Caveat = "The Route is passthrough: TLS goes to the endpoints undecrypted, and every other annotation is void, as in ingress-nginx."
	default:
		f.Caveat = "false is the default: TLS is decrypted by the router."
	}
}

// backendProtocol is backend-protocol's value in upper case, HTTP when it
// is absent or not one ingress-nginx knows.
func (c *converter) backendProtocol() string {
	v, _ := c.value("backend-protocol")
	switch p := strings.ToUpper(v); p {
	case "HTTPS", "GRPC", "GRPCS", "AUTO_HTTP", "FCGI":
		return p
	}
	return "HTTP"
}

// terminatesTLS reports whether the Routes terminate TLS: the Ingress has
// spec.tls, or the endpoints speak HTTPS (reencrypt).
func (c *converter) terminatesTLS() bool {
	p := c.backendProtocol()
	return c.in.TLS || p == "HTTPS" || p == "GRPCS"
}

// httpsRedirectCode is the redirect-code the Routes need to redirect plain
// HTTP to HTTPS with ingress-nginx's status (http-redirect-code): "" for
// 302, the router's own, and for a status the router does not redirect
// with.
func (c *converter) httpsRedirectCode() string {
	code := strconv.Itoa(c.in.Globals.HTTPRedirectCode)
	if code == "302" || checkRouteValue(routecore.AnnRedirectCode, code) != nil {
		return ""
	}
	return code
}

// redirectCode says, as the end of a sentence, with which status the
// Routes redirect plain HTTP to HTTPS, and whether it is ingress-nginx's;
// exact is false when it is not.
func (c *converter) redirectCode() (tail string, exact bool) {
	code := c.in.Globals.HTTPRedirectCode
	switch {
	case c.httpsRedirectCode() != "":
		return fmt.Sprintf(", with %d as in ingress-nginx (%s)", code, routecore.AnnRedirectCode), true
	case code == 302:
		return ", with 302 as in ingress-nginx", true
	}
	return fmt.Sprintf(", but with 302 where ingress-nginx answers %d", code), false
}

// redirectsFirst is the caveat of a redirect to HTTPS the Routes need not
// make: permanent-redirect or temporal-redirect answers every request,
// plain HTTP included, before it.
func (c *converter) redirectsFirst() string {
	s := c.redirectTo().key + " answers every request before any redirect to HTTPS, plain HTTP included, in ingress-nginx as on the Routes"
	if c.terminatesTLS() {
		s += " (insecureEdgeTerminationPolicy Allow)"
	}
	return s + "."
}

// convertRedirect judges ssl-redirect and force-ssl-redirect; the policy
// itself is decided once, by finish.
func convertRedirect(c *converter, f *Finding) {
	b, ok := c.boolValue(f.Key)
	force := f.Key == "force-ssl-redirect"
	switch {
	case !ok && force:
		invalid(f, "true or false", "does not force the redirect, as the Route does not")
	case !ok:
		invalid(f, "true or false", fmt.Sprintf("applies its ConfigMap's ssl-redirect (%t), as the Route does", c.in.Globals.SSLRedirect))
	case b && c.redirects():
		f.Verdict, f.Caveat = Exact, c.redirectsFirst()
	case force && b && !c.terminatesTLS():
		f.Verdict = NotSupported
		f.Caveat = "The router redirects to HTTPS only Routes that terminate TLS: add spec.tls to the Ingress (a TLS entry without secretName gets the router's default certificate), or redirect at the load balancer that terminates TLS."
	case !force && !c.in.TLS:
		noEffect(f, "spec.tls")
	case !force && c.isTrue("force-ssl-redirect"):
		f.Verdict, f.Caveat = Exact, "force-ssl-redirect is true, which wins, in ingress-nginx as on the Route."
	case !b && force:
		f.Verdict, f.Caveat = Exact, "false is the default: ssl-redirect decides."
	case !b:
		f.Verdict, f.Caveat = Exact, "Plain HTTP is served too: the Routes get insecureEdgeTerminationPolicy Allow."
	default:
		tail, exact := c.redirectCode()
		f.Verdict, f.Caveat = Approximate, "Plain HTTP is redirected to HTTPS: the Routes get insecureEdgeTerminationPolicy Redirect"+tail+"."
		if exact {
			f.Verdict = Exact
		}
	}
}

// insecurePolicy is what ingress-nginx does with plain HTTP for the hosts
// of an Ingress whose Routes terminate TLS: redirect when forced, or when
// the Ingress has spec.tls and ssl-redirect (or its ConfigMap default) is
// true; else serve it. An Ingress that redirects every request elsewhere
// (permanent-redirect) answers plain HTTP with that redirect first, so its
// Routes allow plain HTTP, where the same redirect answers it.
func (c *converter) insecurePolicy() routecore.InsecureEdgeTerminationPolicyType {
	if c.redirects() {
		return routecore.InsecureEdgeTerminationPolicyAllow
	}
	redirect := c.in.Globals.SSLRedirect
	if b, ok := c.boolValue("ssl-redirect"); ok {
		redirect = b
	}
	force := c.in.Globals.ForceSSLRedirect
	if b, ok := c.boolValue("force-ssl-redirect"); ok {
		force = b
	}
	if force || (c.in.TLS && redirect) {
		return routecore.InsecureEdgeTerminationPolicyRedirect
	}
	return routecore.InsecureEdgeTerminationPolicyAllow
}

func convertBackendProtocol(c *converter, f *Finding) {
	v, _ := c.value(f.Key)
	switch strings.ToUpper(v) {
	case "HTTP":
		f.Verdict, f.Caveat = Exact, "HTTP is the default: the router speaks HTTP/1.1 to the endpoints."
	case "HTTPS":
		c.out.Termination = routecore.TLSTerminationReencrypt
		f.Verdict = Exact
		f.Caveat = "The Routes reencrypt (termination reencrypt), verifying the endpoints only with proxy-ssl-verify on or the router's DEFAULT_DESTINATION_CA_PATH, as ingress-nginx verifies them only with proxy-ssl-verify on."
		if !c.in.TLS {
			f.Caveat = "The Routes reencrypt (termination reencrypt) and, as the Ingress has no spec.tls, serve HTTPS with the router's default certificate and plain HTTP too, as ingress-nginx does with its default certificate."
		}
	case "GRPC":
		c.out.AppProtocol = AppProtocolH2C
		f.Verdict = Approximate
		f.Caveat = "The router speaks cleartext HTTP/2 to the endpoints only when the Service port's appProtocol is " + AppProtocolH2C +
			" (" + AppProtocolPatch("SERVICE", 0, AppProtocolH2C) + ", with the port's index for 0), and gRPC clients need HTTP/2 from the router (ROUTER_DISABLE_HTTP2=false)."
	case "GRPCS":
		c.out.Termination = routecore.TLSTerminationReencrypt
		c.out.AppProtocol = AppProtocolH2
		f.Verdict = Approximate
		f.Caveat = "The Routes reencrypt and offer HTTP/2 to the endpoints by ALPN only when the Service port's appProtocol is " + AppProtocolH2 +
			" (" + AppProtocolPatch("SERVICE", 0, AppProtocolH2) + ", with the port's index for 0), and gRPC clients need HTTP/2 from the router (ROUTER_DISABLE_HTTP2=false)."
	case "AUTO_HTTP":
		f.Verdict = NotSupported
		f.Caveat = "The router does not choose HTTP or HTTPS by the Service port: use HTTP, or HTTPS for a reencrypt Route."
	case "FCGI":
		f.Verdict = NotSupported
		f.Caveat = "The router does not speak FastCGI: put an HTTP server in front of the FastCGI endpoints and route to it."
	default:
		invalid(f, "one of HTTP, HTTPS, AUTO_HTTP, GRPC, GRPCS or FCGI", "speaks HTTP to the endpoints, as the router does")
	}
}

// proxySSLSecret splits proxy-ssl-secret into namespace and name.
func (c *converter) proxySSLSecret() (namespace, name string, ok bool) {
	v, found := c.value("proxy-ssl-secret")
	if !found {
		return "", "", false
	}
	namespace, name, cut := strings.Cut(v, "/")
	if !cut {
		namespace, name = "", v
	}
	return namespace, name, name != "" && !strings.Contains(name, "/")
}

func convertProxySSLSecret(c *converter, f *Finding) {
	namespace, name, ok := c.proxySSLSecret()
	p := c.backendProtocol()
	switch {
	case !ok:
		invalid(f, "namespace/name", "verifies nothing with it, nor does the Route")
	case p != "HTTPS" && p != "GRPCS":
		noEffect(f, "backend-protocol HTTPS or GRPCS")
	case namespace != "" && c.in.Namespace != "" && namespace != c.in.Namespace:
		f.Verdict = NotSupported
		f.Caveat = fmt.Sprintf("A Route reads Secrets of its own namespace only, and %s is not the Ingress's (%s): copy the Secret's ca.crt into a Secret of %s and name that one.",
			namespace, c.in.Namespace, c.in.Namespace)
	case !c.isProxySSLVerifyOn():
		f.Verdict = Approximate
		f.Caveat = "Without proxy-ssl-verify on, ingress-nginx does not verify the endpoints and neither does the Route, and its tls.crt is not presented, as the router presents no client certificate to endpoints."
	default:
		c.out.DestinationCASecret = name
		f.Verdict = Approximate
		f.Caveat = "The Routes verify the endpoints with the Secret's ca.crt (destination CA), but its tls.crt is not presented, as the router presents no client certificate to endpoints."
	}
}

// isProxySSLVerifyOn reports whether proxy-ssl-verify is "on".
func (c *converter) isProxySSLVerifyOn() bool {
	v, _ := c.value("proxy-ssl-verify")
	return strings.EqualFold(v, "on")
}

func convertProxySSLVerify(c *converter, f *Finding) {
	v, _ := c.value(f.Key)
	_, _, secret := c.proxySSLSecret()
	p := c.backendProtocol()
	switch {
	case !strings.EqualFold(v, "on") && !strings.EqualFold(v, "off"):
		invalid(f, "on or off", "does not verify the endpoints, nor does the Route")
	case strings.EqualFold(v, "off"):
		f.Verdict, f.Caveat = Exact, "off is the default: reencrypted endpoints are not verified (unless the router has DEFAULT_DESTINATION_CA_PATH)."
	case p != "HTTPS" && p != "GRPCS":
		noEffect(f, "backend-protocol HTTPS or GRPCS")
	case !secret:
		f.Verdict = NotSupported
		f.Caveat = "Without proxy-ssl-secret there is no CA to verify the endpoints with: name the Secret holding ca.crt in proxy-ssl-secret."
	default:
		f.Verdict, f.Caveat = Exact, "The Routes verify the endpoints with proxy-ssl-secret's ca.crt (destination CA)."
	}
}
