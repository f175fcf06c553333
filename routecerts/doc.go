// Package routecerts gives Routes certificates from cert-manager. For each
// edge or reencrypt Route that names an issuer in cert-manager's annotations
// (see docs/certificates.md) it keeps one Certificate owned by the Route, a
// Role and RoleBinding that let the router read exactly the Secret
// cert-manager fills, and, once that Secret holds an issued certificate, the
// Route's spec.tls.externalCertificate naming it: the private key never
// enters the Route object.
//
// desired.go and progress.go are pure functions of the objects they are
// given; controller.go and setup.go are the thin adapter that reads and
// writes the API server. The package imports routecore (which owns the
// annotations and their rules) and cert-manager's API types; it must not
// import webhook, ingress, router or haproxy.
package routecerts
