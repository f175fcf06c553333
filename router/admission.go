package router

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/routecore"
)

// Reasons of the Admitted condition a router writes.
const (
	ReasonNotAdmitted                   = "RouteNotAdmitted"
	ReasonHostAlreadyClaimed            = "HostAlreadyClaimed"
	ReasonNoHostValue                   = "NoHostValue"
	ReasonInvalidHost                   = "InvalidHost"
	ReasonExtendedValidationFailed      = "ExtendedValidationFailed"
	ReasonExternalCertificateValidation = "ExternalCertificateValidationFailed"
	// ReasonBasicAuthValidation rejects a route whose basic-authentication
	// Secret (routeshift.io/auth-basic-secret) the router may not read,
	// cannot find, or cannot check credentials with.
	ReasonBasicAuthValidation = "BasicAuthValidationFailed"
	// ReasonNotServable: the route won its host, but the data plane cannot
	// serve it (HAProxy refuses its configuration, or nothing of it can be
	// served safely); the message says why, in the data plane's words.
	// Like a route rejected for its certificate, it keeps its host claim.
	ReasonNotServable = "RouteNotServable"
)

// effectiveHost applies spec.subdomain with ROUTER_DOMAIN, then
// ROUTER_SUBDOMAIN with its overrides. spec.host is kept as written, so
// that validation refuses an upper-case host as the webhook does.
func (c *AdmissionConfig) effectiveHost(r *routecore.Route) string {
	host := r.Spec.Host
	if host == "" && r.Spec.Subdomain != "" && c.RouterDomain != "" {
		host = r.Spec.Subdomain + "." + c.RouterDomain
	}
	if c.HostnameTemplate != "" && (host == "" || c.OverrideHostname || c.OverrideDomains.Matches(strings.ToLower(host))) {
		host = strings.ToLower(c.HostnameTemplate.Expand(r.Name, r.Namespace))
	}
	return host
}

// inShard reports whether the route belongs to this router: its labels
// match ROUTE_LABELS and its namespace's labels NAMESPACE_LABELS.
func (c *AdmissionConfig) inShard(r *routecore.Route, namespaceLabels labels.Set, namespaceKnown bool) bool {
	if c.RouteSelector != nil && !c.RouteSelector.Matches(labels.Set(r.Labels)) {
		return false
	}
	if c.NamespaceSelector != nil && (!namespaceKnown || !c.NamespaceSelector.Matches(namespaceLabels)) {
		return false
	}
	return true
}

// admissionRule is one check of a route on its own, with its effective
// host: it returns the reason and message of a rejection, or "".
type admissionRule struct {
	name  string
	check func(c *AdmissionConfig, r *routecore.Route, host string) (reason, message string)
}

// admissionRules are the checks that need no other route, in order: the
// first that fails rejects the route. Host claims (claims.go) and, with
// EXTENDED_VALIDATION, certificates come after them.
var admissionRules = []admissionRule{
	{"has a host", hasHost},
	{"valid", valid},
	{"not in a denied domain", notDenied},
	{"in an allowed domain", allowed},
	{"wildcard policy allowed", wildcardAllowed},
}

func hasHost(_ *AdmissionConfig, _ *routecore.Route, host string) (string, string) {
	if host == "" {
		return ReasonNoHostValue, "no host value was defined for the route"
	}
	return "", ""
}

// valid re-validates the route with its effective host (defensive: the
// webhook may have been bypassed).
func valid(_ *AdmissionConfig, r *routecore.Route, host string) (string, string) {
	checked := r.DeepCopy()
	checked.Spec.Host = host
	if errs := routecore.ValidateRoute(checked, routecore.ValidateOptions{SkipCertificateChecks: true, SkipAnnotationValues: true}); len(errs) > 0 {
		return validationRejection(errs)
	}
	return "", ""
}

func notDenied(c *AdmissionConfig, _ *routecore.Route, host string) (string, string) {
	if c.DeniedDomains.Matches(host) {
		return ReasonNotAdmitted, "host in list of denied domains"
	}
	return "", ""
}

func allowed(c *AdmissionConfig, _ *routecore.Route, host string) (string, string) {
	if len(c.AllowedDomains) > 0 && !c.AllowedDomains.Matches(host) {
		return ReasonNotAdmitted, "host not in the allowed list of domains"
	}
	return "", ""
}

func wildcardAllowed(c *AdmissionConfig, r *routecore.Route, _ string) (string, string) {
	if r.Spec.WildcardPolicy == routecore.WildcardPolicySubdomain && !c.AllowWildcardRoutes {
		return ReasonNotAdmitted, "wildcard routes are not allowed"
	}
	return "", ""
}

// precheck runs admissionRules and, when enabled, the certificate checks.
// It returns the rejection, or the contender for the route's host.
func (c *AdmissionConfig) precheck(key string, r *routecore.Route, host string, secret secretLookup) (*Decision, *contender) {
	for _, rule := range admissionRules {
		if reason, message := rule.check(c, r, host); reason != "" {
			d := &Decision{Verdict: Rejected, Reason: reason, Message: message, Host: host, WildcardPolicy: r.Spec.WildcardPolicy}
			if d.WildcardPolicy == "" {
				d.WildcardPolicy = routecore.WildcardPolicyNone
			}
			return d, nil
		}
	}
	ct := &contender{key: key, namespace: r.Namespace, name: r.Name, uid: r.UID, created: r.CreationTimestamp.Time,
		host: host, wildcard: r.Spec.WildcardPolicy == routecore.WildcardPolicySubdomain, path: r.Spec.Path}
	if tls := r.Spec.TLS; tls != nil {
		ct.tls, ct.passthru = true, tls.Termination == routecore.TLSTerminationPassthrough
	}
	ct.certReason, ct.certMessage = certificateRejection(r, secret, c.ExtendedValidation)
	if ct.certReason == "" {
		ct.certReason, ct.certMessage = basicAuthRejection(r, secret)
	}
	return nil, ct
}

// validationRejection turns validation errors into a status reason:
// InvalidHost when the host is wrong, else RouteNotAdmitted.
func validationRejection(errs field.ErrorList) (string, string) {
	var hostErrs []string
	for _, e := range errs {
		if e.Field == "spec.host" {
			hostErrs = append(hostErrs, e.Error())
		}
	}
	if len(hostErrs) > 0 {
		return ReasonInvalidHost, "host name validation errors: " + strings.Join(hostErrs, ", ")
	}
	return ReasonNotAdmitted, errs.ToAggregate().Error()
}

// certificateRejection rejects a route whose external certificate secret
// the router may not read and, when extended (EXTENDED_VALIDATION), runs
// the certificate checks on the route's own certificates, or on its
// external certificate secret's.
func certificateRejection(r *routecore.Route, secret secretLookup, extended bool) (string, string) {
	tls := r.Spec.TLS
	if tls == nil {
		return "", ""
	}
	if ext := tls.ExternalCertificate; ext != nil && ext.Name != "" {
		s, unreadable := secret(ext.Name)
		path := field.NewPath("spec", "tls", "externalCertificate")
		switch {
		case unreadable != "":
			return ReasonExternalCertificateValidation, field.Forbidden(path, unreadable).Error()
		case !extended:
			return "", ""
		}
		if err := routecore.ValidateExternalCertificateSecret(path, ext.Name, s); err != nil {
			return ReasonExternalCertificateValidation, err.Error()
		}
		r = withExternalCertificate(r, s)
	}
	if !extended {
		return "", ""
	}
	if errs := routecore.ValidateCertificates(r); len(errs) > 0 {
		return ReasonExtendedValidationFailed, errs.ToAggregate().Error()
	}
	return "", ""
}

// withExternalCertificate returns r with the secret's certificate and key
// in place of the reference.
func withExternalCertificate(r *routecore.Route, s *corev1.Secret) *routecore.Route {
	out := r.DeepCopy()
	out.Spec.TLS.Certificate = string(s.Data[corev1.TLSCertKey])
	out.Spec.TLS.Key = string(s.Data[corev1.TLSPrivateKeyKey])
	return out
}
