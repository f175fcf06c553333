package webhook

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/manifests"
)

// crdSchema is the Route CRD's schema from manifests/crd with the API
// server's own code for it: structural defaulting and validation.
type crdSchema struct {
	structural *structuralschema.Structural
	validator  validation.SchemaValidator
}

func loadCRDSchema(t *testing.T) crdSchema {
	t.Helper()
	data, err := manifests.FS.ReadFile("crd/route.openshift.io_routes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		t.Fatal(err)
	}
	var props apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &props, nil); err != nil {
		t.Fatal(err)
	}
	s, err := structuralschema.NewStructural(&props)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := validation.NewSchemaValidator(&props)
	if err != nil {
		t.Fatal(err)
	}
	return crdSchema{structural: s, validator: v}
}

// create does to a Route being created what the API server does around
// the mutating webhook: decode (schema defaults, nulls of fields that
// cannot be null dropped), the webhook's JSON patch, defaults again, then
// the schema's validation (types, patterns, enums, list keys). It returns
// the webhook's response and the schema's errors.
func (c crdSchema) create(t *testing.T, h *routeHandler, obj map[string]any) (admission.Response, field.ErrorList) {
	t.Helper()
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, c.structural)
	structuraldefaulting.Default(obj, c.structural)
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	req := request(admissionv1.Create, nil, nil)
	req.Object = runtime.RawExtension{Raw: raw}
	resp := h.Handle(context.Background(), req)
	if !resp.Allowed || len(resp.Patches) == 0 {
		return resp, nil
	}
	patch, err := json.Marshal(resp.Patches)
	if err != nil {
		t.Fatal(err)
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	patched, err := p.Apply(raw)
	if err != nil {
		t.Fatalf("applying the webhook's patch %s: %v", patch, err)
	}
	var after map[string]any
	if err := json.Unmarshal(patched, &after); err != nil {
		t.Fatal(err)
	}
	structuraldefaulting.Default(after, c.structural)
	errs := validation.ValidateCustomResource(nil, after, c.validator)
	return resp, append(errs, listtype.ValidateListSetsAndMaps(nil, c.structural, after)...)
}

// routeDocuments are the Route manifests of the project's tests: the
// examples of OpenShift's route documentation (internal/fixtures), the
// render fixtures and the shapes of TestMutatePatchesFitTheCRD.
func routeDocuments(t *testing.T) map[string]map[string]any {
	t.Helper()
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]string{"OpenShift documentation routes": fixtures.DocRoutes(p)}
	files, err := filepath.Glob("../internal/cli/testdata/render/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("render fixtures: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources[filepath.Base(f)] = string(b)
	}
	docs := map[string]map[string]any{}
	for source, text := range sources {
		r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(text)))
		for i := 0; ; i++ {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", source, err)
			}
			var obj map[string]any
			if err := yaml.Unmarshal(doc, &obj); err != nil {
				t.Fatalf("%s document %d: %v", source, i, err)
			}
			if obj["kind"] == "Route" {
				docs[fmt.Sprintf("%s document %d", source, i)] = obj
			}
		}
	}
	return docs
}

// TestMutatePatchesFitTheCRD: for every Route of the project's tests and
// every optional shape of the spec, the mutating webhook's patch leaves an
// object the CRD's schema accepts, as the API server checks it after
// mutating admission: no null where the schema wants a list or an object.
func TestMutatePatchesFitTheCRD(t *testing.T) {
	schema := loadCRDSchema(t)
	s := testServer(t, &verbs{})
	h := &routeHandler{name: "mutate", handle: s.mutate, metrics: s.metrics}
	docs := routeDocuments(t)
	spec := func(extra string) map[string]any {
		var obj map[string]any
		doc := "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: r, namespace: ns}\nspec:\n  to: {name: web}\n" + extra
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("%q: %v", extra, err)
		}
		return obj
	}
	for name, extra := range map[string]string{
		"request header actions only":  "  tls: {termination: edge}\n  httpHeaders: {actions: {request: [{name: X-A, action: {type: Set, set: {value: a}}}]}}\n",
		"response header actions only": "  tls: {termination: edge}\n  httpHeaders: {actions: {response: [{name: X-A, action: {type: Delete}}]}}\n",
		"empty header actions":         "  httpHeaders: {actions: {}}\n",
		"empty httpHeaders":            "  httpHeaders: {}\n",
		"header action lists empty":    "  httpHeaders: {actions: {request: [], response: []}}\n",
		"termination in capitals":      "  tls: {termination: Reencrypt}\n",
		"termination empty":            "  tls: {insecureEdgeTerminationPolicy: Redirect}\n",
		"external certificate":         "  tls: {termination: edge, externalCertificate: {name: web-tls}}\n",
		"alternate backends":           "  alternateBackends: [{name: a}, {name: b, weight: 0}]\n",
		"port by name":                 "  port: {targetPort: http}\n",
		"port by number":               "  port: {targetPort: 8080}\n",
		"subdomain":                    "  subdomain: shop\n",
		"wildcard":                     "  host: www.example.com\n  wildcardPolicy: Subdomain\n",
		"path":                         "  path: /api\n",
	} {
		docs["shape: "+name] = spec(extra)
	}
	generated := spec("")
	generated["metadata"] = map[string]any{"generateName": "gen-", "namespace": "ns"}
	docs["shape: generateName"] = generated

	allowed := 0
	for name, obj := range docs {
		resp, errs := schema.create(t, h, obj)
		if !resp.Allowed {
			continue // refused by the webhook: nothing reaches the schema
		}
		allowed++
		if len(errs) > 0 {
			t.Errorf("%s: the CRD schema refuses the mutated Route: %v", name, errs.ToAggregate())
		}
	}
	if allowed < len(docs)*3/4 {
		t.Errorf("only %d of %d Routes were allowed: the corpus does not exercise the patches", allowed, len(docs))
	}
}

// TestCRDSchemaRefusesNull: the check above can fail: a patch that adds a
// null header list is what the API server refuses.
func TestCRDSchemaRefusesNull(t *testing.T) {
	schema := loadCRDSchema(t)
	obj := map[string]any{"apiVersion": "route.openshift.io/v1", "kind": "Route", "metadata": map[string]any{"name": "r"},
		"spec": map[string]any{"to": map[string]any{"name": "web"}, "httpHeaders": map[string]any{"actions": map[string]any{"request": nil}}}}
	errs := validation.ValidateCustomResource(nil, obj, schema.validator)
	if got := errs.ToAggregate(); got == nil || !strings.Contains(got.Error(), `spec.httpHeaders.actions.request: Invalid value: "null": spec.httpHeaders.actions.request in body must be of type array: "null"`) {
		t.Errorf("schema errors for a null list: %v", got)
	}
}
