package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestManifestsDryRun: every kustomization builds with the real kubectl and
// the API server accepts everything it contains (server-side apply, dry
// run). cert-manager's own CRDs (fetched by `make tools`) are installed
// first, so the cert-manager overlay's Issuer and Certificate are checked
// against cert-manager's real schema.
func TestManifestsDryRun(t *testing.T) {
	cp := framework.Cluster(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "routeshift"}}
	if err := cp.Client.Create(context.Background(), ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	cp.InstallCertManagerCRDs(t)

	tests := []struct {
		dir string
		// want are lines the built YAML must hold.
		want []string
	}{
		{dir: "base", want: []string{"kind: CustomResourceDefinition", "kind: IngressClass", "name: routeshift-router",
			"name: routeshift-manager", "kind: PodDisruptionBudget", "- routes/status"}},
		{dir: "overlays/self-signed", want: []string{"- --self-signed"}},
		{dir: "overlays/cert-manager", want: []string{"kind: Certificate", "kind: Issuer",
			"cert-manager.io/inject-ca-from: routeshift/routeshift-webhook"}},
		{dir: "overlays/host-network", want: []string{"hostNetwork: true", "dnsPolicy: ClusterFirstWithHostNet",
			"- NET_BIND_SERVICE"}},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			built, errOut, err := cp.Kubectl(t, "kustomize", filepath.Join(cp.RepoRoot, "manifests", tc.dir))
			if err != nil {
				t.Fatalf("kubectl kustomize: %v\n%s", err, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(built, w) {
					t.Errorf("built manifests lack %q", w)
				}
			}
			file := filepath.Join(t.TempDir(), "all.yaml")
			if err := os.WriteFile(file, []byte(built), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, errOut, err := cp.Kubectl(t, "apply", "--dry-run=server", "--server-side", "--field-manager=routeshift-test", "-f", file); err != nil {
				t.Errorf("server-side dry run: %v\n%s\n%s", err, out, errOut)
			}
		})
	}
}
