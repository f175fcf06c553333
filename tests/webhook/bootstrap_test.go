package webhook

import (
	"bytes"
	"context"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/internal/servingcert"
	"github.com/routeshift/routeshift/tests/framework"
)

// inertWebhooks creates a mutating and a validating webhook configuration
// named name, two webhooks each, for a resource that does not exist (so
// that they never take part in admission), without caBundle; they are
// deleted when the test ends.
func inertWebhooks(t *testing.T, cp *framework.ControlPlane, name string) {
	t.Helper()
	ctx := context.Background()
	url, none, ignore := "https://127.0.0.1:1/never", admissionregistrationv1.SideEffectClassNone, admissionregistrationv1.Ignore
	rules := []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"bootstrap.routeshift.io"}, APIVersions: []string{"v1"}, Resources: []string{"nothings"}}}}
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, hook := range []string{"a", "b"} {
		mutating.Webhooks = append(mutating.Webhooks, admissionregistrationv1.MutatingWebhook{Name: hook + ".bootstrap.routeshift.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url}, Rules: rules, SideEffects: &none,
			FailurePolicy: &ignore, AdmissionReviewVersions: []string{"v1"}})
		validating.Webhooks = append(validating.Webhooks, admissionregistrationv1.ValidatingWebhook{Name: hook + ".bootstrap.routeshift.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url}, Rules: rules, SideEffects: &none,
			FailurePolicy: &ignore, AdmissionReviewVersions: []string{"v1"}})
	}
	for _, obj := range []client.Object{mutating, validating} {
		if err := cp.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := cp.Client.Delete(ctx, obj); err != nil {
				t.Errorf("deleting %s: %v", name, err)
			}
		})
	}
}

// caBundles returns the caBundle of every webhook of both configurations
// named name, and the configurations' resourceVersions.
func caBundles(t *testing.T, cp *framework.ControlPlane, name string) (bundles [][]byte, versions string) {
	t.Helper()
	ctx := context.Background()
	var m admissionregistrationv1.MutatingWebhookConfiguration
	var v admissionregistrationv1.ValidatingWebhookConfiguration
	if err := cp.Client.Get(ctx, key("", name), &m); err != nil {
		t.Fatal(err)
	}
	if err := cp.Client.Get(ctx, key("", name), &v); err != nil {
		t.Fatal(err)
	}
	for _, w := range m.Webhooks {
		bundles = append(bundles, w.ClientConfig.CABundle)
	}
	for _, w := range v.Webhooks {
		bundles = append(bundles, w.ClientConfig.CABundle)
	}
	return bundles, m.ResourceVersion + "/" + v.ResourceVersion
}

// expiringSoon is a certificate from opts, signed by issuer (self-signed
// when nil), that expires in ten days.
func expiringSoon(t *testing.T, issuer *certs.KeyPair, opts certs.Options) *certs.KeyPair {
	t.Helper()
	opts.NotBefore, opts.Validity = time.Now().Add(-355*24*time.Hour), 365*24*time.Hour
	kp, err := certs.Generate(opts, issuer)
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

func keyPairOf(t *testing.T, certPEM, keyPEM []byte) *certs.KeyPair {
	t.Helper()
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return &certs.KeyPair{Cert: cert, Key: pair.PrivateKey.(crypto.Signer), CertPEM: certPEM, KeyPEM: keyPEM}
}

// TestSelfSignedBootstrap: servingcert.SelfSigned against the real API server.
// It creates the Secret and injects its CA into every webhook of both
// configurations; a second run changes nothing; new names, a serving
// certificate near expiry and a CA near expiry are each renewed (the CA
// kept unless it is the one expiring, and then injected anew); two
// replicas starting at once end with one Secret and the same files.
func TestSelfSignedBootstrap(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := cp.CreateNamespace(t, "bootstrap")
	configs := "bootstrap-" + ns
	inertWebhooks(t, cp, configs)
	dir := t.TempDir()
	newBootstrap := func(dir string, dnsNames ...string) *servingcert.SelfSigned {
		return &servingcert.SelfSigned{Client: cp.Client, Secret: types.NamespacedName{Namespace: ns, Name: "serving"},
			DNSNames: dnsNames, IPs: []net.IP{net.ParseIP("127.0.0.1")}, Dir: dir,
			MutatingWebhookConfigurations: []string{configs}, ValidatingWebhookConfigurations: []string{configs}}
	}
	secret := func() *corev1.Secret {
		t.Helper()
		var s corev1.Secret
		if err := cp.Client.Get(ctx, key(ns, "serving"), &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}
	// check verifies that the Secret's serving certificate chains to its
	// CA for every name, that dir holds the Secret's files and that every
	// webhook trusts the CA; it returns the Secret.
	check := func(t *testing.T, dir string, dnsNames ...string) *corev1.Secret {
		t.Helper()
		s := secret()
		if s.Type != corev1.SecretTypeTLS {
			t.Errorf("Secret type %q, want %q", s.Type, corev1.SecretTypeTLS)
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(s.Data["ca.crt"]) {
			t.Fatal("ca.crt holds no certificate")
		}
		leaf := keyPairOf(t, s.Data["tls.crt"], s.Data["tls.key"])
		for _, name := range append(dnsNames, "127.0.0.1") {
			if _, err := leaf.Cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: name}); err != nil {
				t.Errorf("the serving certificate does not verify for %s: %v", name, err)
			}
		}
		for _, f := range []string{"ca.crt", "tls.crt", "tls.key"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil || !bytes.Equal(data, s.Data[f]) {
				t.Errorf("%s/%s does not hold the Secret's %s (%v)", dir, f, f, err)
			}
		}
		bundles, _ := caBundles(t, cp, configs)
		for i, b := range bundles {
			if !bytes.Equal(b, s.Data["ca.crt"]) {
				t.Errorf("webhook %d of %s: caBundle is not the Secret's CA", i, configs)
			}
		}
		return s
	}

	if err := newBootstrap(dir, "localhost").Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	first := check(t, dir, "localhost")
	_, versions := caBundles(t, cp, configs)

	t.Run("a second run changes nothing", func(t *testing.T) {
		if err := newBootstrap(dir, "localhost").Ensure(ctx); err != nil {
			t.Fatal(err)
		}
		s := check(t, dir, "localhost")
		if s.ResourceVersion != first.ResourceVersion {
			t.Error("the Secret was rewritten")
		}
		if _, v := caBundles(t, cp, configs); v != versions {
			t.Error("the webhook configurations were rewritten")
		}
	})

	steps := []struct {
		name string
		// change edits the Secret as time or an admin would; nil leaves it.
		change   func(s *corev1.Secret)
		dnsNames []string
		newCA    bool
	}{
		{name: "a new DNS name", dnsNames: []string{"localhost", "routeshift-webhook.routeshift.svc"}},
		{name: "the serving certificate expires in ten days", dnsNames: []string{"localhost"}, change: func(s *corev1.Secret) {
			leaf := expiringSoon(t, keyPairOf(t, s.Data["ca.crt"], s.Data["ca.key"]), certs.Options{CommonName: "localhost",
				DNSNames: []string{"localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}})
			s.Data["tls.crt"], s.Data["tls.key"] = leaf.CertPEM, leaf.KeyPEM
		}},
		{name: "the CA expires in ten days", dnsNames: []string{"localhost"}, newCA: true, change: func(s *corev1.Secret) {
			ca := expiringSoon(t, nil, certs.Options{CommonName: "old ca", IsCA: true})
			leaf, err := ca.Issue(certs.Options{CommonName: "localhost", DNSNames: []string{"localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}})
			if err != nil {
				t.Fatal(err)
			}
			s.Data["ca.crt"], s.Data["ca.key"], s.Data["tls.crt"], s.Data["tls.key"] = ca.CertPEM, ca.KeyPEM, leaf.CertPEM, leaf.KeyPEM
		}},
		{name: "the serving certificate was signed by another CA", dnsNames: []string{"localhost"}, change: func(s *corev1.Secret) {
			other, err := certs.NewCA("other")
			if err != nil {
				t.Fatal(err)
			}
			leaf, err := other.Issue(certs.Options{CommonName: "localhost", DNSNames: []string{"localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}})
			if err != nil {
				t.Fatal(err)
			}
			s.Data["tls.crt"], s.Data["tls.key"] = leaf.CertPEM, leaf.KeyPEM
		}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			before := secret()
			if step.change != nil {
				step.change(before)
				if err := cp.Client.Update(ctx, before); err != nil {
					t.Fatal(err)
				}
			}
			if err := newBootstrap(dir, step.dnsNames...).Ensure(ctx); err != nil {
				t.Fatal(err)
			}
			after := check(t, dir, step.dnsNames...)
			if bytes.Equal(after.Data["tls.crt"], before.Data["tls.crt"]) {
				t.Error("the serving certificate was not renewed")
			}
			if newCA := !bytes.Equal(after.Data["ca.crt"], before.Data["ca.crt"]); newCA != step.newCA {
				t.Errorf("new CA: %v, want %v", newCA, step.newCA)
			}
			leaf := keyPairOf(t, after.Data["tls.crt"], after.Data["tls.key"])
			if left := time.Until(leaf.Cert.NotAfter); left < 300*24*time.Hour {
				t.Errorf("the renewed serving certificate expires in %s", left)
			}
		})
	}

	t.Run("two replicas starting at once", func(t *testing.T) {
		if err := cp.Client.Delete(ctx, secret()); err != nil {
			t.Fatal(err)
		}
		dirs := []string{t.TempDir(), t.TempDir()}
		errs := make([]error, len(dirs))
		var wg sync.WaitGroup
		for i, d := range dirs {
			wg.Go(func() { errs[i] = newBootstrap(d, "localhost").Ensure(ctx) })
		}
		wg.Wait()
		for i, d := range dirs {
			if errs[i] != nil {
				t.Fatalf("replica %d: %v", i, errs[i])
			}
			check(t, d, "localhost")
		}
	})
}
