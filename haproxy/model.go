package haproxy

import (
	"hash/maphash"
	"iter"
	"maps"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/routecore"
)

// Route is an admitted route as the data plane serves it: everything the
// renderer needs, already resolved (effective host, certificates of an
// external certificate secret, parsed annotations). Values are immutable
// once in a Snapshot.
type Route struct {
	Namespace, Name string
	UID             types.UID
	Created         time.Time
	// Host is the effective host, lower case. A wildcard route's Host is
	// the route's own host (wildcard.example.com); it serves every host
	// in DomainKey(Host).
	Host     string
	Wildcard bool
	// Path is the path prefix ("" for the whole host); ExactPath makes it
	// an exact match (routeshift.io/path-type: Exact).
	Path      string
	ExactPath bool
	// TLS is nil for plain HTTP. Certificate and Key hold the external
	// certificate's content when the route names one.
	TLS *routecore.TLSConfig
	// Backends are spec.to then spec.alternateBackends, with weights.
	Backends []Backend
	// TargetPort selects endpoint ports by name or number; nil means all.
	TargetPort *intstr.IntOrString
	// Overrides are the route's valid annotation values.
	Overrides routecore.Overrides
	// HTTPHeaders are the header actions (edge and reencrypt).
	HTTPHeaders *routecore.RouteHTTPHeaders
}

// Key is the route's namespace/name.
func (r *Route) Key() string { return r.Namespace + "/" + r.Name }

// Termination is the route's termination, "" for plain HTTP.
func (r *Route) Termination() routecore.TLSTerminationType {
	if r.TLS == nil {
		return ""
	}
	return r.TLS.Termination
}

// Backend is one service behind a route.
type Backend struct {
	Service types.NamespacedName
	Weight  int32
}

// Endpoint is one ready address and port of a service.
type Endpoint struct {
	IP          string
	Port        int32
	PortName    string
	AppProtocol string
	// TargetRef names the pod behind the address, when known.
	TargetRef string
}

// ServiceEndpoints are the ready endpoints of a service, sorted and free of
// duplicates and of addresses the router must not reach, with the Service's
// ports when the router knows the Service.
type ServiceEndpoints struct {
	Service   types.NamespacedName
	Endpoints []Endpoint
	// Ports are the Service's TCP ports (spec.ports), for a route's
	// numeric targetPort that names a service port; shared between
	// snapshots, never modified.
	Ports []ServicePort
}

// ServicePort is a port of a Service: the number clients connect to, and
// its name, which the Service's EndpointSlices give the port it targets.
type ServicePort struct {
	Port int32
	Name string
}

// Snapshot is one immutable view of what a router serves: admitted routes
// and the endpoints of every service. A new snapshot shares everything that
// did not change with the previous one.
type Snapshot struct {
	// Routes are the admitted routes, by namespace/name.
	Routes PMap[*Route]
	// Decisions are the router's decisions on every route it has seen,
	// admitted, rejected or ignored (outside the shard), by namespace/name.
	Decisions PMap[Decision]
	// Services are the endpoints of every service, by namespace/name.
	Services  PMap[*ServiceEndpoints]
	Version   uint64
	Synced    bool
	Changed   Changes
	CreatedAt time.Time
}

// Changes name what differs from the previous snapshot, so that the data
// plane can do work proportional to them.
type Changes struct {
	// Routes are route keys (namespace/name) added, changed or removed.
	Routes map[string]bool
	// Services are service keys whose endpoints changed.
	Services map[string]bool
}

// Empty reports whether nothing changed.
func (c Changes) Empty() bool { return len(c.Routes) == 0 && len(c.Services) == 0 }

const pmapShards = 256

var pmapSeed = maphash.MakeSeed()

// PMap is a persistent map from string keys: Set and Delete return a new
// map and leave the receiver unchanged, copying only the 1/256 of the
// entries that share the key's shard. The zero value is an empty map.
type PMap[V any] struct {
	shards *[pmapShards]map[string]V
	n      int
}

func shardOf(key string) int { return int(maphash.String(pmapSeed, key) % pmapShards) }

// Get returns the value of key.
func (m PMap[V]) Get(key string) (V, bool) {
	var zero V
	if m.shards == nil {
		return zero, false
	}
	v, ok := m.shards[shardOf(key)][key]
	return v, ok
}

// Len is the number of entries.
func (m PMap[V]) Len() int { return m.n }

// Set returns m with key set to v.
func (m PMap[V]) Set(key string, v V) PMap[V] {
	shards, s := m.cloneShard(key)
	_, existed := shards[s][key]
	shards[s][key] = v
	n := m.n
	if !existed {
		n++
	}
	return PMap[V]{shards: shards, n: n}
}

// Delete returns m without key.
func (m PMap[V]) Delete(key string) PMap[V] {
	if _, ok := m.Get(key); !ok {
		return m
	}
	shards, s := m.cloneShard(key)
	delete(shards[s], key)
	return PMap[V]{shards: shards, n: m.n - 1}
}

func (m PMap[V]) cloneShard(key string) (*[pmapShards]map[string]V, int) {
	shards := new([pmapShards]map[string]V)
	if m.shards != nil {
		*shards = *m.shards
	}
	s := shardOf(key)
	if shards[s] == nil {
		shards[s] = map[string]V{}
	} else {
		shards[s] = maps.Clone(shards[s])
	}
	return shards, s
}

// All iterates over the entries in no particular order.
func (m PMap[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if m.shards == nil {
			return
		}
		for _, shard := range m.shards {
			for k, v := range shard {
				if !yield(k, v) {
					return
				}
			}
		}
	}
}

// PMapEditor applies a batch of changes to a PMap, copying each touched
// shard once, then freezes the result into a new PMap.
type PMapEditor[V any] struct {
	shards *[pmapShards]map[string]V
	owned  [pmapShards]bool
	n      int
}

// Edit starts a batch of changes on m; m itself is not changed.
func (m PMap[V]) Edit() *PMapEditor[V] {
	e := &PMapEditor[V]{shards: new([pmapShards]map[string]V), n: m.n}
	if m.shards != nil {
		*e.shards = *m.shards
	}
	return e
}

func (e *PMapEditor[V]) shard(key string) map[string]V {
	s := shardOf(key)
	if !e.owned[s] {
		if e.shards[s] == nil {
			e.shards[s] = map[string]V{}
		} else {
			e.shards[s] = maps.Clone(e.shards[s])
		}
		e.owned[s] = true
	}
	return e.shards[s]
}

// Set sets key to v.
func (e *PMapEditor[V]) Set(key string, v V) {
	sh := e.shard(key)
	if _, ok := sh[key]; !ok {
		e.n++
	}
	sh[key] = v
}

// Delete removes key.
func (e *PMapEditor[V]) Delete(key string) {
	sh := e.shard(key)
	if _, ok := sh[key]; ok {
		e.n--
		delete(sh, key)
	}
}

// Freeze returns the edited map; the editor must not be used afterwards.
func (e *PMapEditor[V]) Freeze() PMap[V] {
	m := PMap[V]{shards: e.shards, n: e.n}
	e.shards = nil
	return m
}
