package ingress

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/ingress"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// TestProblemsAreWarningEvents: every problem the controller reports on an
// Ingress (rules that make no Route, an invalid annotation value, ignored
// ingress-nginx annotations, a Route it cannot write) is a Warning event,
// so that the command an operator runs to find a cluster's problems lists
// them, and none is a Normal event.
func TestProblemsAreWarningEvents(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "warnings")
	web := networkingv1.ServiceBackendPort{Name: "http"}
	create(t, cp, service(ns, "web", corev1.ServicePort{Name: "http", Port: 80}))
	// A Route the Ingress does not own holds the name of one of its Routes.
	create(t, cp, &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: ingress.RouteName("troubled", "taken.example.com", "/")},
		Spec: routecore.RouteSpec{Host: "other.example.com", To: routecore.RouteTargetReference{Kind: "Service", Name: "web"}}})
	create(t, cp, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "troubled",
		Annotations: map[string]string{
			"nginx.ingress.kubernetes.io/proxy-read-timeout": "60",
			ingress.ReconcileLabelsAnnotation:                "NotTrue",
		}},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{
			rule("taken.example.com", path("/", "web", web)),
			rule("", path("/", "web", web)),
		}}})

	want := []string{ingress.ReasonFailed, ingress.ReasonIgnoredAnnotations, ingress.ReasonIncomplete, ingress.ReasonInvalidAnnotation}
	framework.Eventually(t, "the Warning events of ingress/troubled", func() error {
		got, err := eventReasons(t, cp, ns, "Warning")
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("kubectl get events --field-selector type=Warning lists %q for ingress/troubled, want %q", got, want)
		}
		return nil
	})
	if got, err := eventReasons(t, cp, ns, "Normal"); err != nil || len(got) != 0 {
		t.Errorf("kubectl get events --field-selector type=Normal lists %q for ingress/troubled (%v), want none", got, err)
	}
}

// eventReasons runs `kubectl get events --field-selector type=TYPE` in ns
// and returns the sorted, distinct reasons of the rows about
// ingress/troubled, read from kubectl's table (LAST SEEN, TYPE, REASON,
// OBJECT, MESSAGE).
func eventReasons(t *testing.T, cp *framework.ControlPlane, ns, eventType string) ([]string, error) {
	stdout, stderr, err := cp.Kubectl(t, "get", "events", "-n", ns, "--field-selector", "type="+eventType)
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, stderr)
	}
	var reasons []string
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[3] != "ingress/troubled" {
			continue
		}
		if f[1] != eventType {
			return nil, fmt.Errorf("a %s row in the list of type=%s: %s", f[1], eventType, line)
		}
		reasons = append(reasons, f[2])
	}
	slices.Sort(reasons)
	return slices.Compact(reasons), nil
}
