package install

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// renderKustomization builds the kustomization in dir with the kustomize
// library, as `kubectl apply -k` does.
func renderKustomization(dir string) ([]*unstructured.Unstructured, error) {
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	out, err := resources.AsYaml()
	if err != nil {
		return nil, err
	}
	return decodeObjects(out)
}

// renderOverlay builds manifests/overlays/OVERLAY with the components of
// manifests/components named, as a user's kustomization in dir that
// lists them does.
func renderOverlay(dir, overlay string, components ...string) ([]*unstructured.Unstructured, error) {
	manifests := filepath.Join(repoRoot(), "manifests")
	if len(components) == 0 {
		return renderKustomization(filepath.Join(manifests, "overlays", overlay))
	}
	// kustomize takes relative paths only.
	rel := func(path string) (string, error) { return filepath.Rel(dir, filepath.Join(manifests, path)) }
	base, err := rel(filepath.Join("overlays", overlay))
	if err != nil {
		return nil, err
	}
	k := map[string]any{"resources": []string{base}}
	var comps []string
	for _, c := range components {
		path, err := rel(filepath.Join("components", c))
		if err != nil {
			return nil, err
		}
		comps = append(comps, path)
	}
	k["components"] = comps
	data, err := yaml.Marshal(k)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), data, 0o600); err != nil {
		return nil, err
	}
	return renderKustomization(dir)
}

// renderChart renders the chart in dir with values, as `helm template
// RELEASE dir --namespace NAMESPACE --include-crds` does.
func renderChart(dir, release, namespace string, values map[string]any) ([]*unstructured.Unstructured, error) {
	manifest, err := chartManifest(dir, release, namespace, values)
	if err != nil {
		return nil, err
	}
	return decodeObjects([]byte(manifest))
}

func chartManifest(dir, release, namespace string, values map[string]any) (string, error) {
	ch, err := loader.Load(dir)
	if err != nil {
		return "", fmt.Errorf("loading chart %s: %w", dir, err)
	}
	install := action.NewInstall(&action.Configuration{})
	install.DryRun, install.ClientOnly, install.IncludeCRDs = true, true, true
	install.ReleaseName, install.Namespace = release, namespace
	install.KubeVersion = kubeVersion
	rel, err := install.Run(ch, values)
	if err != nil {
		return "", fmt.Errorf("helm template %s: %w", dir, err)
	}
	return rel.Manifest, nil
}

// kubeVersion is the Kubernetes version charts are rendered for: that of
// the test apiserver.
var kubeVersion = &chartutil.KubeVersion{Version: "v1.37.0", Major: "1", Minor: "37"}

// decodeObjects splits a multi-document YAML stream into objects, skipping
// empty documents.
func decodeObjects(stream []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	var objs []*unstructured.Unstructured
	for {
		var raw runtime.RawExtension
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, err
		}
		if len(bytes.TrimSpace(raw.Raw)) == 0 || string(raw.Raw) == "null" {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw.Raw); err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
}

// encodeObjects writes objects as one YAML stream.
func encodeObjects(objs []*unstructured.Unstructured) ([]byte, error) {
	var docs []string
	for _, o := range objs {
		b, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		docs = append(docs, string(b))
	}
	return []byte(strings.Join(docs, "---\n")), nil
}

// repoRoot is the repository root, two levels above this package.
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}
