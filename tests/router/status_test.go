package router

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
	"github.com/routeshift/routeshift/tests/framework"
)

func TestMain(m *testing.M) { os.Exit(framework.Main(m)) }

func route(ns, name, host string, lbls map[string]string) *routecore.Route {
	w := int32(100)
	return &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
		Spec: routecore.RouteSpec{Host: host, To: routecore.RouteTargetReference{Kind: "Service", Name: "web", Weight: &w},
			WildcardPolicy: routecore.WildcardPolicyNone}}
}

// entries renders a route's status entries as "router: status reason", sorted.
func entries(r *routecore.Route) []string {
	var out []string
	for _, in := range r.Status.Ingress {
		s := in.RouterName + ":"
		for _, c := range in.Conditions {
			if c.Type == routecore.RouteAdmitted {
				s += " " + string(c.Status)
				if c.Reason != "" {
					s += " " + c.Reason
				}
			}
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// waitStatus waits until the route's status entries are want.
func waitStatus(t *testing.T, cp *framework.ControlPlane, ns, name string, want ...string) *routecore.Route {
	t.Helper()
	slices.Sort(want)
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := &routecore.Route{}
		if err := cp.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, r); err != nil {
			t.Fatal(err)
		}
		got := entries(r)
		if slices.Equal(got, want) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("route %s/%s status %q, want %q after 30s", ns, name, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func create(t *testing.T, cp *framework.ControlPlane, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := cp.Client.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
}

// TestShardedStatus: two routers with overlapping ROUTE_LABELS write their
// own entries; a route leaving a shard loses that router's entry; neither
// touches the other's.
func TestShardedStatus(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "shards")
	cp.StartRouter(t, "west", "--labels", "geo in (west,both)", "--router-canonical-hostname", "west.example.com")
	cp.StartRouter(t, "east", "--labels", "geo in (east,both)")
	create(t, cp,
		route(ns, "both", "both.example.com", map[string]string{"geo": "both"}),
		route(ns, "west-only", "w.example.com", map[string]string{"geo": "west"}),
		route(ns, "nowhere", "n.example.com", nil))
	r := waitStatus(t, cp, ns, "both", "east: True", "west: True")
	for _, in := range r.Status.Ingress {
		if in.Host != "both.example.com" || (in.RouterName == "west") != (in.RouterCanonicalHostname == "west.example.com") {
			t.Errorf("entry %+v", in)
		}
	}
	waitStatus(t, cp, ns, "west-only", "west: True")

	// Relabel "both" into the west shard only: east removes its entry.
	rb := &routecore.Route{}
	if err := cp.Client.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "both"}, rb); err != nil {
		t.Fatal(err)
	}
	rb.Labels["geo"] = "west"
	if err := cp.Client.Update(context.Background(), rb); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, cp, ns, "both", "west: True")
	time.Sleep(time.Second)
	waitStatus(t, cp, ns, "nowhere")
}

// TestClaimPromotion: deleting the older of two conflicting Routes makes
// the other admitted within seconds.
func TestClaimPromotion(t *testing.T) {
	cp := framework.Cluster(t)
	older, newer := cp.CreateNamespace(t, "older"), cp.CreateNamespace(t, "newer")
	cp.StartRouter(t, "claims")
	create(t, cp, route(older, "shop", "shop.example.com", nil))
	time.Sleep(1100 * time.Millisecond) // creation times have one-second resolution
	create(t, cp, route(newer, "shop", "shop.example.com", nil))
	waitStatus(t, cp, older, "shop", "claims: True")
	r := waitStatus(t, cp, newer, "shop", "claims: False HostAlreadyClaimed")
	if msg := r.Status.Ingress[0].Conditions[0].Message; msg != "a route in another namespace holds shop.example.com and is older than shop" {
		t.Errorf("message %q", msg)
	}
	start := time.Now()
	if err := cp.Client.Delete(context.Background(), route(older, "shop", "", nil)); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, cp, newer, "shop", "claims: True")
	t.Logf("promoted %v after the delete", time.Since(start))
}

// TestOneReplicaWrites: of two replicas of one router, only the elected one
// writes status; when it stops, the other takes over.
func TestOneReplicaWrites(t *testing.T) {
	cp := framework.Cluster(t)
	ns := cp.CreateNamespace(t, "replicas")
	a := cp.StartRouter(t, "replicated")
	b := cp.StartRouter(t, "replicated")
	for i := range 5 {
		create(t, cp, route(ns, fmt.Sprintf("r%d", i), fmt.Sprintf("r%d.example.com", i), nil))
	}
	for i := range 5 {
		waitStatus(t, cp, ns, fmt.Sprintf("r%d", i), "replicated: True")
	}
	wa, wb := writes(t, a), writes(t, b)
	if (wa == 0) == (wb == 0) {
		t.Fatalf("status writes: replica a %d, replica b %d; want exactly one replica writing", wa, wb)
	}

	// Failover: the leader stops (releasing its lease); the other replica
	// takes over and admits a new Route.
	leader, standby := a, b
	if wb > 0 {
		leader, standby = b, a
	}
	if err := leader.Stop(); err != nil {
		t.Fatalf("stopping the leader: %v", err)
	}
	start := time.Now()
	create(t, cp, route(ns, "after-failover", "after-failover.example.com", nil))
	waitStatus(t, cp, ns, "after-failover", "replicated: True")
	t.Logf("the standby wrote status %v after the leader stopped", time.Since(start))
	if n := writes(t, standby); n == 0 {
		t.Errorf("after failover the standby counts no status writes")
	}
	for i := range 5 {
		waitStatus(t, cp, ns, fmt.Sprintf("r%d", i), "replicated: True")
	}
}

// writes is the router's count of status writes.
func writes(t *testing.T, r *framework.Router) int {
	t.Helper()
	return int(counterSum(t, r, "routeshift_router_status_writes_total"))
}

// TestStatusConflicts: two routers write their entries on the same 50
// Routes at the same time while a third client keeps changing the Routes'
// labels and annotations. Every Route ends with both entries, right, and
// with the third client's last change; each router wrote each Route once:
// a write that lost a conflict was retried from fresh data, never forced.
func TestStatusConflicts(t *testing.T) {
	cp := framework.Cluster(t)
	// The routers serve the namespace once it carries the isolation
	// label: they find the 50 Routes at the same moment.
	ns := testNamespace(t, cp, "conflicts")
	alpha := cp.StartRouter(t, "alpha", "--namespace-labels", only(ns), "--router-canonical-hostname", "alpha.example.com")
	beta := cp.StartRouter(t, "beta", "--namespace-labels", only(ns))
	const n = 50
	name := func(i int) string { return fmt.Sprintf("r%02d", i) }
	host := func(i int) string { return name(i) + "." + ns + ".example.com" }
	for i := range n {
		create(t, cp, route(ns, name(i), host(i), nil))
	}

	// The third client patches every Route in rounds until stopped; last[i]
	// is the last round applied to Route i, rounds the rounds completed.
	var rounds atomic.Int32
	stop, done := make(chan struct{}), make(chan [n]int)
	go func() {
		var last [n]int
		defer func() { done <- last }()
		for round := 1; ; round++ {
			for i := range n {
				select {
				case <-stop:
					return
				default:
				}
				v := strconv.Itoa(round)
				if err := patchMeta(cp, &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name(i)}},
					map[string]string{"churn": v}, map[string]string{"example.com/churn": v}); err != nil {
					t.Errorf("third client: %v", err)
					return
				}
				last[i] = round
			}
			rounds.Store(int32(round))
		}
	}()
	stopChurn := sync.OnceValue(func() [n]int { close(stop); return <-done })
	defer stopChurn()

	framework.EventuallyWithin(t, time.Minute, "the third client patches every route", func() error {
		if rounds.Load() == 0 {
			return errors.New("no round done")
		}
		return nil
	})
	patchObject(t, cp, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, map[string]string{isolationLabel: ns}, nil)
	framework.EventuallyWithin(t, 2*time.Minute, "both routers write every route", func() error {
		if a, b := writes(t, alpha), writes(t, beta); a < n || b < n {
			return fmt.Errorf("status writes: alpha %d, beta %d", a, b)
		}
		return nil
	})
	// Two more rounds, now that the routers have written: they check
	// every Route again and must find nothing to write.
	after := rounds.Load() + 2
	framework.EventuallyWithin(t, time.Minute, "two more rounds of the third client", func() error {
		if r := rounds.Load(); r < after {
			return fmt.Errorf("round %d done, want %d", r, after)
		}
		return nil
	})
	last := stopChurn()

	for i := range n {
		r := getRoute(t, cp, ns, name(i))
		if len(r.Status.Ingress) != 2 {
			t.Errorf("route %s has %d status entries, want alpha's and beta's: %+v", name(i), len(r.Status.Ingress), r.Status.Ingress)
			continue
		}
		for router, canonical := range map[string]string{"alpha": "alpha.example.com", "beta": ""} {
			in, _ := entryOf(r, router)
			if err := admittedEntry(in, router, host(i), canonical); err != nil {
				t.Errorf("route %s: %v", name(i), err)
			}
		}
		if v := strconv.Itoa(last[i]); r.Labels["churn"] != v || r.Annotations["example.com/churn"] != v {
			t.Errorf("route %s: label %q and annotation %q, want the third client's last round %d",
				name(i), r.Labels["churn"], r.Annotations["example.com/churn"], last[i])
		}
	}
	writesSettle(t, wantWrites{"alpha", alpha, n}, wantWrites{"beta", beta, n})
	t.Logf("conflicts retried: alpha %d, beta %d",
		strings.Count(alpha.Output(), "the object has been modified"), strings.Count(beta.Output(), "the object has been modified"))
}

// TestStatusOnlyOnChange: once its entries are right a router writes no
// more: not for label and annotation changes that leave its decisions as
// they are, not when it restarts and checks every Route again (as a resync
// would), even Routes changed while it was down. A host change is one write.
func TestStatusOnlyOnChange(t *testing.T) {
	cp := framework.Cluster(t)
	ns := isolatedNamespace(t, cp, "steady", nil)
	flags := []string{"--namespace-labels", only(ns)}
	r := cp.StartRouter(t, "steady", flags...)
	const n = 20
	name := func(i int) string { return fmt.Sprintf("r%02d", i) }
	for i := range n {
		create(t, cp, route(ns, name(i), name(i)+"."+ns+".example.com", nil))
	}
	writesSettle(t, wantWrites{"steady", r, n})

	touch := func(round int) {
		v := strconv.Itoa(round)
		for i := range n {
			patchObject(t, cp, &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name(i)}},
				map[string]string{"round": v}, map[string]string{"example.com/round": v})
		}
	}
	// moveHost changes Route i's host and waits until router's entry says
	// the new host.
	moveHost := func(i int, host string) {
		t.Helper()
		patch := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"host":"`+host+`"}}`))
		if err := cp.Client.Patch(context.Background(), &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name(i)}}, patch); err != nil {
			t.Fatal(err)
		}
		framework.EventuallyWithin(t, time.Minute, "the entry of route "+name(i)+" says its new host", func() error {
			in, _ := entryOf(getRoute(t, cp, ns, name(i)), "steady")
			return admittedEntry(in, "steady", host, "")
		})
	}
	touch(1)
	touch(2)
	moveHost(0, "moved-0."+ns+".example.com")
	writesSettle(t, wantWrites{"steady", r, n + 1})

	if err := r.Stop(); err != nil {
		t.Fatalf("stopping the router: %v", err)
	}
	touch(3)
	r = cp.StartRouter(t, "steady", flags...)
	moveHost(1, "moved-1."+ns+".example.com")
	writesSettle(t, wantWrites{"steady", r, 1})
}

// TestStatusWriterRateLimit: router.StatusWriter, writing to the real API
// server, spreads its writes as its token bucket promises: with QPS q and
// its burst of 2q, its k-th write (from 0) starts no sooner than
// (k+1-2q)/q seconds after the writer started; and it writes every Route
// once. (Measured from before the writer started, the bound can only be
// easier to keep on a slow machine. A router process cannot show it: its
// writes at the default 50 per second are about as fast as a loaded test
// machine's API server takes them anyway.)
func TestStatusWriterRateLimit(t *testing.T) {
	cp := framework.Cluster(t)
	ns := testNamespace(t, cp, "writer")
	const n, qps, burst = 30, 5, 2 * 5
	store := router.NewStore(router.AdmissionConfig{})
	for i := range n {
		r := route(ns, fmt.Sprintf("r%02d", i), fmt.Sprintf("r%02d.%s.example.com", i, ns), nil)
		create(t, cp, r)
		store.SetRoute(r)
	}
	var feed router.Feed
	recorder := &writeRecorder{Client: cp.Client}
	w := &router.StatusWriter{ID: router.StatusIdentity{RouterName: "bucket"}, Client: recorder, Reader: cp.Client,
		Snapshots: feed.Subscribe(), QPS: qps}
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	stopped := make(chan error, 1)
	go func() { stopped <- w.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Errorf("StatusWriter.Start: %v", err)
		}
	}()
	feed.Publish(store.Build(true))

	routes := &routecore.RouteList{}
	framework.EventuallyWithin(t, 2*time.Minute, "every route says bucket: True", func() error {
		if err := cp.Client.List(context.Background(), routes, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, r := range routes.Items {
			if got := entries(&r); !slices.Equal(got, []string{"bucket: True"}) {
				return fmt.Errorf("route %s: status %q", r.Name, got)
			}
		}
		return nil
	})
	times := recorder.times()
	if len(times) != n {
		t.Errorf("%d status writes for %d routes, want one each", len(times), n)
	}
	for k, at := range times {
		earliest := start.Add(time.Duration(float64(k+1-burst) / qps * float64(time.Second)))
		if at.Before(earliest) {
			t.Errorf("status write %d started %v after the writer, before the rate limit allows (%v)", k, at.Sub(start), earliest.Sub(start))
		}
	}
	if len(times) > 0 {
		t.Logf("%d writes in %v", len(times), times[len(times)-1].Sub(start))
	}
}

// writeRecorder is the API server's client, noting when each status write
// starts.
type writeRecorder struct {
	client.Client
	mu     sync.Mutex
	starts []time.Time
}

func (c *writeRecorder) Status() client.SubResourceWriter {
	return recordedStatus{SubResourceWriter: c.Client.Status(), recorder: c}
}

// times returns the start times of the status writes, in order.
func (c *writeRecorder) times() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.starts)
}

type recordedStatus struct {
	client.SubResourceWriter
	recorder *writeRecorder
}

func (s recordedStatus) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.recorder.mu.Lock()
	s.recorder.starts = append(s.recorder.starts, time.Now())
	s.recorder.mu.Unlock()
	return s.SubResourceWriter.Update(ctx, obj, opts...)
}

// TestStatusLeavingShard: a Route that leaves a router's shard, by its own
// labels or by its namespace's, loses that router's entry and only that:
// the other router's entry stays as it was, transition time included, and
// that router writes nothing. Coming back into the shard restores the entry.
func TestStatusLeavingShard(t *testing.T) {
	cp := framework.Cluster(t)
	ns := isolatedNamespace(t, cp, "leave", map[string]string{"region": "east"})
	west := cp.StartRouter(t, "shard-west", "--namespace-labels", only(ns), "--labels", "geo in (west,both)")
	east := cp.StartRouter(t, "shard-east", "--namespace-labels", only(ns)+",region=east")
	host := func(name string) string { return name + "." + ns + ".example.com" }
	create(t, cp, route(ns, "r1", host("r1"), map[string]string{"geo": "both"}), route(ns, "r2", host("r2"), map[string]string{"geo": "both"}))
	// hasEntries checks that Route name has exactly the entries of routers,
	// each admitting it.
	hasEntries := func(name string, routers ...string) func() error {
		return func() error {
			r := getRoute(t, cp, ns, name)
			if len(r.Status.Ingress) != len(routers) {
				return fmt.Errorf("route %s has entries %q, want those of %q", name, entries(r), routers)
			}
			for _, router := range routers {
				in, ok := entryOf(r, router)
				if !ok {
					return fmt.Errorf("route %s has entries %q, want those of %q", name, entries(r), routers)
				}
				if err := admittedEntry(in, router, host(name), ""); err != nil {
					return fmt.Errorf("route %s: %w", name, err)
				}
			}
			return nil
		}
	}
	// unchanged checks that router's entry in Route name is the one it had
	// in before.
	unchanged := func(before *routecore.Route, router string) {
		t.Helper()
		was, _ := entryOf(before, router)
		if now, _ := entryOf(getRoute(t, cp, ns, before.Name), router); !reflect.DeepEqual(now, was) {
			t.Errorf("route %s: the entry of %s changed:\n%+v\nwas\n%+v", before.Name, router, now, was)
		}
	}
	framework.EventuallyWithin(t, time.Minute, "both routers admit r1", hasEntries("r1", "shard-west", "shard-east"))
	framework.EventuallyWithin(t, time.Minute, "both routers admit r2", hasEntries("r2", "shard-west", "shard-east"))
	writesSettle(t, wantWrites{"shard-west", west, 2}, wantWrites{"shard-east", east, 2})
	r1, r2 := getRoute(t, cp, ns, "r1"), getRoute(t, cp, ns, "r2")

	// r1 leaves west's shard by its own labels.
	patchObject(t, cp, r1.DeepCopy(), map[string]string{"geo": "east"}, nil)
	framework.EventuallyWithin(t, time.Minute, "west removes its entry of r1", hasEntries("r1", "shard-east"))
	unchanged(r1, "shard-east")
	writesSettle(t, wantWrites{"shard-west", west, 3}, wantWrites{"shard-east", east, 2})

	// The namespace leaves east's shard.
	patchObject(t, cp, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, map[string]string{"region": "west"}, nil)
	framework.EventuallyWithin(t, time.Minute, "east removes its entry of r1", hasEntries("r1"))
	framework.EventuallyWithin(t, time.Minute, "east removes its entry of r2", hasEntries("r2", "shard-west"))
	unchanged(r2, "shard-west")
	writesSettle(t, wantWrites{"shard-west", west, 3}, wantWrites{"shard-east", east, 4})

	// Both come back.
	patchObject(t, cp, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, map[string]string{"region": "east"}, nil)
	patchObject(t, cp, r1.DeepCopy(), map[string]string{"geo": "both"}, nil)
	framework.EventuallyWithin(t, time.Minute, "both routers admit r1 again", hasEntries("r1", "shard-west", "shard-east"))
	framework.EventuallyWithin(t, time.Minute, "both routers admit r2 again", hasEntries("r2", "shard-west", "shard-east"))
	writesSettle(t, wantWrites{"shard-west", west, 4}, wantWrites{"shard-east", east, 6})
}
