package webhook

import (
	"context"
	"fmt"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/routecore"
)

// HostIndex is the field index of Routes by spec.host that the Routes
// reader given to New must have.
const HostIndex = "spec.host"

// IndexRouteHost is the index function of HostIndex.
func IndexRouteHost(o client.Object) []string {
	if r, ok := o.(*routecore.Route); ok && r.Spec.Host != "" {
		return []string{r.Spec.Host}
	}
	return nil
}

// warnings are routecore's warnings plus what needs the cluster: the host is
// already held by an older Route in another namespace.
func (s *Server) warnings(ctx context.Context, r *review) []string {
	var opts routecore.WarningOptions
	if r.old == nil {
		opts.GeneratedHostSuffix = s.defaults.RouteSuffix
	}
	warnings := append(routecore.Warnings(r.route, opts), s.claimWarnings(ctx, r)...)
	return append(warnings, s.issuerWarnings(ctx, r)...)
}

// issuerWarnings says when the cert-manager Issuer or ClusterIssuer a
// Route's annotations name does not exist (yet), or cert-manager is not
// installed: cert-manager then issues nothing, but the Route is valid and
// may well come first. External issuers (another group) are not looked up.
func (s *Server) issuerWarnings(ctx context.Context, r *review) []string {
	spec, ok := routecore.RouteCertificate(r.route)
	ref := spec.IssuerRef
	if !ok || (ref.Group != "" && ref.Group != cmapi.SchemeGroupVersion.Group) ||
		(ref.Kind != cmapi.IssuerKind && ref.Kind != cmapi.ClusterIssuerKind) {
		return nil
	}
	issuer := &metav1.PartialObjectMetadata{}
	issuer.SetGroupVersionKind(cmapi.SchemeGroupVersion.WithKind(ref.Kind))
	key := client.ObjectKey{Name: ref.Name}
	where := ""
	if ref.Kind == cmapi.IssuerKind {
		key.Namespace, where = r.route.Namespace, fmt.Sprintf(" in namespace %s", r.route.Namespace)
	}
	path := field.NewPath("metadata", "annotations").Key(routecore.CertificateIssuerKey(r.route.Annotations)).String()
	switch err := s.secrets.Get(ctx, key, issuer); {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return []string{fmt.Sprintf("%s: %s %s does not exist%s (yet); cert-manager issues the Route's certificate once it does", path, ref.Kind, ref.Name, where)}
	case meta.IsNoMatchError(err):
		return []string{fmt.Sprintf("%s: cert-manager is not installed (the API server serves no %s %s); the Route gets no certificate until it is", path, cmapi.SchemeGroupVersion, ref.Kind)}
	default:
		logf.FromContext(ctx).Error(err, "looking up the Route's cert-manager issuer")
		return []string{fmt.Sprintf("%s: could not check that %s %s exists%s: %v", path, ref.Kind, ref.Name, where, err)}
	}
}

func (s *Server) claimWarnings(ctx context.Context, r *review) []string {
	route := r.route
	if route.Spec.Host == "" || s.routes == nil {
		return nil
	}
	var list routecore.RouteList
	if err := s.routes.List(ctx, &list, client.MatchingFields{HostIndex: route.Spec.Host}); err != nil {
		logf.FromContext(ctx).Error(err, "listing routes by host for the claim warning")
		return nil
	}
	// The oldest Route with the host claims it for its namespace.
	var holder *routecore.Route
	for i := range list.Items {
		other := &list.Items[i]
		if other.UID != route.UID && older(other, route) && (holder == nil || older(other, holder)) {
			holder = other
		}
	}
	if holder == nil || holder.Namespace == route.Namespace {
		return nil
	}
	// Like the routers' status messages, the warning does not name a
	// Route of another namespace.
	return []string{fmt.Sprintf("spec.host: %s is already held by an older route in another namespace; "+
		"routers that check namespace ownership will not admit this route (HostAlreadyClaimed)", route.Spec.Host)}
}

// older reports whether a was created before b; b may be a Route being
// created, which has no creation time yet and is the newest of all.
func older(a, b *routecore.Route) bool {
	switch {
	case b.CreationTimestamp.IsZero():
		return true
	case !a.CreationTimestamp.Equal(&b.CreationTimestamp):
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.UID < b.UID
}
