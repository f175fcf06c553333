package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// Standby backends serve new routes before the reload that loads them.
//
// Adding a route adds a backend, and HAProxy adds backends only by loading
// a configuration: at 20,000 routes a reload takes seconds, most of them
// HAProxy parsing backends and certificates. So every configuration
// declares a few empty backends of each common kind (a plain HTTP
// backend, one with a secure cookie, a TCP one), each with one disabled
// server slot. When a new route's backend is one of these kinds, with
// nothing of its own beyond its servers, the running worker serves it at
// once: its servers go into a free standby backend and its map entries
// point there, through the runtime API. The configuration written to
// disk names the route's own backend as usual, and the reload that follows
// (at once, or when RELOAD_INTERVAL has passed) moves the route there;
// the new worker starts with every standby backend free again.
//
// Serving from a standby backend is only ever a head start: whatever fails
// on the way is logged and left to the reload, which loads the files
// as they are. While the reload is held, further changes of such a route
// (its endpoints, its removal) wait for it, like every change then.

// StandbyRoute is a new route the running HAProxy can serve from a standby
// backend of Kind until the reload that loads its own backend.
type StandbyRoute struct {
	// Route is the route's namespace/name, for logs.
	Route string
	Kind  string
	// Backend is the route's own backend: the name Maps values and
	// Servers use, which become the standby backend's.
	Backend string
	// Maps are the map entries that route requests to the route, each
	// winning its key; their order does not matter.
	Maps []MapEntry
	// Servers fill the standby backend's slots (and add more), as for the
	// route's own backend.
	Servers []ServerUpdate
}

// MapEntry is one entry of a lookup map. Each field is a CommandWord:
// the command that sets it is written as it is.
type MapEntry struct {
	// Map is the map's file as haproxy.cfg names it.
	Map        string
	Key, Value string
}

// standbyPool is the running worker's standby backends that no route uses
// yet, by kind.
type standbyPool struct {
	// loaded are the standby backends of the configuration HAProxy runs
	// (every one is free when it starts or reloads).
	loaded map[string][]string
	free   map[string][]string
}

// reset records the standby backends of a configuration HAProxy has just
// loaded (nil: HAProxy runs a configuration of unknown standby use).
func (s *standbyPool) reset(backends map[string][]string) {
	s.loaded = backends
	s.free = make(map[string][]string, len(backends))
	for kind, names := range backends {
		s.free[kind] = append([]string(nil), names...)
	}
}

// take returns a free standby backend of kind and marks it used.
func (s *standbyPool) take(kind string) (string, bool) {
	names := s.free[kind]
	if len(names) == 0 {
		return "", false
	}
	s.free[kind] = names[1:]
	return names[0], true
}

// serveStandby has the running worker serve routes from free standby
// backends. Routes beyond the free backends of their kind wait for the
// reload, as do routes whose commands HAProxy refuses (logged).
func (p *Process) serveStandby(ctx context.Context, routes []StandbyRoute) {
	if len(routes) == 0 || !p.state.Started {
		return
	}
	log := logf.FromContext(ctx).WithName("haproxy")
	served, waiting := 0, 0
	for _, rt := range routes {
		name, ok := p.standby.take(rt.Kind)
		if !ok {
			waiting++
			continue
		}
		if err := p.standbyCommands(rt, name); err != nil {
			log.Error(err, "serving a new route from a standby backend; it is served once the reload is done", "route", rt.Route, "standby", name)
			continue
		}
		served++
		p.metrics.standbyRoutes.Inc()
	}
	log.V(1).Info("new routes served from standby backends until the reload", "served", served, "waitingForTheReload", waiting)
}

// standbyCommands fills standby backend name with the route's servers,
// then points its map entries there: a request finds servers as soon as
// it finds the backend.
func (p *Process) standbyCommands(rt StandbyRoute, name string) error {
	servers := make([]ServerUpdate, len(rt.Servers))
	for i, u := range rt.Servers {
		u.Backend = name
		servers[i] = u
	}
	if err := p.updateServers(servers); err != nil {
		return err
	}
	var errs []error
	for _, e := range rt.Maps {
		if e.Value == rt.Backend {
			e.Value = name
		}
		errs = append(errs, p.setMap(e))
	}
	return errors.Join(errs...)
}

// setMap sets a map entry of the running worker: its value when the key
// is there, else a new entry.
func (p *Process) setMap(e MapEntry) error {
	out, err := p.master(fmt.Sprintf("@1 set map %s %s %s", e.Map, e.Key, e.Value))
	if err == nil && strings.Contains(out, "not found") {
		out, err = p.master(fmt.Sprintf("@1 add map %s %s %s", e.Map, e.Key, e.Value))
	}
	if err == nil && strings.TrimSpace(out) != "" {
		err = errors.New(strings.TrimSpace(out))
	}
	if err != nil {
		return fmt.Errorf("map %s, key %s: %w", e.Map, e.Key, err)
	}
	return nil
}

// CommandWord reports whether s can be one word of the runtime API's
// command line as it is: printable ASCII without the characters the master CLI or the
// worker's CLI give a meaning (';' ends a command, '\' escapes, '#' names
// an entry by reference, quotes).
func CommandWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(";\\#'\"", c) >= 0 {
			return false
		}
	}
	return true
}
