package certmanager

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
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

// issueWait bounds the waits for cert-manager's work: each step is a few
// API round trips, but a loaded 2-core machine can be slow.
const issueWait = 2 * time.Minute

// TestCertManager runs one cert-manager for its subtests: two on one control
// plane would both act on every Certificate.
func TestCertManager(t *testing.T) {
	cp := framework.Cluster(t)
	p := framework.StartPebble(t, framework.PebbleOptions{})
	// The HTTP-01 self check fetches http://<name>/... on port 80; the proxy
	// sends it to where pebble validates, as a router would take it there.
	framework.StartCertManager(t, cp, framework.CertManagerOptions{
		ControllerEnv: []string{fmt.Sprintf("HTTP_PROXY=http://127.0.0.1:%d", p.HTTPPort)},
	})
	ns := cp.CreateNamespace(t, "cert-manager-test")

	t.Run("CA issuer chain", func(t *testing.T) { testCAIssuerChain(t, cp, ns) })
	t.Run("CA injector", func(t *testing.T) { testCAInjector(t, cp, ns) })
	t.Run("ACME account with pebble", func(t *testing.T) { testACMEAccount(t, cp, p, ns) })
	t.Run("ACME HTTP-01 issuance with pebble", func(t *testing.T) { testACMEIssuance(t, cp, p, ns) })
}

// testCAIssuerChain: a self-signed ClusterIssuer issues a CA Certificate, a
// CA Issuer built on its Secret issues a serving Certificate, and the
// serving certificate verifies against the CA for its name.
func testCAIssuerChain(t *testing.T, cp *framework.ControlPlane, ns string) {
	apply(t, cp, fmt.Sprintf(caChain, ns))
	t.Cleanup(func() { _, _, _ = cp.Kubectl(t, "delete", "clusterissuer", "selfsigned-"+ns) })
	waitReady(t, cp, ns, "certificate/test-ca", "issuer/test-ca", "certificate/app")

	caSecret := secret(t, cp, ns, "test-ca")
	ca := parseCert(t, caSecret.Data["tls.crt"])
	if !ca.IsCA || ca.Subject.CommonName != "routeshift test CA" || !bytes.Equal(ca.RawIssuer, ca.RawSubject) {
		t.Fatalf("CA certificate: IsCA=%v subject=%q issuer=%q; want a self-signed CA named %q", ca.IsCA, ca.Subject, ca.Issuer, "routeshift test CA")
	}
	app := secret(t, cp, ns, "app-tls")
	if app.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret app-tls has type %q, want %q", app.Type, corev1.SecretTypeTLS)
	}
	if !bytes.Equal(app.Data["ca.crt"], caSecret.Data["tls.crt"]) {
		t.Errorf("app-tls ca.crt is not the CA certificate:\n%s", app.Data["ca.crt"])
	}
	pair, err := tls.X509KeyPair(app.Data["tls.crt"], app.Data["tls.key"])
	if err != nil {
		t.Fatalf("app-tls tls.crt and tls.key do not form a key pair: %v", err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	if _, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "app.example.test"}); err != nil {
		t.Fatalf("certificate for app.example.test does not verify against the CA: %v", err)
	}
	if _, err := pair.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "other.example.test"}); err == nil {
		t.Fatal("certificate for app.example.test also verifies for other.example.test")
	}
}

const caChain = `apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata: {name: selfsigned-%[1]s}
spec: {selfSigned: {}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: test-ca, namespace: %[1]s}
spec:
  isCA: true
  commonName: routeshift test CA
  secretName: test-ca
  privateKey: {algorithm: ECDSA, size: 256}
  issuerRef: {group: cert-manager.io, kind: ClusterIssuer, name: selfsigned-%[1]s}
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: test-ca, namespace: %[1]s}
spec: {ca: {secretName: test-ca}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: app, namespace: %[1]s}
spec:
  secretName: app-tls
  dnsNames: [app.example.test]
  issuerRef: {kind: Issuer, name: test-ca}
`

// testCAInjector: the CA injector copies the CA of the Certificate named
// by cert-manager.io/inject-ca-from into every webhook of a
// ValidatingWebhookConfiguration, and leaves one without the annotation
// alone.
func testCAInjector(t *testing.T, cp *framework.ControlPlane, ns string) {
	ctx := context.Background()
	waitReady(t, cp, ns, "certificate/app")
	want := secret(t, cp, ns, "app-tls").Data["ca.crt"]
	injected := webhookConfiguration(ns+"-injected", map[string]string{"cert-manager.io/inject-ca-from": ns + "/app"})
	plain := webhookConfiguration(ns+"-plain", nil)
	for _, obj := range []client.Object{injected, plain} {
		if err := cp.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cp.Client.Delete(context.Background(), obj) })
	}
	framework.EventuallyWithin(t, issueWait, "caBundle injected into "+injected.Name, func() error {
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(injected), injected); err != nil {
			return err
		}
		for _, w := range injected.Webhooks {
			if !bytes.Equal(w.ClientConfig.CABundle, want) {
				return fmt.Errorf("webhook %s has caBundle %q", w.Name, w.ClientConfig.CABundle)
			}
		}
		return nil
	})
	// The injector handled the annotated object; the plain one, created
	// at the same time, must still have no caBundle.
	if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(plain), plain); err != nil {
		t.Fatal(err)
	}
	if got := plain.Webhooks[0].ClientConfig.CABundle; len(got) != 0 {
		t.Errorf("the CA injector filled %s, which has no inject-ca-from annotation: %q", plain.Name, got)
	}
}

// webhookConfiguration is a ValidatingWebhookConfiguration with two
// webhooks for a resource nothing creates, so it never intercepts a request.
func webhookConfiguration(name string, annotations map[string]string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	none, ignore := admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.Ignore
	url := "https://127.0.0.1:9/validate"
	hook := func(n string) admissionregistrationv1.ValidatingWebhook {
		return admissionregistrationv1.ValidatingWebhook{
			Name:                    n + ".routeshift.example.test",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"example.test"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}}}},
			SideEffects:             &none,
			FailurePolicy:           &ignore,
			AdmissionReviewVersions: []string{"v1"},
		}
	}
	w := &admissionregistrationv1.ValidatingWebhookConfiguration{Webhooks: []admissionregistrationv1.ValidatingWebhook{hook("one"), hook("two")}}
	w.Name, w.Annotations = name, annotations
	return w
}

// testACMEAccount: an ACME Issuer pointed at pebble, trusting pebble's CA,
// becomes Ready with the account URI pebble gave it; one that does not
// trust the CA stays not Ready with a certificate error.
func testACMEAccount(t *testing.T, cp *framework.ControlPlane, p *framework.Pebble, ns string) {
	bundle := base64.StdEncoding.EncodeToString(p.CABundle)
	apply(t, cp, fmt.Sprintf(acmeIssuer, ns, "pebble", p.DirectoryURL, "caBundle: "+bundle))
	apply(t, cp, fmt.Sprintf(acmeIssuer, ns, "pebble-untrusted", p.DirectoryURL, ""))
	waitReady(t, cp, ns, "issuer/pebble")
	issuer := get(t, cp, issuerGVK, ns, "pebble")
	uri, _, _ := unstructured.NestedString(issuer.Object, "status", "acme", "uri")
	if !strings.HasPrefix(uri, strings.TrimSuffix(p.DirectoryURL, "/dir")+"/") {
		t.Errorf("issuer status.acme.uri = %q, want an account URL of %s", uri, p.DirectoryURL)
	}
	if s := secret(t, cp, ns, "pebble-account"); len(s.Data["tls.key"]) == 0 {
		t.Error("ACME account Secret pebble-account has no tls.key")
	}
	framework.EventuallyWithin(t, issueWait, "untrusted issuer reports pebble's unknown certificate authority", func() error {
		msg := readyMessage(get(t, cp, issuerGVK, ns, "pebble-untrusted"))
		if !strings.Contains(msg, "signed by unknown authority") {
			return fmt.Errorf("Ready message %q", msg)
		}
		return nil
	})
}

const acmeIssuer = `apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: %[2]s, namespace: %[1]s}
spec:
  acme:
    server: %[3]s
    %[4]s
    email: admin@example.test
    privateKeySecretRef: {name: %[2]s-account}
    solvers:
    - http01: {ingress: {}}
`

var issuerGVK = schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Issuer"}

// apply runs kubectl apply with manifest, as a user would.
func apply(t *testing.T, cp *framework.ControlPlane, manifest string) {
	t.Helper()
	if out, errOut, err := cp.KubectlStdin(t, manifest, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v\n%s%s\nmanifest:\n%s", err, out, errOut, manifest)
	}
}

// waitReady waits with kubectl until each object has condition Ready=True.
func waitReady(t *testing.T, cp *framework.ControlPlane, ns string, objects ...string) {
	t.Helper()
	args := append([]string{"wait", "-n", ns, "--for=condition=Ready", "--timeout=" + issueWait.String()}, objects...)
	if out, errOut, err := cp.Kubectl(t, args...); err != nil {
		t.Fatalf("waiting for %s to be Ready: %v\n%s%s", strings.Join(objects, ", "), err, out, errOut)
	}
}

func secret(t *testing.T, cp *framework.ControlPlane, ns, name string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	if err := cp.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

func get(t *testing.T, cp *framework.ControlPlane, gvk schema.GroupVersionKind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := cp.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

// readyMessage is the message of an object's Ready condition, or "".
func readyMessage(u *unstructured.Unstructured) string {
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			msg, _ := m["message"].(string)
			return msg
		}
	}
	return ""
}

// parseCert parses the first certificate of a PEM bundle.
func parseCert(t *testing.T, data []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("no PEM block in %q", data)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
