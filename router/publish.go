package router

import (
	"cmp"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// The address a router reports about itself in route status
// (routerCanonicalHostname), which the Ingress controller copies into
// Ingress status: ROUTER_CANONICAL_HOSTNAME, else a fixed address
// (ROUTER_PUBLISH_STATUS_ADDRESS), else the address of the load balancer
// of the router's Service (ROUTER_PUBLISH_SERVICE), followed as it
// changes.

// StatusIdentity is how the router names itself in route status when its
// address is fixed; with a followed Service (PublishedService) the status
// writer fills the address in.
func (c Config) StatusIdentity() StatusIdentity {
	return StatusIdentity{RouterName: c.Name, CanonicalHostname: cmp.Or(c.CanonicalHostname, c.PublishStatusAddress)}
}

// PublishedService is the Service whose load balancer's address the router
// reports, and false when a fixed address is set or no Service is named.
func (c Config) PublishedService() (types.NamespacedName, bool) {
	if c.StatusIdentity().CanonicalHostname != "" || c.PublishService.Name == "" {
		return types.NamespacedName{}, false
	}
	return c.PublishService, true
}

// LoadBalancerAddress is the address clients reach a Service's load
// balancer at: the first host name in status.loadBalancer.ingress, else
// the first IP address; empty while the load balancer has none.
func LoadBalancerAddress(svc *corev1.Service) string {
	var ip string
	for _, in := range svc.Status.LoadBalancer.Ingress {
		if in.Hostname != "" {
			return in.Hostname
		}
		if ip == "" {
			ip = in.IP
		}
	}
	return ip
}

// followAddress makes w check every route again when the load balancer
// address of Service published changes (status.loadBalancer, as a cloud
// controller writes it). The Service comes through the cache's watch of
// Services, which keeps its status (servicePortsOnly).
func followAddress(ctx context.Context, c cache.Cache, published types.NamespacedName, w *StatusWriter) error {
	inf, err := c.GetInformer(ctx, &corev1.Service{})
	if err != nil {
		return fmt.Errorf("watching Service %s: %w", published, err)
	}
	log := logf.FromContext(ctx).WithName("router")
	changed := func(svc *corev1.Service) {
		log.Info("the router's address in route status follows Service "+published.String(), "address", LoadBalancerAddress(svc))
		w.CheckAll()
	}
	_, err = inf.AddEventHandler(toolscache.FilteringResourceEventHandler{
		FilterFunc: func(o any) bool {
			return serviceOf(o) != nil && types.NamespacedName{Namespace: serviceOf(o).Namespace, Name: serviceOf(o).Name} == published
		},
		Handler: toolscache.ResourceEventHandlerFuncs{
			AddFunc: func(o any) { changed(serviceOf(o)) },
			UpdateFunc: func(old, o any) {
				if LoadBalancerAddress(serviceOf(old)) != LoadBalancerAddress(serviceOf(o)) {
					changed(serviceOf(o))
				}
			},
			DeleteFunc: func(any) { changed(&corev1.Service{}) },
		},
	})
	return err
}

// serviceOf is the Service an informer event carries, or nil.
func serviceOf(o any) *corev1.Service {
	if tomb, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = tomb.Obj
	}
	svc, _ := o.(*corev1.Service)
	return svc
}
