package controlplane

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// kubeconfigName names the cluster, user and context of the kubeconfig.
const kubeconfigName = "routeshift-local"

// kubeconfig is cfg as a kubeconfig file.
func kubeconfig(cfg *rest.Config) ([]byte, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters[kubeconfigName] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos[kubeconfigName] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts[kubeconfigName] = &clientcmdapi.Context{Cluster: kubeconfigName, AuthInfo: kubeconfigName}
	kc.CurrentContext = kubeconfigName
	return clientcmd.Write(*kc)
}

// poll calls check every 200 ms until it returns nil, ctx ends or timeout
// passes.
func poll(ctx context.Context, timeout time.Duration, what string, check func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not done after %s: %w", what, timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// waitForDefaultNamespace waits until the API server has made the
// namespace default, which it does shortly after its first start on an
// empty etcd.
func waitForDefaultNamespace(ctx context.Context, cfg *rest.Config, timeout time.Duration) error {
	c, err := newClient(cfg)
	if err != nil {
		return err
	}
	return poll(ctx, timeout, "the namespace default", func(ctx context.Context) error {
		return c.Get(ctx, client.ObjectKey{Name: corev1.NamespaceDefault}, &corev1.Namespace{})
	})
}

// installCRDs creates each CRD, or updates the one an earlier run left,
// and waits until discovery lists every served version's resource.
func installCRDs(ctx context.Context, cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition, timeout time.Duration) error {
	c, err := newClient(cfg)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if err := createOrUpdate(ctx, c, crd.DeepCopy()); err != nil {
			return fmt.Errorf("installing CRD %s: %w", crd.Name, err)
		}
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			gv := crd.Spec.Group + "/" + v.Name
			if err := poll(ctx, timeout, "serving "+crd.Spec.Names.Plural+"."+gv, func(context.Context) error {
				return served(dc, gv, crd.Spec.Names.Plural)
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

func createOrUpdate(ctx context.Context, c client.Client, crd *apiextensionsv1.CustomResourceDefinition) error {
	existing := &apiextensionsv1.CustomResourceDefinition{}
	err := c.Get(ctx, client.ObjectKey{Name: crd.Name}, existing)
	switch {
	case apierrors.IsNotFound(err):
		return c.Create(ctx, crd)
	case err != nil:
		return err
	}
	crd.ResourceVersion = existing.ResourceVersion
	return c.Update(ctx, crd)
}

// served reports whether discovery lists resource in group version gv.
func served(dc discovery.DiscoveryInterface, gv, resource string) error {
	list, err := dc.ServerResourcesForGroupVersion(gv)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == resource }) {
		return fmt.Errorf("discovery of %s does not list %s yet", gv, resource)
	}
	return nil
}

func newClient(cfg *rest.Config) (client.Client, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}
