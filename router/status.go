package router

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/routecore"
)

// StatusIdentity is how a router names itself in route status.
type StatusIdentity struct {
	RouterName        string
	CanonicalHostname string
}

// DesiredStatus returns route's status.ingress as this router wants it,
// given its decision: its own entry set (admitted or rejected) or removed
// (ignored), every other router's entry untouched. A router has one entry:
// duplicates of it (written by hand or by an older writer) are dropped, as
// OpenShift's router does. changed is false when the route already says
// that, ignoring transition times.
func DesiredStatus(route *routecore.Route, d Decision, id StatusIdentity, now time.Time) (ingress []routecore.RouteIngress, changed bool) {
	ours := func(in routecore.RouteIngress) bool { return in.RouterName == id.RouterName }
	i := slices.IndexFunc(route.Status.Ingress, ours)
	if d.Verdict == Ignored {
		if i < 0 {
			return route.Status.Ingress, false
		}
		return slices.DeleteFunc(slices.Clone(route.Status.Ingress), ours), true
	}
	duplicated := i >= 0 && slices.ContainsFunc(route.Status.Ingress[i+1:], ours)
	// An admitted route's message, when it has one, notes what of it is
	// not served (a www-redirect host it does not hold).
	cond := routecore.RouteIngressCondition{Type: routecore.RouteAdmitted, Status: corev1.ConditionTrue, Message: d.Message}
	if d.Verdict == Rejected {
		cond.Status, cond.Reason, cond.Message = corev1.ConditionFalse, d.Reason, d.Message
	}
	want := routecore.RouteIngress{Host: d.Host, RouterName: id.RouterName, WildcardPolicy: d.WildcardPolicy,
		RouterCanonicalHostname: id.CanonicalHostname}
	if i >= 0 && sameEntry(route.Status.Ingress[i], want, cond) {
		if !duplicated {
			return route.Status.Ingress, false
		}
		want = route.Status.Ingress[i] // keep its transition time
	} else {
		t := metav1.NewTime(now.Truncate(time.Second))
		cond.LastTransitionTime = &t
		want.Conditions = []routecore.RouteIngressCondition{cond}
	}
	out := slices.Clone(route.Status.Ingress)
	if i < 0 {
		return append(out, want), true
	}
	out[i] = want
	rest := slices.DeleteFunc(out[i+1:], ours)
	return out[:i+1+len(rest)], true
}

// sameEntry compares an existing entry with the wanted one, ignoring the
// transition time and conditions other than Admitted.
func sameEntry(have, want routecore.RouteIngress, cond routecore.RouteIngressCondition) bool {
	if have.Host != want.Host || have.WildcardPolicy != want.WildcardPolicy || have.RouterCanonicalHostname != want.RouterCanonicalHostname {
		return false
	}
	for _, c := range have.Conditions {
		if c.Type == routecore.RouteAdmitted {
			return c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message
		}
	}
	return false
}

// StatusWriter writes the router's entry of route status from snapshots.
// One replica writes (it runs under leader election); writes happen only
// on change, at a bounded rate, and a conflict is retried from fresh data.
type StatusWriter struct {
	ID StatusIdentity
	// AddressFrom, when set, is the Service whose load balancer address
	// (LoadBalancerAddress) replaces ID.CanonicalHostname, read from Reader
	// at each write; CheckAll tells the writer it changed.
	AddressFrom types.NamespacedName
	// Client writes status; Reader reads Routes (the informer cache).
	Client client.Client
	Reader client.Reader
	// Snapshots delivers snapshots from the store.
	Snapshots *Subscription
	// Metrics counts the writes (nil: not counted).
	Metrics *Metrics
	// QPS bounds status writes per second (default 50) once a burst
	// of twice as many is spent. Checks that find nothing to write are
	// not counted.
	QPS float64
	// Resync is how often every route's entry is checked again, whether
	// or not a snapshot changed the route (0: never): an entry someone
	// else changed or removed is written again.
	Resync time.Duration

	queue    workqueue.TypedRateLimitingInterface[string]
	limiter  *rate.Limiter
	mu       sync.Mutex
	snapshot Snapshot
}

// NeedLeaderElection makes only the elected replica write status.
func (w *StatusWriter) NeedLeaderElection() bool { return true }

// Start writes status until ctx ends. On start it checks every route the
// router knows, then the routes each new snapshot changes, and every route
// again each Resync.
func (w *StatusWriter) Start(ctx context.Context) error {
	qps := w.QPS
	if qps <= 0 {
		qps = 50
	}
	w.limiter = rate.NewLimiter(rate.Limit(qps), max(1, int(qps*2)))
	// The queue's own rate limit is only the back-off of failed writes.
	w.mu.Lock()
	w.queue = workqueue.NewTypedRateLimitingQueue(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](100*time.Millisecond, 30*time.Second))
	w.mu.Unlock()
	go func() {
		<-ctx.Done()
		w.queue.ShutDown()
	}()
	go w.watchSnapshots(ctx)
	if w.Resync > 0 {
		go w.resync(ctx)
	}
	for w.processNext(ctx) {
	}
	return nil
}

// resync queues every route of the latest synced snapshot every Resync.
func (w *StatusWriter) resync(ctx context.Context) {
	tick := time.NewTicker(w.Resync)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		w.mu.Lock()
		snap := w.snapshot
		w.mu.Unlock()
		if !snap.Synced {
			continue
		}
		for k := range snap.Decisions.All() {
			w.queue.Add(k)
		}
	}
}

// watchSnapshots queues the routes of every new snapshot: all of them the
// first time, then those it changed.
func (w *StatusWriter) watchSnapshots(ctx context.Context) {
	first := true
	for {
		snap, ok := w.Snapshots.Next(ctx)
		if !ok {
			return
		}
		w.setSnapshot(snap)
		if !snap.Synced {
			continue
		}
		if first {
			for k := range snap.Decisions.All() {
				w.queue.Add(k)
			}
			first = false
			continue
		}
		for k := range snap.Changed.Routes {
			w.queue.Add(k)
		}
	}
}

// CheckAll checks every route the router knows again, as what the router
// reports about itself changed. It does nothing before the writer has
// started and seen the first complete snapshot, which checks them all.
func (w *StatusWriter) CheckAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.queue == nil || !w.snapshot.Synced {
		return
	}
	for k := range w.snapshot.Decisions.All() {
		w.queue.Add(k)
	}
}

func (w *StatusWriter) setSnapshot(s Snapshot) {
	w.mu.Lock()
	w.snapshot = s
	w.mu.Unlock()
}

func (w *StatusWriter) decision(k string) (Decision, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.snapshot.Decisions.Get(k)
}

func (w *StatusWriter) processNext(ctx context.Context) bool {
	k, quit := w.queue.Get()
	if quit {
		return false
	}
	defer w.queue.Done(k)
	if err := w.sync(ctx, k); err != nil {
		logf.FromContext(ctx).V(1).Info("route status write failed; retrying", "route", k, "error", err.Error())
		w.queue.AddRateLimited(k)
		return true
	}
	w.queue.Forget(k)
	return true
}

// sync writes one route's entry if it differs from what the router decided.
// The rate limit applies to writes, not to checks: checks that find nothing
// to write (the echo of the router's own writes, label changes) cost
// nothing, and a worker that fell behind still writes no faster than QPS.
func (w *StatusWriter) sync(ctx context.Context, k string) error {
	if _, _, changed, err := w.desired(ctx, k); err != nil || !changed {
		return err
	}
	if err := w.limiter.Wait(ctx); err != nil {
		return err
	}
	// The wait may have been long: judge again from fresh data.
	route, ingress, changed, err := w.desired(ctx, k)
	if err != nil || !changed {
		return err
	}
	route.Status.Ingress = ingress // route is this call's own copy
	err = w.Client.Status().Update(ctx, route)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err == nil:
		w.Metrics.statusWritten()
	}
	return err
}

// desired reads route k and returns it with the status.ingress the router
// wants it to have; changed is false when there is nothing to write,
// including for a route deleted meanwhile.
func (w *StatusWriter) desired(ctx context.Context, k string) (route *routecore.Route, ingress []routecore.RouteIngress, changed bool, err error) {
	d, ok := w.decision(k)
	if !ok {
		return nil, nil, false, nil // deleted: its status went with it
	}
	ns, name := SplitKey(k)
	route = &routecore.Route{}
	if err := w.Reader.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, route); err != nil {
		return nil, nil, false, client.IgnoreNotFound(err)
	}
	id, err := w.identity(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	ingress, changed = DesiredStatus(route, d, id, time.Now())
	return route, ingress, changed, nil
}

// identity is ID, with the address of AddressFrom's load balancer when it
// is set (none while the Service is missing or has no address).
func (w *StatusWriter) identity(ctx context.Context) (StatusIdentity, error) {
	id := w.ID
	if w.AddressFrom.Name == "" {
		return id, nil
	}
	svc := &corev1.Service{}
	if err := w.Reader.Get(ctx, w.AddressFrom, svc); client.IgnoreNotFound(err) != nil {
		return id, fmt.Errorf("reading Service %s for the router's address: %w", w.AddressFrom, err)
	}
	id.CanonicalHostname = LoadBalancerAddress(svc)
	return id, nil
}
