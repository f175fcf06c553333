// Package router is routeshift's router without its data plane: it decides
// which Routes a router instance serves and hands what it decided to the
// data planes that serve it.
//
// It owns the router's identity and admission settings (Config), the
// admission rules and host claims, the Store that judges every Route
// incrementally, the immutable Snapshot it produces (served routes,
// decisions, endpoints and what changed), the Feed that hands snapshots to
// consumers, the status writer, the watch loop over the cluster (Router)
// and the router's own metrics.
//
// Data flows one way: cluster objects -> Store (admission) -> Snapshot ->
// Feed -> Consumer. A data plane implements Consumer; this package must not
// import one (nothing under haproxy/), nor the settings table that wires
// them together (internal/settings).
package router
