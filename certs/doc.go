// Package certs holds routeshift's PEM and x509 helpers: the router's
// extended certificate checks for route TLS material (called by routecore,
// so the webhook, the offline commands and the router apply the same
// checks), and certificate generation and rotation for serving
// certificates.
//
// It imports nothing of routeshift's: routecore and the adapters import
// it, so it must not import them (routecore, webhook, ingress, router,
// haproxy, internal/...).
package certs
