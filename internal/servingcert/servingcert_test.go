package servingcert

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/routeshift/routeshift/certs"
)

// bootstrapPKI is certificate material for the renewal tests.
type bootstrapPKI struct {
	ca, otherCA, expiringCA, notCA *certs.KeyPair
}

func newBootstrapPKI(t *testing.T) *bootstrapPKI {
	t.Helper()
	gen := func(opts certs.Options, issuer *certs.KeyPair) *certs.KeyPair {
		t.Helper()
		kp, err := certs.Generate(opts, issuer)
		if err != nil {
			t.Fatal(err)
		}
		return kp
	}
	return &bootstrapPKI{
		ca:      gen(certs.Options{CommonName: "ca", IsCA: true, Validity: 10 * 365 * 24 * time.Hour}, nil),
		otherCA: gen(certs.Options{CommonName: "other ca", IsCA: true, Validity: 10 * 365 * 24 * time.Hour}, nil),
		// Issued almost ten years ago: ten days left.
		expiringCA: gen(certs.Options{CommonName: "old ca", IsCA: true, NotBefore: time.Now().Add(-10*365*24*time.Hour + 10*24*time.Hour),
			Validity: 10 * 365 * 24 * time.Hour}, nil),
		notCA: gen(certs.Options{CommonName: "leaf posing as a ca"}, nil),
	}
}

// secretOf is the Secret SelfSigned keeps: ca (with its key) and a serving
// certificate issued by signer with opts.
func secretOf(t *testing.T, ca, signer *certs.KeyPair, opts certs.Options) *corev1.Secret {
	t.Helper()
	leaf, err := certs.Generate(opts, signer)
	if err != nil {
		t.Fatal(err)
	}
	return &corev1.Secret{Type: corev1.SecretTypeTLS, Data: map[string][]byte{
		SecretCAKey: ca.CertPEM, secretCAKeyKey: ca.KeyPEM, SecretCertKey: leaf.CertPEM, SecretKeyKey: leaf.KeyPEM}}
}

// TestCurrent: the renewal decision. A Secret is kept while its serving
// certificate is signed by its CA, names every configured DNS name and IP,
// and both certificates have more than 30 days left; anything else,
// including unreadable data, makes Ensure renew it.
func TestCurrent(t *testing.T) {
	p := newBootstrapPKI(t)
	names := certs.Options{CommonName: "webhook", DNSNames: []string{"routeshift-webhook.routeshift.svc", "localhost"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}}
	with := func(mod func(o *certs.Options)) certs.Options {
		o := names
		mod(&o)
		return o
	}
	s := &SelfSigned{DNSNames: names.DNSNames, IPs: names.IPs}
	day := 24 * time.Hour
	tests := []struct {
		name   string
		secret *corev1.Secret
		want   bool
	}{
		{"valid", secretOf(t, p.ca, p.ca, names), true},
		{"more names than configured", secretOf(t, p.ca, p.ca, with(func(o *certs.Options) { o.DNSNames = append(o.DNSNames, "extra.example.com") })), true},
		{"31 days left", secretOf(t, p.ca, p.ca, with(func(o *certs.Options) { o.NotBefore, o.Validity = time.Now().Add(-day), 32*day })), true},
		{"29 days left", secretOf(t, p.ca, p.ca, with(func(o *certs.Options) { o.NotBefore, o.Validity = time.Now().Add(-day), 30*day })), false},
		{"expired", secretOf(t, p.ca, p.ca, with(func(o *certs.Options) { o.NotBefore, o.Validity = time.Now().Add(-400*day), 365*day })), false},
		{"a DNS name missing", secretOf(t, p.ca, p.ca, with(func(o *certs.Options) { o.DNSNames = o.DNSNames[:1] })), false},
		{"the IP missing", secretOf(t, p.ca, p.ca, with(func(o *certs.Options) { o.IPs = nil })), false},
		{"another IP", secretOf(t, p.ca, p.ca, with(func(o *certs.Options) { o.IPs = []net.IP{net.ParseIP("10.0.0.1")} })), false},
		{"signed by another CA", secretOf(t, p.ca, p.otherCA, names), false},
		{"the CA expires within 30 days", secretOf(t, p.expiringCA, p.expiringCA, names), false},
		{"the CA is not a CA", secretOf(t, p.notCA, p.notCA, names), false},
		{"empty", &corev1.Secret{}, false},
		{"garbage certificate", func() *corev1.Secret {
			sec := secretOf(t, p.ca, p.ca, names)
			sec.Data[SecretCertKey] = []byte("not a certificate")
			return sec
		}(), false},
		{"garbage CA", func() *corev1.Secret {
			sec := secretOf(t, p.ca, p.ca, names)
			sec.Data[SecretCAKey] = []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
			return sec
		}(), false},
		{"no CA key", func() *corev1.Secret {
			sec := secretOf(t, p.ca, p.ca, names)
			delete(sec.Data, secretCAKeyKey)
			return sec
		}(), false},
		{"key of another certificate", func() *corev1.Secret {
			sec := secretOf(t, p.ca, p.ca, names)
			sec.Data[SecretKeyKey] = p.otherCA.KeyPEM
			return sec
		}(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.current(tt.secret); got != tt.want {
				t.Errorf("current = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFill: fill issues a serving certificate for the configured names and
// keeps the Secret's CA while it is usable, so that the caBundle the API
// server holds stays valid; an unusable CA is replaced.
func TestFill(t *testing.T) {
	p := newBootstrapPKI(t)
	s := &SelfSigned{DNSNames: []string{"webhook.example.com"}, IPs: []net.IP{net.ParseIP("127.0.0.1")}}
	stale := certs.Options{CommonName: "stale", DNSNames: []string{"old.example.com"}}
	tests := []struct {
		name   string
		secret *corev1.Secret
		keepCA []byte // the CA that must remain; nil: a new one
	}{
		{"empty secret", &corev1.Secret{}, nil},
		{"usable CA, stale certificate", secretOf(t, p.ca, p.ca, stale), p.ca.CertPEM},
		{"CA expiring", secretOf(t, p.expiringCA, p.expiringCA, stale), nil},
		{"not a CA", secretOf(t, p.notCA, p.notCA, stale), nil},
		{"garbage CA", &corev1.Secret{Data: map[string][]byte{SecretCAKey: []byte("garbage"), secretCAKeyKey: []byte("garbage")}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := bytes.Clone(tt.secret.Data[SecretCAKey])
			if err := s.fill(tt.secret); err != nil {
				t.Fatal(err)
			}
			ca := tt.secret.Data[SecretCAKey]
			switch {
			case tt.keepCA != nil && !bytes.Equal(ca, tt.keepCA):
				t.Error("the usable CA was replaced")
			case tt.keepCA == nil && (len(ca) == 0 || bytes.Equal(ca, before)):
				t.Error("no new CA")
			}
			if !s.current(tt.secret) {
				t.Error("the filled Secret is not current")
			}
			leaf, err := parseKeyPair(tt.secret.Data[SecretCertKey], tt.secret.Data[SecretKeyKey])
			if err != nil {
				t.Fatal(err)
			}
			if leaf.Cert.Subject.CommonName != "webhook.example.com" {
				t.Errorf("common name %q, want the first DNS name", leaf.Cert.Subject.CommonName)
			}
		})
	}
}

// TestWriteFiles: the webhook server's directory gets the certificate, the
// CA and the key, the key readable by its owner only, and a second write
// replaces them.
func TestWriteFiles(t *testing.T) {
	p := newBootstrapPKI(t)
	dir := filepath.Join(t.TempDir(), "certs")
	s := &SelfSigned{Dir: dir}
	for _, signer := range []*certs.KeyPair{p.ca, p.otherCA} {
		secret := secretOf(t, signer, signer, certs.Options{CommonName: "webhook"})
		if err := s.writeFiles(secret); err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			name string
			perm os.FileMode
		}{{SecretCertKey, 0o644}, {SecretKeyKey, 0o600}, {SecretCAKey, 0o644}} {
			path := filepath.Join(dir, f.name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(data, secret.Data[f.name]) {
				t.Errorf("%s does not hold the Secret's %s", path, f.name)
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != f.perm {
				t.Errorf("%s has mode %v, want %v", path, st.Mode().Perm(), f.perm)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%s holds %d files, want 3 (no temporary files left)", dir, len(entries))
	}
}

// TestSetCABundle: a webhook's caBundle is written only when it differs.
func TestSetCABundle(t *testing.T) {
	ca := []byte("ca")
	tests := []struct {
		name   string
		before []byte
		want   bool
	}{
		{"empty", nil, true},
		{"another CA", []byte("old"), true},
		{"the same CA", []byte("ca"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := &admissionregistrationv1.WebhookClientConfig{CABundle: tt.before}
			if got := setCABundle(cc, ca); got != tt.want || !bytes.Equal(cc.CABundle, ca) {
				t.Errorf("setCABundle = %v with caBundle %q, want %v with %q", got, cc.CABundle, tt.want, ca)
			}
		})
	}
}
