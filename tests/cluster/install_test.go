package cluster

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/tests/framework"
)

// installNamespace is where every shipped install puts routeshift.
const installNamespace = "routeshift"

// variant is one shipped way to install routeshift, applied unmodified.
type variant struct {
	name string
	// install and uninstall run the commands a user runs.
	install, uninstall func(t *testing.T, cl *cluster)
	// hostNetwork: the router is a DaemonSet on the node's ports 80 and
	// 443; otherwise a Deployment behind a Service.
	hostNetwork bool
	// keepsCRD: the uninstall leaves the Route CRD (and so every Route)
	// in place, as Helm does with CRDs it marked to keep.
	keepsCRD bool
}

func kustomizeVariant(overlay string) variant {
	dir := "manifests/overlays/" + overlay
	return variant{
		name:        "kustomize/" + overlay,
		hostNetwork: overlay == "host-network",
		install:     func(t *testing.T, cl *cluster) { cl.kubectl(t, "apply", "-k", dir) },
		uninstall: func(t *testing.T, cl *cluster) {
			cl.kubectl(t, "delete", "-k", dir, "--ignore-not-found", "--timeout=5m")
		},
	}
}

func helmVariant(mode string) variant {
	args := []string{"install", "routeshift", "charts/routeshift", "--namespace", installNamespace, "--create-namespace"}
	name := "helm/default"
	if mode != "" {
		args = append(args, "--set", "router.mode="+mode)
		name = "helm/" + mode
	}
	return variant{
		name:        name,
		hostNetwork: mode == "HostNetwork",
		keepsCRD:    true,
		install:     func(t *testing.T, cl *cluster) { cl.must(t, "helm", args...) },
		uninstall: func(t *testing.T, cl *cluster) {
			cl.must(t, "helm", "uninstall", "routeshift", "--namespace", installNamespace, "--wait", "--timeout=5m")
			cl.kubectl(t, "delete", "namespace", installNamespace, "--timeout=5m")
		},
	}
}

// TestInstall installs each shipped variant on the node, unmodified, checks
// it and uninstalls it. The kustomize self-signed install also goes through
// rollouts of the router under load and of the manager during Route writes,
// and leader failover.
func TestInstall(t *testing.T) {
	for _, v := range []variant{
		kustomizeVariant("self-signed"),
		kustomizeVariant("host-network"),
		helmVariant(""),
		helmVariant("NodePort"),
		helmVariant("HostNetwork"),
	} {
		t.Run(v.name, func(t *testing.T) {
			cl := newCluster(t)
			inst := cl.installVariant(t, v)
			inst.checkBasics(t)
			if v.name == "kustomize/self-signed" {
				t.Run("router-rolling-update-under-load", inst.checkRouterRollingUpdate)
				t.Run("manager-rolling-update-during-route-writes", inst.checkManagerRollingUpdate)
				t.Run("leader-failover", inst.checkLeaderFailover)
			}
			if v.name == "kustomize/host-network" { // the chart's HostNetwork mode makes the same DaemonSet
				t.Run("host-network-rollout", inst.checkRouterRollingUpdate)
			}
			inst.uninstallAndCheck(t)
		})
	}
}

// installation is a variant installed on the node.
type installation struct {
	*cluster
	v variant
}

// installVariant installs v and waits until every workload has rolled out.
func (cl *cluster) installVariant(t *testing.T, v variant) *installation {
	t.Helper()
	v.install(t, cl)
	inst := &installation{cluster: cl, v: v}
	inst.waitRolledOut(t)
	return inst
}

// checkBasics: every pod Ready with no restart, admission through the
// webhook's Service, an Ingress becomes a Route, traffic over HTTP and
// HTTPS on every way in the mode provides.
func (inst *installation) checkBasics(t *testing.T) {
	t.Run("pods-ready", inst.checkPodsReady)
	t.Run("admission", inst.checkAdmission)
	t.Run("ingress-and-traffic", inst.checkIngressAndTraffic)
	t.Run("haproxy-warns-of-nothing", inst.checkHAProxyQuiet)
}

// checkHAProxyQuiet: through start, reloads and traffic, the routers'
// HAProxy printed no warning or alert (the router relays HAProxy's lines
// with their severity).
func (inst *installation) checkHAProxyQuiet(t *testing.T) {
	for _, p := range inst.pods(t, "router") {
		for file, log := range inst.n.PodLogs(installNamespace, p.Name) {
			for _, line := range strings.Split(log, "\n") {
				if strings.Contains(line, `"logger":"haproxy"`) &&
					(strings.Contains(line, `"severity":"WARNING"`) || strings.Contains(line, `"severity":"ALERT"`)) {
					t.Errorf("router %s (%s) relayed from HAProxy: %s", p.Name, file, line)
				}
			}
		}
	}
}

// routerWorkload is the router's kind and name.
func (inst *installation) routerWorkload() (kind, name string) {
	if inst.v.hostNetwork {
		return "daemonset", "routeshift-router"
	}
	return "deployment", "routeshift-router"
}

// waitRolledOut waits with kubectl rollout status for the manager and the
// router.
func (inst *installation) waitRolledOut(t *testing.T) {
	t.Helper()
	kind, name := inst.routerWorkload()
	for _, w := range []string{"deployment/routeshift-manager", kind + "/" + name} {
		inst.kubectl(t, "rollout", "status", "--namespace", installNamespace, w, "--timeout=5m")
	}
	inst.waitWebhookServing(t)
}

// waitWebhookServing waits until the API server reaches the webhook
// through its Service: a rollout is complete when the pods are Ready,
// but kube-proxy programs the Service's new endpoints a moment later, and
// until then calls to it are refused. A server-side dry run goes through
// the webhooks and stores nothing.
func (inst *installation) waitWebhookServing(t *testing.T) {
	t.Helper()
	route := "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: webhook-probe, namespace: default}\n" +
		"spec:\n  host: probe.example.test\n  to: {name: web}\n"
	framework.EventuallyWithin(t, 2*time.Minute, "the webhook answers through its Service", func() error {
		if _, errOut, err := inst.run(t, route, "kubectl", "create", "--dry-run=server", "-f", "-"); err != nil {
			return fmt.Errorf("%v: %s", err, errOut)
		}
		return nil
	})
}

// checkPodsReady: every pod of the install is Ready and never restarted,
// and as many run as the workloads ask for.
func (inst *installation) checkPodsReady(t *testing.T) {
	pods := inst.pods(t, "")
	want := map[string]int{"manager": 2, "router": 2}
	if inst.v.hostNetwork {
		want["router"] = 1 // one node
	}
	got := map[string]int{}
	for _, p := range pods {
		got[p.Labels["app.kubernetes.io/component"]]++
		if !podReady(&p) {
			t.Errorf("pod %s is not Ready: %v", p.Name, p.Status.Conditions)
		}
		for _, cs := range p.Status.ContainerStatuses {
			if cs.RestartCount != 0 {
				t.Errorf("pod %s container %s restarted %d times; last state %+v", p.Name, cs.Name, cs.RestartCount, cs.LastTerminationState)
			}
		}
	}
	for component, n := range want {
		if got[component] != n {
			t.Errorf("%d %s pods running, want %d", got[component], component, n)
		}
	}
	inst.logProbeFailures(t)
}

// logProbeFailures logs the kubelet's probe failures of the install's pods:
// a slow machine may legitimately fail a probe, but a pattern is worth
// reading.
func (inst *installation) logProbeFailures(t *testing.T) {
	events, err := inst.clients.CoreV1().Events(installNamespace).List(ctx(t), metav1.ListOptions{FieldSelector: "reason=Unhealthy"})
	if err != nil {
		t.Errorf("listing events: %v", err)
		return
	}
	for _, e := range events.Items {
		t.Logf("probe failure: %s %s: %s (%d times)", e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Message, e.Count)
	}
}

// pods lists the install's running pods of a component ("" for all).
func (inst *installation) pods(t *testing.T, component string) []corev1.Pod {
	t.Helper()
	selector := "app.kubernetes.io/name=routeshift"
	if component != "" {
		selector += ",app.kubernetes.io/component=" + component
	}
	list, err := inst.clients.CoreV1().Pods(installNamespace).List(ctx(t), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// deploymentDone reports whether a Deployment has rolled out its latest
// template and no pod of an older one is left.
func deploymentDone(d *appsv1.Deployment, pods []corev1.Pod) bool {
	return d.Status.ObservedGeneration >= d.Generation && d.Status.UpdatedReplicas == *d.Spec.Replicas &&
		d.Status.AvailableReplicas == *d.Spec.Replicas && len(pods) == int(*d.Spec.Replicas)
}

// waitGone waits until no pod of the install's component that is not in
// keep is left, terminating or not.
func (inst *installation) waitGone(t *testing.T, component string, old []string, timeout time.Duration) {
	t.Helper()
	framework.EventuallyWithin(t, timeout, "the old "+component+" pods to be gone", func() error {
		for _, name := range old {
			_, err := inst.clients.CoreV1().Pods(installNamespace).Get(ctx(t), name, metav1.GetOptions{})
			if err == nil {
				return fmt.Errorf("pod %s is still there", name)
			}
		}
		return nil
	})
}
