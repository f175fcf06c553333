package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/routeshift/routeshift/routecore"
)

// verbs answers custom-host reviews by verb and records the verbs asked.
type verbs struct {
	allowed map[string]bool
	err     error
	asked   []string
}

func (v *verbs) Allowed(_ context.Context, _ authenticationv1.UserInfo, attrs authorizationv1.ResourceAttributes) (bool, error) {
	v.asked = append(v.asked, attrs.Verb+" "+attrs.Resource+"/"+attrs.Subresource)
	return v.allowed[attrs.Verb], v.err
}

func testServer(t testing.TB, auth Authorizer) *Server {
	t.Helper()
	m, err := newMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return &Server{defaults: routecore.DefaultOptions{RouteSuffix: "apps.example.com"}, authorizer: auth, metrics: m,
		routerServiceAccount: DefaultRouterServiceAccount}
}

func route(mods ...func(*routecore.Route)) *routecore.Route {
	w := int32(100)
	r := &routecore.Route{
		TypeMeta:   metav1.TypeMeta{APIVersion: "route.openshift.io/v1", Kind: "Route"},
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"},
		Spec: routecore.RouteSpec{To: routecore.RouteTargetReference{Kind: "Service", Name: "web", Weight: &w},
			WildcardPolicy: routecore.WildcardPolicyNone},
	}
	for _, m := range mods {
		m(r)
	}
	return r
}

func host(h string) func(*routecore.Route) { return func(r *routecore.Route) { r.Spec.Host = h } }

func certificate(cert, key string) func(*routecore.Route) {
	return func(r *routecore.Route) {
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: cert, Key: key}
	}
}

func messages(r admission.Response) []string {
	if r.Allowed || r.Result == nil || r.Result.Details == nil {
		return nil
	}
	var out []string
	for _, c := range r.Result.Details.Causes {
		out = append(out, c.Field+": "+c.Message)
	}
	return out
}

// TestCustomHost pins route-api.md §3: which changes need which verb, and
// the messages of each refusal.
func TestCustomHost(t *testing.T) {
	generated := func(r *routecore.Route) {
		r.Spec.Host = "r-ns.apps.example.com"
		r.Annotations = map[string]string{routecore.HostGeneratedAnnotation: "true"}
	}
	tests := []struct {
		name      string
		old, new  *routecore.Route
		allowed   map[string]bool
		err       error
		wantAsked []string
		want      []string
	}{
		{name: "create without host or certificates", new: route()},
		{name: "create with the generated host", new: route(generated)},
		{name: "create with the annotation but another host", new: route(generated, host("x.example.com")),
			wantAsked: []string{"create routes/custom-host"},
			want:      []string{"spec.host: Forbidden: you do not have permission to set the host field of the route"}},
		{name: "create with a host, allowed", new: route(host("x.example.com")), allowed: map[string]bool{"create": true},
			wantAsked: []string{"create routes/custom-host"}},
		{name: "create with a certificate, denied", new: route(certificate("c", "k")),
			wantAsked: []string{"create routes/custom-host"},
			want:      []string{"spec.tls: Forbidden: you do not have permission to set certificate fields on the route"}},
		{name: "create with a host and a certificate, denied", new: route(host("x.example.com"), certificate("c", "k")),
			wantAsked: []string{"create routes/custom-host"},
			want:      []string{"spec.host: Forbidden: you do not have permission to set the host field of the route"}},
		{name: "create, review fails", new: route(host("x.example.com")), err: errors.New("apiserver unreachable"),
			wantAsked: []string{"create routes/custom-host"},
			want:      []string{"spec.host: Internal error: apiserver unreachable"}},
		{name: "update without changes", old: route(host("a.example.com")), new: route(host("a.example.com"))},
		{name: "update changing the host, denied", old: route(host("a.example.com")), new: route(host("b.example.com")),
			allowed: map[string]bool{"create": true}, wantAsked: []string{"update routes/custom-host"},
			want: []string{`spec.host: Invalid value: "b.example.com": you do not have permission to set the host field of the route`}},
		{name: "update changing the host, allowed", old: route(host("a.example.com")), new: route(host("b.example.com")),
			allowed: map[string]bool{"update": true}, wantAsked: []string{"update routes/custom-host"}},
		{name: "update changing the subdomain, denied",
			old: route(func(r *routecore.Route) { r.Spec.Subdomain = "a" }), new: route(func(r *routecore.Route) { r.Spec.Subdomain = "b" }),
			wantAsked: []string{"update routes/custom-host"},
			want:      []string{`spec.subdomain: Invalid value: "b": you do not have permission to set the subdomain field of the route`}},
		{name: "update changing a certificate with create only",
			old: route(host("a.example.com"), certificate("c1", "k")), new: route(host("a.example.com"), certificate("c2", "k")),
			allowed: map[string]bool{"create": true}, wantAsked: []string{"update routes/custom-host", "create routes/custom-host"}},
		{name: "update changing certificate and key, denied",
			old: route(host("a.example.com"), certificate("c1", "k1")), new: route(host("a.example.com"), certificate("c2", "k2")),
			wantAsked: []string{"update routes/custom-host", "create routes/custom-host"},
			want: []string{
				`spec.tls.certificate: Invalid value: "redacted certificate data": you do not have permission to set certificate fields on the route`,
				`spec.tls.key: Invalid value: "redacted key data": you do not have permission to set certificate fields on the route`,
			}},
		{name: "update adding certificates to a plain route, denied",
			old: route(host("a.example.com")), new: route(host("a.example.com"), certificate("c", "k")),
			wantAsked: []string{"update routes/custom-host", "create routes/custom-host"},
			want:      []string{`spec.tls: Invalid value: "redacted tls data": you do not have permission to set certificate fields on the route`}},
		{name: "update removing certificates", old: route(host("a.example.com"), certificate("c", "k")), new: route(host("a.example.com"))},
		{name: "update adding TLS without certificates",
			old: route(host("a.example.com")), new: route(host("a.example.com"), func(r *routecore.Route) {
				r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}
			})},
		{name: "update keeping an external certificate still needs permission",
			old: route(host("a.example.com"), externalCertificate("s")), new: route(host("a.example.com"), externalCertificate("s")),
			wantAsked: []string{"update routes/custom-host", "create routes/custom-host"},
			want:      []string{`spec.tls.externalCertificate: Invalid value: "s": you do not have permission to set certificate fields on the route`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auth := &verbs{allowed: tt.allowed, err: tt.err}
			s := testServer(t, auth)
			errs := s.customHost(context.Background(), &review{route: tt.new, old: tt.old, req: admission.Request{}})
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tt.want) || !slices.Equal(auth.asked, tt.wantAsked) {
				t.Errorf("errors %q, asked %q\nwant   %q, asked %q", got, auth.asked, tt.want, tt.wantAsked)
			}
		})
	}
}

func externalCertificate(name string) func(*routecore.Route) {
	return func(r *routecore.Route) {
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, ExternalCertificate: &routecore.LocalObjectReference{Name: name}}
	}
}

func request(op admissionv1.Operation, obj any, old any) admission.Request {
	raw := func(o any) runtime.RawExtension {
		if o == nil {
			return runtime.RawExtension{}
		}
		b, _ := json.Marshal(o)
		return runtime.RawExtension{Raw: b}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "uid-1", Operation: op, Namespace: "ns",
		Resource: metav1.GroupVersionResource{Group: "route.openshift.io", Version: "v1", Resource: "routes"},
		Object:   raw(obj), OldObject: raw(old),
	}}
}

// TestMutate: the patch holds what defaulting changed and nothing else.
func TestMutate(t *testing.T) {
	s := testServer(t, &verbs{})
	h := &routeHandler{name: "mutate", handle: s.mutate, metrics: s.metrics}
	tests := []struct {
		name string
		req  admission.Request
		want []jsonpatch.JsonPatchOperation
		deny []string
	}{
		{name: "hostless route as kubectl sends it after CRD defaulting",
			req: request(admissionv1.Create, map[string]any{"apiVersion": "route.openshift.io/v1", "kind": "Route",
				"metadata": map[string]any{"name": "r", "namespace": "ns"},
				"spec":     map[string]any{"to": map[string]any{"kind": "Service", "name": "web", "weight": 100}, "wildcardPolicy": "None"}}, nil),
			want: []jsonpatch.JsonPatchOperation{
				{Operation: "add", Path: "/metadata/annotations", Value: map[string]any{"openshift.io/host.generated": "true"}},
				{Operation: "add", Path: "/spec/host", Value: "r-ns.apps.example.com"},
			}},
		{name: "nothing to default", req: request(admissionv1.Create, route(host("a.example.com")), nil)},
		{name: "termination normalised and empty host restored on update",
			req: request(admissionv1.Update, route(func(r *routecore.Route) {
				r.Spec.TLS = &routecore.TLSConfig{Termination: "Edge"}
			}), route(host("a.example.com"))),
			want: []jsonpatch.JsonPatchOperation{
				{Operation: "add", Path: "/spec/host", Value: "a.example.com"},
				{Operation: "replace", Path: "/spec/tls/termination", Value: "edge"},
			}},
		{name: "generateName is resolved so that a host can be generated",
			req:  request(admissionv1.Create, route(func(r *routecore.Route) { r.Name, r.GenerateName = "", "gen-" }), nil),
			want: nil /* checked below */},
		{name: "invalid route is refused with OpenShift's message",
			req:  request(admissionv1.Create, route(host("a.example.com"), func(r *routecore.Route) { r.Spec.To.Weight = ptr(int32(300)) }), nil),
			deny: []string{"spec.to.weight: Invalid value: 300: weight must be an integer between 0 and 256"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.Handle(context.Background(), tt.req)
			if tt.deny != nil {
				if resp.Allowed || resp.Result.Code != 422 || !slices.Equal(messages(resp), tt.deny) {
					t.Errorf("response %+v, causes %q; want denial %q", resp.Result, messages(resp), tt.deny)
				}
				return
			}
			if !resp.Allowed {
				t.Fatalf("denied: %+v", resp.Result)
			}
			// The patch library's order is not stable: compare in path order.
			slices.SortFunc(resp.Patches, func(a, b jsonpatch.JsonPatchOperation) int { return strings.Compare(a.Path, b.Path) })
			if strings.HasPrefix(tt.name, "generateName") {
				if len(resp.Patches) != 3 || resp.Patches[2].Path != "/spec/host" ||
					!strings.HasPrefix(resp.Patches[2].Value.(string), "gen-") || !strings.HasSuffix(resp.Patches[2].Value.(string), "-ns.apps.example.com") {
					t.Errorf("patches %+v", resp.Patches)
				}
				return
			}
			if len(resp.Patches) != len(tt.want) || (len(tt.want) > 0 && !reflect.DeepEqual(resp.Patches, tt.want)) {
				t.Errorf("patches\n%+v\nwant\n%+v", resp.Patches, tt.want)
			}
		})
	}
}

// TestNotARoute: the handlers let anything but a Route through untouched.
func TestNotARoute(t *testing.T) {
	s := testServer(t, &verbs{})
	req := request(admissionv1.Create, map[string]any{"kind": "ConfigMap"}, nil)
	req.Resource = metav1.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	for _, handle := range []handlerFunc{s.mutate, s.validate} {
		h := &routeHandler{name: "x", handle: handle, metrics: s.metrics}
		if resp := h.Handle(context.Background(), req); !resp.Allowed || len(resp.Patches) > 0 {
			t.Errorf("response %+v", resp)
		}
	}
	req = request(admissionv1.Update, route(), route())
	req.SubResource = "status"
	if resp := (&routeHandler{name: "x", handle: s.validate, metrics: s.metrics}).Handle(context.Background(), req); !resp.Allowed {
		t.Errorf("status update refused: %+v", resp)
	}
}
