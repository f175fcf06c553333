package haproxy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
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
)

// AdmissionConfig is what a router instance admits: its shard and its rules.
type AdmissionConfig struct {
	// RouteSelector and NamespaceSelector select the shard (ROUTE_LABELS,
	// NAMESPACE_LABELS or PROJECT_LABELS); nil selects everything.
	RouteSelector     labels.Selector
	NamespaceSelector labels.Selector
	// AllowedDomains and DeniedDomains restrict hosts; denied wins.
	AllowedDomains DomainList
	DeniedDomains  DomainList
	// AllowWildcardRoutes admits wildcardPolicy Subdomain routes.
	AllowWildcardRoutes bool
	// DisableNamespaceOwnershipCheck lets any namespace claim hosts and
	// subdomains; only host+path conflicts remain.
	DisableNamespaceOwnershipCheck bool
	// ExtendedValidation checks certificates (EXTENDED_VALIDATION).
	ExtendedValidation bool
	// HostnameTemplate (ROUTER_SUBDOMAIN) names routes without a host, and
	// with OverrideHostname all routes, or with OverrideDomains the routes
	// under those domains.
	HostnameTemplate HostnameTemplate
	OverrideHostname bool
	OverrideDomains  DomainList
	// RouterDomain (ROUTER_DOMAIN) completes spec.subdomain into a host.
	RouterDomain string
	// AllowLoopbackEndpoints lets endpoints on loopback be routed to.
	AllowLoopbackEndpoints bool
}

// Verdict is what a router decided about a route.
type Verdict int

// Verdicts.
const (
	// Ignored: the route is not in this router's shard; the router writes
	// no status for it (and removes an entry it wrote before).
	Ignored Verdict = iota
	Admitted
	Rejected
)

func (v Verdict) String() string {
	return [...]string{"ignored", "admitted", "rejected"}[v]
}

// Decision is a router's judgement of one route, as status reports it.
type Decision struct {
	Verdict         Verdict
	Reason, Message string
	// Host is the effective host (after ROUTER_SUBDOMAIN and friends).
	Host           string
	WildcardPolicy routecore.WildcardPolicyType
}

// contender is a route that passed the checks that need no other route,
// competing for its host.
type contender struct {
	key       string
	namespace string
	name      string
	uid       types.UID
	created   time.Time
	host      string
	wildcard  bool
	path      string
	tls       bool
	passthru  bool
	// certReason and certMessage reject the route after it won its claim:
	// a route with a broken certificate still holds its host, so that no
	// other namespace takes it over.
	certReason, certMessage string
	// holds records whether the contender held its claim when the Store
	// last judged it.
	holds bool
}

// older orders contenders: earlier creation first, ties by UID.
func older(a, b *contender) int {
	return cmp.Or(a.created.Compare(b.created), cmp.Compare(a.uid, b.uid))
}

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

// precheck judges what needs no other route: validity (defensive: the
// webhook may have been bypassed), domains, wildcard permission and, when
// enabled, certificates. It returns the rejection, or the contender.
func (c *AdmissionConfig) precheck(key string, r *routecore.Route, host string, secret func(name string) *corev1.Secret) (*Decision, *contender) {
	d := &Decision{Verdict: Rejected, Host: host, WildcardPolicy: r.Spec.WildcardPolicy}
	if d.WildcardPolicy == "" {
		d.WildcardPolicy = routecore.WildcardPolicyNone
	}
	if host == "" {
		d.Reason, d.Message = ReasonNoHostValue, "no host value was defined for the route"
		return d, nil
	}
	checked := r.DeepCopy()
	checked.Spec.Host = host
	if errs := routecore.ValidateRoute(checked, routecore.ValidateOptions{SkipCertificateChecks: true, SkipAnnotationValues: true}); len(errs) > 0 {
		d.Reason, d.Message = validationRejection(errs)
		return d, nil
	}
	switch {
	case c.DeniedDomains.Matches(host):
		d.Reason, d.Message = ReasonNotAdmitted, "host in list of denied domains"
		return d, nil
	case len(c.AllowedDomains) > 0 && !c.AllowedDomains.Matches(host):
		d.Reason, d.Message = ReasonNotAdmitted, "host not in the allowed list of domains"
		return d, nil
	case r.Spec.WildcardPolicy == routecore.WildcardPolicySubdomain && !c.AllowWildcardRoutes:
		d.Reason, d.Message = ReasonNotAdmitted, "wildcard routes are not allowed"
		return d, nil
	}
	ct := &contender{key: key, namespace: r.Namespace, name: r.Name, uid: r.UID, created: r.CreationTimestamp.Time,
		host: host, wildcard: r.Spec.WildcardPolicy == routecore.WildcardPolicySubdomain, path: r.Spec.Path}
	if tls := r.Spec.TLS; tls != nil {
		ct.tls, ct.passthru = true, tls.Termination == routecore.TLSTerminationPassthrough
	}
	if c.ExtendedValidation {
		ct.certReason, ct.certMessage = certificateRejection(r, secret)
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

// certificateRejection runs the certificate checks on the route's own
// certificates, or on its external certificate secret's.
func certificateRejection(r *routecore.Route, secret func(name string) *corev1.Secret) (string, string) {
	tls := r.Spec.TLS
	if tls == nil {
		return "", ""
	}
	if ext := tls.ExternalCertificate; ext != nil && ext.Name != "" {
		s := secret(ext.Name)
		path := field.NewPath("spec", "tls", "externalCertificate")
		switch {
		case s == nil:
			return ReasonExternalCertificateValidation, field.NotFound(path, fmt.Sprintf("secrets %q not found", ext.Name)).Error()
		case s.Type != corev1.SecretTypeTLS:
			return ReasonExternalCertificateValidation, field.Invalid(path, ext.Name, fmt.Sprintf("secret of type %q required", corev1.SecretTypeTLS)).Error()
		}
		r = withExternalCertificate(r, s)
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

// judge decides, oldest first, which contenders win their claims: a
// contender holds its claim unless an older holder conflicts with it, and is
// admitted when it holds it and its certificates pass. Contenders of one
// domain interact only through the same host or through wildcard routes, so
// callers may judge one host's contenders alone when the domain has no
// wildcard contender. held are plain contenders outside the judged set that
// hold their claims: they count as older holders of their namespace's hosts
// (which is all a wildcard route asks of the domain's other hosts) and are
// not decided. decide receives each judged contender's decision and whether
// it holds its claim.
func (c *AdmissionConfig) judge(contenders, held []*contender, decide func(ct *contender, d Decision, holds bool)) {
	slices.SortFunc(contenders, older)
	slices.SortFunc(held, older)
	byHost := map[string][]*contender{}
	var wildcards []*contender
	plainByNamespace := map[string]*contender{}
	hold := func(ct *contender) {
		if _, ok := plainByNamespace[ct.namespace]; !ok {
			plainByNamespace[ct.namespace] = ct
		}
	}
	for _, ct := range contenders {
		for len(held) > 0 && older(held[0], ct) < 0 {
			hold(held[0])
			held = held[1:]
		}
		msg := c.claimConflict(ct, byHost[ct.host], wildcards, plainByNamespace)
		d := Decision{Verdict: Admitted, Host: ct.host, WildcardPolicy: routecore.WildcardPolicyNone}
		if ct.wildcard {
			d.WildcardPolicy = routecore.WildcardPolicySubdomain
		}
		if msg != "" {
			d.Verdict, d.Reason, d.Message = Rejected, ReasonHostAlreadyClaimed, msg
			decide(ct, d, false)
			continue
		}
		if ct.wildcard {
			wildcards = append(wildcards, ct)
		} else {
			byHost[ct.host] = append(byHost[ct.host], ct)
			hold(ct)
		}
		if ct.certReason != "" {
			d.Verdict, d.Reason, d.Message = Rejected, ct.certReason, ct.certMessage
		}
		decide(ct, d, true)
	}
}

// claimConflict returns why ct loses to an older contender holding its
// claim, or "". While the namespace ownership check is on, messages never
// name Routes of other namespaces: their names are not the reader's
// business. With it off, any namespace may share a host, and a conflict
// names the Route holding the host and path, whatever its namespace, as
// OpenShift's router does.
func (c *AdmissionConfig) claimConflict(ct *contender, sameHost, wildcards []*contender, plainByNamespace map[string]*contender) string {
	foreign := func(o *contender) bool { return o.namespace != ct.namespace && !c.DisableNamespaceOwnershipCheck }
	exposes := func(o *contender) string {
		return fmt.Sprintf("route %s already exposes %s and is older", o.name, ct.host)
	}
	if !ct.wildcard {
		for _, o := range sameHost {
			switch {
			case foreign(o):
				return fmt.Sprintf("a route in another namespace holds %s and is older than %s", ct.host, ct.name)
			case sameHostConflict(o, ct):
				return exposes(o)
			}
		}
		for _, w := range wildcards {
			switch {
			case foreign(w):
				return fmt.Sprintf("a route in another namespace holds host %s", ct.host)
			case w.host == ct.host && sameHostConflict(w, ct):
				// The wildcard route's own host is its claim too: the
				// younger plain route would take that host's traffic.
				return exposes(w)
			}
		}
		return ""
	}
	for _, w := range wildcards {
		switch {
		case foreign(w):
			return fmt.Sprintf("a route in another namespace holds host %s", ct.host)
		case w.path == ct.path:
			return fmt.Sprintf("wildcard route %s/%s has host *.%s, blocking %s", w.namespace, w.name, DomainKey(w.host), ct.host)
		case w.host == ct.host && sameHostConflict(w, ct):
			return exposes(w)
		}
	}
	if !c.DisableNamespaceOwnershipCheck {
		for ns := range plainByNamespace {
			if ns != ct.namespace {
				return fmt.Sprintf("a route in another namespace holds host %s", ct.host)
			}
		}
	}
	// Its own host is a wildcard route's claim too, under the rules of
	// plain routes (OpenShift's UniqueHost): the routes of the host that
	// are left belong to ct's namespace, or the check is off.
	for _, o := range sameHost {
		if sameHostConflict(o, ct) {
			return exposes(o)
		}
	}
	return ""
}

// sameHostConflict reports whether two routes of one host cannot both hold
// it: they have the same path, or both are TLS routes and one is
// passthrough (which takes the host's whole TLS traffic, by SNI).
func sameHostConflict(a, b *contender) bool {
	return a.path == b.path || (a.tls && b.tls && (a.passthru || b.passthru))
}
