package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
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
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
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

// TestCustomHost pins the routes/custom-host rules: which changes need
// which verb, and the messages of each refusal.
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

// noSecrets is a secrets reader for handlers that must not read any.
type noSecrets struct{}

func (noSecrets) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return errors.New("no secret should be read")
}

func (noSecrets) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errors.New("no secret should be listed")
}

// TestRouteSuffix: the route suffix given to New ends the hosts the
// mutating webhook generates, through the handler New registers on a
// webhook server and an AdmissionReview sent over HTTP as the API server
// sends it; an invalid suffix is refused by New.
func TestRouteSuffix(t *testing.T) {
	tests := []struct {
		name, suffix string
		route        *routecore.Route
		wantHost     string
		wantErr      string
	}{
		{name: "custom suffix", suffix: "apps.custom.test", route: route(), wantHost: "r-ns.apps.custom.test"},
		{name: "dots in the name become dashes", suffix: "apps.custom.test",
			route: route(func(r *routecore.Route) { r.Name = "a.b" }), wantHost: "a-b-ns.apps.custom.test"},
		{name: "empty suffix is the default", suffix: "", route: route(), wantHost: "r-ns." + routecore.DefaultRouteSuffix},
		{name: "a route with a host keeps it", suffix: "apps.custom.test", route: route(host("www.example.com"))},
		{name: "invalid suffix", suffix: "Not_A.Suffix", wantErr: "route suffix: invalid DNS suffix: Not_A.Suffix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Options{RouteSuffix: tt.suffix}, &verbs{}, nil, noSecrets{}, prometheus.NewRegistry())
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("New: error %v, want one starting with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			srv := ctrlwebhook.NewServer(ctrlwebhook.Options{})
			s.Register(srv)

			req := request(admissionv1.Create, tt.route, nil)
			review := admissionv1.AdmissionReview{Request: &req.AdmissionRequest}
			review.APIVersion, review.Kind = "admission.k8s.io/v1", "AdmissionReview"
			body, err := json.Marshal(review)
			if err != nil {
				t.Fatal(err)
			}
			httpReq := httptest.NewRequest(http.MethodPost, MutatePath, bytes.NewReader(body))
			httpReq.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			srv.WebhookMux().ServeHTTP(rec, httpReq)
			if rec.Code != http.StatusOK {
				t.Fatalf("POST %s: %d %s", MutatePath, rec.Code, rec.Body)
			}
			var got admissionv1.AdmissionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("response %s: %v", rec.Body, err)
			}
			if got.Response == nil || !got.Response.Allowed || got.Response.UID != req.UID {
				t.Fatalf("response %+v, want allowed for UID %s", got.Response, req.UID)
			}

			// The patch as the API server applies it: the operations on the
			// host and on the annotations.
			var ops []jsonpatch.JsonPatchOperation
			if len(got.Response.Patch) > 0 {
				if err := json.Unmarshal(got.Response.Patch, &ops); err != nil {
					t.Fatalf("patch %s: %v", got.Response.Patch, err)
				}
			}
			var hostAfter, annotation any
			for _, op := range ops {
				switch {
				case op.Operation == "add" && op.Path == "/spec/host":
					hostAfter = op.Value
				case op.Operation == "add" && op.Path == "/metadata/annotations":
					if m, ok := op.Value.(map[string]any); ok {
						annotation = m[routecore.HostGeneratedAnnotation]
					}
				}
			}
			if tt.wantHost == "" {
				if len(ops) > 0 {
					t.Errorf("a route with host %q was patched: %s", tt.route.Spec.Host, got.Response.Patch)
				}
				return
			}
			if hostAfter != tt.wantHost || annotation != "true" || len(ops) != 2 {
				t.Errorf("patch %s\nwant host %q and %s \"true\" only", got.Response.Patch, tt.wantHost, routecore.HostGeneratedAnnotation)
			}
		})
	}
}
