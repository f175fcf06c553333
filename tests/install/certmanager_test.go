package install

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/tests/framework"
)

// injectCAFrom is cert-manager's annotation naming the Certificate
// (NAMESPACE/NAME) whose CA its CA injector writes into an object.
const injectCAFrom = "cert-manager.io/inject-ca-from"

// usesCertManager is whether objs hold cert-manager objects.
func usesCertManager(objs []*unstructured.Unstructured) bool {
	for _, o := range objs {
		if o.GroupVersionKind().Group == "cert-manager.io" {
			return true
		}
	}
	return false
}

// webhookBundle is a webhook configuration's CA bundles, one per webhook,
// and the CA its injection annotation asks for.
type webhookBundle struct {
	Config  string
	Bundles [][]byte
	// Source is the inject-ca-from annotation ("" when there is none).
	Source string
}

// webhookBundles reads every webhook configuration of the install from the
// API server.
func (inst *installation) webhookBundles(ctx context.Context) ([]webhookBundle, error) {
	var out []webhookBundle
	for _, o := range inst.objs {
		var obj client.Object
		switch o.GetKind() {
		case "MutatingWebhookConfiguration":
			obj = &admissionregistrationv1.MutatingWebhookConfiguration{}
		case "ValidatingWebhookConfiguration":
			obj = &admissionregistrationv1.ValidatingWebhookConfiguration{}
		default:
			continue
		}
		if err := inst.cp.Client.Get(ctx, client.ObjectKey{Name: o.GetName()}, obj); err != nil {
			return nil, err
		}
		b := webhookBundle{Config: o.GetKind() + " " + o.GetName(), Source: obj.GetAnnotations()[injectCAFrom]}
		switch cfg := obj.(type) {
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			for _, w := range cfg.Webhooks {
				b.Bundles = append(b.Bundles, w.ClientConfig.CABundle)
			}
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			for _, w := range cfg.Webhooks {
				b.Bundles = append(b.Bundles, w.ClientConfig.CABundle)
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// certificateSecret reads the Secret of the cert-manager Certificate ref
// (NAMESPACE/NAME) names.
func (inst *installation) certificateSecret(ctx context.Context, ref string) (*corev1.Secret, error) {
	ns, name, ok := strings.Cut(ref, "/")
	if !ok {
		return nil, fmt.Errorf("%s %q is not NAMESPACE/NAME", injectCAFrom, ref)
	}
	cert := &unstructured.Unstructured{}
	cert.SetGroupVersionKind(schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"})
	if err := inst.cp.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cert); err != nil {
		return nil, fmt.Errorf("certificate %s: %w", ref, err)
	}
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	secret := &corev1.Secret{}
	if err := inst.cp.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: secretName}, secret); err != nil {
		return nil, fmt.Errorf("secret %s/%s of certificate %s: %w", ns, secretName, ref, err)
	}
	return secret, nil
}

// checkBundles: every webhook configuration asks cert-manager for its CA
// and every webhook of it carries the ca.crt of that Certificate's Secret.
func (inst *installation) checkBundles(ctx context.Context) error {
	bundles, err := inst.webhookBundles(ctx)
	if err != nil {
		return err
	}
	if len(bundles) == 0 {
		return fmt.Errorf("the install has no webhook configuration")
	}
	for _, b := range bundles {
		if b.Source == "" {
			return fmt.Errorf("%s has no %s annotation: nothing puts a CA into it", b.Config, injectCAFrom)
		}
		secret, err := inst.certificateSecret(ctx, b.Source)
		if err != nil {
			return err
		}
		ca := secret.Data["ca.crt"]
		if len(ca) == 0 {
			return fmt.Errorf("secret %s/%s has no ca.crt yet", secret.Namespace, secret.Name)
		}
		for i, got := range b.Bundles {
			if !bytes.Equal(got, ca) {
				return fmt.Errorf("%s webhook %d: caBundle of %d bytes, want the %d bytes of %s/%s's ca.crt", b.Config, i, len(got), len(ca), secret.Namespace, secret.Name)
			}
		}
	}
	return nil
}

// waitCABundles waits until cert-manager's CA injector has filled every
// webhook configuration's caBundle: until then the API server cannot call
// the webhook, and failurePolicy Fail refuses every Route.
func (inst *installation) waitCABundles(t *testing.T) {
	framework.EventuallyWithin(t, 2*time.Minute, "cert-manager's CA injector fills the webhook configurations' caBundle", func() error {
		return inst.checkBundles(context.Background())
	})
}

// checkCertManager: the webhook serves the certificate cert-manager issued
// into the Secret the manager mounts, and that certificate verifies for
// the webhook's address against the caBundle cert-manager injected.
func (inst *installation) checkCertManager(t *testing.T) {
	ctx := context.Background()
	if err := inst.checkBundles(ctx); err != nil {
		t.Fatal(err)
	}
	bundles, err := inst.webhookBundles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := inst.certificateSecret(ctx, bundles[0].Source)
	if err != nil {
		t.Fatal(err)
	}
	served := inst.servedCertificate(t)
	block, _ := pem.Decode(secret.Data["tls.crt"])
	if block == nil || !bytes.Equal(block.Bytes, served.Raw) {
		t.Errorf("the webhook serves %q (serial %s), not the certificate of secret %s/%s", served.Subject, served.SerialNumber, secret.Namespace, secret.Name)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(bundles[0].Bundles[0]) {
		t.Fatalf("%s: caBundle holds no PEM certificate", bundles[0].Config)
	}
	if _, err := served.Verify(x509.VerifyOptions{Roots: roots, DNSName: "127.0.0.1"}); err != nil {
		t.Errorf("the webhook's certificate does not verify against the injected caBundle: %v", err)
	}
}

// servedCertificate is the leaf certificate the manager's webhook port
// presents.
func (inst *installation) servedCertificate(t *testing.T) *x509.Certificate {
	for _, p := range inst.pods {
		port, ok := p.Ports["webhook"]
		if !ok {
			continue
		}
		conn, err := tls.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the certificate is checked by the caller
		if err != nil {
			t.Fatalf("connecting to the webhook of %s: %v", p.Workload, err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0]
	}
	t.Fatal("no pod has a webhook port")
	return nil
}
