// Package ingress turns Kubernetes Ingresses into the Routes that serve
// them. Translate is the pure mapping, used by the controller (which makes
// the cluster match it) and by `routeshift translate` (which prints it).
//
// It imports routecore for the Route model and its rules; it must not
// import the webhook, the router (router/, haproxy/) or internal/cli.
package ingress

import (
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/ingress/nginx"
	"github.com/routeshift/routeshift/routecore"
)

// Annotations and names of the Ingress mapping (route-api.md §4).
const (
	// DefaultControllerName is the IngressClass spec.controller of Ingresses
	// this controller manages, the same as OpenShift's.
	DefaultControllerName = "openshift.io/ingress-to-route"
	// ClassAnnotation is the legacy class annotation; it wins over
	// spec.ingressClassName, even when empty.
	ClassAnnotation = "kubernetes.io/ingress.class"
	// TerminationAnnotation selects edge, passthrough or reencrypt.
	TerminationAnnotation = "route.openshift.io/termination"
	// DestinationCAAnnotation names a Secret whose tls.crt becomes the
	// destinationCACertificate of reencrypt Routes.
	DestinationCAAnnotation = "route.openshift.io/destination-ca-certificate-secret"
	// ReconcileLabelsAnnotation, when true, keeps Route labels equal to the
	// Ingress's labels after creation too.
	ReconcileLabelsAnnotation = "route.openshift.io/reconcile-labels"
	// lastAppliedAnnotation is kubectl's record of the Ingress manifest; it
	// is not copied, or kubectl would mistake it for the Route's own.
	lastAppliedAnnotation = corev1.LastAppliedConfigAnnotation
)

// Objects gives Translate the objects an Ingress refers to, in the
// Ingress's namespace (IngressClasses are cluster-scoped). A nil result
// means "not found".
type Objects interface {
	Service(namespace, name string) *corev1.Service
	Secret(namespace, name string) *corev1.Secret
	IngressClass(name string) *networkingv1.IngressClass
	// AllIngressClasses are every IngressClass (to find the default one).
	AllIngressClasses() []*networkingv1.IngressClass
	// Ingresses are the Ingresses of a namespace with a rule for host.
	Ingresses(namespace, host string) []*networkingv1.Ingress
	// Canaries are the Ingresses of a namespace with a rule for host that
	// carry ingress-nginx's canary annotation.
	Canaries(namespace, host string) []*networkingv1.Ingress
}

// Result is what an Ingress should become.
type Result struct {
	// Managed is false when the Ingress belongs to another controller, or
	// names an IngressClass that does not exist; then Routes and Problems
	// are empty and its Routes are left alone.
	Managed bool
	// Adopted is true when the Ingress was written for ingress-nginx and
	// its annotations were converted (Conversion holds what became of them).
	Adopted bool
	// Conversion is the conversion of an adopted Ingress's annotations.
	Conversion *nginx.Conversion
	// Canary is true for an adopted canary Ingress: its backends become
	// alternate backends of its primary Ingress's Routes, and it has no
	// Routes of its own.
	Canary bool
	// MissingClass names the IngressClass of an unmanaged Ingress when that
	// class does not exist (rather than belonging to another controller).
	MissingClass string
	// Routes are the desired Routes, defaulted as the webhook would, each
	// owned by the Ingress, in rule and path order.
	Routes []*routecore.Route
	// Problems explain every rule and path that produced no Route.
	Problems []string
	// ReconcileLabels is the parsed reconcile-labels annotation.
	ReconcileLabels bool
	// InvalidReconcileLabels describes an unparsable reconcile-labels value.
	InvalidReconcileLabels string
}

// Translate maps an Ingress of the controller's own class to Routes (see
// TranslateWith); it adopts no other class.
func Translate(ing *networkingv1.Ingress, objs Objects, controllerName string) Result {
	return TranslateWith(ing, objs, Options{ControllerName: controllerName})
}

// TranslateWith maps an Ingress to Routes: one per rule host and HTTP path.
// Rules and paths that cannot be mapped are skipped with a problem saying
// why; Routes that routecore would reject are skipped the same way, so the
// controller never writes a Route the webhook refuses. An adopted Ingress's
// ingress-nginx annotations are converted first; an adopted canary Ingress
// has no Routes of its own, its backends join its primary's Routes.
func TranslateWith(ing *networkingv1.Ingress, objs Objects, opts Options) Result {
	if opts.ControllerName == "" {
		opts.ControllerName = DefaultControllerName
	}
	if reflect.ValueOf(opts.Nginx).IsZero() {
		opts.Nginx = nginx.DefaultGlobals() // no ConfigMap known: ingress-nginx's documented defaults
	}
	managed, adopted, missing := classify(ing, objs, opts)
	if !managed {
		return Result{MissingClass: missing}
	}
	res := Result{Managed: true, Adopted: adopted}
	res.ReconcileLabels, res.InvalidReconcileLabels = reconcileLabels(ing)
	var conv *nginx.Conversion
	if adopted {
		c := convert(ing, opts)
		conv = &c
		res.Conversion = conv
		if c.Canary != nil {
			res.Canary = true
			res.Problems = canaryProblems(ing, objs, opts)
			return res
		}
	}
	names := map[string]bool{}
	for i := range ing.Spec.Rules {
		rule := &ing.Spec.Rules[i]
		switch {
		case rule.HTTP == nil:
			res.problem("Missing http field in rule at index %d", i)
			continue
		case rule.Host == "":
			res.problem("Missing host field in rule at index %d", i)
			continue
		case len(rule.HTTP.Paths) == 0:
			// The API server refuses such rules; files can still hold them.
			res.problem("Missing paths in rule at index %d", i)
			continue
		}
		tls, err := tlsFor(ing, rule.Host, objs, conv)
		if err != nil {
			res.problem("%s", err)
			continue
		}
		hosts := []string{rule.Host}
		if conv != nil {
			hosts = append(hosts, conv.ExtraHosts...)
		}
		for j := range rule.HTTP.Paths {
			p := rule.HTTP.Paths[j]
			path, rewrite, err := routePath(conv, p.Path)
			if err != nil {
				res.problem("Path %q cannot be served: %s at index %d, path index %d", p.Path, err, i, j)
				continue
			}
			canaries := []canaryBackend(nil)
			if conv != nil {
				canaries = canariesFor(ing, rule.Host, p.Path, objs, opts)
			}
			p.Path = path
			if conv != nil && tls != nil && tls.Termination == routecore.TLSTerminationPassthrough && p.Path == "/" {
				p.Path = "" // ingress-nginx passes a host's TLS through whatever the path
			}
			for _, host := range hosts {
				r, err := routeFor(ing, host, &p, tls, objs)
				if err != nil {
					res.problem("%s at index %d, path index %d", err, i, j)
					continue
				}
				r.Name = uniqueName(names, ing.Name, r.Spec.Host, r.Spec.Path)
				if conv != nil {
					applyConversion(r, conv, rewrite)
					if problem := mergeCanaries(r, canaries); problem != "" {
						res.problem("%s", problem)
					}
				}
				routecore.Default(r, nil, routecore.DefaultOptions{})
				if errs := routecore.ValidateRoute(r, routecore.ValidateOptions{}); len(errs) > 0 {
					res.problem("Route for host %q and path %q would be rejected: %s at index %d, path index %d",
						host, r.Spec.Path, errs.ToAggregate().Error(), i, j)
					continue
				}
				res.Routes = append(res.Routes, r)
			}
		}
	}
	return res
}

func (r *Result) problem(format string, args ...any) {
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// reconcileLabels parses the reconcile-labels annotation as OpenShift does;
// an unparsable value counts as false and is described.
func reconcileLabels(ing *networkingv1.Ingress) (bool, string) {
	v, ok := ing.Annotations[ReconcileLabelsAnnotation]
	if !ok {
		return false, ""
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, fmt.Sprintf("Invalid value on annotation %q due to: %q", ReconcileLabelsAnnotation, err.Error())
	}
	return b, ""
}

// tlsFor returns the TLS configuration of the Routes for host, or nil for
// plain HTTP. A TLS secret that is referenced but unusable is an error: no
// Route is made for the host.
func tlsFor(ing *networkingv1.Ingress, host string, objs Objects, conv *nginx.Conversion) (*routecore.TLSConfig, error) {
	var secret *corev1.Secret
	referenced := false
	for _, t := range ing.Spec.TLS {
		if slices.Contains(t.Hosts, host) {
			referenced = true
			if t.SecretName != "" {
				secret = objs.Secret(ing.Namespace, t.SecretName)
			}
			break
		}
	}
	if referenced && !usableTLSSecret(secret) {
		return nil, fmt.Errorf("Invalid or missing TLS secret for rule host %q", host)
	}
	termination := routecore.TLSTerminationType(ing.Annotations[TerminationAnnotation])
	if _, set := ing.Annotations[TerminationAnnotation]; !set && conv != nil {
		termination = conv.Termination
	}
	explicit := termination == routecore.TLSTerminationEdge || termination == routecore.TLSTerminationPassthrough ||
		termination == routecore.TLSTerminationReencrypt
	emptyEntry := slices.ContainsFunc(ing.Spec.TLS, func(t networkingv1.IngressTLS) bool { return len(t.Hosts) == 0 && t.SecretName == "" })
	if !explicit && !referenced && !emptyEntry {
		return nil, nil
	}
	if termination != routecore.TLSTerminationPassthrough && termination != routecore.TLSTerminationReencrypt {
		termination = routecore.TLSTerminationEdge
	}
	tls := &routecore.TLSConfig{Termination: termination, InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyRedirect}
	if secret != nil && termination != routecore.TLSTerminationPassthrough {
		tls.Certificate, tls.Key = string(secret.Data[corev1.TLSCertKey]), string(secret.Data[corev1.TLSPrivateKeyKey])
	}
	if conv != nil && conv.InsecureEdgeTerminationPolicy != "" &&
		(termination != routecore.TLSTerminationPassthrough || conv.InsecureEdgeTerminationPolicy != routecore.InsecureEdgeTerminationPolicyAllow) {
		tls.InsecureEdgeTerminationPolicy = conv.InsecureEdgeTerminationPolicy
	}
	if termination == routecore.TLSTerminationReencrypt && conv != nil && conv.DestinationCASecret != "" && ing.Annotations[DestinationCAAnnotation] == "" {
		tls.DestinationCACertificate = destinationCA(ing, conv.DestinationCASecret, objs)
	}
	if termination == routecore.TLSTerminationReencrypt {
		if name := ing.Annotations[DestinationCAAnnotation]; name != "" {
			if ca := objs.Secret(ing.Namespace, name); ca != nil && (ca.Type == corev1.SecretTypeTLS || ca.Type == corev1.SecretTypeOpaque) {
				tls.DestinationCACertificate = string(ca.Data[corev1.TLSCertKey])
			}
		}
	}
	return tls, nil
}

func usableTLSSecret(s *corev1.Secret) bool {
	if s == nil || s.Type != corev1.SecretTypeTLS {
		return false
	}
	_, crt := s.Data[corev1.TLSCertKey]
	_, key := s.Data[corev1.TLSPrivateKeyKey]
	return crt && key
}

// routeFor maps one HTTP path of a rule.
func routeFor(ing *networkingv1.Ingress, host string, p *networkingv1.HTTPIngressPath, tls *routecore.TLSConfig, objs Objects) (*routecore.Route, error) {
	backend := p.Backend.Service
	switch {
	case backend == nil:
		return nil, errors.New("Missing backend service field in rule")
	case backend.Name == "":
		return nil, errors.New("Missing backend service name in rule")
	}
	svc := objs.Service(ing.Namespace, backend.Name)
	if svc == nil {
		return nil, fmt.Errorf("Backend service %q not found", backend.Name)
	}
	port, ok := targetPort(svc, backend.Port)
	if !ok {
		return nil, fmt.Errorf("No valid target port for backend service %q", backend.Name)
	}
	if tls != nil && tls.Termination == routecore.TLSTerminationPassthrough && p.Path != "" {
		return nil, fmt.Errorf("Path %q cannot be served with passthrough termination (the router cannot see paths in encrypted traffic): remove the path or the %s annotation",
			p.Path, TerminationAnnotation)
	}
	r := &routecore.Route{
		TypeMeta: metav1.TypeMeta{APIVersion: routecore.GroupVersion.String(), Kind: "Route"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       ing.Namespace,
			Labels:          copyMap(ing.Labels),
			Annotations:     routeAnnotations(ing, p),
			OwnerReferences: ownerReferences(ing),
		},
		Spec: routecore.RouteSpec{Host: host, Path: p.Path, Port: port, TLS: tls.DeepCopy(),
			To: routecore.RouteTargetReference{Kind: "Service", Name: backend.Name}},
	}
	if strings.HasPrefix(host, "*.") {
		r.Spec.Host = "wildcard." + host[2:]
		r.Spec.WildcardPolicy = routecore.WildcardPolicySubdomain
	}
	return r, nil
}

// targetPort resolves the Ingress backend port against the Service: a port
// named by the Ingress must exist; a port number selects that Service port.
// The Route targets the port by name, or all ports when it is unnamed.
func targetPort(svc *corev1.Service, port networkingv1.ServiceBackendPort) (*routecore.RoutePort, bool) {
	for _, sp := range svc.Spec.Ports {
		switch {
		case port.Name != "" && sp.Name == port.Name, port.Name == "" && sp.Port == port.Number:
			if sp.Name == "" {
				return nil, true
			}
			return &routecore.RoutePort{TargetPort: intstr.FromString(sp.Name)}, true
		}
	}
	return nil, false
}

// routeAnnotations are the Ingress's annotations (but kubectl's record of
// the Ingress manifest and the controller's record of the Ingress's status),
// plus the exact-path annotation for Exact paths.
// The path type belongs to each path: an Ingress-level path-type annotation
// is not copied, or it would turn Prefix paths into exact ones. Nor are
// cert-manager's: its ingress-shim issues the Ingress's certificate into
// the Ingress's Secret, which the Routes serve; on a Route they would ask
// for a second certificate.
func routeAnnotations(ing *networkingv1.Ingress, p *networkingv1.HTTPIngressPath) map[string]string {
	out := make(map[string]string, len(ing.Annotations)+1)
	for k, v := range ing.Annotations {
		if k != lastAppliedAnnotation && k != routecore.AnnPathType && k != PublishedAddressesAnnotation && !routecore.IsCertManagerAnnotation(k) {
			out[k] = v
		}
	}
	if p.PathType != nil && *p.PathType == networkingv1.PathTypeExact && p.Path != "" {
		out[routecore.AnnPathType] = "Exact"
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// ownerReferences makes the Ingress the Route's controller; an Ingress read
// from a file has no UID yet, and its Routes are left without an owner.
func ownerReferences(ing *networkingv1.Ingress) []metav1.OwnerReference {
	if ing.UID == "" {
		return nil
	}
	return []metav1.OwnerReference{OwnerReference(ing)}
}

// OwnerReference is the controller reference of an Ingress's Routes.
func OwnerReference(ing *networkingv1.Ingress) metav1.OwnerReference {
	controller := true
	return metav1.OwnerReference{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Name: ing.Name, UID: ing.UID, Controller: &controller}
}

func copyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// nameSuffixLength is the length of the hash that makes Route names unique.
const nameSuffixLength = 5

var lowerBase32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// RouteName is the deterministic name of the Route for host and path of an
// Ingress: the Ingress name, shortened to fit 63 characters, a dash and 5
// characters of a hash of host and path. The same Ingress always yields the
// same names, so a restarted controller finds its Routes and a migration
// dry-run shows the names the cluster will get.
func RouteName(ingress, host, path string) string {
	return routeName(ingress, host+"\x00"+path)
}

func routeName(ingress, seed string) string {
	sum := sha256.Sum256([]byte(seed))
	prefix := ingress
	if limit := routecore.MaxNameLength - 1 - nameSuffixLength; len(prefix) > limit {
		prefix = strings.TrimRight(prefix[:limit], "-.")
	}
	return prefix + "-" + lowerBase32.EncodeToString(sum[:])[:nameSuffixLength]
}

// uniqueName is RouteName, re-seeded in the unlikely event that two paths
// of one Ingress hash alike.
func uniqueName(taken map[string]bool, ingress, host, path string) string {
	name := RouteName(ingress, host, path)
	for i := 1; taken[name]; i++ {
		name = routeName(ingress, fmt.Sprintf("%s\x00%s\x00%d", host, path, i))
	}
	taken[name] = true
	return name
}
