package webhook

import (
	"context"
	"errors"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/routeshift/routeshift/routecore"
)

// issuers answers Gets of cert-manager issuers with err, recording them.
type issuers struct {
	err  error
	gets []string
}

func (i *issuers) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	i.gets = append(i.gets, obj.GetObjectKind().GroupVersionKind().Kind+" "+key.String())
	return i.err
}

func (i *issuers) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errors.New("no list expected")
}

// TestIssuerWarnings: the issuer a Route's cert-manager annotations name
// is looked up by kind and name; its absence, and cert-manager's, are
// warnings that say so.
func TestIssuerWarnings(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Group: "cert-manager.io", Resource: "issuers"}, "ca")
	noMatch := &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "cert-manager.io", Kind: "Issuer"}, SearchedVersions: []string{"v1"}}
	edge := func(kv ...string) *routecore.Route {
		return route(host("www.example.com"), func(r *routecore.Route) {
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}
			r.Annotations = map[string]string{}
			for i := 0; i < len(kv); i += 2 {
				r.Annotations[kv[i]] = kv[i+1]
			}
		})
	}
	tests := []struct {
		name     string
		route    *routecore.Route
		err      error
		wantGets []string
		want     []string
	}{
		{name: "no cert-manager annotations", route: edge()},
		{name: "issuer exists", route: edge(routecore.AnnCertIssuer, "ca"), wantGets: []string{"Issuer ns/ca"}},
		{name: "issuer missing", route: edge(routecore.AnnCertIssuer, "ca"), err: notFound, wantGets: []string{"Issuer ns/ca"},
			want: []string{"metadata.annotations[cert-manager.io/issuer]: Issuer ca does not exist in namespace ns (yet); cert-manager issues the Route's certificate once it does"}},
		{name: "cluster issuer missing, named by issuer-name and kind", route: edge(routecore.AnnCertIssuerName, "le", routecore.AnnCertIssuerKind, "ClusterIssuer"), err: notFound,
			wantGets: []string{"ClusterIssuer /le"},
			want:     []string{"metadata.annotations[cert-manager.io/issuer-name]: ClusterIssuer le does not exist (yet); cert-manager issues the Route's certificate once it does"}},
		{name: "cert-manager not installed", route: edge(routecore.AnnCertClusterIssuer, "le"), err: noMatch, wantGets: []string{"ClusterIssuer /le"},
			want: []string{"metadata.annotations[cert-manager.io/cluster-issuer]: cert-manager is not installed (the API server serves no cert-manager.io/v1 ClusterIssuer); the Route gets no certificate until it is"}},
		{name: "lookup refused", route: edge(routecore.AnnCertIssuer, "ca"), err: apierrors.NewForbidden(schema.GroupResource{Group: "cert-manager.io", Resource: "issuers"}, "ca", errors.New("RBAC")),
			wantGets: []string{"Issuer ns/ca"},
			want:     []string{`metadata.annotations[cert-manager.io/issuer]: could not check that Issuer ca exists in namespace ns: issuers.cert-manager.io "ca" is forbidden: RBAC`}},
		{name: "external issuer: not looked up", route: edge(routecore.AnnCertIssuer, "pca", routecore.AnnCertIssuerKind, "AWSPCAIssuer", routecore.AnnCertIssuerGroup, "awspca.cert-manager.io")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testServer(t, &verbs{})
			reader := &issuers{err: tt.err}
			s.secrets = reader
			got := s.issuerWarnings(context.Background(), &review{route: tt.route, req: admission.Request{}})
			if !slices.Equal(got, tt.want) || !slices.Equal(reader.gets, tt.wantGets) {
				t.Errorf("warnings %q after %q\nwant     %q after %q", got, reader.gets, tt.want, tt.wantGets)
			}
		})
	}
}
