package routecore

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// AnnWWWRedirect set to "true" redirects requests for the route's other
// host (WWWRedirectHost) to the route's own host.
const AnnWWWRedirect = "routeshift.io/www-redirect"

// DefaultWWWRedirectCode is the status of www-redirect's redirects when
// the route sets no redirect-code.
const DefaultWWWRedirectCode = 308

// wwwRedirectHelp is the catalogue's description of www-redirect.
const wwwRedirectHelp = "true redirects requests for the route's other host to its own host, with the same scheme, path and query and no port (redirect-code, 308 by default): the other host is www. + spec.host, or spec.host without its www. prefix. " +
	"Only spec.path is redirected, as the route serves it. " +
	"The route claims the other host as it claims its own (namespace ownership, ROUTER_ALLOWED_DOMAINS and ROUTER_DENIED_DOMAINS, wildcard routes of other namespaces), " +
	"but the claim always yields to any Route of the router whose host is the other host, whatever their ages; between two routes that redirect the same host, the older wins. " +
	"A route that does not hold the claim is still admitted for its own host, and its Admitted condition says why the other host is not redirected. " +
	"The other host has no certificate of its own: HTTPS requests for it get the route's certificate (name both hosts in it), else the router's default. " +
	"Refused on wildcard routes, on routes without spec.host, and when the other host would not be a valid host name of at least two labels."

// WWWRedirectHost is the other host of www-redirect for host: host
// without its "www." prefix when it has one, else "www." + host.
func WWWRedirectHost(host string) string {
	if rest, ok := strings.CutPrefix(host, "www."); ok {
		return rest
	}
	return "www." + host
}

// WWWRedirectHostError says why the other host of host cannot be
// redirected, or "" when it can: it must be a DNS-1123 subdomain of at
// most 253 characters with labels of at most 63, and have two labels at
// least.
func WWWRedirectHostError(host string) string {
	other := WWWRedirectHost(host)
	switch {
	case host == "":
		return "needs spec.host: the host redirected from is www. + spec.host, or spec.host without www."
	case !strings.Contains(other, "."):
		return fmt.Sprintf("the host redirected from, %s, must have at least two labels", other)
	case len(other) > validation.DNS1123SubdomainMaxLength:
		return fmt.Sprintf("the host redirected from, %s, must be no more than %d characters", other, validation.DNS1123SubdomainMaxLength)
	case !isLowerDNSSubdomain(other) || !hostLabelsValid(other):
		return fmt.Sprintf("the host redirected from, %s, must consist of lower case alphanumeric characters, '-' or '.', in labels of at most %d characters that start and end with an alphanumeric character",
			other, validation.DNS1123LabelMaxLength)
	}
	return ""
}

// wwwRedirect refuses www-redirect on routes it cannot act on: wildcard
// routes, routes without a host, and hosts whose other host is not a valid
// host name. On update, an annotation the stored route had with the same
// value, host and wildcard policy is not refused again.
func (c *check) wwwRedirect() field.ErrorList {
	v, ok := c.route.Annotations[AnnWWWRedirect]
	if c.opts.SkipAnnotationValues || !ok || boolean(v) != nil || !isTrue(v) {
		return nil
	}
	spec := &c.route.Spec
	if !c.creating() {
		if ov, had := c.old.Annotations[AnnWWWRedirect]; had && ov == v && c.old.Spec.Host == spec.Host &&
			effectivePolicy(c.old.Spec.WildcardPolicy) == effectivePolicy(spec.WildcardPolicy) {
			return nil
		}
	}
	path := annotationsPath.Key(AnnWWWRedirect)
	if spec.WildcardPolicy == WildcardPolicySubdomain {
		return field.ErrorList{field.Invalid(path, v, "cannot be used on a wildcard route (wildcardPolicy Subdomain), which serves every host of its domain")}
	}
	if msg := WWWRedirectHostError(spec.Host); msg != "" {
		return field.ErrorList{field.Invalid(path, v, msg)}
	}
	return nil
}
