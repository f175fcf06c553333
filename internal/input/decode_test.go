package input

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	kjson "sigs.k8s.io/json"

	"github.com/routeshift/routeshift/routecore"
)

func parseOne(t *testing.T, data string) Object {
	t.Helper()
	objs, err := Parse("f", []byte(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Fatalf("%d objects, want 1", len(objs))
	}
	return objs[0]
}

// TestDecodeRoute: unknown fields are dropped and reported by path, as the
// API server prunes them by the CRD's schema; the schema's defaults are
// filled in.
func TestDecodeRoute(t *testing.T) {
	o := parseOne(t, `apiVersion: v1
kind: Route
id: legacy-id
metadata: {name: r, namespace: ns, bogus: 1}
spec:
  host: www.example.com
  host: shop.example.com
  ports: [{port: 80}]
  to: {name: web, extra: true}
`)
	r := &routecore.Route{}
	problems, err := DecodeRoute(o, r)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems := []string{`line 7: key "host" already set in map`, `unknown field "metadata.bogus"`, `unknown field "id"`, `unknown field "spec.ports"`, `unknown field "spec.to.extra"`}
	if !reflect.DeepEqual(problems, wantProblems) {
		t.Errorf("problems\n%q\nwant\n%q", problems, wantProblems)
	}
	weight := int32(100)
	want := &routecore.Route{
		TypeMeta:   metav1.TypeMeta{APIVersion: "route.openshift.io/v1", Kind: "Route"},
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"},
		Spec: routecore.RouteSpec{Host: "shop.example.com", WildcardPolicy: routecore.WildcardPolicyNone,
			To: routecore.RouteTargetReference{Kind: "Service", Name: "web", Weight: &weight}},
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("route\n%+v\nwant\n%+v", r, want)
	}
}

// TestDecodeSecretAsStored: a Secret's stringData is merged into data, as
// the API server stores it; a key in both takes stringData's value.
func TestDecodeSecretAsStored(t *testing.T) {
	o := parseOne(t, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"type":"kubernetes.io/tls",
 "data":{"tls.key":"b2xk","ca.crt":"Y2E="},"stringData":{"tls.crt":"CERT","tls.key":"KEY"},"type":"kubernetes.io/tls","extra":1}`)
	s := &corev1.Secret{}
	problems, err := Decode(o, s)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`duplicate field "type"`, `unknown field "extra"`}; !reflect.DeepEqual(problems, want) {
		t.Errorf("problems %q, want %q", problems, want)
	}
	want := map[string][]byte{"tls.crt": []byte("CERT"), "tls.key": []byte("KEY"), "ca.crt": []byte("ca")}
	if !reflect.DeepEqual(s.Data, want) || s.StringData != nil {
		t.Errorf("data %q, stringData %q; want data %q and no stringData", s.Data, s.StringData, want)
	}
}

// TestDecodeTemplateError: an object of a Template whose parameter has no
// value cannot be decoded; the error names the parameter.
func TestDecodeTemplateError(t *testing.T) {
	o := parseOne(t, `apiVersion: template.openshift.io/v1
kind: Template
metadata: {name: t}
parameters: [{name: HOST, generate: expression, from: "[a-z]{5}"}]
objects: [{apiVersion: route.openshift.io/v1, kind: Route, metadata: {name: r}, spec: {host: "${HOST}", to: {name: s}}}]
`)
	_, err := DecodeRoute(o, &routecore.Route{})
	want := `f, document 1 (line 1), template t, object 0: template t: parameter HOST has no value: oc process would generate one (generate: expression, from: "[a-z]{5}"); give it with --param HOST=VALUE`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestValidateRoute: what the CRD's schema and the API server's metadata
// checks refuse, in the API server's words.
func TestValidateRoute(t *testing.T) {
	label := strings.Repeat("a", 70)
	pattern := `'^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9]))*$'`
	tests := []struct {
		name  string
		route func(r *routecore.Route)
		want  []string
	}{
		{name: "valid", route: func(*routecore.Route) {}},
		{name: "host label over 63 characters", route: func(r *routecore.Route) { r.Spec.Host = label + ".example.com" },
			want: []string{`spec.host: Invalid value: "` + label + `.example.com": spec.host in body should match ` + pattern}},
		{name: "termination not in the enum", route: func(r *routecore.Route) { r.Spec.TLS = &routecore.TLSConfig{Termination: "Edge"} },
			want: []string{`spec.tls.termination: Unsupported value: "Edge": supported values: "edge", "reencrypt", "passthrough"`}},
		{name: "name not a DNS subdomain", route: func(r *routecore.Route) { r.Name = "Web" },
			want: []string{`metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{name: "generated name", route: func(r *routecore.Route) { r.Name, r.GenerateName = "", "web-" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weight := int32(100)
			r := &routecore.Route{
				TypeMeta:   metav1.TypeMeta{APIVersion: "route.openshift.io/v1", Kind: "Route"},
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
				Spec: routecore.RouteSpec{Host: "www.example.com", WildcardPolicy: routecore.WildcardPolicyNone,
					To: routecore.RouteTargetReference{Kind: "Service", Name: "web", Weight: &weight}},
			}
			tt.route(r)
			errs, err := ValidateRoute(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestRouteObjectIsTheJSONObject: RouteObject gives what encoding a Route
// as JSON and decoding it gives, for a Route with every kind of field.
func TestRouteObjectIsTheJSONObject(t *testing.T) {
	weight := int32(7)
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	r := &routecore.Route{
		TypeMeta: metav1.TypeMeta{APIVersion: "route.openshift.io/v1", Kind: "Route"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Labels: map[string]string{"app": "web"},
			Annotations:     map[string]string{"haproxy.router.openshift.io/timeout": "60s"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Name: "shop", UID: "u"}}},
		Spec: routecore.RouteSpec{Host: "www.example.com", Path: "/api",
			To:                routecore.RouteTargetReference{Kind: "Service", Name: "web", Weight: &weight},
			AlternateBackends: []routecore.RouteTargetReference{{Kind: "Service", Name: "canary"}},
			Port:              &routecore.RoutePort{TargetPort: intstr.FromInt32(8080)},
			TLS:               &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: "-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n", Key: "k\t<&>\"\\"}},
		Status: routecore.RouteStatus{Ingress: []routecore.RouteIngress{{Host: "www.example.com", RouterName: "default",
			Conditions: []routecore.RouteIngressCondition{{Type: routecore.RouteAdmitted, Status: corev1.ConditionTrue, LastTransitionTime: &now}}}}},
	}
	got, err := RouteObject(r)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RouteObject\n%#v\nJSON\n%#v", got, want)
	}
}
