package input

import (
	"encoding/json"
	"testing"
)

// shopTemplate has one object per way of referring to parameters.
const shopTemplate = `apiVersion: template.openshift.io/v1
kind: Template
metadata: {name: shop}
labels: {app: "${NAME}", template: shop}
parameters:
- {name: NAME, value: shop}
- {name: DOMAIN, value: apps.example.com}
- {name: WEIGHT, value: "50"}
- {name: TLS, value: '{"termination": "edge"}'}
- {name: EMPTY}
- {name: PASSWORD, generate: expression, from: "[a-z]{8}"}
- {name: OWNER, required: true}
objects:
- apiVersion: route.openshift.io/v1
  kind: Route
  metadata:
    name: ${NAME}
    namespace: hard-coded
    annotations: {"${NAME}/team": "x-${EMPTY}-y"}
  spec:
    host: ${NAME}.${DOMAIN}
    to: {name: "${NAME}", weight: "${{WEIGHT}}"}
    tls: ${{TLS}}
- apiVersion: v1
  kind: Secret
  metadata: {name: "${NAME}", namespace: "${NAME}-ns"}
  stringData: {password: "${PASSWORD}", owner: "${OWNER}"}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: cm}
  data: {a: "${NOPE}", b: "x${{NAME}}", c: "${{UNKNOWN}}"}
`

func TestTemplate(t *testing.T) {
	type want struct {
		source, json, err string
	}
	tests := []struct {
		name   string
		params map[string]string
		want   []want
	}{
		{name: "values of the template", want: []want{
			{source: "f, document 1 (line 1), template shop, object 0",
				json: `{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"annotations":{"shop/team":"x--y"},"labels":{"app":"shop","template":"shop"},"name":"shop"},` +
					`"spec":{"host":"shop.apps.example.com","tls":{"termination":"edge"},"to":{"name":"shop","weight":50}}}`},
			{source: "f, document 1 (line 1), template shop, object 1",
				json: `{"apiVersion":"v1","kind":"Secret","metadata":{"labels":{"app":"shop","template":"shop"},"name":"shop","namespace":"shop-ns"},"stringData":{"owner":"${OWNER}","password":"${PASSWORD}"}}`,
				err: "f, document 1 (line 1), template shop, object 1: template shop: " +
					`parameter OWNER is required and has no value: give it with --param OWNER=VALUE; ` +
					`parameter PASSWORD has no value: oc process would generate one (generate: expression, from: "[a-z]{8}"); give it with --param PASSWORD=VALUE`},
			{source: "f, document 1 (line 1), template shop, object 2",
				json: `{"apiVersion":"v1","data":{"a":"${NOPE}","b":"x${{NAME}}","c":"${{UNKNOWN}}"},"kind":"ConfigMap","metadata":{"labels":{"app":"shop","template":"shop"},"name":"cm"}}`,
				err: "f, document 1 (line 1), template shop, object 2: template shop: " +
					"${NOPE} names no parameter of the template (oc process leaves it as written); " +
					"${{NAME}} is replaced only when it is the whole value; write ${NAME} inside text; " +
					"${{UNKNOWN}} names no parameter of the template (oc process leaves it as written)"},
		}},
		{name: "given values win", params: map[string]string{"NAME": "web", "WEIGHT": "not json", "PASSWORD": "s3cret", "OWNER": "ops"}, want: []want{
			{source: "f, document 1 (line 1), template shop, object 0",
				json: `{"apiVersion":"route.openshift.io/v1","kind":"Route","metadata":{"annotations":{"web/team":"x--y"},"labels":{"app":"web","template":"shop"},"name":"web"},` +
					`"spec":{"host":"web.apps.example.com","tls":{"termination":"edge"},"to":{"name":"web","weight":"not json"}}}`},
			{source: "f, document 1 (line 1), template shop, object 1",
				json: `{"apiVersion":"v1","kind":"Secret","metadata":{"labels":{"app":"web","template":"shop"},"name":"web","namespace":"web-ns"},"stringData":{"owner":"ops","password":"s3cret"}}`},
			{source: "f, document 1 (line 1), template shop, object 2",
				json: `{"apiVersion":"v1","data":{"a":"${NOPE}","b":"x${{NAME}}","c":"${{UNKNOWN}}"},"kind":"ConfigMap","metadata":{"labels":{"app":"web","template":"shop"},"name":"cm"}}`,
				err: "f, document 1 (line 1), template shop, object 2: template shop: " +
					"${NOPE} names no parameter of the template (oc process leaves it as written); " +
					"${{NAME}} is replaced only when it is the whole value; write ${NAME} inside text; " +
					"${{UNKNOWN}} names no parameter of the template (oc process leaves it as written)"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := Parse("f", []byte(shopTemplate), Options{Params: tt.params})
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != len(tt.want) {
				t.Fatalf("%d objects, want %d", len(objs), len(tt.want))
			}
			for i, o := range objs {
				got := want{source: o.Source, json: canonical(t, o.JSON)}
				if o.Err != nil {
					got.err = o.Err.Error()
				}
				if got != tt.want[i] {
					t.Errorf("object %d:\n got %+v\nwant %+v", i, got, tt.want[i])
				}
			}
		})
	}
}

func canonical(t *testing.T, js []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestTemplateUnknownParam: a value for a parameter no Template has is
// refused, as oc process refuses it.
func TestTemplateUnknownParam(t *testing.T) {
	_, err := Parse("f", []byte(shopTemplate), Options{Params: map[string]string{"NAME": "x", "HOST": "h", "APP": "a"}})
	if want := "--param APP, --param HOST: no Template in the input has a parameter of that name"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestTemplateLegacy: OpenShift 3's Templates (apiVersion v1, JSON) are
// read too.
func TestTemplateLegacy(t *testing.T) {
	data := `{"kind": "Template", "apiVersion": "v1", "metadata": {"name": "eap"},
  "parameters": [{"name": "APPLICATION_NAME", "value": "eap-app"}],
  "objects": [{"kind": "Route", "apiVersion": "v1", "id": "${APPLICATION_NAME}-http", "metadata": {"name": "${APPLICATION_NAME}"}}]}`
	objs, err := Parse("f", []byte(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"v1","id":"eap-app-http","kind":"Route","metadata":{"name":"eap-app"}}`
	if len(objs) != 1 || objs[0].Err != nil || canonical(t, objs[0].JSON) != want || objs[0].Name != "eap-app" {
		t.Errorf("objects %+v, want one with %s", objs, want)
	}
}
