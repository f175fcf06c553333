package install

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// workload is a Deployment or a DaemonSet of the install: what makes its
// pods. The test runs one pod of each.
type workload struct {
	Kind, Name, Namespace string
	// Template is the pod template, as substitute.go changed it.
	Template corev1.PodTemplateSpec
}

// workloadKinds are the kinds whose pods the test runs.
var workloadKinds = map[string]bool{"Deployment": true, "DaemonSet": true}

// container is the workload's one container.
func (w *workload) container() corev1.Container { return w.Template.Spec.Containers[0] }

// String names the workload as kubectl does (kind/name).
func (w *workload) String() string { return w.Kind + "/" + w.Name }

// readWorkload converts o's pod template to typed, lets change edit it,
// writes it back into o and returns the workload.
func readWorkload(o *unstructured.Unstructured, change func(*corev1.PodTemplateSpec) error) (*workload, error) {
	raw, found, err := unstructured.NestedMap(o.Object, "spec", "template")
	if err != nil || !found {
		return nil, fmt.Errorf("%s %s: no spec.template (%v)", o.GetKind(), o.GetName(), err)
	}
	w := &workload{Kind: o.GetKind(), Name: o.GetName(), Namespace: o.GetNamespace()}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &w.Template); err != nil {
		return nil, fmt.Errorf("%s: %w", w, err)
	}
	if err := change(&w.Template); err != nil {
		return nil, fmt.Errorf("%s: %w", w, err)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&w.Template)
	if err != nil {
		return nil, err
	}
	return w, unstructured.SetNestedMap(o.Object, m, "spec", "template")
}
