package ingress

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ObjectSet is an Objects held in maps, for inputs read from files.
type ObjectSet struct {
	Services       map[types.NamespacedName]*corev1.Service
	Secrets        map[types.NamespacedName]*corev1.Secret
	IngressClasses map[string]*networkingv1.IngressClass
	// ByHost holds the Ingresses by namespace and rule host.
	ByHost map[types.NamespacedName][]*networkingv1.Ingress
}

// NewObjectSet returns an empty ObjectSet.
func NewObjectSet() *ObjectSet {
	return &ObjectSet{
		Services:       map[types.NamespacedName]*corev1.Service{},
		Secrets:        map[types.NamespacedName]*corev1.Secret{},
		IngressClasses: map[string]*networkingv1.IngressClass{},
		ByHost:         map[types.NamespacedName][]*networkingv1.Ingress{},
	}
}

// Add records a Service, Secret, IngressClass or Ingress; other objects
// are ignored.
func (s *ObjectSet) Add(obj any) {
	switch o := obj.(type) {
	case *corev1.Service:
		s.Services[types.NamespacedName{Namespace: o.Namespace, Name: o.Name}] = o
	case *corev1.Secret:
		s.Secrets[types.NamespacedName{Namespace: o.Namespace, Name: o.Name}] = o
	case *networkingv1.IngressClass:
		s.IngressClasses[o.Name] = o
	case *networkingv1.Ingress:
		for _, host := range ruleHosts(o) {
			key := types.NamespacedName{Namespace: o.Namespace, Name: host}
			s.ByHost[key] = append(s.ByHost[key], o)
		}
	}
}

// ruleHosts are the distinct hosts of an Ingress's rules.
func ruleHosts(ing *networkingv1.Ingress) []string {
	var hosts []string
	for _, rule := range ing.Spec.Rules {
		if rule.Host != "" && !slices.Contains(hosts, rule.Host) {
			hosts = append(hosts, rule.Host)
		}
	}
	return hosts
}

// Service implements Objects.
func (s *ObjectSet) Service(namespace, name string) *corev1.Service {
	return s.Services[types.NamespacedName{Namespace: namespace, Name: name}]
}

// Secret implements Objects.
func (s *ObjectSet) Secret(namespace, name string) *corev1.Secret {
	return s.Secrets[types.NamespacedName{Namespace: namespace, Name: name}]
}

// IngressClass implements Objects.
func (s *ObjectSet) IngressClass(name string) *networkingv1.IngressClass {
	return s.IngressClasses[name]
}

// AllIngressClasses implements Objects.
func (s *ObjectSet) AllIngressClasses() []*networkingv1.IngressClass {
	out := make([]*networkingv1.IngressClass, 0, len(s.IngressClasses))
	for _, ic := range s.IngressClasses {
		out = append(out, ic)
	}
	slices.SortFunc(out, func(a, b *networkingv1.IngressClass) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Ingresses implements Objects.
func (s *ObjectSet) Ingresses(namespace, host string) []*networkingv1.Ingress {
	return s.ByHost[types.NamespacedName{Namespace: namespace, Name: host}]
}

// Canaries implements Objects.
func (s *ObjectSet) Canaries(namespace, host string) []*networkingv1.Ingress {
	var out []*networkingv1.Ingress
	for _, ing := range s.Ingresses(namespace, host) {
		if IsCanary(ing) {
			out = append(out, ing)
		}
	}
	return out
}
