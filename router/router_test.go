package router

import (
	"context"
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
