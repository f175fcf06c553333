// Package nginx owns the one conversion table from ingress-nginx's
// annotations (nginx.ingress.kubernetes.io/*) and ConfigMap settings to
// Route behaviour: for every annotation ingress-nginx documents, a verdict
// (exact, approximate, router-wide, not supported or refused), a caveat of
// one sentence and, where there is one, the conversion itself. The Ingress
// translation, the controller and the generated reference page
// (docs/reference/ingress-nginx.md) all read it, so each rule lives here
// once.
//
// It is pure, like routecore's annotation catalogue: annotations and
// ConfigMap data in, a Conversion and findings out; it never reads the
// cluster (Secrets it needs are returned by name for the caller to
// resolve). It must not import anything but routecore and Kubernetes' own
// types and helpers.
package nginx

import (
	"slices"
	"strings"
)

// Prefix is the prefix of ingress-nginx's annotation keys; Table lists the
// keys without it.
const Prefix = "nginx.ingress.kubernetes.io/"

// Verdict says how much of an annotation's behaviour a Route keeps.
type Verdict string

// Verdicts, from the best to the worst.
const (
	// Exact means the Route behaves as ingress-nginx did.
	Exact Verdict = "exact"
	// Approximate means the Route behaves almost as ingress-nginx did; the
	// caveat says what differs.
	Approximate Verdict = "approximate"
	// RouterWide means the behaviour exists, but as a setting of the whole
	// router (named in the caveat), not per Route.
	RouterWide Verdict = "router-wide"
	// NotSupported means the Route cannot do it; the caveat says why and
	// what to do instead.
	NotSupported Verdict = "not-supported"
	// Refused means routeshift never honours it, on purpose: the snippets,
	// which would let an Ingress author write proxy configuration.
	Refused Verdict = "refused"
)

// Entry is the rule for one ingress-nginx annotation.
type Entry struct {
	// Annotation is the key without Prefix, e.g. "rewrite-target".
	Annotation string
	// Verdict is how much of the behaviour a Route keeps in general; a
	// particular value may fare better or worse (see Finding).
	Verdict Verdict
	// Caveat says in one sentence what differs, which router setting holds
	// it, or why it is not supported and what to do instead.
	Caveat string

	// convert applies a value to the conversion in progress. It may change
	// the finding's verdict and caveat for this value. Nil means the
	// annotation has no Route counterpart: only the finding is reported.
	convert func(c *converter, f *Finding)
}

// Finding is what became of one ingress-nginx annotation of an Ingress (or
// of one default of ingress-nginx that the conversion made explicit, or of
// one key of its ConfigMap).
type Finding struct {
	// Key is the annotation key without Prefix, or the ConfigMap key.
	Key string `json:"key"`
	// Value is the annotation's value; empty for a default.
	Value string `json:"value,omitempty"`
	// Verdict is how much of the behaviour the Routes keep.
	Verdict Verdict `json:"verdict"`
	// Caveat says in one sentence what differs or what to do.
	Caveat string `json:"caveat"`
	// Default is true when the annotation is absent and the finding is
	// about ingress-nginx's default behaviour (or its ConfigMap's), which
	// differs from the router's and was converted explicitly.
	Default bool `json:"default,omitempty"`
}

// Table returns the rule of every annotation ingress-nginx documents (and
// the aliases it reads), sorted by annotation.
func Table() []Entry {
	return slices.Clone(table)
}

// Lookup returns the rule of an annotation, given with or without Prefix.
func Lookup(annotation string) (Entry, bool) {
	i, found := slices.BinarySearchFunc(table, strings.TrimPrefix(annotation, Prefix), func(e Entry, key string) int {
		return strings.Compare(e.Annotation, key)
	})
	if !found {
		return Entry{}, false
	}
	return table[i], true
}

// table is entries, sorted by annotation once.
var table = func() []Entry {
	t := slices.Clone(entries)
	slices.SortFunc(t, func(a, b Entry) int { return strings.Compare(a.Annotation, b.Annotation) })
	return t
}()

// closestKey returns the known annotation nearest to key by edit distance,
// or "" when none is close enough to be a plausible misspelling.
func closestKey(key string) string {
	return closest(key, len(table), func(i int) string { return table[i].Annotation })
}

// closest returns the one of n names nearest to key by edit distance, or
// "" when none is close enough to be a plausible misspelling.
func closest(key string, n int, name func(i int) string) string {
	best, bestDist := "", len(key)/4+2
	for i := range n {
		candidate := name(i)
		// The lengths' difference is a lower bound of the distance.
		if abs(len(candidate)-len(key)) >= bestDist {
			continue
		}
		if d := editDistance(key, candidate); d < bestDist {
			best, bestDist = candidate, d
		}
	}
	return best
}

func abs(n int) int { return max(n, -n) }

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	var buf [2][64]int
	prev, cur := buf[0][:], buf[1][:]
	if len(b)+1 > len(prev) {
		prev, cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev, cur = prev[:len(b)+1], cur[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
