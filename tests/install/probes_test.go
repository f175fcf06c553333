package install

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestProbesWaitForStart: no probe of any container runs before the
// container has had time to open its probe port (the kubelet would log
// a failed probe, "connection refused", at every start), and liveness
// waits at least as long as readiness.
func TestProbesWaitForStart(t *testing.T) {
	variants := renderedVariants(t)
	for _, name := range slices.Sorted(maps.Keys(variants)) {
		for _, o := range variants[name] {
			if !workloadKinds[o.GetKind()] {
				continue
			}
			w, err := readWorkload(o.DeepCopy(), func(*corev1.PodTemplateSpec) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			c := w.container()
			if c.ReadinessProbe == nil || c.LivenessProbe == nil {
				t.Errorf("%s: %s lacks a readiness or liveness probe", name, w)
				continue
			}
			ready, live := c.ReadinessProbe.InitialDelaySeconds, c.LivenessProbe.InitialDelaySeconds
			if ready <= 0 {
				t.Errorf("%s: %s probes readiness at once (initialDelaySeconds %d)", name, w, ready)
			}
			if live < ready {
				t.Errorf("%s: %s probes liveness (initialDelaySeconds %d) before readiness (%d)", name, w, live, ready)
			}
		}
	}
}
