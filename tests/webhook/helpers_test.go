package webhook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

// apply runs `kubectl apply -f` on manifest with extra flags and returns
// stdout, stderr and whether kubectl succeeded.
func apply(t *testing.T, cp *framework.ControlPlane, manifest string, flags ...string) (string, string, bool) {
	t.Helper()
	dir, err := os.MkdirTemp("", "manifest")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	file := filepath.Join(dir, "manifest.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := cp.Kubectl(t, append([]string{"apply", "-f", file}, flags...)...)
	return out, errOut, err == nil
}

// routeYAML is a Route manifest: name, namespace and the rest of the
// document (metadata extras and spec) indented as in a file.
func routeYAML(name, namespace, rest string) string {
	return "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata:\n  name: " + name + "\n  namespace: " + namespace + "\n" +
		strings.TrimLeft(rest, "\n")
}
