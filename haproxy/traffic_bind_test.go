package haproxy

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
)

// TestTrafficBindBeforeSync: with ROUTER_BIND_PORTS_AFTER_SYNC false,
// HAProxy listens from the empty model the router publishes before its
// caches sync (every request a 503, the process not ready), and the first
// complete model loads at once, not RELOAD_INTERVAL later.
func TestTrafficBindBeforeSync(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.ReloadInterval = time.Hour })
	p, err := NewDataPlane(r.cfg, DataPlaneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sub := r.feed.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, sub, r) }()
	t.Cleanup(func() { cancel(); <-done })

	r.feed.Publish(r.store.Build(false))
	eventually(t, 30*time.Second, "HAProxy answers before the sync", func() error {
		if got := r.get("www.example.com", "/"); got.err != nil || got.code != http.StatusServiceUnavailable {
			return errors.New(got.String())
		}
		return nil
	})
	if p.Ready() {
		t.Fatal("ready before a synced model was loaded")
	}

	b := newBackend(t, "app", nil, nil)
	r.route(rt("ns", "app", "www.example.com", 1, toService("app")))
	r.endpoints("ns", "app", b)
	r.publish()
	eventually(t, 20*time.Second, "the synced model is served", func() error {
		if got := r.get("www.example.com", "/"); !got.served("app") {
			return errors.New(got.String())
		}
		if !p.Ready() {
			return errors.New("served, but not ready")
		}
		return nil
	})
}
