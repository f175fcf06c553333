package routecore

import "strings"

// DefaultWeight is the weight of a backend that names none, as OpenShift's
// API defaults it (docs/validation.md lists every default).
const DefaultWeight int32 = 100

// DefaultOptions configures defaulting.
// +kubebuilder:object:generate=false
type DefaultOptions struct {
	// RouteSuffix ends generated hosts; empty means DefaultRouteSuffix.
	RouteSuffix string
}

// Default fills in everything a Route leaves unsaid, exactly as the
// admission webhook does it. old is nil on create and the stored object on
// update. Default is idempotent.
//
//   - spec.to.kind and alternateBackends[].kind "" -> Service
//   - weights nil -> 100 (an explicit 0 is kept)
//   - spec.wildcardPolicy "" -> None, and in status entries
//   - spec.tls.termination Edge/Passthrough/Reencrypt -> lower case;
//     "" -> edge unless destinationCACertificate is set
//   - create: a host is generated when host and subdomain are empty and the
//     wildcard policy is not Subdomain, and openshift.io/host.generated is set
//   - update: an empty host keeps the stored host, so re-applying a manifest
//     without a host is not a host change
func Default(route *Route, old *Route, opts DefaultOptions) {
	spec := &route.Spec
	defaultBackend(&spec.To)
	for i := range spec.AlternateBackends {
		defaultBackend(&spec.AlternateBackends[i])
	}
	if spec.WildcardPolicy == "" {
		spec.WildcardPolicy = WildcardPolicyNone
	}
	for i := range route.Status.Ingress {
		if route.Status.Ingress[i].WildcardPolicy == "" {
			route.Status.Ingress[i].WildcardPolicy = WildcardPolicyNone
		}
	}
	if tls := spec.TLS; tls != nil {
		switch lower := TLSTerminationType(strings.ToLower(string(tls.Termination))); {
		case lower == TLSTerminationEdge || lower == TLSTerminationPassthrough || lower == TLSTerminationReencrypt:
			tls.Termination = lower
		case tls.Termination == "" && tls.DestinationCACertificate == "":
			tls.Termination = TLSTerminationEdge
		}
	}
	switch {
	case old != nil:
		if spec.Host == "" {
			spec.Host = old.Spec.Host
		}
	case spec.Host == "" && spec.Subdomain == "" && spec.WildcardPolicy != WildcardPolicySubdomain:
		if host := GenerateHost(route.Name, route.Namespace, opts.RouteSuffix); host != "" {
			spec.Host = host
			if route.Annotations == nil {
				route.Annotations = map[string]string{}
			}
			route.Annotations[HostGeneratedAnnotation] = "true"
		}
	}
}

func defaultBackend(ref *RouteTargetReference) {
	if ref.Kind == "" {
		ref.Kind = "Service"
	}
	if ref.Weight == nil {
		w := DefaultWeight
		ref.Weight = &w
	}
}
