package framework

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// NewCluster starts a control plane of t's own (etcd, kube-apiserver and,
// with opts.ControllerManager, kube-controller-manager), separate from the
// package's shared one, and stops it when t ends. Tests that install
// cluster-scoped objects under fixed names (a whole install of routeshift)
// use one each, so that they can run in parallel. Missing binaries fail t
// when CI=true and skip it otherwise, as Cluster does.
func NewCluster(t testing.TB, opts Options) *ControlPlane {
	t.Helper()
	cp, err := start(opts)
	if err != nil {
		var missing *missingBinariesError
		if errors.As(err, &missing) && os.Getenv("CI") != "true" {
			t.Skip(err)
		}
		t.Fatalf("starting a control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := cp.stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	return cp
}

// StartCommand starts cmd, which runs a routeshift component as user (a
// service account's user name, "" for none), and keeps its output like
// the framework's own processes: Stop sends SIGTERM and fails when the
// component's log shows the API server refusing user (see CheckForbidden).
// cmd must not have Stdout or Stderr set; it runs in a process group of its
// own, killed when the test binary dies (see childproc).
func StartCommand(name, user string, cmd *exec.Cmd) (*Process, error) {
	return startCommand(name, user, cmd)
}

// Name is the name the process was started under.
func (p *Process) Name() string { return p.name }

// grantRouterLease lets the router service account hold the Lease of a
// router named name, as an operator adding a router (a shard) does: the
// manifests grant only the Lease of the router named public.
func (cp *ControlPlane) grantRouterLease(name string) error {
	role := "routeshift-test:router-lease-" + name
	doc := fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: %q, namespace: routeshift}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  resourceNames: [routeshift-router-%s]
  verbs: [get, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: %q, namespace: routeshift}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %q}
subjects: [{kind: ServiceAccount, name: router, namespace: routeshift}]
`, role, name, role, role)
	if _, err := cp.kubectlStdin(doc, "apply", "-f", "-"); err != nil {
		return fmt.Errorf("granting the Lease of router %s: %w", name, err)
	}
	return nil
}
