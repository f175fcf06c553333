package router

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
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
	return int(metric(t, r, "routeshift_router_status_writes_total"))
}
