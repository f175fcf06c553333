package routecerts

import (
	"reflect"
	"strings"
	"testing"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/routecore"
)

var router = RouterAccount{Namespace: "routeshift", Name: "router"}

// route is an edge Route shop/web for www.example.com with annotations.
func route(annotations map[string]string, edit ...func(*routecore.Route)) *routecore.Route {
	w := int32(100)
	r := &routecore.Route{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: types.UID("uid-1"), Annotations: annotations},
		Spec: routecore.RouteSpec{Host: "www.example.com", To: routecore.RouteTargetReference{Kind: "Service", Name: "web", Weight: &w},
			WildcardPolicy: routecore.WildcardPolicyNone, TLS: &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}},
	}
	for _, e := range edit {
		e(r)
	}
	return r
}

func TestDesired(t *testing.T) {
	controller := true
	owner := []metav1.OwnerReference{{APIVersion: "route.openshift.io/v1", Kind: "Route", Name: "web", UID: "uid-1", Controller: &controller}}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{RouteLabel: "web"}, OwnerReferences: owner}
	}
	one := new(int32(1))
	labels := &cmapi.CertificateSecretTemplate{Labels: map[string]string{RouteLabel: "web"}}
	role := &rbacv1.Role{ObjectMeta: meta("routeshift-router:web-route-tls"), Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"web-route-tls"}, Verbs: []string{"get", "list", "watch"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: meta("routeshift-router:web-route-tls"),
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "routeshift-router:web-route-tls"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "routeshift", Name: "router"}}}
	cases := []struct {
		name  string
		route *routecore.Route
		want  *cmapi.CertificateSpec
		// problem is a part of the problem reported, "" for none.
		problem string
	}{
		{name: "no issuer", route: route(nil)},
		{name: "issuer", route: route(map[string]string{"cert-manager.io/issuer": "ca"}),
			want: &cmapi.CertificateSpec{DNSNames: []string{"www.example.com"}, SecretName: "web-route-tls",
				IssuerRef: cmmeta.IssuerReference{Name: "ca", Kind: "Issuer"}, RevisionHistoryLimit: one, SecretTemplate: labels}},
		{name: "cluster issuer, alt names and a history limit of its own",
			route: route(map[string]string{"cert-manager.io/cluster-issuer": "le", "cert-manager.io/alt-names": "example.com,www.example.com", "cert-manager.io/revision-history-limit": "3"}),
			want: &cmapi.CertificateSpec{DNSNames: []string{"www.example.com", "example.com"}, SecretName: "web-route-tls",
				IssuerRef: cmmeta.IssuerReference{Name: "le", Kind: "ClusterIssuer"}, RevisionHistoryLimit: new(int32(3)), SecretTemplate: labels}},
		{name: "wildcard route asks for *.<domain>",
			route: route(map[string]string{"cert-manager.io/issuer": "ca"}, func(r *routecore.Route) { r.Spec.WildcardPolicy = routecore.WildcardPolicySubdomain }),
			want: &cmapi.CertificateSpec{DNSNames: []string{"*.example.com"}, SecretName: "web-route-tls",
				IssuerRef: cmmeta.IssuerReference{Name: "ca", Kind: "Issuer"}, RevisionHistoryLimit: one, SecretTemplate: labels}},
		{name: "reencrypt", route: route(map[string]string{"cert-manager.io/issuer": "ca"}, func(r *routecore.Route) { r.Spec.TLS.Termination = routecore.TLSTerminationReencrypt }),
			want: &cmapi.CertificateSpec{DNSNames: []string{"www.example.com"}, SecretName: "web-route-tls",
				IssuerRef: cmmeta.IssuerReference{Name: "ca", Kind: "Issuer"}, RevisionHistoryLimit: one, SecretTemplate: labels}},
		{name: "passthrough stored past the webhook",
			route:   route(map[string]string{"cert-manager.io/issuer": "ca"}, func(r *routecore.Route) { r.Spec.TLS.Termination = routecore.TLSTerminationPassthrough }),
			problem: "the admission webhook would refuse: spec.tls.termination: Invalid value: \"passthrough\": cert-manager.io/issuer asks for a certificate"},
		{name: "no TLS",
			route:   route(map[string]string{"cert-manager.io/cluster-issuer": "le"}, func(r *routecore.Route) { r.Spec.TLS = nil }),
			problem: "spec.tls: Required value: cert-manager.io/cluster-issuer asks for a certificate, which only a TLS route serves"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, problem := Desired(c.route, router)
			if c.problem == "" && problem != "" || !strings.Contains(problem, c.problem) {
				t.Fatalf("problem %q, want one containing %q", problem, c.problem)
			}
			if c.want == nil {
				if got != nil {
					t.Fatalf("Desired = %+v, want nil", got)
				}
				return
			}
			want := &Objects{Certificate: &cmapi.Certificate{ObjectMeta: meta("web-route-tls"), Spec: *c.want}, Role: role, RoleBinding: binding}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Desired:\n got %+v\n%+v\n%+v\nwant %+v\n%+v\n%+v", got.Certificate, got.Role, got.RoleBinding, want.Certificate, want.Role, want.RoleBinding)
			}
		})
	}
}

func TestReference(t *testing.T) {
	ext := func(name string) func(*routecore.Route) {
		return func(r *routecore.Route) { r.Spec.TLS.ExternalCertificate = &routecore.LocalObjectReference{Name: name} }
	}
	ours := map[string]string{"cert-manager.io/issuer": "ca", ExternalCertificateAnnotation: "web-route-tls"}
	cases := []struct {
		name                      string
		route                     *routecore.Route
		reference, unreference    *routecore.Route
		noReference, noUnreferece bool
	}{
		{name: "not referenced yet", route: route(map[string]string{"cert-manager.io/issuer": "ca"}),
			reference: route(ours, ext("web-route-tls")), noUnreferece: true},
		{name: "referenced by the controller", route: route(ours, ext("web-route-tls")),
			noReference: true, unreference: route(map[string]string{"cert-manager.io/issuer": "ca"})},
		{name: "referenced by the user: kept", route: route(map[string]string{"cert-manager.io/issuer": "ca"}, ext("web-route-tls")),
			noReference: true, noUnreferece: true},
		{name: "the user changed the reference: only the annotation goes",
			route:       route(map[string]string{ExternalCertificateAnnotation: "web-route-tls"}, ext("mine")),
			reference:   route(map[string]string{ExternalCertificateAnnotation: "web-route-tls"}, ext("web-route-tls")),
			unreference: route(map[string]string{}, ext("mine"))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Reference(c.route, "web-route-tls")
			if c.noReference != (got == nil) || got != nil && !reflect.DeepEqual(got, c.reference) {
				t.Errorf("Reference = %+v, want %+v", got, c.reference)
			}
			got = Unreference(c.route)
			if c.noUnreferece != (got == nil) || got != nil && !reflect.DeepEqual(got, c.unreference) {
				t.Errorf("Unreference = %+v, want %+v", got, c.unreference)
			}
		})
	}
}

func TestParseRouterAccount(t *testing.T) {
	got, err := ParseRouterAccount("system:serviceaccount:routeshift:router")
	if err != nil || got != router {
		t.Errorf("ParseRouterAccount = %+v, %v", got, err)
	}
	if _, err := ParseRouterAccount("router"); err == nil || err.Error() != `router service account "router": want system:serviceaccount:NAMESPACE:NAME` {
		t.Errorf("ParseRouterAccount(router) error = %v", err)
	}
}
