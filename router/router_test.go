package router

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestRouterBindsPortsBeforeSync: by default (ROUTER_BIND_PORTS_AFTER_SYNC
// false) the router publishes one empty, unsynced snapshot at once, so that
// HAProxy binds its ports, and nothing of what arrives before the caches
// sync; with the setting true it publishes nothing until then. Either way
// the first synced snapshot is published, even when it changes nothing.
func TestRouterBindsPortsBeforeSync(t *testing.T) {
	for _, afterSync := range []bool{false, true} {
		t.Run(map[bool]string{false: "bind at once", true: "bind after sync"}[afterSync], func(t *testing.T) {
			cfg := Config{}
			cfg.WaitForSync = afterSync
			r := NewRouter(cfg, nil)
			sub := r.Feed().Subscribe()
			sync := make(chan struct{})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() {
				done <- r.loop(ctx, func(ctx context.Context) bool {
					select {
					case <-sync:
						return true
					case <-ctx.Done():
						return false
					}
				})
			}()
			defer func() { cancel(); <-done }()

			// A route that arrives before the caches sync is not published.
			r.events <- func(s *Store) { s.SetRoute(rt("ns", "r", "www.example.com", 1)) }
			wait, stop := context.WithTimeout(ctx, 500*time.Millisecond)
			snap, ok := sub.Next(wait)
			stop()
			switch {
			case afterSync && ok:
				t.Fatalf("published version %d before the caches synced", snap.Version)
			case !afterSync && !ok:
				t.Fatal("no snapshot before the caches synced: HAProxy would not bind its ports")
			case !afterSync && (snap.Synced || snap.Routes.Len() != 0):
				t.Fatalf("the snapshot before sync is synced=%v with %d routes; want an empty, unsynced one", snap.Synced, snap.Routes.Len())
			}

			close(sync)
			wait, stop = context.WithTimeout(ctx, 10*time.Second)
			defer stop()
			snap, ok = sub.Next(wait)
			if !ok || !snap.Synced {
				t.Fatalf("after sync: snapshot %v, synced %v; want a synced one", ok, snap.Synced)
			}
			if _, ok := snap.Routes.Get("ns/r"); !ok {
				t.Error("the synced snapshot does not serve the route that arrived before sync")
			}
		})
	}
}

// TestRouterPublishesAnEmptySyncedModel: a cluster without routes still gets
// a synced snapshot (the router becomes ready), also after an unsynced one.
func TestRouterPublishesAnEmptySyncedModel(t *testing.T) {
	r := NewRouter(Config{}, nil)
	sub := r.Feed().Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.loop(ctx, func(context.Context) bool { return true }) }()
	defer func() { cancel(); <-done }()
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	for {
		snap, ok := sub.Next(wait)
		if !ok {
			t.Fatal("no synced snapshot")
		}
		if snap.Synced {
			break
		}
	}
}

// TestRouterFirstModelHoldsEveryQueuedEvent: events the handlers queued
// before the caches were reported synced are all in the first synced
// snapshot (at sync the handlers have queued the whole initial list, and a
// model without part of it would make the router ready while it answers
// 503 for the rest).
func TestRouterFirstModelHoldsEveryQueuedEvent(t *testing.T) {
	const routes = 200
	r := NewRouter(Config{WaitForSync: true}, nil)
	sub := r.Feed().Subscribe()
	for i := range routes {
		r.events <- func(s *Store) {
			s.SetRoute(rt("ns", fmt.Sprintf("r%d", i), fmt.Sprintf("r%d.example.com", i), i+1))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.loop(ctx, func(context.Context) bool { return true }) }()
	defer func() { cancel(); <-done }()
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	snap, ok := sub.Next(wait)
	if !ok || !snap.Synced {
		t.Fatalf("first snapshot: %v, synced %v; want a synced one", ok, snap.Synced)
	}
	if snap.Routes.Len() != routes {
		t.Errorf("the first synced snapshot holds %d routes, want all %d queued before sync", snap.Routes.Len(), routes)
	}
}
