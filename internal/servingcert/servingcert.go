// Package servingcert provides the webhook's serving certificate without
// cert-manager: a self-signed CA and a serving certificate kept in a
// Secret (so every replica serves the same ones), written to a directory
// for the webhook server, and the CA injected into the webhook
// configurations' caBundle. The certificates themselves are made by certs,
// which imports no client.
package servingcert

import (
	"bytes"
	"context"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/internal/atomicfile"
)

// Keys of the serving-certificate Secret (a kubernetes.io/tls Secret with
// the CA alongside, as cert-manager writes it).
const (
	SecretCAKey   = "ca.crt"
	SecretCertKey = corev1.TLSCertKey
	SecretKeyKey  = corev1.TLSPrivateKeyKey
	// secretCAKeyKey holds the CA's private key, needed to renew the
	// serving certificate without changing the CA the API server trusts.
	secretCAKeyKey = "ca.key"
)

// renewBefore is how long before expiry a serving certificate is replaced.
const renewBefore = 30 * 24 * time.Hour

// SelfSigned provides serving certificates for the admission webhook without
// cert-manager: a self-signed CA and a serving certificate kept in a Secret
// (so every replica serves the same ones), written to a directory for the
// webhook server, and the CA injected into the webhook configurations'
// caBundle.
type SelfSigned struct {
	// Client reads and writes the Secret and the webhook configurations.
	Client client.Client
	// Secret names the Secret holding the CA and serving certificate.
	Secret types.NamespacedName
	// DNSNames and IPs are the serving certificate's names.
	DNSNames []string
	IPs      []net.IP
	// Dir receives tls.crt, tls.key (mode 0600) and ca.crt.
	Dir string
	// MutatingWebhookConfigurations and ValidatingWebhookConfigurations are
	// the names of the configurations whose caBundle is set.
	MutatingWebhookConfigurations   []string
	ValidatingWebhookConfigurations []string
}

// Ensure makes the Secret hold a CA and a serving certificate for the
// configured names that is valid for at least 30 more days, writes them to
// Dir, and injects the CA into the webhook configurations. It is safe to
// run concurrently in several replicas.
func (s *SelfSigned) Ensure(ctx context.Context) error {
	var secret *corev1.Secret
	err := retry.OnError(retry.DefaultRetry, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
	}, func() error {
		var err error
		secret, err = s.ensureSecret(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("serving certificate secret %s: %w", s.Secret, err)
	}
	if err := s.writeFiles(secret); err != nil {
		return err
	}
	return s.injectCABundle(ctx, secret.Data[SecretCAKey])
}

// ensureSecret returns the Secret, creating or renewing what it holds.
func (s *SelfSigned) ensureSecret(ctx context.Context) (*corev1.Secret, error) {
	secret := &corev1.Secret{}
	err := s.Client.Get(ctx, s.Secret, secret)
	switch {
	case apierrors.IsNotFound(err):
		secret = &corev1.Secret{Type: corev1.SecretTypeTLS}
		secret.Namespace, secret.Name = s.Secret.Namespace, s.Secret.Name
		if err := s.fill(secret); err != nil {
			return nil, err
		}
		return secret, s.Client.Create(ctx, secret)
	case err != nil:
		return nil, err
	case s.current(secret):
		return secret, nil
	}
	if err := s.fill(secret); err != nil {
		return nil, err
	}
	return secret, s.Client.Update(ctx, secret)
}

// current reports whether the Secret's serving certificate is signed by its
// CA, covers the configured names, and both are valid for at least
// renewBefore: a serving certificate that outlives its CA is no longer
// trusted once the CA expires.
func (s *SelfSigned) current(secret *corev1.Secret) bool {
	ca, err := usableCA(secret)
	if err != nil {
		return false
	}
	leaf, err := parseKeyPair(secret.Data[SecretCertKey], secret.Data[SecretKeyKey])
	if err != nil || leaf.Cert.CheckSignatureFrom(ca.Cert) != nil || time.Until(leaf.Cert.NotAfter) < renewBefore {
		return false
	}
	for _, name := range s.DNSNames {
		if !slices.Contains(leaf.Cert.DNSNames, name) {
			return false
		}
	}
	for _, ip := range s.IPs {
		if !slices.ContainsFunc(leaf.Cert.IPAddresses, ip.Equal) {
			return false
		}
	}
	return true
}

// fill issues a serving certificate into secret, creating a CA unless the
// secret holds a usable one.
func (s *SelfSigned) fill(secret *corev1.Secret) error {
	ca, err := usableCA(secret)
	if err != nil {
		if ca, err = certs.NewCA("routeshift-webhook-ca"); err != nil {
			return err
		}
	}
	commonName := "routeshift-webhook"
	if len(s.DNSNames) > 0 {
		commonName = s.DNSNames[0]
	}
	leaf, err := ca.Issue(certs.Options{CommonName: commonName, DNSNames: s.DNSNames, IPs: s.IPs})
	if err != nil {
		return err
	}
	if secret.Data == nil {
		secret.Data = map[string][]byte{}
	}
	secret.Data[SecretCAKey], secret.Data[secretCAKeyKey] = ca.CertPEM, ca.KeyPEM
	secret.Data[SecretCertKey], secret.Data[SecretKeyKey] = leaf.CertPEM, leaf.KeyPEM
	return nil
}

// usableCA returns the Secret's CA if it can sign serving certificates for
// at least renewBefore more.
func usableCA(secret *corev1.Secret) (*certs.KeyPair, error) {
	ca, err := parseKeyPair(secret.Data[SecretCAKey], secret.Data[secretCAKeyKey])
	switch {
	case err != nil:
		return nil, err
	case !ca.Cert.IsCA:
		return nil, errors.New("the CA certificate is not a certificate authority")
	case time.Until(ca.Cert.NotAfter) < renewBefore:
		return nil, errors.New("the CA expires within the renewal window")
	}
	return ca, nil
}

func parseKeyPair(certPEM, keyPEM []byte) (*certs.KeyPair, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	if pair.Leaf == nil {
		if pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return nil, err
		}
	}
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, errors.New("private key cannot sign")
	}
	return &certs.KeyPair{Cert: pair.Leaf, Key: signer, CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// writeFiles writes the serving certificate and CA to Dir, atomically, with
// the key readable by its owner only.
func (s *SelfSigned) writeFiles(secret *corev1.Secret) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
		perm os.FileMode
	}{
		{SecretKeyKey, secret.Data[SecretKeyKey], 0o600},
		{SecretCertKey, secret.Data[SecretCertKey], 0o644},
		{SecretCAKey, secret.Data[SecretCAKey], 0o644},
	} {
		if err := atomicfile.Write(filepath.Join(s.Dir, f.name), f.data, f.perm); err != nil {
			return err
		}
	}
	return nil
}

// injectCABundle sets caBundle on every webhook of the configured
// configurations that does not already carry ca.
func (s *SelfSigned) injectCABundle(ctx context.Context, ca []byte) error {
	var errs []error
	for _, name := range s.MutatingWebhookConfigurations {
		cfg := &admissionregistrationv1.MutatingWebhookConfiguration{}
		errs = append(errs, s.inject(ctx, name, cfg, ca, func() (ccs []*admissionregistrationv1.WebhookClientConfig) {
			for i := range cfg.Webhooks {
				ccs = append(ccs, &cfg.Webhooks[i].ClientConfig)
			}
			return ccs
		}))
	}
	for _, name := range s.ValidatingWebhookConfigurations {
		cfg := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		errs = append(errs, s.inject(ctx, name, cfg, ca, func() (ccs []*admissionregistrationv1.WebhookClientConfig) {
			for i := range cfg.Webhooks {
				ccs = append(ccs, &cfg.Webhooks[i].ClientConfig)
			}
			return ccs
		}))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("injecting the CA into the webhook configurations: %w", err)
	}
	return nil
}

// inject reads the configuration name into cfg and updates it if any of the
// client configurations clientConfigs returns lacks ca.
func (s *SelfSigned) inject(ctx context.Context, name string, cfg client.Object, ca []byte,
	clientConfigs func() []*admissionregistrationv1.WebhookClientConfig) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := s.Client.Get(ctx, client.ObjectKey{Name: name}, cfg); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		changed := false
		for _, cc := range clientConfigs() {
			changed = setCABundle(cc, ca) || changed
		}
		if !changed {
			return nil
		}
		return s.Client.Update(ctx, cfg)
	})
}

func setCABundle(cc *admissionregistrationv1.WebhookClientConfig, ca []byte) bool {
	if bytes.Equal(cc.CABundle, ca) {
		return false
	}
	cc.CABundle = bytes.Clone(ca)
	return true
}
