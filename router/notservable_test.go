package router

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
)

// TestStoreNotServable: a data plane's report that it cannot serve a route
// turns its admission into RouteNotServable with the data plane's words;
// the route keeps its host claim and its served value (in the snapshot's
// routes) until what it serves changes, which admits it again for the data
// plane to try; a new object serving the same (the router's own status
// write) changes nothing. Reports on values the store no longer serves are ignored.
func TestStoreNotServable(t *testing.T) {
	s := store(AdmissionConfig{}, rt("ns", "bad", "www.example.com", 1), rt("ns", "good", "good.example.com", 2),
		rt("other", "late", "www.example.com", 3))
	first := s.Build(true)
	bad, _ := first.Routes.Get("ns/bad")
	const words = "HAProxy refuses the route's configuration: unable to load SSL certificate"
	late := "other/late rejected HostAlreadyClaimed: a route in another namespace holds www.example.com and is older than late"
	notServable := "ns/bad rejected RouteNotServable: " + words
	steps := []struct {
		name        string
		do          func()
		want        []string
		changed     []string
		notServable int
	}{
		{"reported", func() { s.SetNotServable(bad, words) }, []string{notServable, "ns/good admitted", late}, []string{"ns/bad"}, 1},
		{"reported again: nothing changes", func() { s.SetNotServable(bad, words) }, []string{notServable, "ns/good admitted", late}, nil, 1},
		{"a report on a value no longer served is ignored", func() {
			stale := *bad
			s.SetNotServable(&stale, "stale")
		}, []string{notServable, "ns/good admitted", late}, nil, 1},
		{"another route of the host changes: still not servable", func() {
			s.SetRoute(rt("other", "late", "www.example.com", 3, func(r *routecore.Route) { r.ResourceVersion = "2" }))
		}, []string{notServable, "ns/good admitted", late}, nil, 1},
		{"a new object that serves the same (its status written): still not servable", func() {
			s.SetRoute(rt("ns", "bad", "www.example.com", 1, func(r *routecore.Route) {
				r.ResourceVersion = "2"
				r.Labels = map[string]string{"team": "a"}
			}))
		}, []string{notServable, "ns/good admitted", late}, nil, 1},
		{"the route changes: admitted again", func() {
			s.SetRoute(rt("ns", "bad", "www.example.com", 1, func(r *routecore.Route) {
				r.ResourceVersion = "3"
				r.Spec.Path = "/fixed"
			}))
		}, []string{"ns/bad admitted", "ns/good admitted", late}, []string{"ns/bad"}, 0},
	}
	for _, step := range steps {
		step.do()
		snap := s.Build(true)
		t.Run(step.name, func(t *testing.T) {
			expect(t, snap, step.want...)
			if got := slices.Sorted(maps.Keys(snap.Changed.Routes)); !slices.Equal(got, step.changed) {
				t.Errorf("changed %v, want %v", got, step.changed)
			}
			if s.notServable != step.notServable {
				t.Errorf("%d routes counted not servable, want %d", s.notServable, step.notServable)
			}
			served, ok := snap.Routes.Get("ns/bad")
			if !ok {
				t.Fatal("ns/bad left the snapshot's routes")
			}
			if d, _ := snap.Decisions.Get("ns/bad"); d.Reason == ReasonNotServable && served != bad {
				t.Error("ns/bad is not servable but its served value changed")
			}
		})
	}
	again, _ := s.Build(true).Routes.Get("ns/bad")
	s.SetNotServable(again, words)
	s.DeleteRoute("ns", "bad")
	snap := s.Build(true)
	expect(t, snap, "ns/good admitted", "other/late admitted")
	if s.notServable != 0 {
		t.Errorf("%d routes counted not servable after the route was deleted", s.notServable)
	}
}

// TestRouterFeedback: a consumer's report reaches the store through the
// router's loop and the next snapshot says the route is not servable; a
// report after the loop ended does not block.
func TestRouterFeedback(t *testing.T) {
	r := NewRouter(Config{}, nil)
	sub := r.Feed().Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.loop(ctx, func(context.Context) bool { return true }) }()
	r.events <- func(s *Store) { s.SetRoute(rt("ns", "r", "www.example.com", 1)) }
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	next := func(what string, ok func(Snapshot) bool) Snapshot {
		t.Helper()
		for {
			snap, more := sub.Next(wait)
			if !more {
				t.Fatalf("no snapshot where %s", what)
			}
			if ok(snap) {
				return snap
			}
		}
	}
	snap := next("ns/r is admitted", func(s Snapshot) bool { d, _ := s.Decisions.Get("ns/r"); return s.Synced && d.Verdict == Admitted })
	served, _ := snap.Routes.Get("ns/r")
	var fb Feedback = r
	fb.NotServable(served, "refused")
	snap = next("ns/r is not servable", func(s Snapshot) bool { d, _ := s.Decisions.Get("ns/r"); return d.Reason == ReasonNotServable })
	if d, _ := snap.Decisions.Get("ns/r"); d.Message != "refused" || d.Verdict != Rejected {
		t.Errorf("decision %+v", d)
	}
	cancel()
	<-done
	for range cap(r.events) + 1 {
		fb.NotServable(served, "after the end") // must not block
	}
}

// TestNotServableClaims: a route the data plane cannot serve keeps its
// claim (a wildcard keeps blocking the domain for other namespaces), a
// new report on the same value replaces the message, losing the claim
// ends the report, and winning the host back serves a new value, admitted
// for the data plane to try again. Reports on values no longer served
// (rejected since, or deleted) change nothing.
func TestNotServableClaims(t *testing.T) {
	s := store(AdmissionConfig{AllowWildcardRoutes: true}, rt("ns1", "w", "w.x.com", 2, wildcard), rt("ns2", "a", "a.x.com", 3))
	blocked := "ns2/a rejected HostAlreadyClaimed: a route in another namespace holds host a.x.com"
	current := func() *Route { r, _ := s.snapshot.Routes.Get("ns1/w"); return r }
	s.Build(true)
	first := current()
	var stale *Route
	steps := []struct {
		name        string
		do          func()
		want        []string
		changed     []string
		served      bool // ns1/w in the snapshot's routes
		notServable int
	}{
		{"reported: the wildcard still blocks the domain", func() { s.SetNotServable(first, "refused") },
			[]string{"ns1/w rejected RouteNotServable: refused", blocked}, []string{"ns1/w"}, true, 1},
		{"reported again in other words: the message follows", func() { s.SetNotServable(first, "refused again") },
			[]string{"ns1/w rejected RouteNotServable: refused again", blocked}, []string{"ns1/w"}, true, 1},
		{"an older host of another namespace comes: the wildcard loses the domain, ns2/a keeps out", func() {
			stale = current()
			s.SetRoute(rt("ns3", "old", "old.x.com", 1))
		}, []string{"ns1/w rejected HostAlreadyClaimed: a route in another namespace holds host w.x.com", "ns2/a admitted", "ns3/old admitted"},
			[]string{"ns1/w", "ns2/a", "ns3/old"}, false, 0},
		{"a report on the value served before is stale", func() { s.SetNotServable(stale, "late") },
			[]string{"ns1/w rejected HostAlreadyClaimed: a route in another namespace holds host w.x.com", "ns2/a admitted", "ns3/old admitted"},
			nil, false, 0},
		{"the older host goes: the wildcard wins again, with a new value, admitted", func() { s.DeleteRoute("ns3", "old") },
			[]string{"ns1/w admitted", blocked}, []string{"ns1/w", "ns2/a", "ns3/old"}, true, 0},
		{"a report on a route the store does not know is ignored", func() { s.SetNotServable(&Route{Namespace: "ns9", Name: "gone"}, "gone") },
			[]string{"ns1/w admitted", blocked}, nil, true, 0},
	}
	for _, step := range steps {
		step.do()
		snap := s.Build(true)
		t.Run(step.name, func(t *testing.T) {
			expect(t, snap, step.want...)
			if got := slices.Sorted(maps.Keys(snap.Changed.Routes)); !slices.Equal(got, step.changed) {
				t.Errorf("changed %v, want %v", got, step.changed)
			}
			if _, ok := snap.Routes.Get("ns1/w"); ok != step.served {
				t.Errorf("ns1/w served %v, want %v", ok, step.served)
			}
			if s.notServable != step.notServable {
				t.Errorf("%d counted not servable, want %d", s.notServable, step.notServable)
			}
		})
	}
	if again := current(); again == first {
		t.Error("the wildcard won its domain back with the value reported not servable")
	}
}

// TestNotServableSecretRenewed: a route not servable because of what its
// external certificate secret held is admitted again, with a new value,
// once the secret's content changes (a renewed certificate): the data
// plane tries again. A new version of the secret with the same content
// keeps the report.
func TestNotServableSecretRenewed(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(AdmissionConfig{})
	s.SetSecret(tlsSecret("tls", "1", p.Leaf))
	s.SetRoute(rt("ns", "r", "www.example.com", 1, external("tls")))
	served, _ := s.Build(true).Routes.Get("ns/r")
	s.SetNotServable(served, "refused")
	expect(t, s.Build(true), "ns/r rejected RouteNotServable: refused")
	s.SetSecret(tlsSecret("tls", "2", p.Leaf))
	if snap := s.Build(true); !snap.Changed.Empty() {
		t.Errorf("the same content again changed %v", snap.Changed.Routes)
	}
	s.SetSecret(tlsSecret("tls", "3", p.Other))
	snap := s.Build(true)
	expect(t, snap, "ns/r admitted")
	if renewed, _ := snap.Routes.Get("ns/r"); renewed == served || renewed.TLS.Certificate != string(p.Other.CertPEM) {
		t.Errorf("served %p with %.30q after the renewal, was %p", renewed, renewed.TLS.Certificate, served)
	}
	if s.notServable != 0 {
		t.Errorf("%d counted not servable", s.notServable)
	}
}
