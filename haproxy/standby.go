package haproxy

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"text/template"

	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// Standby backends (see runtime.StandbyRoute for how HAProxy uses them):
// the configuration declares ROUTER_BLUEPRINT_ROUTE_POOL_SIZE of each
// kind in conf/backends/standby.cfg, and the renderer says which new
// routes fit one. A route fits a kind when its backend is the kind's but
// for its name, its services, its cookie's name and its server slots, its
// slots need no options of their own, it has no files (certificates, CA
// or allowlist files), no cookie name of its own, and its map entries are
// lookup entries only (no crt-list entry, no forwarded-headers policy of
// its own) that the runtime API's command line can carry. A kind's
// backend is what the renderer makes of a route of that kind without
// annotations, so what fits is decided by the one function that builds
// every backend.

// standbyFile holds the standby backends.
const standbyFile = backendsDir + "/standby.cfg"

// standbyKind is one kind of standby backend.
type standbyKind struct {
	name string
	// shape is the kind's backend as standbyShape sees it.
	shape BackendData
	// names are the kind's standby backends, and slots their server
	// slots as loaded.
	names []string
	slots []ServerData
}

// standbySet is the standby backends of a configuration.
type standbySet struct {
	kinds []standbyKind
	// text is conf/backends/standby.cfg.
	text []byte
}

// standbyKindRoutes are the routes each kind is made from: a route of that
// kind without annotations.
var standbyKindRoutes = []struct {
	kind string
	tls  *routecore.TLSConfig
}{
	{"http", nil},
	{"http-secure", &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, InsecureEdgeTerminationPolicy: routecore.InsecureEdgeTerminationPolicyRedirect}},
	{"tcp", &routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough}},
}

// newStandbySet builds n standby backends of each kind and prints them
// with the backend template; nil when n is 0.
func newStandbySet(def *backendDefaults, n int, tmpl *template.Template) (*standbySet, error) {
	if n == 0 {
		return nil, nil
	}
	set := &standbySet{}
	var buf bytes.Buffer
	for _, sr := range standbyKindRoutes {
		rt := &router.Route{Namespace: "standby", Name: sr.kind, Host: sr.kind + ".standby.invalid", TLS: sr.tls,
			Backends: []router.Backend{{Service: types.NamespacedName{Namespace: "standby", Name: sr.kind}, Weight: 1}}}
		d := buildBackend(def, backendInput{key: rt.Key(), route: rt, services: make([]*router.ServiceEndpoints, 1)}).data
		kind := standbyKind{name: sr.kind, shape: standbyShape(d), slots: d.Servers}
		for i := range n {
			b := *d
			b.Name, b.Route, b.Services = "be_standby:"+sr.kind+":"+strconv.Itoa(i), "", nil
			if d.Cookie != nil {
				c := *d.Cookie
				// ROUTER_COOKIE_NAME when set (routes then keep their
				// cookie across the reload), else one of its own.
				c.Name = cookie(def, &router.Route{Namespace: "standby", Name: b.Name}).Name
				b.Cookie = &c
			}
			if err := tmpl.ExecuteTemplate(&buf, backendTemplate, &b); err != nil {
				return nil, fmt.Errorf("template %q: standby backend %s: %w", backendTemplate, b.Name, err)
			}
			kind.names = append(kind.names, b.Name)
		}
		set.kinds = append(set.kinds, kind)
	}
	set.text = buf.Bytes()
	return set, nil
}

// standbyShape is a backend without what a standby backend takes from
// the route it serves: its name, route, services, cookie name and slots.
func standbyShape(d *BackendData) BackendData {
	s := *d
	s.Name, s.Route, s.Services, s.Servers = "", "", nil, nil
	if d.Cookie != nil {
		c := *d.Cookie
		c.Name = ""
		s.Cookie = &c
	}
	return s
}

// backends are the standby backends by kind, for runtime.Output.
func (s *standbySet) backends() map[string][]string {
	if s == nil {
		return nil
	}
	out := make(map[string][]string, len(s.kinds))
	for _, k := range s.kinds {
		out[k.name] = k.names
	}
	return out
}

// kindOf is the kind whose standby backends can serve rr, if any.
func (s *standbySet) kindOf(rr *routeRender) (*standbyKind, bool) {
	if s == nil || rr.unservable != "" || len(rr.files) > 0 {
		return nil, false
	}
	for _, srv := range rr.backend.Servers {
		if srv.Options() != "" {
			return nil, false
		}
	}
	if routecore.ValidateCookieName(rr.route.Overrides.CookieName) == nil {
		return nil, false // a cookie name of its own, which clients may rely on
	}
	for _, e := range rr.entries {
		if e.m == crtList || e.m == forwardedPolicy || !runtime.CommandWord(e.key) || !runtime.CommandWord(e.value) {
			return nil, false
		}
	}
	shape := standbyShape(rr.backend)
	for i := range s.kinds {
		if reflect.DeepEqual(shape, s.kinds[i].shape) {
			return &s.kinds[i], true
		}
	}
	return nil, false
}

// standbyRoutes lists the new routes (keys added) that standby backends
// can serve, with the map entries they win once adopted.
func (r *Renderer) standbyRoutes(added []string) []runtime.StandbyRoute {
	var out []runtime.StandbyRoute
	for _, k := range added {
		rr := r.routes[k]
		kind, ok := r.standby.kindOf(rr)
		if !ok {
			continue
		}
		sr := runtime.StandbyRoute{Route: k, Kind: kind.name, Backend: rr.backend.Name,
			Servers: serverChanges(&BackendData{Name: rr.backend.Name, Servers: kind.slots}, rr.backend)}
		for i := range rr.entries {
			if e := &rr.entries[i]; r.keyed[e.m].winner(e.key) == e {
				sr.Maps = append(sr.Maps, runtime.MapEntry{Map: r.abs(mapFiles[e.m]), Key: e.key, Value: e.value})
			}
		}
		if len(sr.Maps) > 0 {
			out = append(out, sr)
		}
	}
	return out
}
