package input

import (
	"encoding/json"
	"strings"
	"testing"

	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	kjson "sigs.k8s.io/json"
)

// quickRoute is a valid Route object with every kind of field the schema
// checks: enums, patterns, lengths, an int-or-string, bounded integers,
// lists of maps with item limits.
const quickRoute = `{"apiVersion":"route.openshift.io/v1","kind":"Route",
"metadata":{"name":"web","namespace":"shop","creationTimestamp":null,"annotations":{"a":"b"}},
"spec":{"host":"www.example.com","path":"/api","wildcardPolicy":"None",
"to":{"kind":"Service","name":"web","weight":100},
"alternateBackends":[{"kind":"Service","name":"canary","weight":0}],
"port":{"targetPort":"http"},
"tls":{"termination":"edge","insecureEdgeTerminationPolicy":"Redirect","certificate":"-----BEGIN CERTIFICATE-----"},
"httpHeaders":{"actions":{"request":[{"name":"X-A","action":{"type":"Set","set":{"value":"1"}}}]}}}}`

func routeValue(t testing.TB, js string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(js), &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// TestQuickCheckVouchesForValidRoutes: the quick check passes valid Routes
// without the OpenAPI validator, which agrees that they are valid.
func TestQuickCheckVouchesForValidRoutes(t *testing.T) {
	s, err := routeSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, js := range []string{
		quickRoute,
		strings.Replace(quickRoute, `"targetPort":"http"`, `"targetPort":8080`, 1),
		`{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"a"},"spec":{"to":{"kind":"Service","name":"a"}}}`,
		`{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"name":"a"},"spec":{"subdomain":"x","to":{"kind":"Service","name":"a","weight":256},"tls":{"termination":"passthrough"}}}`,
	} {
		obj := routeValue(t, js)
		if errs := apiextensionsvalidation.ValidateCustomResource(nil, obj, s.validator); len(errs) > 0 {
			t.Fatalf("fixture refused by the validator: %v\n%s", errs, js)
		}
		if !s.quick.valid(obj) {
			t.Errorf("quick check does not vouch for a valid Route:\n%s", js)
		}
	}
}

// TestQuickCheckNeverMoreLenient: each of these breaks one rule of the
// schema; the OpenAPI validator refuses it and the quick check does not
// vouch for it.
func TestQuickCheckNeverMoreLenient(t *testing.T) {
	s, err := routeSchema()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a", 254)
	for _, tc := range []struct{ name, old, new string }{
		{"enum", `"termination":"edge"`, `"termination":"Edge"`},
		{"pattern", `"path":"/api"`, `"path":"api"`},
		{"host pattern", `"host":"www.example.com"`, `"host":"www_example.com"`},
		{"max length", `"host":"www.example.com"`, `"host":"` + long + `"`},
		{"maximum", `"weight":100`, `"weight":257`},
		{"minimum", `"weight":0`, `"weight":-1`},
		{"int32", `"weight":100`, `"weight":4294967396`},
		{"integer type", `"weight":100`, `"weight":"100"`},
		{"float", `"weight":100`, `"weight":1.5`},
		{"string type", `"name":"canary"`, `"name":7`},
		{"object type", `"port":{"targetPort":"http"}`, `"port":"http"`},
		{"array type", `"alternateBackends":[`, `"alternateBackends":[[`},
		{"required", `"to":{"kind":"Service","name":"web","weight":100}`, `"to":{"kind":"Service","weight":100}`},
		{"int or string", `"targetPort":"http"`, `"targetPort":true`},
		{"null", `"path":"/api"`, `"path":null`},
		{"max items", `"alternateBackends":[`, `"alternateBackends":[{"kind":"Service","name":"b"},{"kind":"Service","name":"c"},{"kind":"Service","name":"d"},`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := strings.Replace(quickRoute, tc.old, tc.new, 1)
			if js == quickRoute {
				t.Fatalf("%s is not in the fixture", tc.old)
			}
			if tc.name == "array type" {
				js = strings.Replace(js, `"weight":0}]`, `"weight":0}]]`, 1)
			}
			obj := routeValue(t, js)
			if errs := apiextensionsvalidation.ValidateCustomResource(nil, obj, s.validator); len(errs) == 0 {
				t.Fatalf("the validator accepts it; the case tests nothing:\n%s", js)
			}
			if s.quick.valid(obj) {
				t.Errorf("quick check vouches for an invalid Route:\n%s", js)
			}
		})
	}
}

// FuzzQuickCheck: whatever object the quick check vouches for, the OpenAPI
// validator accepts.
func FuzzQuickCheck(f *testing.F) {
	f.Add(quickRoute)
	f.Add(strings.Replace(quickRoute, `"targetPort":"http"`, `"targetPort":80`, 1))
	f.Add(`{"spec":{"to":{"kind":"Service","name":"a","weight":2147483648}}}`)
	f.Add(`{"spec":{"host":"é.example.com","path":"/ü"}}`)
	s, err := routeSchema()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, js string) {
		var obj map[string]any
		if kjson.UnmarshalCaseSensitivePreserveInts([]byte(js), &obj) != nil || obj == nil {
			return
		}
		if !s.quick.valid(obj) {
			return
		}
		if errs := apiextensionsvalidation.ValidateCustomResource(nil, obj, s.validator); len(errs) > 0 {
			b, _ := json.Marshal(obj)
			t.Errorf("quick check vouches for what the validator refuses (%v):\n%s", errs, b)
		}
	})
}
