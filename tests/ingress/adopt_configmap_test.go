package ingress

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestAdoptedNginxConfigMap: with --ingress-nginx-configmap, adopted
// Ingresses get the global defaults of ingress-nginx's ConfigMap, and
// follow it: ingress-nginx's documented defaults while it does not exist,
// its values once created and when changed, the defaults again once
// deleted. The controller reads the ConfigMap with the chart's grant: get,
// list and watch on that one ConfigMap by name.
func TestAdoptedNginxConfigMap(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "adopt-configmap")
	nginxNS := cp.CreateNamespace(t, "adopt-configmap-nginx")
	createNginxIngressClass(t, cp)
	const cmName = "ingress-nginx-controller"
	saNamespace, saName, _ := strings.Cut(strings.TrimPrefix(framework.ServiceAccount, "system:serviceaccount:"), ":")
	create(t, cp,
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: nginxNS, Name: "routeshift:ingress-nginx-configmap"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{cmName}, Verbs: []string{"get", "list", "watch"}}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: nginxNS, Name: "routeshift:ingress-nginx-configmap"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "routeshift:ingress-nginx-configmap"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: saNamespace, Name: saName}}},
		// another ConfigMap of the namespace, which the grant does not cover
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: nginxNS, Name: "other"}, Data: map[string]string{"proxy-read-timeout": "7"}},
		service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}),
		nginxIngress(ns, "shop", "shop.example.com", "web", nil))
	ctl := startAdoptingController(t, cp, "routeshift.test/adopt-configmap", "--adopt-class", nginxClass,
		"--ingress-nginx-configmap", nginxNS+"/"+cmName)
	route := routeNames("shop", "shop.example.com/")[0]

	wantTimeout := func(step, want string) {
		t.Helper()
		framework.Eventually(t, fmt.Sprintf("%s: route %s with timeout %s", step, route, want), func() error {
			r := &routecore.Route{}
			if err := cp.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: route}, r); err != nil {
				return err
			}
			if got := r.Annotations[routecore.AnnTimeout]; got != want {
				return fmt.Errorf("timeout %q", got)
			}
			return nil
		})
	}
	wantTimeout("no ConfigMap: ingress-nginx's defaults", "60s")

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: nginxNS, Name: cmName},
		Data: map[string]string{"proxy-read-timeout": "90", "proxy-send-timeout": "90", "no-such-key": "1"}}
	create(t, cp, cm)
	wantTimeout("ConfigMap created", "90s")

	update(t, cp, cm, func(cm *corev1.ConfigMap) {
		cm.Data["proxy-read-timeout"], cm.Data["proxy-send-timeout"] = "45", "45"
	})
	wantTimeout("ConfigMap changed", "45s")

	if err := cp.Client.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	wantTimeout("ConfigMap deleted", "60s")

	out := ctl.output()
	for _, want := range []string{"read ingress-nginx's ConfigMap", `no-such-key`, "ingress-nginx's ConfigMap not found"} {
		if !strings.Contains(out, want) {
			t.Errorf("controller log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "forbidden") {
		t.Errorf("controller was refused something:\n%s", out)
	}
}
