package routecore

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/certs"
)

// MaxNameLength is the longest route name routeshift accepts, as OpenShift
// documents it: longer names cannot become the first label of a generated
// host.
const MaxNameLength = 63

// ValidateOptions configures validation.
// +kubebuilder:object:generate=false
type ValidateOptions struct {
	// SkipCertificateChecks turns off the certificate checks (the router's
	// EXTENDED_VALIDATION=false, or a webhook configured not to check).
	SkipCertificateChecks bool
	// SkipAnnotationValues turns off the checks of router annotation
	// values: the router ignores values it cannot use instead of refusing
	// the route.
	SkipAnnotationValues bool
}

// ValidateRoute validates a Route being created, after Default. It returns
// every problem as a field error with OpenShift's path, type and message.
func ValidateRoute(route *Route, opts ValidateOptions) field.ErrorList {
	return validate(&check{route: route, opts: opts})
}

// ValidateRouteUpdate validates an update of old to route, after Default.
// Rules that would make stored routes uneditable ratchet: the host label
// rule and the path character rule apply only to changed values, unchanged
// annotation values and certificates are not re-checked, and
// spec.wildcardPolicy may not change.
func ValidateRouteUpdate(route, old *Route, opts ValidateOptions) field.ErrorList {
	return validate(&check{route: route, old: old, opts: opts})
}

// ValidateExternalCertificateSecret checks the Secret named by
// spec.tls.externalCertificate (at path): it must exist (secret nil means
// it does not) and be of type kubernetes.io/tls. The webhook and the
// router both call it, so a route is refused with the same words.
func ValidateExternalCertificateSecret(path *field.Path, name string, secret *corev1.Secret) *field.Error {
	switch {
	case secret == nil:
		return field.NotFound(path, fmt.Sprintf("secrets %q not found", name))
	case secret.Type != corev1.SecretTypeTLS:
		return field.Invalid(path, name, fmt.Sprintf("secret of type %q required", corev1.SecretTypeTLS))
	}
	return nil
}

// ValidateCertificates runs only the certificate checks: what the router
// runs when EXTENDED_VALIDATION is on, reporting ExtendedValidationFailed.
func ValidateCertificates(route *Route) field.ErrorList {
	tls := route.Spec.TLS
	if tls == nil || (tls.Termination != TLSTerminationEdge && tls.Termination != TLSTerminationReencrypt) {
		return nil
	}
	in := certs.RouteTLS{Certificate: tls.Certificate, Key: tls.Key, CACertificate: tls.CACertificate}
	if tls.Termination == TLSTerminationReencrypt {
		in.DestinationCACertificate = tls.DestinationCACertificate
	}
	return certs.ValidateRouteTLS(in, field.NewPath("spec", "tls"))
}

// check is one validation run: the route, the stored route on update, and
// the options.
// +kubebuilder:object:generate=false
type check struct {
	route *Route
	old   *Route
	opts  ValidateOptions

	annotationsChecked bool
	annotationKeyErrs  field.ErrorList
	annotationValErrs  field.ErrorList
}

// annotationErrors checks the annotations once per run, for metadata (keys)
// and annotations (values). It first runs in map order, and again in key
// order only when there are several errors to order: most routes have none,
// and sorting is a good part of the cost of validating many annotations.
func (c *check) annotationErrors() (keyErrs, valueErrs field.ErrorList) {
	if !c.annotationsChecked {
		c.annotationsChecked = true
		var old map[string]string
		if !c.creating() {
			old = c.old.Annotations
		}
		a := c.route.Annotations
		checkValues := !c.opts.SkipAnnotationValues
		c.annotationKeyErrs, c.annotationValErrs = annotationErrors(a, nil, old, checkValues)
		if len(c.annotationKeyErrs) > 1 || len(c.annotationValErrs) > 1 {
			c.annotationKeyErrs, c.annotationValErrs = annotationErrors(a, sortedKeys(a), old, checkValues)
		}
	}
	return c.annotationKeyErrs, c.annotationValErrs
}

var (
	specPath        = field.NewPath("spec")
	annotationsPath = field.NewPath("metadata", "annotations")
)

// routeRules is the order of validation, top to bottom; it is also the order
// of the messages users read.
var routeRules = []func(*check) field.ErrorList{
	(*check).metadata,
	(*check).annotations,
	(*check).certManager,
	(*check).hostAndSubdomain,
	(*check).path,
	(*check).backends,
	(*check).port,
	(*check).tls,
	(*check).wildcardPolicy,
	(*check).headers,
	(*check).certificates,
}

func validate(c *check) field.ErrorList {
	var errs field.ErrorList
	for _, rule := range routeRules {
		errs = append(errs, rule(c)...)
	}
	return errs
}

func (c *check) creating() bool { return c.old == nil }

func (c *check) metadata() field.ErrorList {
	meta, path := &c.route.ObjectMeta, field.NewPath("metadata")
	// Annotation keys are checked below, in a stable order and without
	// re-checking the catalogue's own keys.
	withoutAnnotations := *meta
	withoutAnnotations.Annotations = nil
	errs := apivalidation.ValidateObjectMeta(&withoutAnnotations, true, nameIsDNSSubdomain, path)
	if c.creating() && meta.Name == "" && meta.GenerateName != "" {
		// The API server names the Route from generateName before it stores
		// it (the mutating webhook names it even earlier, to generate a
		// host): no name is needed yet, whatever ValidateObjectMeta says.
		errs = slices.DeleteFunc(errs, func(e *field.Error) bool { return e.Type == field.ErrorTypeRequired && e.Field == "metadata.name" })
		errs = append(errs, c.generatedHostLabel()...)
	}
	keyErrs, _ := c.annotationErrors()
	errs = append(errs, keyErrs...)
	if c.creating() && len(meta.Name) > MaxNameLength {
		errs = append(errs, field.Invalid(path.Child("name"), meta.Name, fmt.Sprintf("must be no more than %d characters", MaxNameLength)))
	}
	for i, f := range meta.Finalizers {
		if !strings.Contains(f, "/") && f != "kubernetes" && f != "orphan" && f != "foregroundDeletion" {
			errs = append(errs, field.Invalid(path.Child("finalizers").Index(i), f, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	if !c.creating() {
		// What may not change; the labels and annotation keys, which the
		// update check would judge again (the keys in map order), are
		// judged above.
		changed := withoutAnnotations
		changed.Labels = nil
		errs = append(errs, apivalidation.ValidateObjectMetaUpdate(withResourceVersion(&changed), withResourceVersion(&c.old.ObjectMeta), path)...)
	}
	return errs
}

// generatedNameSuffix stands for the 5 random characters the API server
// appends to metadata.generateName (cut to 58 characters first, so that
// generated names have at most 63).
const generatedNameSuffix = "xxxxx"

// generatedName is a name of the length and form the API server generates
// from prefix.
func generatedName(prefix string) string {
	return prefix[:min(len(prefix), MaxNameLength-len(generatedNameSuffix))] + generatedNameSuffix
}

// generatedHostLabel checks, for a Route created with only
// metadata.generateName, that the host generated from its name will have a
// first label of at most 63 characters; the webhook, which names such a
// Route before generating its host, reports the same on spec.host.
func (c *check) generatedHostLabel() field.ErrorList {
	r := c.route
	if !c.creating() || r.Name != "" || r.GenerateName == "" || r.Spec.Host != "" || r.Spec.Subdomain != "" ||
		r.Spec.WildcardPolicy == WildcardPolicySubdomain || r.Namespace == "" {
		return nil
	}
	label, _, _ := strings.Cut(GenerateHost(generatedName(r.GenerateName), r.Namespace, DefaultRouteSuffix), ".")
	if len(label) <= validation.DNS1123LabelMaxLength {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata", "generateName"), r.GenerateName, fmt.Sprintf(
		"the host generated for this Route would start with <name>-<namespace>, %d characters: must be no more than %d; shorten generateName or the namespace",
		len(label), validation.DNS1123LabelMaxLength))}
}

// nameIsDNSSubdomain is apivalidation.NameIsDNSSubdomain behind the fast path.
func nameIsDNSSubdomain(name string, prefix bool) []string {
	if !prefix && isLowerDNSSubdomain(name) {
		return nil
	}
	return apivalidation.NameIsDNSSubdomain(name, prefix)
}

// withResourceVersion returns meta with a resource version: optimistic
// concurrency is the API server's business, and offline or admission copies
// of an object may lack one.
func withResourceVersion(meta *metav1.ObjectMeta) *metav1.ObjectMeta {
	if meta.ResourceVersion != "" {
		return meta
	}
	m := *meta
	m.ResourceVersion = "0"
	return &m
}

func (c *check) annotations() field.ErrorList {
	_, valueErrs := c.annotationErrors()
	wrong, www, canary := c.annotationTerminations(), c.wwwRedirect(), c.canary()
	if len(wrong) > 0 || len(www) > 0 || len(canary) > 0 {
		return slices.Concat(valueErrs, wrong, www, canary)
	}
	return valueErrs
}

// annotationTerminations refuses the annotations that act only on some
// terminations (RefusedOutside) on a route of another. On update, an
// annotation the stored route had with the same value and termination is
// not refused again.
func (c *check) annotationTerminations() field.ErrorList {
	if c.opts.SkipAnnotationValues || len(c.route.Annotations) == 0 {
		return nil
	}
	term := c.route.termination()
	var errs field.ErrorList
	for _, a := range refusedOutside {
		v, ok := c.route.Annotations[a.Key]
		if !ok || slices.Contains(a.OnlyFor, term) {
			continue
		}
		if !c.creating() {
			if ov, had := c.old.Annotations[a.Key]; had && ov == v && c.old.termination() == term {
				continue
			}
		}
		errs = append(errs, field.Invalid(annotationsPath.Key(a.Key), v, "has no effect on "+terminationNoun(term)+
			", whose TLS the router passes through unread: remove it, or terminate TLS at the router (edge or reencrypt)"))
	}
	return errs
}

func (c *check) hostAndSubdomain() field.ErrorList {
	spec := &c.route.Spec
	var errs field.ErrorList
	if spec.Host != "" {
		checkLabels := c.route.Annotations[AllowNonDNSCompliantHostAnnotation] != "true"
		if !c.creating() && (spec.Host == c.old.Spec.Host || !hostLabelsValid(c.old.Spec.Host)) {
			checkLabels = false
		}
		errs = append(errs, validateHost(spec.Host, checkLabels, specPath.Child("host"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, validateSubdomain(spec.Subdomain, specPath.Child("subdomain"))...)
	}
	return errs
}

func (c *check) path() field.ErrorList {
	p := c.route.Spec.Path
	if p == "" {
		return nil
	}
	path := specPath.Child("path")
	var errs field.ErrorList
	if !strings.HasPrefix(p, "/") {
		errs = append(errs, field.Invalid(path, p, "path must begin with /"))
	}
	if tls := c.route.Spec.TLS; tls != nil && tls.Termination == TLSTerminationPassthrough {
		errs = append(errs, field.Invalid(path, p, "passthrough termination does not support paths"))
	}
	if c.creating() || p != c.old.Spec.Path {
		if err := tooLong(path, p, MaxPathLength); err != nil {
			errs = append(errs, err)
		}
		if strings.ContainsAny(p, "# ") {
			errs = append(errs, field.Invalid(path, p, "cannot contain # or spaces"))
		}
		// routeshift: a router cannot match such a path (HAProxy's maps
		// end keys at white space and control characters), so it would be
		// admitted and never served.
		if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			errs = append(errs, field.Invalid(path, p, "cannot contain control characters such as tabs or newlines"))
		}
		// Nor bytes that are not UTF-8 (the API server's JSON decoding
		// replaces them, but Go callers of routecore can pass them): the
		// rewrite-target rule built from the path would be no valid
		// regular expression.
		if !utf8.ValidString(p) {
			errs = append(errs, field.Invalid(path, p, "must be valid UTF-8"))
		}
	}
	return errs
}

// MaxAlternateBackends is the number of alternate backends a route may have
// (four services in all).
const MaxAlternateBackends = 3

func (c *check) backends() field.ErrorList {
	spec := &c.route.Spec
	errs := structRules(&spec.To, specPath.Child("to"))
	alt := specPath.Child("alternateBackends")
	if len(spec.AlternateBackends) > MaxAlternateBackends {
		errs = append(errs, field.Required(alt, fmt.Sprintf("cannot specify more than %d alternate backends", MaxAlternateBackends)))
	}
	for i := range spec.AlternateBackends {
		errs = append(errs, structRules(&spec.AlternateBackends[i], alt.Index(i))...)
	}
	// The CRD declares alternateBackends a list map keyed by name and kind, so
	// the API server's schema check refuses a repeated backend; the same check
	// here lets `routeshift validate` refuse it offline, with the API server's
	// message (reported once per key, at its second appearance).
	seen := make(map[RouteTargetReference]int, len(spec.AlternateBackends))
	for i, b := range spec.AlternateBackends {
		key := RouteTargetReference{Kind: b.Kind, Name: b.Name}
		seen[key]++
		if seen[key] == 2 {
			errs = append(errs, field.Duplicate(alt.Index(i), map[string]interface{}{"kind": b.Kind, "name": b.Name}))
		}
	}
	return errs
}

func (c *check) port() field.ErrorList {
	port := c.route.Spec.Port
	if port == nil {
		return nil
	}
	tp := port.TargetPort
	if (tp.Type == intstr.Int && tp.IntVal == 0) || (tp.Type == intstr.String && tp.StrVal == "") {
		return field.ErrorList{field.Required(specPath.Child("port", "targetPort"), "")}
	}
	return nil
}

func (c *check) tls() field.ErrorList {
	tls := c.route.Spec.TLS
	if tls == nil {
		return nil
	}
	path := specPath.Child("tls")
	var errs field.ErrorList
	switch tls.Termination {
	case TLSTerminationPassthrough:
		notSupported := "passthrough termination does not support certificates"
		for _, f := range []struct{ name, value, redacted string }{
			{"certificate", tls.Certificate, "redacted certificate data"},
			{"key", tls.Key, "redacted key data"},
			{"caCertificate", tls.CACertificate, "redacted ca certificate data"},
			{"destinationCACertificate", tls.DestinationCACertificate, "redacted destination ca certificate data"},
		} {
			if f.value != "" {
				errs = append(errs, field.Invalid(path.Child(f.name), f.redacted, notSupported))
			}
		}
		if ext := tls.ExternalCertificate; ext != nil && ext.Name != "" {
			errs = append(errs, field.Invalid(path.Child("externalCertificate"), ext.Name, notSupported))
		}
	case TLSTerminationEdge, TLSTerminationReencrypt:
		if tls.Termination == TLSTerminationEdge && tls.DestinationCACertificate != "" {
			errs = append(errs, field.Invalid(path.Child("destinationCACertificate"), "redacted destination ca certificate data", "edge termination does not support destination certificates"))
		}
		if ext := tls.ExternalCertificate; ext != nil && ext.Name != "" && tls.Certificate != "" {
			errs = append(errs, field.Invalid(path.Child("externalCertificate"), ext.Name, "cannot specify both tls.certificate and tls.externalCertificate"))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("termination"), tls.Termination,
			[]TLSTerminationType{TLSTerminationEdge, TLSTerminationPassthrough, TLSTerminationReencrypt}))
	}
	return append(errs, validateInsecurePolicy(tls, path.Child("insecureEdgeTerminationPolicy"))...)
}

func validateInsecurePolicy(tls *TLSConfig, path *field.Path) field.ErrorList {
	switch p := tls.InsecureEdgeTerminationPolicy; {
	case p == "" || p == InsecureEdgeTerminationPolicyNone || p == InsecureEdgeTerminationPolicyRedirect:
		return nil
	case tls.Termination == TLSTerminationPassthrough:
		return field.ErrorList{field.Invalid(path, p, "invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Redirect, or empty")}
	case p != InsecureEdgeTerminationPolicyAllow:
		return field.ErrorList{field.Invalid(path, p, "invalid value for InsecureEdgeTerminationPolicy option, acceptable values are None, Allow, Redirect, or empty")}
	}
	return nil
}

func (c *check) wildcardPolicy() field.ErrorList {
	spec, path := &c.route.Spec, specPath.Child("wildcardPolicy")
	var errs field.ErrorList
	switch spec.WildcardPolicy {
	case "", WildcardPolicyNone:
	case WildcardPolicySubdomain:
		if spec.Host == "" {
			errs = append(errs, field.Invalid(path, spec.WildcardPolicy, "host name not specified for wildcard policy"))
		}
	default:
		errs = append(errs, field.NotSupported(path, spec.WildcardPolicy, []WildcardPolicyType{WildcardPolicyNone, WildcardPolicySubdomain}))
	}
	if !c.creating() && effectivePolicy(spec.WildcardPolicy) != effectivePolicy(c.old.Spec.WildcardPolicy) {
		errs = append(errs, apivalidation.ValidateImmutableField(spec.WildcardPolicy, c.old.Spec.WildcardPolicy, path)...)
	}
	return errs
}

func effectivePolicy(p WildcardPolicyType) WildcardPolicyType {
	if p == "" {
		return WildcardPolicyNone
	}
	return p
}

// certificates runs the certificate checks on create, and on update only
// when the certificate material changed.
func (c *check) certificates() field.ErrorList {
	tls := c.route.Spec.TLS
	if c.opts.SkipCertificateChecks || tls == nil {
		return nil
	}
	if !c.creating() && c.old.Spec.TLS != nil && sameCertificateMaterial(tls, c.old.Spec.TLS) {
		return nil
	}
	return ValidateCertificates(c.route)
}

func sameCertificateMaterial(a, b *TLSConfig) bool {
	return a.Termination == b.Termination && a.Certificate == b.Certificate && a.Key == b.Key &&
		a.CACertificate == b.CACertificate && a.DestinationCACertificate == b.DestinationCACertificate
}

// WarningOptions configures Warnings.
// +kubebuilder:object:generate=false
type WarningOptions struct {
	// GeneratedHostSuffix, when set, is the suffix this cluster generates
	// hosts with: a Route being created with a host marked generated that
	// this suffix would not give it is reported (it was copied from another
	// cluster). Leave it empty on update, where the stored host is kept.
	GeneratedHostSuffix string
}

// Warnings returns what is legal but probably not what the author meant:
// host and subdomain both set, a generated host copied from another
// cluster, unknown router annotation keys (with the closest known key), and
// annotations that have no effect on this route.
func Warnings(route *Route, opts WarningOptions) []string {
	var warnings []string
	if route.Spec.Host != "" && route.Spec.Subdomain != "" {
		warnings = append(warnings, "spec.host is set; spec.subdomain may be ignored")
	}
	if w := foreignGeneratedHost(route, opts.GeneratedHostSuffix); w != "" {
		warnings = append(warnings, w)
	}
	warnings = append(warnings, annotationWarnings(route)...)
	if w := canaryWarning(route); w != "" {
		warnings = append(warnings, w)
	}
	return warnings
}

// foreignGeneratedHost reports a host marked generated that this cluster's
// suffix would not generate: a Route exported from another cluster (oc get
// -o yaml) keeps the host that cluster gave it, which DNS here rarely serves.
func foreignGeneratedHost(route *Route, suffix string) string {
	if suffix == "" || route.Spec.Host == "" || route.Annotations[HostGeneratedAnnotation] != "true" {
		return ""
	}
	want := GenerateHost(route.Name, route.Namespace, suffix)
	if want == "" || route.Spec.Host == want {
		return ""
	}
	return fmt.Sprintf("spec.host: %s was generated by another cluster or for another route suffix (%s is %q); "+
		"this cluster would generate %s: remove spec.host and the annotation to get it, or remove the annotation to keep the host",
		route.Spec.Host, HostGeneratedAnnotation, "true", want)
}
