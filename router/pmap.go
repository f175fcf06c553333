package router

import (
	"hash/maphash"
	"iter"
	"maps"
)

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
