package haproxy

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/router"
)

// TestRefusalsOfThatValue: a refusal holds for the value refused only; the
// route's next value, or its removal, makes forget drop it (tried again).
func TestRefusalsOfThatValue(t *testing.T) {
	f := newRefusals(nil, "/work")
	a, b := served("ns", "a", "a.example.com"), served("ns", "b", "b.example.com")
	snap := snapshotOf([]*router.Route{a, b})
	f.record(refusal{route: a, message: "no"})
	if rf, ok := f.of(a); !ok || rf.message != "no" {
		t.Errorf("of(a) = %+v, %v; want the refusal", rf, ok)
	}
	if _, ok := f.of(b); ok {
		t.Error("b refused without a refusal")
	}
	a2 := *a
	if rf, ok := f.of(&a2); ok || rf != (refusal{}) {
		t.Errorf("another value of a is refused too (%+v); it should be tried again", rf)
	}
	f.forget(snap)
	if _, ok := f.of(a); !ok {
		t.Error("forget dropped a refusal of the value the snapshot still holds")
	}
	f.forget(nextSnapshot(snap, map[string]*router.Route{"ns/a": &a2}, nil))
	if len(f.byKey) != 0 {
		t.Errorf("refusals after a's value changed: %v", f.byKey)
	}
	f.record(refusal{route: b, message: "no"})
	f.forget(nextSnapshot(snap, map[string]*router.Route{"ns/b": nil}, nil))
	if len(f.byKey) != 0 {
		t.Errorf("refusals after b was deleted: %v", f.byKey)
	}
	var none *refusals
	if _, ok := none.of(a); ok {
		t.Error("the nil refusals refuse a route")
	}
}

// TestRefusalsBlame: HAProxy's words about a refused configuration refuse
// the fresh routes they name, with those words (the working directory left
// out); a route already served closed that the words name again is left
// out; routes the words do not name are not refused.
func TestRefusalsBlame(t *testing.T) {
	f := newRefusals(nil, "/work")
	a, b, c := served("ns", "a", "a.example.com"), served("ns", "b", "b.example.com"), served("ns", "c", "c.example.com")
	f.record(refusal{route: b, message: "earlier"})
	refused := &runtime.RefusedError{Err: errors.New("exit status 1"), Words: "[ALERT]    (1) : config : parsing [/work/conf/backends/3.cfg:7] : a is wrong\n" +
		"[ALERT]    (1) : config : b is wrong again\n[ALERT]    (1) : config : Fatal errors found in configuration.\n"}
	named := func(alerts []string) map[string][]string {
		out := map[string][]string{}
		for _, line := range alerts {
			for _, k := range []string{"a", "b"} {
				if strings.HasPrefix(line, "parsing") && k == "a" || strings.HasPrefix(line, k+" ") {
					out["ns/"+k] = append(out["ns/"+k], line)
				}
			}
		}
		return out
	}
	n, err := f.blame(refused, []*router.Route{a, b, c}, named, router.PMap[*router.ServiceEndpoints]{})
	if err != nil || n != 2 {
		t.Fatalf("blame: %d routes, error %v; want 2", n, err)
	}
	want := map[string]refusal{
		"ns/a": {route: a, message: "HAProxy refuses this route's configuration: parsing [conf/backends/3.cfg:7] : a is wrong"},
		"ns/b": {route: b, message: "HAProxy refuses this route's configuration: b is wrong again", omit: true},
	}
	for k, w := range want {
		if got := f.byKey[k]; got != w {
			t.Errorf("%s: %+v, want %+v", k, got, w)
		}
	}
	if _, ok := f.of(c); ok {
		t.Error("c, which HAProxy's words do not name, is refused")
	}

	// An omitted route is not a suspect any more.
	n, err = f.blame(refused, []*router.Route{b}, named, router.PMap[*router.ServiceEndpoints]{})
	if err != nil || n != 0 {
		t.Errorf("blame of an omitted route: %d, %v; want none", n, err)
	}
}

// TestRefusalsCertificate: a certificate the runtime API refuses refuses
// its route with HAProxy's words, cleaned as any refusal's.
func TestRefusalsCertificate(t *testing.T) {
	f := newRefusals(nil, "/work")
	a := served("ns", "a", "a.example.com")
	f.certificate(a, "unable to load /work/certs/routes/ns_a.pem:\x01 bad")
	rf, ok := f.of(a)
	if !ok || rf.omit || rf.message != "HAProxy refuses this route's configuration: unable to load certs/routes/ns_a.pem: bad" {
		t.Errorf("refusal %+v, %v", rf, ok)
	}
	var keys []string
	f.keys(func(k string) { keys = append(keys, k) })
	if !slices.Equal(keys, []string{"ns/a"}) {
		t.Errorf("keys %v", keys)
	}
}
