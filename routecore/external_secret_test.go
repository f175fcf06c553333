package routecore

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestValidateExternalCertificateSecret: the Secret must exist and be of
// type kubernetes.io/tls; the error names the field.
func TestValidateExternalCertificateSecret(t *testing.T) {
	path := field.NewPath("spec", "tls", "externalCertificate")
	cases := []struct {
		name   string
		secret *corev1.Secret
		want   string
	}{
		{"a TLS secret", &corev1.Secret{Type: corev1.SecretTypeTLS}, ""},
		{"missing", nil, `spec.tls.externalCertificate: Not found: "secrets \"cert\" not found"`},
		{"opaque", &corev1.Secret{Type: corev1.SecretTypeOpaque}, `spec.tls.externalCertificate: Invalid value: "cert": secret of type "kubernetes.io/tls" required`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			if err := ValidateExternalCertificateSecret(path, "cert", c.secret); err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
