// Package routecore is the one route model of routeshift: the
// route.openshift.io/v1 API types, defaulting, validation, host generation,
// TimeUnit parsing and the annotation catalogue.
//
// The admission webhook, the offline commands and the router all call the
// functions here, so each rule exists once. The package is pure: it takes
// plain values and returns results; it never talks to the API server, the
// file system or HAProxy. Permission checks (routes/custom-host) and
// anything else that needs the cluster belong to the callers. Of
// routeshift's packages it imports only certs (the certificate checks);
// nothing that reads the cluster, serves or renders may be imported here.
//
// +kubebuilder:object:generate=true
// +groupName=route.openshift.io
// +versionName=v1
package routecore
