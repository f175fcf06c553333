// Package runtime runs HAProxy for the router: it writes rendered
// configurations atomically, starts HAProxy in master-worker mode, applies
// server and certificate changes through the master CLI and HAProxy's
// runtime API, reloads hitlessly at most once per RELOAD_INTERVAL after the
// first change, keeps the last good configuration when HAProxy refuses
// one, backs off between attempts, and restarts HAProxy when it dies.
// HAProxy's own output goes into the router's log a line at a time, at
// the level each line deserves (Message.Judge). Check runs haproxy -c on
// any configuration and returns HAProxy's words when it refuses it.
//
// It receives rendered output (Output: files, what changed, the reasons a
// reload is needed, server and certificate updates) and never sees
// snapshots or the renderer: it must not import the router (router/) or
// the renderer (haproxy/).
package runtime
