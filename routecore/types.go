package routecore

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Route exposes a Service at a host name (and optional path) through the
// routers that admit it. It is OpenShift's route.openshift.io/v1 Route, field
// for field, served here as a custom resource.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=routes,singular=route,scope=Namespaced,categories=all
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Host",type=string,JSONPath=`.status.ingress[0].host`
// +kubebuilder:printcolumn:name="Admitted",type=string,JSONPath=`.status.ingress[0].conditions[?(@.type=="Admitted")].status`
// +kubebuilder:printcolumn:name="Service",type=string,JSONPath=`.spec.to.name`
// +kubebuilder:printcolumn:name="TLS",type=string,JSONPath=`.spec.tls.termination`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Path",type=string,JSONPath=`.spec.path`,priority=1
// +kubebuilder:printcolumn:name="Port",type=string,JSONPath=`.spec.port.targetPort`,priority=1
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the route.
	// +required
	Spec RouteSpec `json:"spec"`
	// Status is written by routers only, one entry per router that judged the route.
	// +optional
	Status RouteStatus `json:"status,omitempty"`
}

// RouteList is a list of Routes.
//
// +kubebuilder:object:root=true
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the routes.
	Items []Route `json:"items"`
}

// RouteSpec describes the host (and path) a route exposes and the services
// behind it.
type RouteSpec struct {
	// Host is the externally reachable DNS name for the service. When empty
	// on create (and subdomain is empty) a host is generated from the route
	// name, namespace and the cluster's route suffix. Changing it later
	// requires the update verb on routes/custom-host.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9]))*$`
	Host string `json:"host,omitempty"`

	// Subdomain is a DNS subdomain requested within each router's domain;
	// the router combines it with its own domain when host is empty.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9]))*$`
	Subdomain string `json:"subdomain,omitempty"`

	// Path is the path prefix the router matches, for HTTP-based routes.
	// At most 2048 bytes.
	// +optional
	// +kubebuilder:validation:Pattern=`^/`
	// +kubebuilder:validation:MaxLength=2048
	Path string `json:"path,omitempty"`

	// To is the primary backend. Only kind Service is allowed.
	// +required
	To RouteTargetReference `json:"to"`

	// AlternateBackends are up to 3 more services; traffic is split by weight.
	// +optional
	// +kubebuilder:validation:MaxItems=3
	// +listType=map
	// +listMapKey=name
	// +listMapKey=kind
	AlternateBackends []RouteTargetReference `json:"alternateBackends,omitempty"`

	// Port selects the service port (by name or number) the router sends
	// traffic to. When unset, every port of the endpoints is used.
	// +optional
	Port *RoutePort `json:"port,omitempty"`

	// TLS configures how the route is secured.
	// +optional
	TLS *TLSConfig `json:"tls,omitempty"`

	// WildcardPolicy is None (the default) or Subdomain, which exposes every
	// host in the host's parent domain on routers that allow wildcards.
	// +optional
	// +kubebuilder:default=None
	// +kubebuilder:validation:Enum=None;Subdomain;""
	WildcardPolicy WildcardPolicyType `json:"wildcardPolicy,omitempty"`

	// HTTPHeaders sets or deletes request and response headers (edge and
	// reencrypt routes only).
	// +optional
	HTTPHeaders *RouteHTTPHeaders `json:"httpHeaders,omitempty"`
}

// RouteTargetReference names a backend service and its share of traffic.
type RouteTargetReference struct {
	// Kind of the backend. Only Service is allowed; empty means Service.
	// +kubebuilder:default=Service
	// +kubebuilder:validation:Enum=Service;""
	Kind string `json:"kind" validate:"eq=Service"`

	// Name of the service.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name" validate:"required"`

	// Weight is the backend's share of traffic relative to the others,
	// 0 to 256, default 100. Zero sends no new requests to the backend.
	// +optional
	// +kubebuilder:default=100
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=256
	Weight *int32 `json:"weight" validate:"omitnil,min=0,max=256"`
}

// RoutePort selects the service port the router sends traffic to.
type RoutePort struct {
	// TargetPort is a service port name or number.
	// +kubebuilder:validation:XIntOrString
	TargetPort intstr.IntOrString `json:"targetPort"`
}

// TLSTerminationType says where TLS is terminated.
// +kubebuilder:validation:Enum=edge;reencrypt;passthrough
type TLSTerminationType string

// InsecureEdgeTerminationPolicyType says what happens to plain-HTTP requests
// for a secured route.
// +kubebuilder:validation:Enum=Allow;None;Redirect;""
type InsecureEdgeTerminationPolicyType string

// WildcardPolicyType is the wildcard policy of a route.
type WildcardPolicyType string

// Termination types and insecure edge policies.
const (
	TLSTerminationEdge        TLSTerminationType = "edge"
	TLSTerminationPassthrough TLSTerminationType = "passthrough"
	TLSTerminationReencrypt   TLSTerminationType = "reencrypt"

	InsecureEdgeTerminationPolicyNone     InsecureEdgeTerminationPolicyType = "None"
	InsecureEdgeTerminationPolicyAllow    InsecureEdgeTerminationPolicyType = "Allow"
	InsecureEdgeTerminationPolicyRedirect InsecureEdgeTerminationPolicyType = "Redirect"

	WildcardPolicyNone      WildcardPolicyType = "None"
	WildcardPolicySubdomain WildcardPolicyType = "Subdomain"
)

// TLSConfig secures a route.
type TLSConfig struct {
	// Termination is edge, passthrough or reencrypt.
	// +required
	Termination TLSTerminationType `json:"termination"`

	// Certificate is the PEM serving certificate (leaf first, then any chain).
	// +optional
	Certificate string `json:"certificate,omitempty"`

	// Key is the PEM private key of the certificate.
	// +optional
	Key string `json:"key,omitempty"`

	// CACertificate is the PEM CA chain of the certificate.
	// +optional
	CACertificate string `json:"caCertificate,omitempty"`

	// DestinationCACertificate is the PEM CA the router uses to verify the
	// backend's certificate (reencrypt only).
	// +optional
	DestinationCACertificate string `json:"destinationCACertificate,omitempty"`

	// InsecureEdgeTerminationPolicy is None (default), Allow (edge and
	// reencrypt only) or Redirect.
	// +optional
	InsecureEdgeTerminationPolicy InsecureEdgeTerminationPolicyType `json:"insecureEdgeTerminationPolicy,omitempty"`

	// ExternalCertificate names a kubernetes.io/tls Secret in the route's
	// namespace to serve instead of certificate and key.
	// +optional
	ExternalCertificate *LocalObjectReference `json:"externalCertificate,omitempty"`
}

// LocalObjectReference names an object in the route's namespace.
// +structType=atomic
type LocalObjectReference struct {
	// Name of the object.
	// +optional
	Name string `json:"name,omitempty"`
}

// RouteHTTPHeaders holds header actions.
type RouteHTTPHeaders struct {
	// Actions to apply to requests and responses.
	// +optional
	Actions RouteHTTPHeaderActions `json:"actions"`
}

// RouteHTTPHeaderActions lists the header actions for each direction.
type RouteHTTPHeaderActions struct {
	// Response header actions, applied in order.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=20
	Response []RouteHTTPHeader `json:"response,omitzero"`

	// Request header actions, applied in order.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=20
	Request []RouteHTTPHeader `json:"request,omitzero"`
}

// RouteHTTPHeader is one header action.
type RouteHTTPHeader struct {
	// Name of the header.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	Name string `json:"name"`

	// Action to take on the header.
	// +required
	Action RouteHTTPHeaderActionUnion `json:"action"`
}

// RouteHTTPHeaderActionType is Set or Delete.
// +kubebuilder:validation:Enum=Set;Delete
type RouteHTTPHeaderActionType string

// Header action types.
const (
	Set    RouteHTTPHeaderActionType = "Set"
	Delete RouteHTTPHeaderActionType = "Delete"
)

// RouteHTTPHeaderActionUnion sets or deletes a header.
type RouteHTTPHeaderActionUnion struct {
	// Type is Set or Delete.
	// +required
	Type RouteHTTPHeaderActionType `json:"type"`

	// Set carries the value; required when type is Set, forbidden otherwise.
	// +optional
	Set *RouteSetHTTPHeader `json:"set,omitempty"`
}

// RouteSetHTTPHeader is the value to set.
type RouteSetHTTPHeader struct {
	// Value is an HAProxy format string limited to the fetchers and
	// converters validation allows.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=16384
	Value string `json:"value"`
}

// RouteStatus is written by routers.
type RouteStatus struct {
	// Ingress has one entry per router that judged the route.
	// +optional
	// +listType=atomic
	Ingress []RouteIngress `json:"ingress,omitempty"`
}

// RouteIngress is one router's view of a route.
type RouteIngress struct {
	// Host is the host the router exposes the route at.
	Host string `json:"host,omitempty"`
	// RouterName is the router's name (ROUTER_SERVICE_NAME).
	RouterName string `json:"routerName,omitempty"`
	// Conditions hold the Admitted condition.
	// +listType=map
	// +listMapKey=type
	Conditions []RouteIngressCondition `json:"conditions,omitempty"`
	// WildcardPolicy is the policy the router applied.
	WildcardPolicy WildcardPolicyType `json:"wildcardPolicy,omitempty"`
	// RouterCanonicalHostname is the router's external host name
	// (ROUTER_CANONICAL_HOSTNAME), for CNAME records.
	RouterCanonicalHostname string `json:"routerCanonicalHostname,omitempty"`
}

// RouteIngressConditionType is a condition type.
type RouteIngressConditionType string

// Condition types.
const (
	// RouteAdmitted says whether the router serves the route.
	RouteAdmitted RouteIngressConditionType = "Admitted"
	// RouteUnservableInFutureVersions warns about routes a later router
	// version will refuse.
	RouteUnservableInFutureVersions RouteIngressConditionType = "UnservableInFutureVersions"
)

// RouteIngressCondition is a router's judgement of a route.
type RouteIngressCondition struct {
	// Type of the condition.
	Type RouteIngressConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status corev1.ConditionStatus `json:"status"`
	// Reason is a one-word CamelCase reason.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message is a human-readable explanation.
	// +optional
	Message string `json:"message,omitempty"`
	// LastTransitionTime is when the status last changed.
	// +optional
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
}
