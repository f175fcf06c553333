package haproxy

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// Routing lookups (see RoutingData): a request's key is its host (lower
// case, without port and trailing dot) followed by its path. Each
// frontend looks it up in two maps, and then again with the host's first
// label replaced by "*" for wildcard routes:
//
//   - the exact map (map_str: an ebtree of strings, O(log n)) holds
//     host+path for exact paths and for prefix routes' own path, so that
//     route "/test" matches "/test";
//   - the prefix map (map_beg without -i: HAProxy indexes it as a prefix
//     tree and returns the longest matching key, ebmb_lookup_longest)
//     holds host+path+"/" for prefix routes, so that "/test" matches
//     "/test/..." but not "/testing", and host+"/" for routes of the
//     whole host, which catch every path no other route matches.
//
// Four tree lookups at most, whatever the number of routes. Lines are
// "key value"; keys are checked by mapKeySafe, so routes whose path has
// spaces, control characters or more than 4 kB are not routed at all
// (their backend exists but no map points at it). Two routes may want the
// same key ("/a" and "/a/" both want "host/a/" in the prefix map; "" and
// "/" both want "host/"): the longer spec.path wins, then the older route.
//
// The same structure holds the SNI map of passthrough routes and the
// crt-list of route certificates, where for one SNI name the route with the
// shortest path wins (the route of the whole host, if any).

// mapEntry is one line a route wants in a keyed file.
type mapEntry struct {
	m          mapID
	key, value string
	route      string
	pathLen    int
	created    time.Time
}

// wins reports whether e takes the key from o.
func (e *mapEntry) wins(o *mapEntry) bool {
	byPath := cmp.Compare(o.pathLen, e.pathLen) // longer path first
	if e.m == crtList {
		byPath = -byPath
	}
	if c := cmp.Or(byPath, e.created.Compare(o.created), cmp.Compare(e.route, o.route)); c != 0 {
		return c < 0
	}
	return false
}

// line is the entry as written: "key value", or "certificate sni" in the
// crt-list.
func (e *mapEntry) line(b []byte) []byte {
	if e.m == crtList {
		return append(append(append(append(b, e.value...), ' '), e.key...), '\n')
	}
	return append(append(append(append(b, e.key...), ' '), e.value...), '\n')
}

// routeEntries are the lines a route wants in the keyed files. certFile is
// its crt-list value: the absolute path of its certificate file, with the
// entry's SSL options when it has any ("[alpn h2,http/1.1]"), or "" when it
// has no certificate. forwarded is its forwarded-headers policy when it
// differs from the router's, else "".
func routeEntries(rt *router.Route, certFile, forwarded string) []mapEntry {
	if !nameSafe(rt.Host) || !nameSafe(rt.Namespace) || !nameSafe(rt.Name) {
		return nil
	}
	host := rt.Host
	if rt.Wildcard {
		// A wildcard route of a single-label host covers no host.
		if router.DomainKey(rt.Host) == "" {
			return nil
		}
		host = "*." + router.DomainKey(rt.Host)
	}
	base := mapEntry{route: rt.Key(), pathLen: len(rt.Path), created: rt.Created}
	var out []mapEntry
	add := func(m mapID, key, value string) {
		if mapKeySafe(key) {
			e := base
			e.m, e.key, e.value = m, key, value
			out = append(out, e)
		}
	}
	// http adds the lookup keys of an HTTP-mode route to one exact and one
	// prefix map.
	http := func(exact, prefix mapID, value string) {
		switch p := rt.Path; {
		case rt.ExactPath:
			add(exact, host+p, value)
		case p == "" || p == "/":
			add(prefix, host+"/", value)
		case strings.HasSuffix(p, "/"):
			add(prefix, host+p, value)
		default:
			add(exact, host+p, value)
			add(prefix, host+p+"/", value)
		}
	}
	name := backendName(rt)
	if forwarded != "" {
		add(forwardedPolicy, name, forwarded)
	}
	switch rt.Termination() {
	case "":
		http(httpExact, httpPrefix, name)
	case routecore.TLSTerminationEdge, routecore.TLSTerminationReencrypt:
		http(httpsExact, httpsPrefix, name)
		switch rt.TLS.InsecureEdgeTerminationPolicy {
		case routecore.InsecureEdgeTerminationPolicyAllow:
			http(httpExact, httpPrefix, name)
		case routecore.InsecureEdgeTerminationPolicyRedirect:
			if httpsRedirectCode(rt) == 302 {
				http(httpExact, httpPrefix, redirectValue)
			} else {
				// The backend redirects with the route's own status.
				http(httpExact, httpPrefix, name)
			}
		}
		if certFile != "" {
			add(crtList, host, certFile)
		}
	case routecore.TLSTerminationPassthrough:
		add(sniPassthrough, host, name)
		if rt.TLS.InsecureEdgeTerminationPolicy == routecore.InsecureEdgeTerminationPolicyRedirect {
			http(httpExact, httpPrefix, redirectValue)
		}
	}
	return append(out, wwwEntries(rt, certFile)...)
}

// mapChunks is how many pieces a keyed file is kept in: a change re-sorts
// and re-prints the pieces of the keys it touches, then joins the pieces.
const mapChunks = 64

// keyedFile is one map (or the crt-list), kept as the candidate entries of
// every key and printed chunk by chunk. Line order within a file does not
// matter to HAProxy (both match types are tree lookups and each key
// appears once); it is sorted by key within chunks for stable output.
type keyedFile struct {
	chunks [mapChunks]keyChunk
	data   []byte
}

type keyChunk struct {
	// keys holds the candidates of each key, the winner first.
	keys  map[string][]*mapEntry
	text  []byte
	dirty bool
}

func chunkOf(key string) int { return int(fnv32a(key) % mapChunks) }

// fnv32a is the 32-bit FNV-1a hash: stable across processes and versions,
// so that the same route always lands in the same file.
func fnv32a(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func (f *keyedFile) add(e *mapEntry) {
	c := &f.chunks[chunkOf(e.key)]
	if c.keys == nil {
		c.keys = map[string][]*mapEntry{}
	}
	list := c.keys[e.key]
	i := 0
	for i < len(list) && !e.wins(list[i]) {
		i++
	}
	c.keys[e.key] = slices.Insert(list, i, e)
	c.dirty = true
}

func (f *keyedFile) remove(e *mapEntry) {
	c := &f.chunks[chunkOf(e.key)]
	list := slices.DeleteFunc(c.keys[e.key], func(o *mapEntry) bool { return o.route == e.route })
	if len(list) == 0 {
		delete(c.keys, e.key)
	} else {
		c.keys[e.key] = list
	}
	c.dirty = true
}

// winner is the entry written for key, nil when none.
func (f *keyedFile) winner(key string) *mapEntry {
	if list := f.chunks[chunkOf(key)].keys[key]; len(list) > 0 {
		return list[0]
	}
	return nil
}

// print re-prints the dirty chunks and joins them; it reports whether
// anything was re-printed.
func (f *keyedFile) print() bool {
	changed := false
	size := 0
	for i := range f.chunks {
		c := &f.chunks[i]
		if c.dirty {
			keys := make([]string, 0, len(c.keys))
			for k := range c.keys {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			text := make([]byte, 0, len(c.text)+64)
			for _, k := range keys {
				text = c.keys[k][0].line(text)
			}
			c.text, c.dirty, changed = text, false, true
		}
		size += len(c.text)
	}
	if changed || f.data == nil {
		data := make([]byte, 0, size)
		for i := range f.chunks {
			data = append(data, f.chunks[i].text...)
		}
		f.data = data
	}
	return changed
}
