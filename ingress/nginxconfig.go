package ingress

import (
	"context"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/ingress/nginx"
)

// ParseConfigMapName reads NAMESPACE/NAME, the form of
// --ingress-nginx-configmap; flag names the option in the error.
func ParseConfigMapName(flag, value string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(value, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, fmt.Errorf("%s %q: give NAMESPACE/NAME, e.g. ingress-nginx/ingress-nginx-controller", flag, value)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// nginxConfig is ingress-nginx's ConfigMap as the controller last read it:
// its global defaults for adopted Ingresses, worked out once per version.
type nginxConfig struct {
	name types.NamespacedName

	mu              sync.Mutex
	resourceVersion string // "" before the first read, "-" when not found
	globals         nginx.Globals
}

// current returns the global defaults: the ConfigMap's when it exists,
// else ingress-nginx's documented ones. A new version of the ConfigMap is
// logged once, with each key that is not kept exactly.
func (c *nginxConfig) current(ctx context.Context, reader client.Reader) (nginx.Globals, error) {
	cm := &corev1.ConfigMap{}
	err := reader.Get(ctx, c.name, cm)
	switch {
	case apierrors.IsNotFound(err):
		cm.ResourceVersion = "-"
	case err != nil:
		return nginx.Globals{}, fmt.Errorf("reading ingress-nginx's ConfigMap %s: %w", c.name, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cm.ResourceVersion == c.resourceVersion {
		return c.globals, nil
	}
	log := logf.FromContext(ctx).WithValues("configMap", c.name.String())
	if cm.ResourceVersion == "-" {
		c.globals = nginx.DefaultGlobals()
		log.Info("ingress-nginx's ConfigMap not found: adopted Ingresses get ingress-nginx's documented defaults", "assumed", strings.Join(c.globals.Assumed(), ", "))
	} else {
		var findings []nginx.Finding
		c.globals, findings = nginx.GlobalsFromConfigMap(cm.Data)
		var notes []string
		for _, f := range findings {
			if f.Verdict != nginx.Exact {
				notes = append(notes, f.Describe())
			}
		}
		log.Info("read ingress-nginx's ConfigMap: its global defaults apply to adopted Ingresses", "resourceVersion", cm.ResourceVersion,
			"keys", len(cm.Data), "notExact", strings.Join(notes, "; "))
	}
	c.resourceVersion = cm.ResourceVersion
	return c.globals, nil
}

// configMapCache is what the cache keeps of ConfigMaps: the one named, and
// no other (a field selector the API server evaluates, which also lets RBAC
// grant that one ConfigMap by name).
func configMapCache(name types.NamespacedName) cache.ByObject {
	return cache.ByObject{Namespaces: map[string]cache.Config{
		name.Namespace: {FieldSelector: fields.OneTermEqualSelector("metadata.name", name.Name)},
	}}
}
