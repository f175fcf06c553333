package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RouterServiceAccount is the user name routers run as.
const RouterServiceAccount = "system:serviceaccount:routeshift:router"

// Router is `routeshift router` running against the control plane as the
// router's service account, with only the permissions manifests/rbac grants
// it.
type Router struct {
	*Process
	// ListenPort serves /healthz, /healthz/ready and /metrics.
	ListenPort int
	// HTTPPort and HTTPSPort are HAProxy's public ports on 127.0.0.1.
	HTTPPort, HTTPSPort int
	// WorkingDir holds HAProxy's configuration.
	WorkingDir string
}

// StartRouter runs a router named name with extra flags and waits until it
// is ready; it is stopped when the test ends.
func (cp *ControlPlane) StartRouter(t testing.TB, name string, flags ...string) *Router {
	t.Helper()
	ctx := context.Background()
	bin, err := cp.Routeshift()
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "routeshift"}}
	if err := cp.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if out, err := cp.kubectl("apply", "-f", filepath.Join(cp.RepoRoot, "manifests", "rbac", "router.yaml")); err != nil {
		t.Fatalf("applying the router's RBAC: %v\n%s", err, out)
	}
	kubeconfig, err := cp.KubeconfigAs(RouterServiceAccount, "system:serviceaccounts", "system:serviceaccounts:routeshift", "system:authenticated")
	if err != nil {
		t.Fatal(err)
	}
	var ports [5]int
	for i := range ports {
		if ports[i], err = FreePort(); err != nil {
			t.Fatal(err)
		}
	}
	work, err := os.MkdirTemp(cp.tempDir, "router-")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"router", "--kubeconfig", kubeconfig, "--name", name, "--namespace", "routeshift",
		"--listen-addr", fmt.Sprintf("127.0.0.1:%d", ports[0]), "--log-level", "debug",
		"--bind-address", "127.0.0.1", "--http-port", fmt.Sprint(ports[1]), "--https-port", fmt.Sprint(ports[2]),
		"--sni-port", fmt.Sprint(ports[3]), "--no-sni-port", fmt.Sprint(ports[4]), "--working-dir", work}, flags...)
	p, err := startProcess("routeshift router "+name, bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	r := &Router{Process: p, ListenPort: ports[0], HTTPPort: ports[1], HTTPSPort: ports[2], WorkingDir: work}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("router %s did not stop cleanly: %v\n%s", name, err, p.Output())
		}
	})
	if err := WaitHTTP(ctx, fmt.Sprintf("http://127.0.0.1:%d/healthz/ready", ports[0]), 60*time.Second, p); err != nil {
		t.Fatalf("%v\nrouter output:\n%s", err, p.Output())
	}
	return r
}
