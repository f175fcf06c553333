package webhook

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/routecore"
)

// hostIndex is the field index of Routes by spec.host in the webhook's cache.
const hostIndex = "spec.host"

// IndexRouteHost is the index function for hostIndex.
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
	return append(routecore.Warnings(r.route, opts), s.claimWarnings(ctx, r)...)
}

func (s *Server) claimWarnings(ctx context.Context, r *review) []string {
	route := r.route
	if route.Spec.Host == "" || s.routes == nil {
		return nil
	}
	var list routecore.RouteList
	if err := s.routes.List(ctx, &list, client.MatchingFields{hostIndex: route.Spec.Host}); err != nil {
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
