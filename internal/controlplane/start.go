package controlplane

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"

	"k8s.io/client-go/rest"

	"github.com/routeshift/routeshift/internal/freeport"
)

// startEtcd starts etcd on free loopback ports, with its data in
// DataDir/etcd, and returns its client URL once it is healthy.
func (cp *ControlPlane) startEtcd(ctx context.Context, opts Options) (string, error) {
	data, err := dataDir(filepath.Join(opts.DataDir, "etcd"))
	if err != nil {
		return "", err
	}
	clientPort, err := freeport.Get()
	if err != nil {
		return "", err
	}
	peerPort, err := freeport.Get()
	if err != nil {
		return "", err
	}
	url := "http://127.0.0.1:" + strconv.Itoa(clientPort)
	cp.etcd, err = startProcess(opts.BinDir, "etcd", []string{
		"--data-dir=" + data,
		"--listen-client-urls=" + url,
		"--advertise-client-urls=" + url,
		"--listen-peer-urls=http://127.0.0.1:" + strconv.Itoa(peerPort),
		// A crash of the machine may lose the last writes of a local
		// cluster; starting fast matters more here.
		"--unsafe-no-fsync=true",
	}, opts.Log)
	if err != nil {
		return "", err
	}
	return url, cp.etcd.WaitHealthy(ctx, http.DefaultClient, url+"/health", opts.StartTimeout)
}

// startAPIServer starts kube-apiserver on a free loopback port with the
// certificates of keys, and sets cp.Config once it is healthy.
func (cp *ControlPlane) startAPIServer(ctx context.Context, opts Options, keys *pki, etcdURL string) error {
	port, err := freeport.Get()
	if err != nil {
		return err
	}
	host := "https://127.0.0.1:" + strconv.Itoa(port)
	cp.apiServer, err = startProcess(opts.BinDir, "kube-apiserver", []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + keys.path(servingCert),
		"--tls-private-key-file=" + keys.path(servingKey),
		"--client-ca-file=" + keys.path(caFile),
		"--authorization-mode=RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		// Nothing here creates the namespaces' default service accounts,
		// which the ServiceAccount admission plugin requires of every pod.
		"--disable-admission-plugins=ServiceAccount",
		"--service-account-issuer=" + host + "/",
		"--service-account-key-file=" + keys.path(signingCert),
		"--service-account-signing-key-file=" + keys.path(signingKey),
	}, opts.Log)
	if err != nil {
		return err
	}
	cp.Config = &rest.Config{Host: host, TLSClientConfig: rest.TLSClientConfig{
		CAData: keys.CA.CertPEM, CertData: keys.Admin.CertPEM, KeyData: keys.Admin.KeyPEM}}
	client, err := rest.HTTPClientFor(cp.Config)
	if err != nil {
		return fmt.Errorf("a client for the API server: %w", err)
	}
	return cp.apiServer.WaitHealthy(ctx, client, host+"/readyz", opts.StartTimeout)
}
