package ingress

import (
	"context"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation"
	netutils "k8s.io/utils/net"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/routecore"
)

// PublishedAddressesAnnotation lists, sorted and comma-separated, the
// entries of the Ingress's status.loadBalancer.ingress that the controller
// wrote: a hostname, or the address of an entry with only an IP. It lets the
// controller tell its entries from other controllers' after a restart, when
// the router that reported one has since left every Route's status. The
// controller writes it together with the status; it is not copied to Routes.
const PublishedAddressesAnnotation = "routeshift.io/published-addresses"

// loadBalancerPlan is the load-balancer status an Ingress should have.
type loadBalancerPlan struct {
	// Ingress is the whole status.loadBalancer.ingress, sorted: the entries
	// of other controllers, unchanged, and the controller's own.
	Ingress []networkingv1.IngressLoadBalancerIngress
	// Published is the value of PublishedAddressesAnnotation: the addresses
	// of the controller's entries in Ingress ("" for none).
	Published string
	// Unusable are status entries of Routes whose routerCanonicalHostname is
	// neither a DNS name nor an IP address; the API server would refuse the
	// whole status with them, so they are left out.
	Unusable []unusableCanonicalHostname
}

// unusableCanonicalHostname names a router's status entry on a Route whose
// canonical hostname cannot go into an Ingress's status.
type unusableCanonicalHostname struct {
	Route, Router, Value string
}

// planLoadBalancer computes the load-balancer status of ing from the status
// entries routers wrote on its owned Routes. Every router that admitted a
// Route the Ingress still asks for (kept, by name) contributes its canonical
// hostname: as the entry's ip when it is an IP address, else as its hostname.
// An existing entry is the controller's when its address is recorded in
// PublishedAddressesAnnotation or is the canonical hostname of any router
// named in an owned Route's status, admitted or not; every other entry is
// another controller's and is kept as it is.
func planLoadBalancer(ing *networkingv1.Ingress, owned []routecore.Route, kept map[string]bool) loadBalancerPlan {
	ours := map[string]bool{}
	for _, a := range publishedAddresses(ing) {
		ours[a] = true
	}
	var plan loadBalancerPlan
	admitted := map[string]networkingv1.IngressLoadBalancerIngress{}
	for i := range owned {
		for _, in := range owned[i].Status.Ingress {
			if in.RouterCanonicalHostname == "" {
				continue
			}
			entry, ok := loadBalancerEntry(in.RouterCanonicalHostname)
			if !ok {
				plan.Unusable = append(plan.Unusable, unusableCanonicalHostname{Route: owned[i].Name, Router: in.RouterName, Value: in.RouterCanonicalHostname})
				continue
			}
			ours[entryAddress(entry)] = true
			if kept[owned[i].Name] && isAdmitted(in) {
				admitted[entryAddress(entry)] = entry
			}
		}
	}
	for _, e := range ing.Status.LoadBalancer.Ingress {
		if !ours[entryAddress(e)] {
			plan.Ingress = append(plan.Ingress, e)
		}
	}
	plan.Ingress = append(plan.Ingress, slices.Collect(maps.Values(admitted))...)
	slices.SortFunc(plan.Ingress, compareLoadBalancerIngress)
	plan.Published = strings.Join(slices.Sorted(maps.Keys(admitted)), ",")
	return plan
}

// loadBalancerEntry is the load-balancer entry of a router's canonical
// hostname. The API server refuses an IP address as an entry's hostname (it
// reads leading zeros as decimal, as k8s.io/utils/net's ParseIPSloppy does),
// so an address becomes the entry's ip, written in canonical form; any other
// value must be a DNS name. ok is false for a value that is neither.
func loadBalancerEntry(canonical string) (entry networkingv1.IngressLoadBalancerIngress, ok bool) {
	if ip := netutils.ParseIPSloppy(canonical); ip != nil {
		return networkingv1.IngressLoadBalancerIngress{IP: ip.String()}, true
	}
	if len(validation.IsDNS1123Subdomain(canonical)) > 0 {
		return entry, false
	}
	return networkingv1.IngressLoadBalancerIngress{Hostname: canonical}, true
}

// entryAddress is what identifies a load-balancer entry: its hostname, or
// its IP address when it has no hostname.
func entryAddress(e networkingv1.IngressLoadBalancerIngress) string {
	if e.Hostname != "" {
		return e.Hostname
	}
	return e.IP
}

// publishedAddresses reads PublishedAddressesAnnotation.
func publishedAddresses(ing *networkingv1.Ingress) []string {
	var out []string
	for _, a := range strings.Split(ing.Annotations[PublishedAddressesAnnotation], ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// compareLoadBalancerIngress orders load-balancer entries by hostname, then
// IP (entries with only an IP come first).
func compareLoadBalancerIngress(a, b networkingv1.IngressLoadBalancerIngress) int {
	if c := strings.Compare(a.Hostname, b.Hostname); c != 0 {
		return c
	}
	return strings.Compare(a.IP, b.IP)
}

func isAdmitted(in routecore.RouteIngress) bool {
	for _, c := range in.Conditions {
		if c.Type == routecore.RouteAdmitted {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// updateStatus makes the Ingress's status.loadBalancer.ingress and its
// PublishedAddressesAnnotation what planLoadBalancer says, in one write of
// the status subresource. The API server stores an Ingress's metadata from
// that write too (it resets only spec, as it does for its other long-standing
// types), so the record of the controller's entries never disagrees with the
// status, and the controller needs no permission to change Ingresses
// themselves. The Routes just deleted (not in res) no longer count. Nothing
// is written when the set of entries and the record are unchanged.
func (r *Reconciler) updateStatus(ctx context.Context, ing *networkingv1.Ingress, res Result, owned []routecore.Route) error {
	kept := make(map[string]bool, len(res.Routes))
	for _, want := range res.Routes {
		kept[want.Name] = true
	}
	plan := planLoadBalancer(ing, owned, kept)
	log := logf.FromContext(ctx)
	for _, u := range plan.Unusable {
		log.Info("left out of the Ingress status: routerCanonicalHostname is neither a DNS name nor an IP address; correct the router's ROUTER_CANONICAL_HOSTNAME",
			"route", u.Route, "router", u.Router, "routerCanonicalHostname", u.Value)
	}
	have := slices.SortedFunc(slices.Values(ing.Status.LoadBalancer.Ingress), compareLoadBalancerIngress)
	if equality.Semantic.DeepEqual(have, plan.Ingress) && ing.Annotations[PublishedAddressesAnnotation] == plan.Published {
		return nil
	}
	updated := ing.DeepCopy()
	updated.Status.LoadBalancer.Ingress = plan.Ingress
	setPublishedAddresses(updated, plan.Published)
	err := r.Client.Status().Update(ctx, updated)
	result := "ok"
	if err != nil {
		result = "error"
	}
	r.metrics.statusWrites.WithLabelValues(result).Inc()
	log.V(1).Info("ingress status update", "loadBalancer", plan.Ingress, "published", plan.Published, "error", err)
	return err
}

// setPublishedAddresses sets PublishedAddressesAnnotation, or removes it
// when nothing is published.
func setPublishedAddresses(ing *networkingv1.Ingress, value string) {
	if value == "" {
		delete(ing.Annotations, PublishedAddressesAnnotation)
		return
	}
	if ing.Annotations == nil {
		ing.Annotations = map[string]string{}
	}
	ing.Annotations[PublishedAddressesAnnotation] = value
}
