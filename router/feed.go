package router

import (
	"context"
	"maps"
	"sync"
)

// Feed hands snapshots from the store to their consumers (status writer,
// data plane). A consumer sees the latest snapshot with the union of the
// changes since it last looked, so a slow consumer skips snapshots without
// losing what changed in them.
type Feed struct {
	mu     sync.Mutex
	latest Snapshot
	has    bool
	subs   []*Subscription
}

// Subscription is one consumer's view of a Feed.
type Subscription struct {
	feed    *Feed
	pending Changes
	wake    chan struct{}
}

// Subscribe adds a consumer. Its first Next returns the latest snapshot
// (once there is one) as the consumer's starting point.
func (f *Feed) Subscribe() *Subscription {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := &Subscription{feed: f, pending: Changes{Routes: map[string]bool{}, Services: map[string]bool{}}, wake: make(chan struct{}, 1)}
	f.subs = append(f.subs, s)
	if f.has {
		s.wake <- struct{}{}
	}
	return s
}

// Publish makes snap the latest snapshot.
func (f *Feed) Publish(snap Snapshot) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.latest, f.has = snap, true
	for _, s := range f.subs {
		maps.Copy(s.pending.Routes, snap.Changed.Routes)
		maps.Copy(s.pending.Services, snap.Changed.Services)
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// Latest returns the latest snapshot, if any.
func (f *Feed) Latest() (Snapshot, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.latest, f.has
}

// Next waits for a snapshot newer than the last one returned and returns
// it, with Changed holding everything changed since then. It returns false
// when ctx ends.
func (s *Subscription) Next(ctx context.Context) (Snapshot, bool) {
	select {
	case <-ctx.Done():
		return Snapshot{}, false
	case <-s.wake:
	}
	f := s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	snap := f.latest
	snap.Changed = s.pending
	s.pending = Changes{Routes: map[string]bool{}, Services: map[string]bool{}}
	return snap, true
}
