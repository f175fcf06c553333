package router

import (
	"hash/maphash"
	"iter"
	"maps"
)

const pmapBuckets = 256

var pmapSeed = maphash.MakeSeed()

// PMap is a persistent map from string keys: Set and Delete return a new
// map and leave the receiver unchanged, copying only the 1/256 of the
// entries that share the key's bucket. The zero value is an empty map.
type PMap[V any] struct {
	buckets *[pmapBuckets]map[string]V
	n       int
}

func bucketOf(key string) int { return int(maphash.String(pmapSeed, key) % pmapBuckets) }

// Get returns the value of key.
func (m PMap[V]) Get(key string) (V, bool) {
	var zero V
	if m.buckets == nil {
		return zero, false
	}
	v, ok := m.buckets[bucketOf(key)][key]
	return v, ok
}

// Len is the number of entries.
func (m PMap[V]) Len() int { return m.n }

// Set returns m with key set to v.
func (m PMap[V]) Set(key string, v V) PMap[V] {
	buckets, s := m.cloneBucket(key)
	_, existed := buckets[s][key]
	buckets[s][key] = v
	n := m.n
	if !existed {
		n++
	}
	return PMap[V]{buckets: buckets, n: n}
}

// Delete returns m without key.
func (m PMap[V]) Delete(key string) PMap[V] {
	if _, ok := m.Get(key); !ok {
		return m
	}
	buckets, s := m.cloneBucket(key)
	delete(buckets[s], key)
	return PMap[V]{buckets: buckets, n: m.n - 1}
}

func (m PMap[V]) cloneBucket(key string) (*[pmapBuckets]map[string]V, int) {
	buckets := new([pmapBuckets]map[string]V)
	if m.buckets != nil {
		*buckets = *m.buckets
	}
	s := bucketOf(key)
	if buckets[s] == nil {
		buckets[s] = map[string]V{}
	} else {
		buckets[s] = maps.Clone(buckets[s])
	}
	return buckets, s
}

// All iterates over the entries in no particular order.
func (m PMap[V]) All() iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		if m.buckets == nil {
			return
		}
		for _, bucket := range m.buckets {
			for k, v := range bucket {
				if !yield(k, v) {
					return
				}
			}
		}
	}
}

// PMapEditor applies a batch of changes to a PMap, copying each touched
// bucket once, then freezes the result into a new PMap.
type PMapEditor[V any] struct {
	buckets *[pmapBuckets]map[string]V
	owned   [pmapBuckets]bool
	n       int
}

// Edit starts a batch of changes on m; m itself is not changed.
func (m PMap[V]) Edit() *PMapEditor[V] {
	e := &PMapEditor[V]{buckets: new([pmapBuckets]map[string]V), n: m.n}
	if m.buckets != nil {
		*e.buckets = *m.buckets
	}
	return e
}

func (e *PMapEditor[V]) bucket(key string) map[string]V {
	s := bucketOf(key)
	if !e.owned[s] {
		if e.buckets[s] == nil {
			e.buckets[s] = map[string]V{}
		} else {
			e.buckets[s] = maps.Clone(e.buckets[s])
		}
		e.owned[s] = true
	}
	return e.buckets[s]
}

// Set sets key to v.
func (e *PMapEditor[V]) Set(key string, v V) {
	sh := e.bucket(key)
	if _, ok := sh[key]; !ok {
		e.n++
	}
	sh[key] = v
}

// Delete removes key.
func (e *PMapEditor[V]) Delete(key string) {
	sh := e.bucket(key)
	if _, ok := sh[key]; ok {
		e.n--
		delete(sh, key)
	}
}

// Freeze returns the edited map; the editor must not be used afterwards.
func (e *PMapEditor[V]) Freeze() PMap[V] {
	m := PMap[V]{buckets: e.buckets, n: e.n}
	e.buckets = nil
	return m
}
