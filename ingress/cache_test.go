package ingress

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestCacheOptionsSecretSelector(t *testing.T) {
	var sel fields.Selector
	for o, by := range CacheOptions(types.NamespacedName{}).ByObject {
		if _, ok := o.(*corev1.Secret); ok {
			sel = by.Field
		}
	}
	if sel == nil {
		t.Fatal("no field selector for Secrets: the controller would cache every Secret of the cluster")
	}
	tests := []struct {
		typ  corev1.SecretType
		want bool
	}{
		{corev1.SecretTypeTLS, true},
		{corev1.SecretTypeOpaque, true},
		{"example.com/custom", true}, // unknown types may still carry tls.crt
		{"helm.sh/release.v1", false},
		{corev1.SecretTypeServiceAccountToken, false},
		{corev1.SecretTypeDockerConfigJson, false},
		{corev1.SecretTypeBootstrapToken, false},
	}
	for _, tt := range tests {
		if got := sel.Matches(fields.Set{"type": string(tt.typ)}); got != tt.want {
			t.Errorf("selector %q matches type %q = %v, want %v", sel, tt.typ, got, tt.want)
		}
	}
}

// Of ConfigMaps the cache keeps ingress-nginx's only, when it is named.
func TestCacheOptionsConfigMap(t *testing.T) {
	cm := types.NamespacedName{Namespace: "ingress-nginx", Name: "ingress-nginx-controller"}
	for _, tc := range []struct {
		name types.NamespacedName
		want bool
	}{{types.NamespacedName{}, false}, {cm, true}} {
		opts := CacheOptions(tc.name)
		by, ok := opts.ByObject[configMapKey(opts)]
		if ok != tc.want {
			t.Fatalf("ConfigMaps restricted = %v, want %v", ok, tc.want)
		}
		if !ok {
			continue
		}
		if len(by.Namespaces) != 1 || by.Namespaces[cm.Namespace].FieldSelector.String() != "metadata.name="+cm.Name {
			t.Errorf("ConfigMaps cached: %+v; want only %s", by.Namespaces, cm)
		}
	}
}

// configMapKey is the ConfigMap key of opts.ByObject, or nil.
func configMapKey(opts cache.Options) client.Object {
	for o := range opts.ByObject {
		if _, ok := o.(*corev1.ConfigMap); ok {
			return o
		}
	}
	return nil
}

func TestTrimSecretKeepsWhatTranslateReads(t *testing.T) {
	in := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{...}"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: []byte("crt"), corev1.TLSPrivateKeyKey: []byte("key"), "ca.crt": []byte("ca"), "big.bin": make([]byte, 1<<20)},
	}
	o, err := trimSecret(in)
	if err != nil {
		t.Fatal(err)
	}
	s := o.(*corev1.Secret)
	if string(s.Data[corev1.TLSCertKey]) != "crt" || string(s.Data[corev1.TLSPrivateKeyKey]) != "key" || s.Type != corev1.SecretTypeTLS {
		t.Errorf("certificate, key or type lost: %+v", s)
	}
	if _, ok := s.Data["big.bin"]; ok || len(s.Data) != 3 || string(s.Data["ca.crt"]) != "ca" {
		t.Errorf("data keys kept = %d, want only %s, %s and ca.crt", len(s.Data), corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	}
	if s.Annotations != nil || s.ManagedFields != nil {
		t.Errorf("annotations or managed fields kept: %v %v", s.Annotations, s.ManagedFields)
	}
}

// Translate sees no difference between a Secret and its trimmed copy.
func TestTrimSecretTranslatesTheSame(t *testing.T) {
	pki := certificates(t)
	ing := ingress(rule("www.example.com", path("/", "web", portName("http"))), tls("shop-tls", "www.example.com"),
		annotation(TerminationAnnotation, "reencrypt"), annotation(DestinationCAAnnotation, "backend-ca"))
	full := func() []any {
		crt := tlsSecret("shop-tls", pki.crt, pki.key)
		crt.Data["ca.crt"] = []byte("CHAIN")
		ca := secret("backend-ca", corev1.SecretTypeOpaque, corev1.TLSCertKey, pki.ca, "notes", "unrelated")
		return []any{web(), crt, ca}
	}
	trimmed := full()
	for _, o := range trimmed {
		if s, ok := o.(*corev1.Secret); ok {
			if _, err := trimSecret(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := Translate(ing, objects(full()...), DefaultControllerName)
	got := Translate(ing, objects(trimmed...), DefaultControllerName)
	if len(want.Routes) != 1 || want.Routes[0].Spec.TLS == nil || want.Routes[0].Spec.TLS.DestinationCACertificate != pki.ca {
		t.Fatalf("fixture does not exercise the secrets: %+v", want)
	}
	sameResult(t, got, want)
}

// An adopted Ingress's proxy-ssl-secret is read from its ca.crt: the
// trimmed copy keeps it, so the live controller verifies the backend with
// the CA translate uses.
func TestTrimSecretKeepsProxySSLSecretCA(t *testing.T) {
	pki := certificates(t)
	ing := ingress(nginxAnnotation("backend-protocol", "HTTPS"), nginxAnnotation("proxy-ssl-secret", "shop/backend-ca"),
		nginxAnnotation("proxy-ssl-verify", "on"), tls("www-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http"))))
	ing.Annotations[ClassAnnotation] = "nginx"
	full := func() []any {
		return []any{web(), tlsSecret("www-tls", pki.crt, pki.key), secret("backend-ca", corev1.SecretTypeOpaque, "ca.crt", pki.ca, "notes", "unrelated")}
	}
	trimmed := full()
	for _, o := range trimmed {
		if s, ok := o.(*corev1.Secret); ok {
			if _, err := trimSecret(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := TranslateWith(ing, objects(full()...), nginxOptions())
	got := TranslateWith(ing, objects(trimmed...), nginxOptions())
	if len(want.Routes) != 1 || want.Routes[0].Spec.TLS == nil || want.Routes[0].Spec.TLS.DestinationCACertificate != pki.ca {
		t.Fatalf("fixture does not exercise proxy-ssl-secret: %+v", want)
	}
	sameResult(t, got, want)
}
