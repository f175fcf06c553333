// Package haproxy is routeshift's HAProxy data plane: it serves the
// snapshots the router (router/) publishes.
//
// It owns the working directory's layout (layout.go); the renderer
// (render.go), which turns a snapshot and its inputs into haproxy.cfg,
// backend files, lookup maps, the crt-list and certificate files,
// re-rendering only what changed, and reads no file and fetches nothing:
// its inputs (inputs.go) are the contents of the files the configuration
// copies, which a FileLoader reads (and the CRL fetcher fetches, crl.go),
// and the routes HAProxy refused; the pure backend builder (backend.go);
// quoting of everything that comes from a route (quote.go); the view
// model the templates print (viewmodel.go) and the templates themselves
// (templates/*.tmpl, embedded); the decision between the runtime API and a
// reload, with its reasons (reload.go); what HAProxy refuses (refusals.go):
// the one owner of the routes HAProxy refused, which finds them (with the
// probes of isolate.go) and says when to try them again, so that they are
// served closed and reported instead of keeping every other route from
// loading; and DataPlane (dataplane.go), the router's Consumer, which
// loads the inputs, hands each rendering to the HAProxy process
// (haproxy/runtime/) and reports the routes it cannot serve to the router.
//
// It imports the router's snapshot types; the router must not import it.
// Its settings are haproxy/proxyconfig's Config, which NewRenderer
// refuses unless Config.Validate accepts it; the settings table
// (internal/settings) fills them and must not be imported here.
package haproxy
