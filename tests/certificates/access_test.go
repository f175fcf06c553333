package certificates

import (
	"context"
	"fmt"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecerts"
	"github.com/routeshift/routeshift/tests/framework"
)

// testRouterAccess: the Role the controller made for Route edge grants
// the router's service account get, list and watch on exactly Secret
// edge-route-tls. A probe account bound to the same Role, and to nothing
// else, shows that this Role alone is enough for a single-object list and
// watch (fieldSelector metadata.name) and for nothing more, checked with
// SubjectAccessReviews and with real requests as that account.
func testRouterAccess(t *testing.T, e *env) {
	ctx := context.Background()
	role := routecerts.RoleName("edge-route-tls")
	binding := &rbacv1.RoleBinding{}
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: e.ns, Name: role}, binding); err != nil {
		t.Fatal(err)
	}
	want := rbacv1.Subject{Kind: "ServiceAccount", Namespace: "routeshift", Name: "router"}
	if len(binding.Subjects) != 1 || binding.Subjects[0] != want || binding.RoleRef.Name != role {
		t.Errorf("RoleBinding %s: roleRef %+v subjects %+v, want Role %s for %+v", role, binding.RoleRef, binding.Subjects, role, want)
	}
	probe := serviceaccount.MakeUsername(e.ns, "probe")
	apply(t, e.cp, fmt.Sprintf(`apiVersion: v1
kind: ServiceAccount
metadata: {name: probe, namespace: %[1]s}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: probe, namespace: %[1]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %[2]q}
subjects: [{kind: ServiceAccount, name: probe, namespace: %[1]s}]
`, e.ns, role))
	for _, c := range []struct {
		user, verb, name string
		allowed          bool
	}{
		{framework.RouterServiceAccount, "get", "edge-route-tls", true},
		{framework.RouterServiceAccount, "watch", "edge-route-tls", true},
		{probe, "get", "edge-route-tls", true},
		{probe, "list", "edge-route-tls", true},
		{probe, "watch", "edge-route-tls", true},
		{probe, "get", "intermediate", false},
		{probe, "list", "", false},
		{probe, "update", "edge-route-tls", false},
	} {
		framework.EventuallyWithin(t, wait, fmt.Sprintf("%s may %s secret %q: %v", c.user, c.verb, c.name, c.allowed), func() error {
			if got := allowed(t, e, c.user, c.verb, c.name); got != c.allowed {
				return fmt.Errorf("SubjectAccessReview says %v", got)
			}
			return nil
		})
	}
	cfg := rest.CopyConfig(e.cp.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: probe, Groups: serviceaccount.MakeGroupNames(e.ns)}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	one := metav1.ListOptions{FieldSelector: "metadata.name=edge-route-tls"}
	list, err := cs.CoreV1().Secrets(e.ns).List(ctx, one)
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "edge-route-tls" {
		t.Fatalf("list of secret edge-route-tls as %s: %v, %d items", probe, err, len(list.Items))
	}
	w, err := cs.CoreV1().Secrets(e.ns).Watch(ctx, metav1.ListOptions{FieldSelector: one.FieldSelector, ResourceVersion: "0"})
	if err != nil {
		t.Fatalf("watch of secret edge-route-tls as %s: %v", probe, err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		if s, ok := ev.Object.(*corev1.Secret); ev.Type != watch.Added || !ok || s.Name != "edge-route-tls" {
			t.Errorf("watch as %s: first event %s %T, want ADDED secret edge-route-tls", probe, ev.Type, ev.Object)
		}
	case <-time.After(wait):
		t.Fatalf("watch as %s: no event", probe)
	}
	if _, err := cs.CoreV1().Secrets(e.ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list of every secret as %s: %v, want forbidden", probe, err)
	}
	if _, err := cs.CoreV1().Secrets(e.ns).Get(ctx, "intermediate", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("get of secret intermediate as %s: %v, want forbidden", probe, err)
	}
}

// allowed asks the API server whether user may verb secret name in the
// test namespace.
func allowed(t *testing.T, e *env, user, verb, name string) bool {
	t.Helper()
	ns, _, err := serviceaccount.SplitUsername(user)
	if err != nil {
		t.Fatal(err)
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: serviceaccount.MakeGroupNames(ns),
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: e.ns, Verb: verb, Resource: "secrets", Name: name},
	}}
	if err := e.c.Create(context.Background(), sar); err != nil {
		t.Fatal(err)
	}
	return sar.Status.Allowed
}
