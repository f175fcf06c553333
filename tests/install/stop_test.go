package install

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/routeshift/routeshift/tests/framework"
)

// managerGracefulShutdown is how long the manager's graceful shutdown may
// take once its --shutdown-delay is over (its runnables' stop timeout).
const managerGracefulShutdown = 20 * time.Second

// TestManagerStop: in every variant the manager waits --shutdown-delay
// after SIGTERM (with the binary's default of 0 a rolling update refuses
// Route writes: the webhook Service still sends calls to a pod that no
// longer listens), and its pod's terminationGracePeriodSeconds covers the
// delay and the graceful shutdown, so that the kubelet does not kill it
// before it has released its leader Lease.
func TestManagerStop(t *testing.T) {
	variants := renderedVariants(t)
	for _, name := range slices.Sorted(maps.Keys(variants)) {
		t.Run(name, func(t *testing.T) {
			d := managerDeployment(t, variants[name])
			delay, grace := managerStop(t, d)
			if delay <= 0 {
				t.Errorf("--shutdown-delay %v: the manager must serve on after SIGTERM", delay)
			}
			if grace <= delay+managerGracefulShutdown {
				t.Errorf("terminationGracePeriodSeconds %v does not cover --shutdown-delay (%v) and the graceful shutdown (%v)",
					grace, delay, managerGracefulShutdown)
			}
		})
	}
}

// TestChartShutdownDelay: the chart's manager.shutdownDelay sets
// --shutdown-delay and moves terminationGracePeriodSeconds with it; its
// schema takes whole seconds only, which the grace period is computed
// from.
func TestChartShutdownDelay(t *testing.T) {
	for _, c := range []struct {
		value     string
		wantDelay time.Duration
		wantGrace time.Duration
		wantErr   bool
	}{
		{value: "15s", wantDelay: 15 * time.Second, wantGrace: 45 * time.Second},
		{value: "60s", wantDelay: time.Minute, wantGrace: 90 * time.Second},
		{value: "0s", wantDelay: 0, wantGrace: 30 * time.Second},
		{value: "1m", wantErr: true},
		{value: "15", wantErr: true},
		{value: "1.5s", wantErr: true},
	} {
		t.Run(c.value, func(t *testing.T) {
			objs, err := renderChart(chartDir(), "routeshift", "routeshift", map[string]any{"manager": map[string]any{"shutdownDelay": c.value}})
			if c.wantErr {
				if err == nil || !strings.Contains(err.Error(), "shutdownDelay") {
					t.Errorf("manager.shutdownDelay %q: error %v, want the schema to refuse it", c.value, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			delay, grace := managerStop(t, managerDeployment(t, objs))
			if delay != c.wantDelay || grace != c.wantGrace {
				t.Errorf("--shutdown-delay %v, terminationGracePeriodSeconds %v; want %v and %v", delay, grace, c.wantDelay, c.wantGrace)
			}
		})
	}
}

// managerDeployment is the manager's Deployment among objs.
func managerDeployment(t *testing.T, objs []*unstructured.Unstructured) *appsv1.Deployment {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == "Deployment" && strings.HasSuffix(o.GetName(), "-manager") {
			d := &appsv1.Deployment{}
			mustConvert(t, o, d)
			return d
		}
	}
	t.Fatal("no manager Deployment among the objects")
	return nil
}

// managerStop is the manager's --shutdown-delay (0 when not given, the
// binary's default) and its pod's terminationGracePeriodSeconds (the
// kubelet's 30 s when not given).
func managerStop(t *testing.T, d *appsv1.Deployment) (delay, grace time.Duration) {
	t.Helper()
	spec := d.Spec.Template.Spec
	for _, a := range spec.Containers[0].Args {
		if v, ok := strings.CutPrefix(a, "--shutdown-delay="); ok {
			var err error
			if delay, err = time.ParseDuration(v); err != nil {
				t.Fatalf("--shutdown-delay=%s: %v", v, err)
			}
		}
	}
	grace = 30 * time.Second
	if spec.TerminationGracePeriodSeconds != nil {
		grace = time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
	}
	return delay, grace
}

// stopPod stops a pod's process as the kubelet does: SIGTERM, and SIGKILL
// once the pod's terminationGracePeriodSeconds (30 s when not given) have
// passed. It returns an error unless the process exited by itself with
// status 0, joined with CheckForbidden's.
func stopPod(p *framework.Process, spec corev1.PodSpec) error {
	if exited, err := p.Exited(); exited {
		return errors.Join(err, p.CheckForbidden())
	}
	grace := 30 * time.Second
	if spec.TerminationGracePeriodSeconds != nil {
		grace = time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
	}
	deadline := time.Now().Add(grace)
	if err := p.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	if !waitExit(p, deadline) {
		return errors.Join(fmt.Errorf("still running terminationGracePeriodSeconds (%v) after SIGTERM: killed", grace), p.CheckForbidden())
	}
	_, err := p.Exited()
	return errors.Join(err, p.CheckForbidden())
}

// TestChartAdoptClasses: manager.adoptClasses gives the manager one
// --adopt-class per class, manager.publishAdoptedStatus
// --publish-adopted-status, and manager.ingressNginxConfigMap
// --ingress-nginx-configmap with a Role reading that ConfigMap only; by
// default none is given (nothing is adopted), and the schema takes only a
// list of names and NAMESPACE/NAME.
func TestChartAdoptClasses(t *testing.T) {
	for _, c := range []struct {
		name     string
		values   map[string]any
		want     []string
		wantRole string // namespace/resource name the Role grants
		wantErr  string
	}{
		{name: "default", values: map[string]any{}},
		{name: "two classes and status", values: map[string]any{"adoptClasses": []any{"nginx", "nginx-internal"}, "publishAdoptedStatus": true},
			want: []string{"--adopt-class=nginx", "--adopt-class=nginx-internal", "--publish-adopted-status"}},
		{name: "ingress-nginx's ConfigMap", values: map[string]any{"adoptClasses": []any{"nginx"}, "ingressNginxConfigMap": "ingress-nginx/ingress-nginx-controller"},
			want: []string{"--adopt-class=nginx", "--ingress-nginx-configmap=ingress-nginx/ingress-nginx-controller"}, wantRole: "ingress-nginx/ingress-nginx-controller"},
		{name: "a string is refused", values: map[string]any{"adoptClasses": "nginx"}, wantErr: "adoptClasses"},
		{name: "an empty name is refused", values: map[string]any{"adoptClasses": []any{""}}, wantErr: "adoptClasses"},
		{name: "a ConfigMap without namespace is refused", values: map[string]any{"ingressNginxConfigMap": "ingress-nginx-controller"}, wantErr: "ingressNginxConfigMap"},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs, err := renderChart(chartDir(), "routeshift", "routeshift", map[string]any{"manager": c.values})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("error %v, want the schema to refuse %s", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range managerDeployment(t, objs).Spec.Template.Spec.Containers[0].Args {
				if strings.HasPrefix(a, "--adopt-class") || strings.HasPrefix(a, "--publish-adopted-status") || strings.HasPrefix(a, "--ingress-nginx-configmap") {
					got = append(got, a)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("adoption flags %q, want %q", got, c.want)
			}
			var grants []string
			for _, o := range objs {
				if o.GetKind() != "Role" || !strings.HasSuffix(o.GetName(), ":ingress-nginx-configmap") {
					continue
				}
				role := &rbacv1.Role{}
				mustConvert(t, o, role)
				for _, r := range role.Rules {
					if !slices.Equal(r.Resources, []string{"configmaps"}) || !slices.Equal(r.Verbs, []string{"get", "list", "watch"}) {
						t.Errorf("role %s grants %v on %v; want get, list and watch on configmaps", role.Name, r.Verbs, r.Resources)
					}
					for _, n := range r.ResourceNames {
						grants = append(grants, role.Namespace+"/"+n)
					}
				}
			}
			if want := []string{c.wantRole}; c.wantRole == "" && len(grants) > 0 || c.wantRole != "" && !slices.Equal(grants, want) {
				t.Errorf("ConfigMaps granted %q, want %q", grants, c.wantRole)
			}
		})
	}
}
