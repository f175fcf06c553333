package ingress

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/routeshift/routeshift/ingress/nginx"
	"github.com/routeshift/routeshift/routecore"
)

// NginxControllerName is the IngressClass spec.controller of
// ingress-nginx.
const NginxControllerName = "k8s.io/ingress-nginx"

// DefaultClassAnnotation marks the IngressClass the API server gives new
// Ingresses that name none.
const DefaultClassAnnotation = "ingressclass.kubernetes.io/is-default-class"

// canaryAnnotation marks an ingress-nginx canary Ingress.
const canaryAnnotation = nginx.Prefix + "canary"

// Options say which Ingresses Translate takes and how.
type Options struct {
	// ControllerName is the IngressClass controller whose Ingresses are
	// this controller's own (default DefaultControllerName).
	ControllerName string
	// AdoptClasses are classes (IngressClass names, or values of the
	// legacy class annotation) whose Ingresses were written for
	// ingress-nginx: they are taken too, with their ingress-nginx
	// annotations converted. A class named here needs no IngressClass.
	AdoptClasses []string
	// AdoptNginxClasses adopts, besides AdoptClasses, every IngressClass
	// whose controller is ingress-nginx's.
	AdoptNginxClasses bool
	// AdoptUnclassed converts the Ingresses that name no class. Without
	// it they are converted only when an adopted class is the cluster's
	// default IngressClass (so ingress-nginx served them).
	AdoptUnclassed bool
	// Nginx are ingress-nginx's ConfigMap settings for adopted Ingresses;
	// the zero value means nginx.DefaultGlobals (the ConfigMap is not known).
	Nginx nginx.Globals
}

// adopts reports whether the options adopt any Ingress at all.
func (o Options) adopts() bool {
	return len(o.AdoptClasses) > 0 || o.AdoptNginxClasses || o.AdoptUnclassed
}

// classify says whether an Ingress is taken (managed), and whether it is
// adopted: written for ingress-nginx, so its annotations are converted.
// The legacy annotation wins over spec.ingressClassName, even when empty.
// missing names a class that is neither adopted nor found.
func classify(ing *networkingv1.Ingress, objs Objects, opts Options) (managed, adopted bool, missing string) {
	class, set := ing.Annotations[ClassAnnotation]
	if !set {
		if ing.Spec.IngressClassName == nil {
			return true, opts.AdoptUnclassed || (opts.adopts() && defaultClassAdopted(objs, opts)), ""
		}
		class = *ing.Spec.IngressClassName
	}
	if slices.Contains(opts.AdoptClasses, class) {
		return true, true, ""
	}
	ic := objs.IngressClass(class)
	switch {
	case ic == nil:
		return false, false, class
	case ic.Spec.Controller == opts.ControllerName:
		return true, false, ""
	case opts.AdoptNginxClasses && ic.Spec.Controller == NginxControllerName:
		return true, true, ""
	}
	return false, false, ""
}

// defaultClassAdopted reports whether the cluster's default IngressClass is
// an adopted one.
func defaultClassAdopted(objs Objects, opts Options) bool {
	for _, ic := range objs.AllIngressClasses() {
		if ic.Annotations[DefaultClassAnnotation] != "true" {
			continue
		}
		if slices.Contains(opts.AdoptClasses, ic.Name) || (opts.AdoptNginxClasses && ic.Spec.Controller == NginxControllerName) {
			return true
		}
	}
	return false
}

// IsCanary reports whether an Ingress is an ingress-nginx canary: it adds
// an alternate backend to another Ingress's Routes and has none of its own.
func IsCanary(ing *networkingv1.Ingress) bool {
	return strings.TrimSpace(ing.Annotations[canaryAnnotation]) == "true"
}

// convert returns the conversion of an adopted Ingress's annotations.
func convert(ing *networkingv1.Ingress, opts Options) nginx.Conversion {
	return nginx.Convert(nginx.Input{Annotations: ing.Annotations, TLS: len(ing.Spec.TLS) > 0, Globals: opts.Nginx, Namespace: ing.Namespace})
}

// routePath maps an Ingress path through the conversion's regular
// expression and rewrite rules; rewrite is the Route's rewrite-target ("" for
// none).
func routePath(conv *nginx.Conversion, path string) (routePathValue, rewrite string, err error) {
	if conv == nil || (!conv.UseRegex && conv.RewriteTarget == "") {
		return path, "", nil
	}
	return nginx.RewritePath(path, conv.RewriteTarget, conv.UseRegex)
}

// applyConversion gives a Route what its Ingress's conversion asks for
// that is not already decided: annotations the Ingress sets itself win;
// header actions are appended.
func applyConversion(r *routecore.Route, conv *nginx.Conversion, rewrite string) {
	for k, v := range conv.Annotations {
		if _, set := r.Annotations[k]; !set {
			if r.Annotations == nil {
				r.Annotations = map[string]string{}
			}
			r.Annotations[k] = v
		}
	}
	if rewrite != "" {
		if _, set := r.Annotations[routecore.AnnRewriteTarget]; !set {
			if r.Annotations == nil {
				r.Annotations = map[string]string{}
			}
			r.Annotations[routecore.AnnRewriteTarget] = rewrite
		}
	}
	if len(conv.RequestHeaders) > 0 || len(conv.ResponseHeaders) > 0 {
		r.Spec.HTTPHeaders = &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{
			Request: slices.Clone(conv.RequestHeaders), Response: slices.Clone(conv.ResponseHeaders)}}
	}
}

// maxAlternateBackends is how many alternate backends a Route takes.
const maxAlternateBackends = 3

// maxWeight is the largest backend weight of a Route.
const maxWeight = 256

// canaryBackend is one canary Ingress's share of a host and path.
type canaryBackend struct {
	ingress, service string
	weight, total    int32
	// byRequest are the Route annotations that choose the canary by header
	// or cookie (nil: by weight only).
	byRequest map[string]string
	// port is the Route port of the canary's backend (nil: every port of
	// an unnamed Service port); unresolved says why it has none.
	port       *routecore.RoutePort
	unresolved string
}

// canariesFor returns the canary Ingresses adopted with the same options
// that serve host and path (the Ingress's own path, before conversion),
// sorted by name.
func canariesFor(ing *networkingv1.Ingress, host, path string, objs Objects, opts Options) []canaryBackend {
	var out []canaryBackend
	for _, c := range objs.Canaries(ing.Namespace, host) {
		if c.Name == ing.Name || !IsCanary(c) {
			continue
		}
		if managed, adopted, _ := classify(c, objs, opts); !managed || !adopted {
			continue
		}
		var backend *networkingv1.IngressServiceBackend
		for _, rule := range c.Spec.Rules {
			if rule.Host != host || rule.HTTP == nil {
				continue
			}
			for _, p := range rule.HTTP.Paths {
				if p.Path == path && p.Backend.Service != nil {
					backend = p.Backend.Service
				}
			}
		}
		if backend == nil {
			continue
		}
		conv := convert(c, opts)
		if conv.Canary == nil || (conv.Canary.Weight <= 0 && conv.Canary.ByRequest == nil) {
			continue
		}
		cb := canaryBackend{ingress: c.Name, service: backend.Name, weight: conv.Canary.Weight, total: conv.Canary.Total,
			byRequest: conv.Canary.ByRequest}
		switch svc := objs.Service(ing.Namespace, backend.Name); {
		case svc == nil:
			cb.unresolved = fmt.Sprintf("its backend service %q is not found", backend.Name)
		default:
			port, ok := targetPort(svc, backend.Port)
			if !ok {
				cb.unresolved = fmt.Sprintf("its backend service %q has no such port", backend.Name)
			}
			cb.port = port
		}
		out = append(out, cb)
	}
	slices.SortFunc(out, func(a, b canaryBackend) int { return strings.Compare(a.ingress, b.ingress) })
	return out
}

// mergeCanaries makes the canaries of a Route's host and path its alternate
// backends: each gets its canary-weight, the Route's own service the rest of
// the total. Weights are scaled when the total exceeds a Route's largest
// weight. It returns a problem for what could not be kept.
func mergeCanaries(r *routecore.Route, canaries []canaryBackend) string {
	var problems []string
	kept := canaries[:0:0]
	for _, c := range canaries {
		switch {
		case c.unresolved != "":
			problems = append(problems, fmt.Sprintf("canary Ingress %s not merged into Route %s: %s", c.ingress, r.Name, c.unresolved))
		case !equality.Semantic.DeepEqual(c.port, r.Spec.Port):
			problems = append(problems, fmt.Sprintf("canary Ingress %s not merged into Route %s: its backend port (%s) is not the Route's (%s), "+
				"and a Route has one port for all its backends; give both Services' ports the same name", c.ingress, r.Name, describePort(c.port), describePort(r.Spec.Port)))
		default:
			kept = append(kept, c)
		}
	}
	canaries = kept
	if len(canaries) == 0 {
		return strings.Join(problems, "; ")
	}
	if len(canaries) > maxAlternateBackends {
		names := make([]string, 0, len(canaries)-maxAlternateBackends)
		for _, c := range canaries[maxAlternateBackends:] {
			names = append(names, c.ingress)
		}
		problems = append(problems, fmt.Sprintf("canary Ingresses %s not merged into Route %s: a Route takes at most %d alternate backends",
			strings.Join(names, ", "), r.Name, maxAlternateBackends))
		canaries = canaries[:maxAlternateBackends]
	}
	total := canaries[0].total
	if total <= 0 {
		total = 100
	}
	sum := int32(0)
	for _, c := range canaries {
		sum += c.weight
	}
	primary := max(total-sum, 0)
	scale := func(w int32) int32 {
		if total <= maxWeight {
			return w
		}
		return int32((int64(w)*maxWeight + int64(total)/2) / int64(total))
	}
	w := scale(primary)
	r.Spec.To.Weight = &w
	chosen := ""
	for _, c := range canaries {
		cw := scale(min(c.weight, total))
		r.Spec.AlternateBackends = append(r.Spec.AlternateBackends, routecore.RouteTargetReference{Kind: "Service", Name: c.service, Weight: &cw})
		switch {
		case c.byRequest == nil:
		case chosen != "":
			problems = append(problems, fmt.Sprintf("canary Ingress %s is merged into Route %s by weight only: the Route already sends requests by header or cookie to canary Ingress %s, and a Route chooses one canary so",
				c.ingress, r.Name, chosen))
		case c.service == r.Spec.To.Name:
			problems = append(problems, fmt.Sprintf("canary Ingress %s is merged into Route %s by weight only: its Service is the Route's own, so no request can be sent to it by header or cookie",
				c.ingress, r.Name))
		default:
			chosen = c.ingress
			if r.Annotations == nil {
				r.Annotations = map[string]string{}
			}
			r.Annotations[routecore.AnnCanaryBackend] = c.service
			for k, v := range c.byRequest {
				r.Annotations[k] = v
			}
		}
	}
	return strings.Join(problems, "; ")
}

// describePort names a Route port for a problem: "targetPort NAME", or
// "every port" when the Service port is unnamed.
func describePort(p *routecore.RoutePort) string {
	if p == nil {
		return "every port"
	}
	return "targetPort " + p.TargetPort.String()
}

// canaryProblems explains, for a canary Ingress, where its backends went:
// nowhere when no adopted primary Ingress serves the same host and path
// (ingress-nginx ignores such a canary too).
func canaryProblems(ing *networkingv1.Ingress, objs Objects, opts Options) []string {
	var out []string
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for _, p := range rule.HTTP.Paths {
			if !hasPrimary(ing, rule.Host, p.Path, objs, opts) {
				out = append(out, fmt.Sprintf("canary for host %q and path %q has no primary Ingress serving the same host and path: no Route gets its backend (ingress-nginx ignores such a canary too)", rule.Host, p.Path))
			}
		}
	}
	return out
}

// hasPrimary reports whether an adopted, non-canary Ingress in the
// canary's namespace serves host and path.
func hasPrimary(canary *networkingv1.Ingress, host, path string, objs Objects, opts Options) bool {
	for _, ing := range objs.Ingresses(canary.Namespace, host) {
		if ing.Name == canary.Name || IsCanary(ing) {
			continue
		}
		if managed, adopted, _ := classify(ing, objs, opts); !managed || !adopted {
			continue
		}
		for _, rule := range ing.Spec.Rules {
			if rule.Host != host || rule.HTTP == nil {
				continue
			}
			for _, p := range rule.HTTP.Paths {
				if p.Path == path {
					return true
				}
			}
		}
	}
	return false
}

// destinationCA returns the CA bundle of the Secret proxy-ssl-secret names
// (key ca.crt, as ingress-nginx reads it), or "" when it has none.
func destinationCA(ing *networkingv1.Ingress, name string, objs Objects) string {
	s := objs.Secret(ing.Namespace, name)
	if s == nil {
		return ""
	}
	if ca := s.Data["ca.crt"]; len(ca) > 0 {
		return string(ca)
	}
	return string(s.Data[corev1.TLSCertKey])
}
