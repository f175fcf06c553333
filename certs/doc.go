// Package certs holds routeshift's PEM and x509 rules: the router's
// extended certificate checks for route TLS material (called by routecore,
// so the webhook, the offline commands and the router apply the same
// checks), and key pairs, CAs and CRLs for serving certificates and tests.
//
// It is pure: it reads and writes no API object and no file, and imports
// no client (internal/servingcert keeps the webhook's certificate in a
// Secret; internal/atomicfile writes files). It imports nothing of
// routeshift's: routecore and the adapters import it, so it must not
// import them (routecore, webhook, ingress, router, haproxy, internal/...).
package certs
