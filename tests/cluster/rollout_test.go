package cluster

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// load sends requests for a shop until stopped, from workers that keep
// their connections alive and workers that open one per request, and
// keeps every failure.
type load struct {
	mu       sync.Mutex
	ok       map[string]int
	failures []string
	stop     context.CancelFunc
	done     sync.WaitGroup
}

// startLoad sends requests for the shop of namespace ns, over HTTP and
// HTTPS, to the addresses addrs gives for each scheme.
func (inst *installation) startLoad(addrs map[string]string, ns string) *load {
	ctx, cancel := context.WithCancel(context.Background())
	l := &load{ok: map[string]int{}, stop: cancel}
	for scheme, addr := range addrs {
		for _, keepAlive := range []bool{true, false} {
			kind := fmt.Sprintf("%s keep-alive=%t", scheme, keepAlive)
			c := inst.httpClient(addr, keepAlive)
			l.done.Add(1)
			go func() {
				defer l.done.Done()
				for ctx.Err() == nil {
					status, body, err := get(c, scheme, hostFor(scheme, ns), "/")
					l.record(kind, status, body, err, ctx.Err() != nil)
					time.Sleep(20 * time.Millisecond)
				}
			}()
		}
	}
	return l
}

func (l *load) record(kind string, status int, body string, err error, stopping bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err == nil && status == http.StatusOK && strings.Contains(body, "web-"):
		l.ok[kind]++
	case stopping: // the test's own cancel, not the router
	case err != nil:
		l.failures = append(l.failures, fmt.Sprintf("%s %s: %v", time.Now().Format("15:04:05.000"), kind, err))
	default:
		l.failures = append(l.failures, fmt.Sprintf("%s %s: %d %.80q", time.Now().Format("15:04:05.000"), kind, status, body))
	}
}

// finish stops the load and returns the successes by kind and the failures.
func (l *load) finish() (map[string]int, []string) {
	l.stop()
	l.done.Wait()
	return l.ok, l.failures
}

// checkRouterRollingUpdate: `kubectl rollout restart` of the router while
// requests flow on kept-alive and new connections. A Deployment replaces
// its replicas with none of those requests failing: new pods take traffic
// once ready, old ones drain (ROUTER_DRAIN_SECONDS) before they stop. A
// DaemonSet on host ports rolls out (one router per node: on a single
// node the port is closed between the old router's stop and the new one's
// start, so only completion and recovery are checked).
func (inst *installation) checkRouterRollingUpdate(t *testing.T) {
	ns := inst.namespace(t, "load")
	inst.apply(t, shopYAML(ns))
	inst.kubectl(t, "rollout", "status", "--namespace", ns, "deployment/web", "--timeout=3m")
	addrs := map[string]string{"http": nodeAddr(80), "https": nodeAddr(443)}
	if !inst.v.hostNetwork {
		svc, err := inst.clients.CoreV1().Services(installNamespace).Get(ctx(t), "routeshift-router", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		addrs = map[string]string{"http": net.JoinHostPort(svc.Spec.ClusterIP, "80"), "https": net.JoinHostPort(svc.Spec.ClusterIP, "443")}
	}
	// Every replica serves the new routes before the load starts: each
	// loads them on its own schedule (RELOAD_INTERVAL), and a connection
	// that moves to a replica that has not yet would see a 503 that is not
	// the rollout's.
	for _, e := range inst.entrances(t) {
		for scheme, addr := range map[string]string{"http": e.http, "https": e.https} {
			framework.EventuallyWithin(t, 2*time.Minute, fmt.Sprintf("the load's route served on %s (%s)", addr, e.name), func() error {
				return inst.expectShop(scheme, addr, hostFor(scheme, ns))
			})
		}
	}
	old := podNames(inst.pods(t, "router"))
	l := inst.startLoad(addrs, ns)
	kind, name := inst.routerWorkload()
	inst.kubectl(t, "rollout", "restart", "--namespace", installNamespace, kind+"/"+name)
	inst.kubectl(t, "rollout", "status", "--namespace", installNamespace, kind+"/"+name, "--timeout=5m")
	inst.waitGone(t, "router", old, 5*time.Minute)
	// Requests on connections the old pods closed last go to the new pods.
	time.Sleep(2 * time.Second)
	ok, failures := l.finish()
	t.Logf("requests answered during the rollout: %v; failed: %d", ok, len(failures))
	for kind := range map[string]bool{"http keep-alive=true": true, "http keep-alive=false": true,
		"https keep-alive=true": true, "https keep-alive=false": true} {
		if ok[kind] < 10 {
			t.Errorf("only %d requests of %s answered during the rollout: the load did not run", ok[kind], kind)
		}
	}
	if inst.v.hostNetwork {
		for _, scheme := range []string{"http", "https"} {
			framework.EventuallyWithin(t, time.Minute, "the new router serves", func() error {
				return inst.expectShop(scheme, addrs[scheme], hostFor(scheme, ns))
			})
		}
		return
	}
	if len(failures) > 0 {
		t.Errorf("%d requests failed during the router's rolling update, want 0; first ones:\n%s",
			len(failures), strings.Join(failures[:min(len(failures), 20)], "\n"))
		inst.logPods(t, "router")
	}
}

// logPods logs what the kubelet kept of the install's pods of a component,
// old ones included, and the install's events, for a failure's reader.
func (inst *installation) logPods(t *testing.T, component string) {
	t.Helper()
	t.Log(inst.kubectl(t, "get", "events", "--namespace", installNamespace, "--sort-by=.lastTimestamp",
		"-o", "custom-columns=TIME:.lastTimestamp,OBJECT:.involvedObject.name,REASON:.reason,MESSAGE:.message"))
	for pod, logs := range inst.n.PodLogsOf(installNamespace, "routeshift-"+component+"-") {
		for file, log := range logs {
			t.Logf("%s %s:\n%s", pod, file, log)
		}
	}
}

// checkManagerRollingUpdate: Routes are applied with kubectl, one after
// another, for 60 seconds and until a `kubectl rollout restart` of the
// manager has finished and its old pods are gone: the webhook, which fails
// closed, refuses none of them.
func (inst *installation) checkManagerRollingUpdate(t *testing.T) {
	ns := inst.namespace(t, "writes")
	old := podNames(inst.pods(t, "manager"))
	start := time.Now()
	rolledOut := make(chan struct{})
	go func() {
		defer close(rolledOut)
		time.Sleep(5 * time.Second) // writes flow before the rollout begins
		if _, errOut, err := inst.run(t, "", "kubectl", "rollout", "restart", "--namespace", installNamespace, "deployment/routeshift-manager"); err != nil {
			t.Errorf("rollout restart: %v: %s", err, errOut)
			return
		}
		if _, errOut, err := inst.run(t, "", "kubectl", "rollout", "status", "--namespace", installNamespace,
			"deployment/routeshift-manager", "--timeout=5m"); err != nil {
			t.Errorf("rollout status: %v: %s", err, errOut)
		}
	}()
	var applied int
	var refused []string
	for i := 0; ; i++ {
		select {
		case <-rolledOut:
			if time.Since(start) > 60*time.Second && inst.gone(t, old) {
				goto done
			}
			if time.Since(start) > 6*time.Minute {
				t.Fatalf("the manager's old pods %v are still there after 6 minutes", old)
			}
		default:
		}
		route := fmt.Sprintf("apiVersion: route.openshift.io/v1\nkind: Route\nmetadata:\n  name: r%d\n  namespace: %s\n"+
			"  annotations: {haproxy.router.openshift.io/timeout: %ds}\nspec:\n  host: r%d.%s.example.test\n  to: {kind: Service, name: web}\n",
			i%20, ns, 1+i%50, i%20, ns)
		_, errOut, err := inst.query(route, "kubectl", "apply", "-f", "-")
		if err != nil {
			refused = append(refused, fmt.Sprintf("%s: %s", time.Now().Format("15:04:05.000"), strings.TrimSpace(errOut)))
			continue
		}
		applied++
	}
done:
	t.Logf("Route applies during the manager's rollout: %d accepted, %d refused, over %s", applied, len(refused), time.Since(start).Round(time.Second))
	if applied < 20 {
		t.Errorf("only %d Route applies went through", applied)
	}
	if len(refused) > 0 {
		t.Errorf("%d Route applies were refused during the manager's rollout, want 0:\n%s", len(refused), strings.Join(refused, "\n"))
	}
}

// gone reports whether none of the pods named is left.
func (inst *installation) gone(t *testing.T, names []string) bool {
	for _, name := range names {
		if _, err := inst.clients.CoreV1().Pods(installNamespace).Get(ctx(t), name, metav1.GetOptions{}); err == nil {
			return false
		}
	}
	return true
}

// checkLeaderFailover: the pod that holds the manager's Lease, and the one
// that holds the router's, go away without a word (deleted with no grace
// period, as when their node dies): each Lease passes to the other replica
// once it expires, which then does the leader's work: the new manager
// leader turns a new Ingress into a Route, and the new router leader writes
// its status. (A replica that stops gracefully hands its Lease over at
// once; the rollouts above go that way.)
func (inst *installation) checkLeaderFailover(t *testing.T) {
	ns := inst.namespace(t, "failover")
	for _, lease := range []string{"routeshift-ingress-to-route", "routeshift-router-public"} {
		holder := inst.leaseHolder(t, lease)
		pod, _, _ := strings.Cut(holder, "_")
		t.Logf("Lease %s is held by %s (pod %s)", lease, holder, pod)
		inst.kubectl(t, "delete", "pod", "--namespace", installNamespace, pod, "--grace-period=0", "--force")
		framework.EventuallyWithin(t, 2*time.Minute, "another replica takes Lease "+lease, func() error {
			now := inst.leaseHolder(t, lease)
			if now == "" || strings.HasPrefix(now, pod+"_") || now == holder {
				return fmt.Errorf("held by %q", now)
			}
			return nil
		})
	}
	inst.apply(t, shopYAML(ns))
	framework.EventuallyWithin(t, 2*time.Minute, "the new leaders make and admit a Route of the Ingress", func() error {
		var routes routecore.RouteList
		if err := inst.c.List(ctx(t), &routes, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, r := range routes.Items {
			if r.Spec.Host != shopHost(ns) {
				continue
			}
			for _, in := range r.Status.Ingress {
				for _, c := range in.Conditions {
					if in.RouterName == "public" && c.Type == routecore.RouteAdmitted && c.Status == "True" {
						return nil
					}
				}
			}
			return fmt.Errorf("Route %s has no Admitted status of router public: %+v", r.Name, r.Status.Ingress)
		}
		return fmt.Errorf("no Route of host %s among %d", shopHost(ns), len(routes.Items))
	})
	inst.waitRolledOut(t)
}

// leaseHolder is the holder of a Lease in the install's namespace.
func (inst *installation) leaseHolder(t *testing.T, name string) string {
	t.Helper()
	lease, err := inst.clients.CoordinationV1().Leases(installNamespace).Get(ctx(t), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Lease %s: %v", name, err)
	}
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

func podNames(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
