// Package haproxy is routeshift's router: it turns Routes into a running
// HAProxy.
//
// Data flows one way. Admission (Store, AdmissionConfig) judges every
// Route against the router's shard, domains, wildcard policy, host claims
// and certificates, and produces an immutable Snapshot: the admitted
// routes and the endpoints of every service, plus what changed. The
// renderer (Renderer) turns a Snapshot into HAProxy configuration files,
// re-rendering only what changed and telling which endpoint changes can go
// through HAProxy's runtime API instead of a reload. The process side
// writes those files, runs HAProxy in master-worker mode and reloads it
// hitlessly.
package haproxy
