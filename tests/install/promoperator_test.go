package install

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/routeshift/routeshift/tests/framework"
)

// The Prometheus Operator whose CRDs the chart's monitoring objects are
// checked against: its module on the Go module proxy carries them in
// example/prometheus-operator-crd.
const (
	promOperatorModule  = "github.com/prometheus-operator/prometheus-operator"
	promOperatorVersion = "v0.85.0"
)

// promOperatorCRDs are the CRDs of the kinds the chart makes.
var promOperatorCRDs = []string{
	"monitoring.coreos.com_servicemonitors.yaml",
	"monitoring.coreos.com_podmonitors.yaml",
	"monitoring.coreos.com_prometheusrules.yaml",
}

var (
	promOperatorOnce sync.Once
	promOperatorDir  string
	promOperatorErr  error
)

// promOperatorCRDDir downloads the Prometheus Operator's module (once per
// test binary; Go's module cache keeps it) and returns its CRD directory.
func promOperatorCRDDir(t *testing.T) string {
	promOperatorOnce.Do(func() {
		out, err := exec.Command("go", "mod", "download", "-json", promOperatorModule+"@"+promOperatorVersion).Output()
		if err != nil {
			promOperatorErr = fmt.Errorf("go mod download %s@%s: %w", promOperatorModule, promOperatorVersion, err)
			return
		}
		var mod struct{ Dir, Error string }
		if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
			promOperatorErr = fmt.Errorf("go mod download %s@%s: %v %s", promOperatorModule, promOperatorVersion, err, mod.Error)
			return
		}
		promOperatorDir = filepath.Join(mod.Dir, "example", "prometheus-operator-crd")
	})
	if promOperatorErr != nil {
		t.Fatal(promOperatorErr)
	}
	return promOperatorDir
}

// usesPromOperator is whether objs hold Prometheus Operator objects.
func usesPromOperator(objs []*unstructured.Unstructured) bool {
	for _, o := range objs {
		if o.GroupVersionKind().Group == "monitoring.coreos.com" {
			return true
		}
	}
	return false
}

// installPromOperatorCRDs applies the Prometheus Operator's CRDs of the
// chart's kinds to cp and waits until they are served.
func installPromOperatorCRDs(t *testing.T, cp *framework.ControlPlane) {
	dir := promOperatorCRDDir(t)
	args := []string{"apply", "--server-side", "--force-conflicts"}
	for _, f := range promOperatorCRDs {
		args = append(args, "-f", filepath.Join(dir, f))
	}
	if out, errOut, err := cp.Kubectl(t, args...); err != nil {
		t.Fatalf("installing the Prometheus Operator's CRDs: %v\n%s%s", err, out, errOut)
	}
	framework.EventuallyWithin(t, 2*time.Minute, "the Prometheus Operator's CRDs established", func() error {
		wait := []string{"wait", "--for=condition=Established", "--timeout=10s"}
		for _, f := range promOperatorCRDs {
			wait = append(wait, "-f", filepath.Join(dir, f))
		}
		if out, errOut, err := cp.Kubectl(t, wait...); err != nil {
			return fmt.Errorf("%v: %s%s", err, out, errOut)
		}
		return nil
	})
}
