package integration

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestManifestsDryRun: the kustomizations build with the real kubectl and
// the API server accepts everything they contain (server-side apply, dry
// run). The cert-manager overlay needs cert-manager's CRDs and is covered
// with the cluster install tests.
func TestManifestsDryRun(t *testing.T) {
	cp := framework.Cluster(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "routeshift"}}
	if err := cp.Client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for _, dir := range []string{"base", "overlays/self-signed"} {
		t.Run(dir, func(t *testing.T) {
			built, errOut, err := cp.Kubectl(t, "kustomize", filepath.Join(cp.RepoRoot, "manifests", dir))
			if err != nil {
				t.Fatalf("kubectl kustomize: %v\n%s", err, errOut)
			}
			tmp, err := os.MkdirTemp("", "manifests")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(tmp)
			file := filepath.Join(tmp, "all.yaml")
			if err := os.WriteFile(file, []byte(built), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, errOut, err := cp.Kubectl(t, "apply", "--dry-run=server", "--server-side", "--field-manager=routeshift-test", "-f", file); err != nil {
				t.Errorf("server-side dry run: %v\n%s\n%s", err, out, errOut)
			}
		})
	}
}
