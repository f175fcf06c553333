package routecerts

import (
	"fmt"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"

	"github.com/routeshift/routeshift/routecore"
)

const (
	// RouteLabel names, on every object the controller keeps for a Route,
	// that Route (in the same namespace). cert-manager copies a
	// Certificate's labels to its CertificateRequests, and the Certificate's
	// secretTemplate puts the label on the Secret, so those carry it too.
	RouteLabel = "certificates.routeshift.io/route"
	// ExternalCertificateAnnotation on a Route records that the controller
	// set spec.tls.externalCertificate (its value is the Secret's name):
	// only a reference the controller set is removed when the Route stops
	// asking for a certificate.
	ExternalCertificateAnnotation = "certificates.routeshift.io/external-certificate"
	// defaultRevisionHistoryLimit is the number of CertificateRequests
	// cert-manager keeps per Certificate when the Route does not say
	// (cert-manager's own default keeps every one, forever).
	defaultRevisionHistoryLimit = 1
	// roleNamePrefix starts the names of the Role and RoleBinding that let
	// the router read one Secret.
	roleNamePrefix = "routeshift-router:"
)

// secretVerbs are what the router needs on a Secret it serves: get, and a
// list and watch narrowed to the one name (fieldSelector
// metadata.name=NAME), which RBAC allows with resourceNames.
var secretVerbs = []string{"get", "list", "watch"}

// Objects are what the controller keeps for one Route.
type Objects struct {
	// Certificate asks cert-manager for the Route's certificate; it fills
	// the Secret Certificate.Spec.SecretName.
	Certificate *cmapi.Certificate
	// Role allows get, list and watch of exactly that Secret; RoleBinding
	// grants it to the router's service account.
	Role        *rbacv1.Role
	RoleBinding *rbacv1.RoleBinding
}

// RouterAccount is the router's service account.
type RouterAccount struct{ Namespace, Name string }

// ParseRouterAccount reads a service account's user name,
// system:serviceaccount:NAMESPACE:NAME.
func ParseRouterAccount(user string) (RouterAccount, error) {
	ns, name, err := serviceaccount.SplitUsername(user)
	if err != nil {
		return RouterAccount{}, fmt.Errorf("router service account %q: want system:serviceaccount:NAMESPACE:NAME", user)
	}
	return RouterAccount{Namespace: ns, Name: name}, nil
}

// Desired returns the objects a Route needs: nil and "" when it names no
// cert-manager issuer; nil and a problem, saying what to do, when it names
// one but the webhook would refuse it as stored (so the controller leaves
// what exists alone and reports the problem).
func Desired(route *routecore.Route, router RouterAccount) (*Objects, string) {
	spec, ok := routecore.RouteCertificate(route)
	if !ok {
		return nil, ""
	}
	if errs := routecore.ValidateRoute(route, routecore.ValidateOptions{SkipCertificateChecks: true}); len(errs) > 0 {
		return nil, fmt.Sprintf("no certificate is requested for this Route, which the admission webhook would refuse: %s: fix the Route", errs.ToAggregate())
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = new(int32(defaultRevisionHistoryLimit))
	}
	spec.SecretTemplate = &cmapi.CertificateSecretTemplate{Labels: map[string]string{RouteLabel: route.Name}}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: route.Namespace, Name: name,
			Labels:          map[string]string{RouteLabel: route.Name},
			OwnerReferences: []metav1.OwnerReference{OwnerReference(route)}}
	}
	role := RoleName(spec.SecretName)
	return &Objects{
		Certificate: &cmapi.Certificate{ObjectMeta: meta(CertificateName(route.Name)), Spec: spec},
		Role: &rbacv1.Role{ObjectMeta: meta(role), Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{spec.SecretName}, Verbs: secretVerbs,
		}}},
		RoleBinding: &rbacv1.RoleBinding{ObjectMeta: meta(role),
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: router.Namespace, Name: router.Name}},
		},
	}, ""
}

// CertificateName is the name of the Certificate of the Route named route:
// the name of the Secret it fills, as cert-manager's ingress-shim names the
// Certificates of Ingresses.
func CertificateName(route string) string { return routecore.CertificateSecretName(route) }

// RoleName is the name of the Role and RoleBinding that let the router read
// the Secret named secret.
func RoleName(secret string) string { return roleNamePrefix + secret }

// OwnerReference is the controller reference of the objects kept for a
// Route: garbage collection deletes them with the Route.
func OwnerReference(route *routecore.Route) metav1.OwnerReference {
	controller := true
	return metav1.OwnerReference{APIVersion: routecore.GroupVersion.String(), Kind: "Route", Name: route.Name, UID: route.UID, Controller: &controller}
}

// ownedBy reports whether obj's controller is the Route.
func ownedBy(obj metav1.Object, route *routecore.Route) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID == route.UID && ref.Kind == "Route"
}

// Reference returns the Route with spec.tls.externalCertificate naming
// secret and ExternalCertificateAnnotation recording that the controller
// set it; nil when the Route already names secret (whoever set it).
func Reference(route *routecore.Route, secret string) *routecore.Route {
	tls := route.Spec.TLS
	if tls == nil || (tls.ExternalCertificate != nil && tls.ExternalCertificate.Name == secret) {
		return nil
	}
	out := route.DeepCopy()
	out.Spec.TLS.ExternalCertificate = &routecore.LocalObjectReference{Name: secret}
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[ExternalCertificateAnnotation] = secret
	return out
}

// Unreference returns the Route without the externalCertificate reference
// and annotation the controller set; nil when it holds none. A reference
// someone else set (no annotation, or another Secret) stays.
func Unreference(route *routecore.Route) *routecore.Route {
	secret, ok := route.Annotations[ExternalCertificateAnnotation]
	if !ok {
		return nil
	}
	out := route.DeepCopy()
	delete(out.Annotations, ExternalCertificateAnnotation)
	if tls := out.Spec.TLS; tls != nil && tls.ExternalCertificate != nil && tls.ExternalCertificate.Name == secret {
		tls.ExternalCertificate = nil
	}
	return out
}
