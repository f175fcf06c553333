package routecore

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultRouteSuffix is the routing subdomain generated hosts end in unless
// the cluster configures another: OpenShift's default.
const DefaultRouteSuffix = "router.default.svc.cluster.local"

// Annotations the route model reads or writes.
const (
	// HostGeneratedAnnotation marks a host the admission webhook generated.
	HostGeneratedAnnotation = "openshift.io/host.generated"
	// AllowNonDNSCompliantHostAnnotation set to "true" relaxes the per-label
	// host check to the DNS subdomain check alone.
	AllowNonDNSCompliantHostAnnotation = "route.openshift.io/allow-non-dns-compliant-host"
)

// ValidateRouteSuffix reports whether suffix can end generated hosts.
func ValidateRouteSuffix(suffix string) error {
	if errs := validation.IsDNS1123Subdomain(suffix); len(errs) > 0 {
		return fmt.Errorf("invalid DNS suffix: %s (%s)", suffix, strings.Join(errs, "; "))
	}
	return nil
}

// GenerateHost returns the host a route gets when it names none:
// <name with "." replaced by "-">-<namespace>.<suffix>. It returns "" when
// name or namespace is empty. An empty suffix means DefaultRouteSuffix.
func GenerateHost(name, namespace, suffix string) string {
	if name == "" || namespace == "" {
		return ""
	}
	if suffix == "" {
		suffix = DefaultRouteSuffix
	}
	return strings.ReplaceAll(name, ".", "-") + "-" + namespace + "." + suffix
}

// isLowerDNSLabel reports whether s is a DNS-1123 label: 1 to 63 characters
// of [a-z0-9-], starting and ending with a letter or digit. It is the fast
// path in front of apimachinery's regular expressions, which are consulted
// for the messages only when it fails.
func isLowerDNSLabel(s string) bool {
	return len(s) <= validation.DNS1123LabelMaxLength && isLabelShape(s)
}

// isLabelShape is isLowerDNSLabel without the length limit, which is what
// labels inside a DNS-1123 subdomain must satisfy.
func isLabelShape(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// isLowerDNSSubdomain reports whether s is a DNS-1123 subdomain.
func isLowerDNSSubdomain(s string) bool {
	if len(s) > validation.DNS1123SubdomainMaxLength {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if !isLabelShape(label) {
			return false
		}
	}
	return true
}

// dns1123SubdomainErrors is validation.IsDNS1123Subdomain behind the fast path.
func dns1123SubdomainErrors(s string) []string {
	if isLowerDNSSubdomain(s) {
		return nil
	}
	return validation.IsDNS1123Subdomain(s)
}

// dns1123LabelErrors is validation.IsDNS1123Label behind the fast path.
func dns1123LabelErrors(s string) []string {
	if isLowerDNSLabel(s) {
		return nil
	}
	return validation.IsDNS1123Label(s)
}

// hostLabelsValid reports whether every dot-separated label of host is a
// DNS-1123 label (an empty host has none to fail); it decides whether an
// update may keep an old host that predates the label rule.
func hostLabelsValid(host string) bool {
	if host == "" {
		return true
	}
	for label := range strings.SplitSeq(host, ".") {
		if !isLowerDNSLabel(label) {
			return false
		}
	}
	return true
}

// validateHost checks spec.host: always a DNS-1123 subdomain (one error, in
// OpenShift's words) and, when checkLabels is set, every label a DNS-1123
// label (one error per problem, the value being the whole host).
func validateHost(host string, checkLabels bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(dns1123SubdomainErrors(host)) > 0 {
		errs = append(errs, field.Invalid(fldPath, host, "host must conform to DNS 952 subdomain conventions"))
	}
	if checkLabels {
		for label := range strings.SplitSeq(host, ".") {
			for _, msg := range dns1123LabelErrors(label) {
				errs = append(errs, field.Invalid(fldPath, host, msg))
			}
		}
	}
	return errs
}

// validateSubdomain checks spec.subdomain: at most 253 characters and every
// label a DNS-1123 label (the value shown is the offending label).
func validateSubdomain(subdomain string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(subdomain) > validation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.Invalid(fldPath, subdomain, validation.MaxLenError(validation.DNS1123SubdomainMaxLength)))
	}
	for label := range strings.SplitSeq(subdomain, ".") {
		if msgs := dns1123LabelErrors(label); len(msgs) > 0 {
			errs = append(errs, field.Invalid(fldPath, label, strings.Join(msgs, ", ")))
		}
	}
	return errs
}
