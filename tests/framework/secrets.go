package framework

import (
	"context"
	"fmt"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// routerSecretGrant names the Role and RoleBinding that let the router read
// one Secret.
func routerSecretGrant(secret string) string { return "router-reads-" + secret }

// GrantRouterSecret lets the router's service account read Secret ns/name,
// as docs/router.md tells users to: a Role granting get, list and watch on
// that Secret alone, and a RoleBinding of it to the router.
func (cp *ControlPlane) GrantRouterSecret(t testing.TB, ns, name string) {
	t.Helper()
	grant := routerSecretGrant(name)
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: grant},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{name},
			Verbs: []string{"get", "list", "watch"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: grant},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: grant},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "routeshift", Name: "router"}}}
	for _, obj := range []client.Object{role, binding} {
		if err := cp.Client.Create(context.Background(), obj); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("granting the router secret %s/%s: %v", ns, name, err)
		}
	}
}

// RevokeRouterSecret deletes the RoleBinding GrantRouterSecret made.
func (cp *ControlPlane) RevokeRouterSecret(t testing.TB, ns, name string) {
	t.Helper()
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: routerSecretGrant(name)}}
	if err := cp.Client.Delete(context.Background(), binding); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("revoking the router's grant on secret %s/%s: %v", ns, name, err)
	}
}

// RouterMayRead reports, through a SubjectAccessReview, whether the router's
// service account may perform verb on Secret ns/name (name "" for every
// Secret of ns, ns "" for every namespace).
func (cp *ControlPlane) RouterMayRead(ctx context.Context, verb, ns, name string) (bool, error) {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               RouterServiceAccount,
		Groups:             []string{"system:serviceaccounts", "system:serviceaccounts:routeshift", "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: verb, Resource: "secrets", Name: name},
	}}
	if err := cp.Client.Create(ctx, sar); err != nil {
		return false, fmt.Errorf("SubjectAccessReview: %w", err)
	}
	return sar.Status.Allowed, nil
}
