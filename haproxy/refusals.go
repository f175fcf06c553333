package haproxy

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/router"
)

// What HAProxy refuses, in one place.
//
// A route whose configuration HAProxy refuses must not keep the others from
// loading. It is served closed: a backend without servers that keeps the
// route's host and paths (HAProxy answers them with 503, or closes
// passthrough connections), so that no other route serves them, and nothing
// else of the route (no certificate, CA or allowlist file). It is reported
// not servable with HAProxy's words, until the snapshots hold another value
// for it, which is tried again. When HAProxy refuses even the closed
// rendering (a TEMPLATE_FILE may print anything), the route is left out.
//
// Refusals are found three ways: changed routes are checked on their own
// with haproxy -c before they join the configuration (checkChanged, with
// the isolator's probes); when HAProxy refuses a whole configuration, the
// routes it has not loaded yet are blamed (blame); and when the runtime API
// refuses a route's new certificate, that route is refused (certificate).
// The renderer renders what it is given (Render's refused argument); after
// a finding, the data plane applies the latest snapshot again.

// refusal is a route HAProxy refused: the value refused and why, in
// HAProxy's words. omit leaves the route out of the configuration: HAProxy
// refused even its closed rendering.
type refusal struct {
	route   *router.Route
	message string
	omit    bool
}

// refusals are the routes HAProxy refused, by key. The nil *refusals
// refuses nothing.
type refusals struct {
	byKey map[string]refusal
	// isolator finds the routes HAProxy refuses among a set (nil: the
	// refusals only record).
	isolator *isolator
	// workingDir is left out of the paths in HAProxy's words.
	workingDir string
}

// newRefusals returns refusals that find routes with iso and report
// HAProxy's words without workingDir.
func newRefusals(iso *isolator, workingDir string) *refusals {
	return &refusals{byKey: map[string]refusal{}, isolator: iso, workingDir: workingDir}
}

// of is the refusal of route, when that very value is refused.
func (f *refusals) of(route *router.Route) (refusal, bool) {
	if f == nil {
		return refusal{}, false
	}
	if rf, ok := f.byKey[route.Key()]; ok && rf.route == route {
		return rf, true
	}
	return refusal{}, false
}

// keys calls yield with the key of every refusal.
func (f *refusals) keys(yield func(string)) {
	if f == nil {
		return
	}
	for k := range f.byKey {
		yield(k)
	}
}

// record refuses rf.route from the next Render on.
func (f *refusals) record(rf refusal) {
	f.byKey[rf.route.Key()] = rf
}

// forget drops the refusals of routes that snap no longer holds, or holds
// another value of: those are tried again.
func (f *refusals) forget(snap router.Snapshot) {
	for k, rf := range f.byKey {
		if rt, ok := snap.Routes.Get(k); !ok || rt != rf.route {
			delete(f.byKey, k)
		}
	}
}

// checkChanged checks suspects, routes that changed and are not in the
// configuration yet, with HAProxy, each on its own, and refuses those it
// refuses. The error says why it could not tell (the whole configuration
// is then checked instead).
func (f *refusals) checkChanged(suspects []*router.Route, services router.PMap[*router.ServiceEndpoints]) error {
	found, err := f.isolator.find(suspects, services, f)
	for _, rf := range found {
		f.record(rf)
	}
	return err
}

// blame refuses the routes to blame for a configuration HAProxy refused:
// among fresh, the routes rendered since HAProxy last loaded a
// configuration, those its words name (named maps the words to route keys,
// as the renderer's latest rendering tells), else those it refuses on
// their own (probes). A route already served closed is left out. It
// returns how many routes it refused; the error says why it could not look
// further.
func (f *refusals) blame(refused *runtime.RefusedError, fresh []*router.Route, named func([]string) map[string][]string,
	services router.PMap[*router.ServiceEndpoints]) (int, error) {
	var suspects []*router.Route
	for _, rt := range fresh {
		if rf, ok := f.of(rt); !ok || !rf.omit {
			suspects = append(suspects, rt)
		}
	}
	words := named(refused.Alerts())
	var found []refusal
	for _, rt := range suspects {
		if lines, ok := words[rt.Key()]; ok {
			found = append(found, refusal{route: rt, message: refusalMessage(lines, f.workingDir)})
		}
	}
	var err error
	if len(found) == 0 && len(suspects) > 0 {
		found, err = f.isolator.find(suspects, services, f)
	}
	for _, rf := range found {
		if _, closed := f.of(rf.route); closed {
			rf.omit = true // HAProxy refuses its closed rendering too
		}
		f.record(rf)
	}
	return len(found), err
}

// certificate refuses rt, whose new certificate the runtime API refused
// with message.
func (f *refusals) certificate(rt *router.Route, message string) {
	f.record(refusal{route: rt, message: refusalMessage([]string{message}, f.workingDir)})
}

// maxMessage bounds the message a refused route reports.
const maxMessage = 1024

// longQuoted is a quoted word of HAProxy's that refusalMessage shortens
// (a route's path in a regular expression, for example).
var longQuoted = regexp.MustCompile(`'[^']{81,}'`)

// refusalMessage is a refused route's message: HAProxy's alerts about it,
// with the working directory left out of paths, long quoted words
// shortened, and anything but printable text dropped, at most maxMessage
// bytes.
func refusalMessage(alerts []string, workingDir string) string {
	msg := "HAProxy refuses this route's configuration: " + strings.ReplaceAll(strings.Join(alerts, "; "), workingDir+"/", "")
	msg = longQuoted.ReplaceAllStringFunc(msg, func(q string) string {
		return strings.ToValidUTF8(q[:61], "") + fmt.Sprintf("...' (%d bytes)", len(q)-2)
	})
	msg = strings.Map(func(c rune) rune {
		if c < 0x20 || c == 0x7f {
			return -1
		}
		return c
	}, msg)
	if len(msg) > maxMessage {
		msg = strings.ToValidUTF8(msg[:maxMessage-3], "") + "..."
	}
	return msg
}
