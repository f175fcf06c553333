package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/internal/childproc"
	"github.com/routeshift/routeshift/routecore"
)

// The cert-manager `routeshift local --with-cert-manager` runs: its
// controller and CRDs, which `make tools` builds into the bin directory, of
// the cert-manager release whose API types routeshift is built with.
const (
	certManagerController = "cert-manager-controller"
	certManagerModule     = "github.com/cert-manager/cert-manager"
	// localCANamespace holds the local CA's Secret (cert-manager's cluster
	// resource namespace, where ClusterIssuers find their Secrets).
	localCANamespace = "cert-manager"
	// LocalCAIssuer is the ClusterIssuer of `routeshift local
	// --with-cert-manager`: a CA whose certificate local writes to
	// <data-dir>/cert-manager-ca.crt, for clients to trust.
	LocalCAIssuer = "routeshift-local-ca"
	// localSelfSignedIssuer signs the local CA.
	localSelfSignedIssuer = "routeshift-local-selfsigned"
	// localCAFile is the local CA's certificate in the data directory.
	localCAFile = "cert-manager-ca.crt"
)

// certManagerVersion is the version of cert-manager's module routeshift
// is built with.
func certManagerVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == certManagerModule {
				return d.Version
			}
		}
	}
	return "unknown"
}

// certManagerCRDDir is the directory `make tools` copies cert-manager's
// CRDs into.
func certManagerCRDDir(bin string) string {
	return filepath.Join(bin, "cert-manager-crds-"+certManagerVersion())
}

// checkCertManager checks that the bin directory holds cert-manager's
// controller and CRDs.
func checkCertManager(bin string) error {
	var missing []string
	if st, err := os.Stat(filepath.Join(bin, certManagerController)); err != nil || st.Mode()&0o111 == 0 {
		missing = append(missing, certManagerController)
	}
	if _, err := os.Stat(certManagerCRDDir(bin)); err != nil {
		missing = append(missing, filepath.Base(certManagerCRDDir(bin)))
	}
	if len(missing) > 0 {
		return fmt.Errorf("--with-cert-manager: %s not found in %s: run 'make tools' in the routeshift repository (it builds cert-manager %s there), or pass --bin-dir",
			strings.Join(missing, " and "), bin, certManagerVersion())
	}
	return nil
}

// installCertManagerCRDs creates or updates cert-manager's CRDs and waits
// until the API server serves them.
func (r *localRun) installCertManagerCRDs(ctx context.Context) error {
	dir := certManagerCRDDir(r.bin)
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no CRDs in %s: run 'make tools'", dir)
	}
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if err := r.apply(ctx, u); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		names = append(names, u.GetName())
	}
	return waitFor(ctx, 2*time.Minute, func() error {
		for _, name := range names {
			crd := &unstructured.Unstructured{}
			crd.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
			if err := r.client.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				return err
			}
			if !established(crd) {
				return fmt.Errorf("CRD %s is not established yet", name)
			}
		}
		return nil
	})
}

// established reports whether a CRD has condition Established=True.
func established(crd *unstructured.Unstructured) bool {
	conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == string(apiextensionsv1.Established) && m["status"] == string(apiextensionsv1.ConditionTrue) {
			return true
		}
	}
	return false
}

// startCertManager runs cert-manager's controller (which issues
// certificates; the CA injector has nothing to do here, where the webhook
// provides its own CA) and waits until it is ready.
func (r *localRun) startCertManager(ctx context.Context) error {
	if err := r.ensure(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: localCANamespace}}); err != nil {
		return err
	}
	healthz, err := freePort()
	if err != nil {
		return err
	}
	r.certManager, err = childproc.Start(exec.Command(filepath.Join(r.bin, certManagerController), "--kubeconfig", r.kubecfg,
		"--leader-elect=false", "--cluster-resource-namespace="+localCANamespace,
		"--healthz-listen-address=127.0.0.1:"+strconv.Itoa(healthz), "--metrics-listen-address=0"),
		childproc.Options{Log: r.log})
	if err != nil {
		return err
	}
	return r.certManager.WaitHealthy(ctx, nil, fmt.Sprintf("http://127.0.0.1:%d/readyz", healthz), 2*time.Minute)
}

// localIssuers: a self-signed ClusterIssuer, a CA certificate it signs,
// and the CA ClusterIssuer LocalCAIssuer on it.
const localIssuers = `apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata: {name: ` + localSelfSignedIssuer + `}
spec: {selfSigned: {}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: ` + LocalCAIssuer + `, namespace: ` + localCANamespace + `}
spec:
  isCA: true
  commonName: routeshift local CA
  secretName: ` + LocalCAIssuer + `
  privateKey: {algorithm: ECDSA, size: 256}
  issuerRef: {kind: ClusterIssuer, name: ` + localSelfSignedIssuer + `}
---
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata: {name: ` + LocalCAIssuer + `}
spec: {ca: {secretName: ` + LocalCAIssuer + `}}
`

// installIssuers creates the local issuers, waits for the CA's Secret
// and writes its certificate to the data directory.
func (r *localRun) installIssuers(ctx context.Context) error {
	for doc := range strings.SplitSeq(localIssuers, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			return err
		}
		if err := r.apply(ctx, u); err != nil {
			return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return waitFor(ctx, 2*time.Minute, func() error {
		s := &corev1.Secret{}
		if err := r.client.Get(ctx, client.ObjectKey{Namespace: localCANamespace, Name: LocalCAIssuer}, s); err != nil {
			return err
		}
		ca := s.Data[corev1.TLSCertKey]
		if len(ca) == 0 {
			return fmt.Errorf("Secret %s/%s has no certificate yet", localCANamespace, LocalCAIssuer)
		}
		return os.WriteFile(r.caFile(), ca, 0o600)
	})
}

func (r *localRun) caFile() string { return filepath.Join(r.opts.dataDir, localCAFile) }

// secureDemo is the demo Route whose certificate cert-manager issues.
func (r *localRun) secureDemo() *routecore.Route {
	w := int32(100)
	return &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "secure",
		Annotations: map[string]string{cmapi.IngressClusterIssuerNameAnnotationKey: LocalCAIssuer}},
		Spec: routecore.RouteSpec{Host: "secure." + localDomain, To: routecore.RouteTargetReference{Kind: "Service", Name: "demo", Weight: &w},
			TLS: &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyRedirect}}}
}

func (r *localRun) secureURL() string {
	return fmt.Sprintf("https://secure.%s:%d/", localDomain, r.opts.httpsPort)
}

// waitForSecureDemo waits until HAProxy serves the secure demo with a
// certificate that verifies against the local CA.
func (r *localRun) waitForSecureDemo(ctx context.Context) error {
	if err := r.ensure(ctx, r.secureDemo()); err != nil {
		return err
	}
	ca, err := os.ReadFile(r.caFile())
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, port, _ := net.SplitHostPort(addr)
		return (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, network, net.JoinHostPort(r.opts.bind, port))
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dial,
		TLSClientConfig: &tls.Config{RootCAs: roots}, DisableKeepAlives: true}}
	return waitFor(ctx, 3*time.Minute, func() error {
		resp, err := c.Get(r.secureURL())
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s answered %s", r.secureURL(), resp.Status)
		}
		return nil
	})
}
