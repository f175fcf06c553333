package routecore

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// openShiftRoute is a Route as OpenShift writes it, with every field of
// route.openshift.io/v1 that routeshift serves.
const openShiftRoute = `
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: web, namespace: shop}
spec:
  host: www.example.com
  subdomain: www
  path: /api
  to: {kind: Service, name: web, weight: 90}
  alternateBackends:
  - {kind: Service, name: canary, weight: 10}
  port: {targetPort: https}
  tls:
    termination: reencrypt
    certificate: CERT
    key: KEY
    caCertificate: CA
    destinationCACertificate: DEST
    insecureEdgeTerminationPolicy: Redirect
    externalCertificate: {name: web-tls}
  wildcardPolicy: None
  httpHeaders:
    actions:
      response:
      - name: X-Frame-Options
        action: {type: Set, set: {value: DENY}}
      request:
      - name: X-Legacy
        action: {type: Delete}
status:
  ingress:
  - host: www.example.com
    routerName: default
    wildcardPolicy: None
    routerCanonicalHostname: router.apps.example.com
    conditions:
    - {type: Admitted, status: "True", reason: Ok, message: admitted, lastTransitionTime: "2026-01-02T03:04:05Z"}
`

// TestOpenShiftRouteDecodes: every field of OpenShift's Route decodes, by
// OpenShift's JSON names, into its routeshift field; none is unknown.
func TestOpenShiftRouteDecodes(t *testing.T) {
	var got Route
	if err := yaml.UnmarshalStrict([]byte(openShiftRoute), &got); err != nil {
		t.Fatal(err)
	}
	at := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Local()) // metav1.Time decodes to local time
	want := Route{
		TypeMeta:   metav1.TypeMeta{APIVersion: "route.openshift.io/v1", Kind: "Route"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: RouteSpec{
			Host: "www.example.com", Subdomain: "www", Path: "/api",
			To:                RouteTargetReference{Kind: "Service", Name: "web", Weight: weight(90)},
			AlternateBackends: []RouteTargetReference{{Kind: "Service", Name: "canary", Weight: weight(10)}},
			Port:              &RoutePort{TargetPort: intstr.FromString("https")},
			TLS: &TLSConfig{Termination: TLSTerminationReencrypt, Certificate: "CERT", Key: "KEY", CACertificate: "CA",
				DestinationCACertificate: "DEST", InsecureEdgeTerminationPolicy: InsecureEdgeTerminationPolicyRedirect,
				ExternalCertificate: &LocalObjectReference{Name: "web-tls"}},
			WildcardPolicy: WildcardPolicyNone,
			HTTPHeaders: &RouteHTTPHeaders{Actions: RouteHTTPHeaderActions{
				Response: []RouteHTTPHeader{{Name: "X-Frame-Options", Action: RouteHTTPHeaderActionUnion{Type: Set, Set: &RouteSetHTTPHeader{Value: "DENY"}}}},
				Request:  []RouteHTTPHeader{{Name: "X-Legacy", Action: RouteHTTPHeaderActionUnion{Type: Delete}}},
			}},
		},
		Status: RouteStatus{Ingress: []RouteIngress{{
			Host: "www.example.com", RouterName: "default", WildcardPolicy: WildcardPolicyNone, RouterCanonicalHostname: "router.apps.example.com",
			Conditions: []RouteIngressCondition{{Type: RouteAdmitted, Status: corev1.ConditionTrue, Reason: "Ok", Message: "admitted", LastTransitionTime: &at}},
		}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, want)
	}
	again, err := yaml.Marshal(&got)
	if err != nil {
		t.Fatal(err)
	}
	var back Route
	if err := yaml.UnmarshalStrict(again, &back); err != nil || !reflect.DeepEqual(back, want) {
		t.Errorf("encoding and decoding again = %+v, %v", back, err)
	}
}

// TestEmptyFieldsAreLeftOut: a Route with only its required fields
// encodes no empty optional field, so patches and kubectl diffs stay
// small, and keeps an explicit weight of 0.
func TestEmptyFieldsAreLeftOut(t *testing.T) {
	r := Route{Spec: RouteSpec{To: RouteTargetReference{Kind: "Service", Name: "web", Weight: weight(0)},
		HTTPHeaders: &RouteHTTPHeaders{}}}
	got, err := yaml.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	want := "metadata: {}\nspec:\n  httpHeaders:\n    actions: {}\n  to:\n    kind: Service\n    name: web\n    weight: 0\nstatus: {}\n"
	if string(got) != want {
		t.Errorf("encoded\n%s\nwant\n%s", got, want)
	}
}

// TestScheme: AddToScheme registers Route and RouteList under
// route.openshift.io/v1, with the list options kubectl and clients use.
func TestScheme(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for obj, kind := range map[runtime.Object]string{&Route{}: "Route", &RouteList{}: "RouteList", &metav1.ListOptions{}: "ListOptions"} {
		gvks, _, err := s.ObjectKinds(obj)
		if err != nil || len(gvks) != 1 || gvks[0] != GroupVersion.WithKind(kind) {
			t.Errorf("ObjectKinds(%T) = %v, %v; want %v", obj, gvks, err, GroupVersion.WithKind(kind))
		}
	}
	if GroupKind.String() != "Route.route.openshift.io" || GroupResource.String() != "routes.route.openshift.io" {
		t.Errorf("GroupKind %s, GroupResource %s", GroupKind, GroupResource)
	}
}
