// Package controlplane runs a Kubernetes control plane on this machine for
// `routeshift local`: etcd and kube-apiserver from binaries on disk, with
// certificates from the certs package, an admin user and its kubeconfig,
// and CRDs installed and served. It exists so that the shipped binary does
// not link controller-runtime's envtest, a test package that writes below
// /tmp as soon as it is loaded. It imports certs and Kubernetes' client
// libraries; it must not import the routeshift adapters (webhook, ingress,
// router) nor any test package.
package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"

	"github.com/routeshift/routeshift/internal/childproc"
)

// Options configure Start.
type Options struct {
	// BinDir holds the etcd and kube-apiserver binaries.
	BinDir string
	// DataDir holds etcd's data (DataDir/etcd, kept across runs) and the
	// certificates and keys (DataDir/pki, made anew at every start).
	DataDir string
	// Log receives the output of both processes.
	Log io.Writer
	// StartTimeout bounds the start of each process; StopTimeout the
	// graceful stop of each, after which it is killed.
	StartTimeout, StopTimeout time.Duration
	// CRDs are created, or updated when they exist, and waited for until
	// the API server serves them.
	CRDs []*apiextensionsv1.CustomResourceDefinition
}

// ControlPlane is a running etcd and kube-apiserver.
type ControlPlane struct {
	// Config reaches the API server as the admin (group system:masters).
	Config *rest.Config
	// Kubeconfig is Config as the content of a kubeconfig file.
	Kubeconfig []byte

	stopTimeout     time.Duration
	etcd, apiServer *childproc.Process
}

// Start starts etcd, then kube-apiserver, waits until the API server
// serves the default namespace, and installs the CRDs. On error it stops
// what it started.
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	cp := &ControlPlane{stopTimeout: opts.StopTimeout}
	opts.Log = &lockedWriter{w: opts.Log}
	if err := cp.start(ctx, opts); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	return cp, nil
}

func (cp *ControlPlane) start(ctx context.Context, opts Options) error {
	keys, err := newPKI(filepath.Join(opts.DataDir, "pki"))
	if err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	etcdURL, err := cp.startEtcd(ctx, opts)
	if err != nil {
		return err
	}
	if err := cp.startAPIServer(ctx, opts, keys, etcdURL); err != nil {
		return err
	}
	if cp.Kubeconfig, err = kubeconfig(cp.Config); err != nil {
		return err
	}
	if err := waitForDefaultNamespace(ctx, cp.Config, opts.StartTimeout); err != nil {
		return err
	}
	return installCRDs(ctx, cp.Config, opts.CRDs, opts.StartTimeout)
}

// Stop stops kube-apiserver, then etcd: SIGTERM, then SIGKILL to the
// process group of one that has not exited within the stop timeout.
func (cp *ControlPlane) Stop() error {
	var errs []error
	for _, p := range []*childproc.Process{cp.apiServer, cp.etcd} {
		if p != nil {
			errs = append(errs, stop(p, cp.stopTimeout))
		}
	}
	return errors.Join(errs...)
}

// lockedWriter lets both processes write to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// dataDir makes a directory only the user may enter.
func dataDir(path string) (string, error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		return "", err
	}
	return path, os.Chmod(path, 0o700)
}
