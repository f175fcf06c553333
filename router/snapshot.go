package router

import (
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/routecore"
)

// Route is an admitted route as the data plane serves it: everything the
// renderer needs, already resolved (effective host, certificates of an
// external certificate secret, parsed annotations). Values are immutable
// once in a Snapshot.
type Route struct {
	Namespace, Name string
	UID             types.UID
	Created         time.Time
	// Host is the effective host, lower case. A wildcard route's Host is
	// the route's own host (wildcard.example.com); it serves every host
	// in DomainKey(Host).
	Host     string
	Wildcard bool
	// Path is the path prefix ("" for the whole host); ExactPath makes it
	// an exact match (routeshift.io/path-type: Exact).
	Path      string
	ExactPath bool
	// TLS is nil for plain HTTP. Certificate and Key hold the external
	// certificate's content when the route names one.
	TLS *routecore.TLSConfig
	// Backends are spec.to then spec.alternateBackends, with weights.
	Backends []Backend
	// TargetPort selects endpoint ports by name or number; nil means all.
	TargetPort *intstr.IntOrString
	// Overrides are the route's valid annotation values.
	Overrides routecore.Overrides
	// HTTPHeaders are the header actions (edge and reencrypt).
	HTTPHeaders *routecore.RouteHTTPHeaders
	// BasicAuth is nil unless requests must bring a user's credentials
	// (routeshift.io/auth-basic-secret).
	BasicAuth *BasicAuth
	// WWWRedirectHost is the other host the route redirects to Host
	// (routeshift.io/www-redirect), set only while the route holds that
	// host's claim; "" otherwise.
	WWWRedirectHost string
}

// BasicAuth is who may use a route: the users of its Secret, checked by
// their crypt(3) hashes.
type BasicAuth struct {
	Users []routecore.BasicAuthUser
	// Realm is the realm clients are told ("" for the router's default);
	// Forward passes the Authorization header on to the endpoints.
	Realm   string
	Forward bool
}

// Key is the route's namespace/name.
func (r *Route) Key() string { return Key(r.Namespace, r.Name) }

// Key is the key of a namespaced object (a Route, a Service, a Secret)
// in the router's maps and in everything it hands to data planes:
// "NAMESPACE/NAME", as types.NamespacedName prints it.
func Key(namespace, name string) string { return namespace + "/" + name }

// SplitKey is the namespace and name of a Key.
func SplitKey(k string) (namespace, name string) {
	namespace, name, _ = strings.Cut(k, "/")
	return namespace, name
}

// Termination is the route's termination, "" for plain HTTP.
func (r *Route) Termination() routecore.TLSTerminationType {
	if r.TLS == nil {
		return ""
	}
	return r.TLS.Termination
}

// Backend is one service behind a route.
type Backend struct {
	Service types.NamespacedName
	Weight  int32
}

// Endpoint is one ready address and port of a service.
type Endpoint struct {
	IP       string
	Port     int32
	PortName string
	// AppProtocol is the application protocol of the port (appProtocol):
	// the Service port's of the same name when it has one, else the
	// EndpointSlice port's. Services with a selector get the Service's
	// copied into their EndpointSlices; hand-written slices may carry
	// their own.
	AppProtocol string
	// TargetRef names the pod behind the address, when known.
	TargetRef string
}

// ServiceEndpoints are the ready endpoints of a service, sorted and free of
// duplicates and of addresses the router must not reach, with the Service's
// ports when the router knows the Service.
type ServiceEndpoints struct {
	Service   types.NamespacedName
	Endpoints []Endpoint
	// Ports are the Service's TCP ports (spec.ports), for a route's
	// numeric targetPort that names a service port and for the ports'
	// application protocols; shared between snapshots, never modified.
	Ports []ServicePort
}

// ServicePort is a port of a Service: the number clients connect to, its
// name, which the Service's EndpointSlices give the port it targets, and
// its application protocol (appProtocol, "" when not set).
type ServicePort struct {
	Port        int32
	Name        string
	AppProtocol string
}

// Verdict is what a router decided about a route.
type Verdict int

// Verdicts.
const (
	// Ignored: the route is not in this router's shard; the router writes
	// no status for it (and removes an entry it wrote before).
	Ignored Verdict = iota
	Admitted
	Rejected
)

func (v Verdict) String() string {
	return [...]string{"ignored", "admitted", "rejected"}[v]
}

// Decision is a router's judgement of one route, as status reports it.
type Decision struct {
	Verdict         Verdict
	Reason, Message string
	// Host is the effective host (after ROUTER_SUBDOMAIN and friends).
	Host           string
	WildcardPolicy routecore.WildcardPolicyType
}

// Snapshot is one immutable view of what a router serves: admitted routes
// and the endpoints of every service. A new snapshot shares everything that
// did not change with the previous one.
type Snapshot struct {
	// Routes are the routes to serve, by namespace/name: the admitted
	// ones, and those a data plane reported it cannot serve (their
	// decision is RouteNotServable), which keep their claims and their
	// value; the data plane decides what to make of them.
	Routes PMap[*Route]
	// Decisions are the router's decisions on every route it has seen,
	// admitted, rejected or ignored (outside the shard), by namespace/name.
	Decisions PMap[Decision]
	// Services are the endpoints of every service, by namespace/name.
	Services  PMap[*ServiceEndpoints]
	Version   uint64
	Synced    bool
	Changed   Changes
	CreatedAt time.Time
}

// Changes name what differs from the previous snapshot, so that the data
// plane can do work proportional to them.
type Changes struct {
	// Routes are route keys (namespace/name) added, changed or removed.
	Routes map[string]bool
	// Services are service keys whose endpoints changed.
	Services map[string]bool
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool { return len(c.Routes) == 0 && len(c.Services) == 0 }
