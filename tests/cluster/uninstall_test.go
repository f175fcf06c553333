package cluster

import (
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// routeCRD is the CustomResourceDefinition of Routes.
const routeCRD = "customresourcedefinition.apiextensions.k8s.io/routes.route.openshift.io"

// uninstallAndCheck uninstalls the variant as its docs say and checks that
// no object of routeshift's is left in the cluster, of any kind, in any
// namespace. A Helm release keeps the Route CRD (and with it every Route),
// as Helm does with CRDs; the documented `kubectl delete crd` removes it.
func (inst *installation) uninstallAndCheck(t *testing.T) {
	t.Helper()
	start := time.Now()
	inst.v.uninstall(t, inst.cluster)
	t.Logf("uninstalled in %s", time.Since(start).Round(time.Second))
	left := inst.routeshiftObjects(t)
	if inst.v.keepsCRD {
		if len(left) != 1 || left[0] != routeCRD {
			t.Errorf("after the uninstall, want only %s kept, found %v", routeCRD, left)
		}
		inst.kubectl(t, "delete", "crd", "routes.route.openshift.io", "--timeout=2m")
		left = inst.routeshiftObjects(t)
	}
	if len(left) > 0 {
		t.Errorf("the uninstall left routeshift's objects behind: %v", left)
	}
	if _, err := inst.clients.CoreV1().Namespaces().Get(ctx(t), installNamespace, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace %s is still there after the uninstall (err %v)", installNamespace, err)
	}
}

// routeshiftObjects lists every object labelled as routeshift's, of every
// kind the API server lists, plus the Route CRD and the webhook
// configurations by name.
func (inst *installation) routeshiftObjects(t *testing.T) []string {
	t.Helper()
	kinds := strings.Fields(inst.kubectl(t, "api-resources", "--verbs=list", "-o", "name"))
	out := inst.kubectl(t, "get", strings.Join(kinds, ","), "--all-namespaces", "--ignore-not-found",
		"-l", "app.kubernetes.io/name=routeshift", "-o", "name")
	left := strings.Fields(out)
	for _, named := range []string{routeCRD,
		"mutatingwebhookconfiguration.admissionregistration.k8s.io/routeshift",
		"validatingwebhookconfiguration.admissionregistration.k8s.io/routeshift",
		"ingressclass.networking.k8s.io/routeshift"} {
		kind, name, _ := strings.Cut(named, "/")
		if strings.TrimSpace(inst.kubectl(t, "get", kind, name, "--ignore-not-found", "-o", "name")) != "" && !slices.Contains(left, named) {
			left = append(left, named)
		}
	}
	return left
}
