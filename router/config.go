package router

import (
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// Config is what a router instance is told besides how its data plane
// serves: its identity in route status and what it admits.
type Config struct {
	// Name is the router's name in route status (ROUTER_SERVICE_NAME).
	Name string
	// Namespace is where the router runs (ROUTER_SERVICE_NAMESPACE): its
	// leader election Lease lives there.
	Namespace string
	// CanonicalHostname is reported in status (ROUTER_CANONICAL_HOSTNAME).
	CanonicalHostname string
	// PublishStatusAddress, a host name or an IP address, is reported in
	// status when CanonicalHostname is empty
	// (ROUTER_PUBLISH_STATUS_ADDRESS).
	PublishStatusAddress string
	// PublishService is the Service whose load balancer address is
	// reported in status when both above are empty, followed as it
	// changes (ROUTER_PUBLISH_SERVICE).
	PublishService types.NamespacedName
	// UpdateStatus writes route status (ROUTER_UPDATE_STATUS).
	UpdateStatus bool
	// WaitForSync publishes nothing before the first complete model: the
	// caches have synced and every Secret routes name has been read
	// (ROUTER_BIND_PORTS_AFTER_SYNC), so that the data plane opens its
	// ports only with it. Otherwise an empty model is published at once.
	WaitForSync bool
	// ResyncInterval is how often the router looks at everything again
	// (RESYNC_INTERVAL): the informers deliver every object anew, and the
	// status writer checks every Route's entry, so that an entry changed
	// behind the router's back, or an event it missed, heals. 0 keeps the
	// informers' default and never re-checks status.
	ResyncInterval time.Duration

	Admission AdmissionConfig
}

// AdmissionConfig is what a router instance admits: its shard and its rules.
type AdmissionConfig struct {
	// RouteSelector and NamespaceSelector select the shard (ROUTE_LABELS,
	// NAMESPACE_LABELS or PROJECT_LABELS); nil selects everything.
	RouteSelector     labels.Selector
	NamespaceSelector labels.Selector
	// AllowedDomains and DeniedDomains restrict hosts; denied wins.
	AllowedDomains DomainList
	DeniedDomains  DomainList
	// AllowWildcardRoutes admits wildcardPolicy Subdomain routes.
	AllowWildcardRoutes bool
	// DisableNamespaceOwnershipCheck lets any namespace claim hosts and
	// subdomains; only host+path conflicts remain.
	DisableNamespaceOwnershipCheck bool
	// ExtendedValidation checks certificates (EXTENDED_VALIDATION).
	ExtendedValidation bool
	// HostnameTemplate (ROUTER_SUBDOMAIN) names routes without a host, and
	// with OverrideHostname all routes, or with OverrideDomains the routes
	// under those domains.
	HostnameTemplate HostnameTemplate
	OverrideHostname bool
	OverrideDomains  DomainList
	// RouterDomain (ROUTER_DOMAIN) completes spec.subdomain into a host.
	RouterDomain string
	// AllowLoopbackEndpoints lets endpoints on loopback be routed to.
	AllowLoopbackEndpoints bool
}
