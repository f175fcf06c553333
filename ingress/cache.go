package ingress

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// secretTypesNeverRead are Secret types that can hold neither an Ingress's
// TLS certificate (kubernetes.io/tls) nor a destination CA (kubernetes.io/tls
// or Opaque). Helm keeps every release of every chart as a Secret: on a
// real cluster these are most of the Secret bytes, and the controller has no
// use for them.
var secretTypesNeverRead = []corev1.SecretType{
	"helm.sh/release.v1",
	corev1.SecretTypeServiceAccountToken,
	corev1.SecretTypeDockercfg,
	corev1.SecretTypeDockerConfigJson,
	corev1.SecretTypeBasicAuth,
	corev1.SecretTypeSSHAuth,
	corev1.SecretTypeBootstrapToken,
}

// secretKeysRead are the only Secret data keys Translate reads: a TLS
// certificate and key, and the CA bundle of ingress-nginx's
// proxy-ssl-secret.
var secretKeysRead = []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey, corev1.ServiceAccountRootCAKey}

// CacheOptions limits what the controller's informers keep in memory: no
// managed fields on any object, and of Secrets only those of a type that can
// hold TLS material (a field selector the API server evaluates, so other
// Secrets never reach the controller), with only their certificate and key.
// The controller never writes the objects it caches, so trimmed copies are
// safe. Objects other components of the same manager read through the cache
// (Routes, for the webhook) keep everything but managed fields.
//
// nginxConfigMap is ControllerOptions.NginxConfigMap: of ConfigMaps, the
// cache keeps that one only.
func CacheOptions(nginxConfigMap types.NamespacedName) cache.Options {
	sel := make([]fields.Selector, len(secretTypesNeverRead))
	for i, t := range secretTypesNeverRead {
		sel[i] = fields.OneTermNotEqualSelector("type", string(t))
	}
	opts := cache.Options{
		DefaultTransform: stripManagedFields,
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Secret{}: {Field: fields.AndSelectors(sel...), Transform: trimSecret},
		},
	}
	if nginxConfigMap.Name != "" {
		opts.ByObject[&corev1.ConfigMap{}] = configMapCache(nginxConfigMap)
	}
	return opts
}

func stripManagedFields(o any) (any, error) {
	if m, ok := o.(client.Object); ok {
		m.SetManagedFields(nil)
	}
	return o, nil
}

// trimSecret keeps what Translate reads of a Secret: its type, its
// certificate and key, and a CA bundle.
func trimSecret(o any) (any, error) {
	s, ok := o.(*corev1.Secret)
	if !ok {
		return o, nil
	}
	s.SetManagedFields(nil)
	s.SetAnnotations(nil) // kubectl's last-applied-configuration repeats the whole Secret
	s.StringData = nil
	for k := range s.Data {
		if !slices.Contains(secretKeysRead, k) {
			delete(s.Data, k)
		}
	}
	return s, nil
}
