package ingress

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/routecore"
)

// expectationTTL is how long a created Route is expected before the cache
// shows it; past it the Route counts as deleted before the cache saw it.
const expectationTTL = 30 * time.Second

// memory is everything the controller remembers of Ingresses between
// syncs, one entry per Ingress. An entry belongs to one Ingress UID (an
// Ingress deleted and created again under the same name starts afresh), an
// entry left with nothing in it is dropped at once, and forget drops the
// entry of an Ingress that was deleted or is no longer managed: what the
// controller holds is bounded by the Ingresses that exist and have
// something to remember.
type memory struct {
	mu    sync.Mutex
	byKey map[types.NamespacedName]*ingressMemory
	// size, when set, follows the number of entries.
	size prometheus.Gauge
}

// ingressMemory is what the controller remembers of one Ingress.
type ingressMemory struct {
	uid types.UID
	// created are Routes created but not yet seen in the cache, with the
	// time of creation, so that a sync racing the cache does not create
	// them again.
	created map[string]time.Time
	// reported is the last message of each event reason, so that a steady
	// cluster is not written to by repeated events.
	reported map[string]string
}

func (m *ingressMemory) empty() bool { return len(m.created) == 0 && len(m.reported) == 0 }

// update runs change on the entry of ing (a new one if there is none or it
// belongs to an earlier Ingress of the same name), then drops the entry if
// it is left empty. It returns change's result.
func (m *memory) update(ing *networkingv1.Ingress, change func(*ingressMemory) bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := types.NamespacedName{Namespace: ing.Namespace, Name: ing.Name}
	e := m.byKey[key]
	if e == nil || e.uid != ing.UID {
		e = &ingressMemory{uid: ing.UID}
	}
	result := change(e)
	if e.empty() {
		delete(m.byKey, key)
	} else {
		if m.byKey == nil {
			m.byKey = map[types.NamespacedName]*ingressMemory{}
		}
		m.byKey[key] = e
	}
	m.setSize()
	return result
}

// forget drops everything remembered of the Ingress key.
func (m *memory) forget(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byKey, key)
	m.setSize()
}

// len is the number of Ingresses something is remembered of.
func (m *memory) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byKey)
}

func (m *memory) setSize() {
	if m.size != nil {
		m.size.Set(float64(len(m.byKey)))
	}
}

// expectCreated remembers that the Route name of ing was just created.
func (m *memory) expectCreated(ing *networkingv1.Ingress, name string) {
	m.update(ing, func(e *ingressMemory) bool {
		if e.created == nil {
			e.created = map[string]time.Time{}
		}
		e.created[name] = time.Now()
		return true
	})
}

// observe drops the expected Routes the cache now shows, and those expected
// for longer than expectationTTL.
func (m *memory) observe(ing *networkingv1.Ingress, seen []routecore.Route) {
	m.update(ing, func(e *ingressMemory) bool {
		for i := range seen {
			delete(e.created, seen[i].Name)
		}
		for name, at := range e.created {
			if time.Since(at) >= expectationTTL {
				delete(e.created, name)
			}
		}
		return true
	})
}

// pending reports whether the Route name of ing was created less than
// expectationTTL ago and the cache does not show it yet.
func (m *memory) pending(ing *networkingv1.Ingress, name string) bool {
	return m.update(ing, func(e *ingressMemory) bool {
		at, ok := e.created[name]
		return ok && time.Since(at) < expectationTTL
	})
}

// reportChanged remembers message as the last one of reason for ing and
// reports whether it differs from the one before. An empty message means
// the problem is gone: it is forgotten and never reported.
func (m *memory) reportChanged(ing *networkingv1.Ingress, reason, message string) bool {
	return m.update(ing, func(e *ingressMemory) bool {
		if message == "" {
			delete(e.reported, reason)
			return false
		}
		if e.reported[reason] == message {
			return false
		}
		if e.reported == nil {
			e.reported = map[string]string{}
		}
		e.reported[reason] = message
		return true
	})
}
