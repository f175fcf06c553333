package routecore

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of Routes, the same as OpenShift's so that
// manifests move between OpenShift and routeshift unchanged.
const GroupName = "route.openshift.io"

var (
	// GroupVersion is route.openshift.io/v1.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}
	// GroupKind is the Route kind, used in API errors ("The Route "x" is invalid").
	GroupKind = schema.GroupKind{Group: GroupName, Kind: "Route"}
	// GroupResource is the routes resource.
	GroupResource = schema.GroupResource{Group: GroupName, Resource: "routes"}

	// SchemeBuilder registers the Route types.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the Route types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &Route{}, &RouteList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
