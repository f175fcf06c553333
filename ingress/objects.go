package ingress

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ObjectSet is an Objects held in maps, for inputs read from files.
type ObjectSet struct {
	Services       map[types.NamespacedName]*corev1.Service
	Secrets        map[types.NamespacedName]*corev1.Secret
	IngressClasses map[string]*networkingv1.IngressClass
}

// NewObjectSet returns an empty ObjectSet.
func NewObjectSet() *ObjectSet {
	return &ObjectSet{
		Services:       map[types.NamespacedName]*corev1.Service{},
		Secrets:        map[types.NamespacedName]*corev1.Secret{},
		IngressClasses: map[string]*networkingv1.IngressClass{},
	}
}

// Add records a Service, Secret or IngressClass; other objects are ignored.
func (s *ObjectSet) Add(obj any) {
	switch o := obj.(type) {
	case *corev1.Service:
		s.Services[types.NamespacedName{Namespace: o.Namespace, Name: o.Name}] = o
	case *corev1.Secret:
		s.Secrets[types.NamespacedName{Namespace: o.Namespace, Name: o.Name}] = o
	case *networkingv1.IngressClass:
		s.IngressClasses[o.Name] = o
	}
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
