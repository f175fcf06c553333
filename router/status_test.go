package router

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/util/workqueue"

	"github.com/routeshift/routeshift/routecore"
)

// TestDesiredStatus: a router sets or removes its own status.ingress entry
// and nothing else, and reports a change only when the route says
// something else than its decision.
func TestDesiredStatus(t *testing.T) {
	now := time.Date(2024, 5, 6, 7, 8, 9, 600_000_000, time.UTC)
	earlier := metav1.NewTime(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	written := metav1.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)) // now, in whole seconds
	id := StatusIdentity{RouterName: "public", CanonicalHostname: "router.apps.example.com"}
	admitted := Decision{Verdict: Admitted, Host: "www.example.com", WildcardPolicy: routecore.WildcardPolicyNone}
	rejected := Decision{Verdict: Rejected, Reason: ReasonHostAlreadyClaimed, Host: "www.example.com", WildcardPolicy: routecore.WildcardPolicyNone,
		Message: "a route in another namespace holds www.example.com and is older than web"}
	entry := func(router, host, canonical string, policy routecore.WildcardPolicyType, at metav1.Time, status corev1.ConditionStatus, reason, message string) routecore.RouteIngress {
		return routecore.RouteIngress{Host: host, RouterName: router, WildcardPolicy: policy, RouterCanonicalHostname: canonical,
			Conditions: []routecore.RouteIngressCondition{{Type: routecore.RouteAdmitted, Status: status, Reason: reason, Message: message, LastTransitionTime: &at}}}
	}
	// Another router's entry, which no case may change.
	other := entry("internal", "www.example.com", "", routecore.WildcardPolicyNone, earlier, corev1.ConditionFalse, ReasonNotAdmitted, "host in list of denied domains")
	oursAdmitted := entry("public", "www.example.com", "router.apps.example.com", routecore.WildcardPolicyNone, earlier, corev1.ConditionTrue, "", "")
	newAdmitted := entry("public", "www.example.com", "router.apps.example.com", routecore.WildcardPolicyNone, written, corev1.ConditionTrue, "", "")
	newRejected := entry("public", "www.example.com", "router.apps.example.com", routecore.WildcardPolicyNone, written, corev1.ConditionFalse,
		ReasonHostAlreadyClaimed, "a route in another namespace holds www.example.com and is older than web")
	with := func(e routecore.RouteIngress, change func(*routecore.RouteIngress)) routecore.RouteIngress {
		e.Conditions = append([]routecore.RouteIngressCondition(nil), e.Conditions...)
		change(&e)
		return e
	}

	tests := []struct {
		name        string
		id          StatusIdentity
		have        []routecore.RouteIngress
		decision    Decision
		want        []routecore.RouteIngress
		wantChanged bool
	}{
		{name: "admitted: a new entry after the other router's", id: id,
			have: []routecore.RouteIngress{other}, decision: admitted,
			want: []routecore.RouteIngress{other, newAdmitted}, wantChanged: true},
		{name: "admitted on a route without status", id: id,
			decision: admitted, want: []routecore.RouteIngress{newAdmitted}, wantChanged: true},
		{name: "rejected: status False with the reason and message", id: id,
			have: []routecore.RouteIngress{other}, decision: rejected,
			want: []routecore.RouteIngress{other, newRejected}, wantChanged: true},
		{name: "wildcard policy and effective host as decided", id: id,
			decision: Decision{Verdict: Admitted, Host: "wildcard.example.com", WildcardPolicy: routecore.WildcardPolicySubdomain},
			want: []routecore.RouteIngress{with(newAdmitted, func(e *routecore.RouteIngress) {
				e.Host, e.WildcardPolicy = "wildcard.example.com", routecore.WildcardPolicySubdomain
			})}, wantChanged: true},
		{name: "no canonical hostname configured: none written", id: StatusIdentity{RouterName: "public"},
			decision: admitted,
			want:     []routecore.RouteIngress{with(newAdmitted, func(e *routecore.RouteIngress) { e.RouterCanonicalHostname = "" })}, wantChanged: true},
		{name: "same decision: no change, the old transition time stays", id: id,
			have: []routecore.RouteIngress{oursAdmitted, other}, decision: admitted,
			want: []routecore.RouteIngress{oursAdmitted, other}},
		{name: "a condition without a transition time is the same condition", id: id,
			have: []routecore.RouteIngress{with(oursAdmitted, func(e *routecore.RouteIngress) { e.Conditions[0].LastTransitionTime = nil })}, decision: admitted,
			want: []routecore.RouteIngress{with(oursAdmitted, func(e *routecore.RouteIngress) { e.Conditions[0].LastTransitionTime = nil })}},
		{name: "admitted with a note: status True with the message, no reason", id: id,
			have: []routecore.RouteIngress{oursAdmitted, other},
			decision: Decision{Verdict: Admitted, Host: "www.example.com", WildcardPolicy: routecore.WildcardPolicyNone,
				Message: "routeshift.io/www-redirect: example.com is not redirected to this route: a route has example.com as its host"},
			want: []routecore.RouteIngress{with(newAdmitted, func(e *routecore.RouteIngress) {
				e.Conditions[0].Message = "routeshift.io/www-redirect: example.com is not redirected to this route: a route has example.com as its host"
			}), other}, wantChanged: true},
		{name: "admitted becomes rejected in place", id: id,
			have: []routecore.RouteIngress{oursAdmitted, other}, decision: rejected,
			want: []routecore.RouteIngress{newRejected, other}, wantChanged: true},
		{name: "rejected for another reason", id: id,
			have: []routecore.RouteIngress{other, with(newRejected, func(e *routecore.RouteIngress) {
				e.Conditions[0].Reason, e.Conditions[0].Message = ReasonNotAdmitted, "host not in the allowed list of domains"
			})}, decision: rejected,
			want: []routecore.RouteIngress{other, newRejected}, wantChanged: true},
		{name: "same reason, another message", id: id,
			have: []routecore.RouteIngress{with(newRejected, func(e *routecore.RouteIngress) {
				e.Conditions[0].Message = "route web already exposes www.example.com and is older"
			})}, decision: rejected,
			want: []routecore.RouteIngress{newRejected}, wantChanged: true},
		{name: "the host changed", id: id,
			have: []routecore.RouteIngress{with(oursAdmitted, func(e *routecore.RouteIngress) { e.Host = "old.example.com" })}, decision: admitted,
			want: []routecore.RouteIngress{newAdmitted}, wantChanged: true},
		{name: "the wildcard policy changed", id: id,
			have: []routecore.RouteIngress{with(oursAdmitted, func(e *routecore.RouteIngress) { e.WildcardPolicy = routecore.WildcardPolicySubdomain })}, decision: admitted,
			want: []routecore.RouteIngress{newAdmitted}, wantChanged: true},
		{name: "the canonical hostname changed", id: id,
			have: []routecore.RouteIngress{with(oursAdmitted, func(e *routecore.RouteIngress) { e.RouterCanonicalHostname = "old.apps.example.com" })}, decision: admitted,
			want: []routecore.RouteIngress{newAdmitted}, wantChanged: true},
		{name: "an entry without the Admitted condition is rewritten", id: id,
			have: []routecore.RouteIngress{with(oursAdmitted, func(e *routecore.RouteIngress) { e.Conditions = nil })}, decision: admitted,
			want: []routecore.RouteIngress{newAdmitted}, wantChanged: true},
		{name: "duplicates of our entry are dropped, the first kept as it is", id: id,
			have: []routecore.RouteIngress{oursAdmitted, other, newRejected}, decision: admitted,
			want: []routecore.RouteIngress{oursAdmitted, other}, wantChanged: true},
		{name: "duplicates of our entry are dropped, the first rewritten", id: id,
			have: []routecore.RouteIngress{oursAdmitted, other, oursAdmitted}, decision: rejected,
			want: []routecore.RouteIngress{newRejected, other}, wantChanged: true},
		{name: "ignored: our entry removed, the other kept", id: id,
			have: []routecore.RouteIngress{oursAdmitted, other}, decision: Decision{Verdict: Ignored},
			want: []routecore.RouteIngress{other}, wantChanged: true},
		{name: "ignored: every copy of our entry removed", id: id,
			have: []routecore.RouteIngress{newRejected, other, oursAdmitted}, decision: Decision{Verdict: Ignored},
			want: []routecore.RouteIngress{other}, wantChanged: true},
		{name: "ignored: the last entry removed", id: id,
			have: []routecore.RouteIngress{oursAdmitted}, decision: Decision{Verdict: Ignored},
			want: []routecore.RouteIngress{}, wantChanged: true},
		{name: "ignored without an entry: no change", id: id,
			have: []routecore.RouteIngress{other}, decision: Decision{Verdict: Ignored},
			want: []routecore.RouteIngress{other}},
		{name: "ignored on a route without status: no change", id: id,
			decision: Decision{Verdict: Ignored}},
		{name: "another router's entry for the same host is not ours", id: StatusIdentity{RouterName: "internal"},
			have: []routecore.RouteIngress{oursAdmitted}, decision: Decision{Verdict: Ignored},
			want: []routecore.RouteIngress{oursAdmitted}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			route := &routecore.Route{Status: routecore.RouteStatus{Ingress: tt.have}}
			before := route.DeepCopy()
			got, changed := DesiredStatus(route, tt.decision, tt.id, now)
			if changed != tt.wantChanged || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DesiredStatus = %+v, changed %v\nwant %+v, changed %v", got, changed, tt.want, tt.wantChanged)
			}
			if !reflect.DeepEqual(route, before) {
				t.Errorf("DesiredStatus modified the route's status: %+v, was %+v", route.Status.Ingress, before.Status.Ingress)
			}
		})
	}
}

// TestDesiredStatusEntries: more shapes of status.ingress: other routers'
// entries keep their place and content around ours, conditions other than
// Admitted survive while the Admitted one holds and go with a rewrite,
// and every verdict gives its condition.
func TestDesiredStatusEntries(t *testing.T) {
	now := time.Date(2024, 5, 6, 7, 8, 9, 999_000_000, time.UTC)
	at := metav1.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	earlier := metav1.NewTime(time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC))
	id := StatusIdentity{RouterName: "public", CanonicalHostname: "lb.example.com"}
	entry := func(router string, when metav1.Time, conds ...routecore.RouteIngressCondition) routecore.RouteIngress {
		for i := range conds {
			conds[i].LastTransitionTime = &when
		}
		e := routecore.RouteIngress{Host: "www.example.com", RouterName: router, WildcardPolicy: routecore.WildcardPolicyNone, Conditions: conds}
		if router == "public" {
			e.RouterCanonicalHostname = "lb.example.com"
		}
		return e
	}
	admittedCond := routecore.RouteIngressCondition{Type: routecore.RouteAdmitted, Status: corev1.ConditionTrue}
	rejectedCond := func(reason, message string) routecore.RouteIngressCondition {
		return routecore.RouteIngressCondition{Type: routecore.RouteAdmitted, Status: corev1.ConditionFalse, Reason: reason, Message: message}
	}
	other := routecore.RouteIngressCondition{Type: "Programmed", Status: corev1.ConditionTrue}
	admitted := Decision{Verdict: Admitted, Host: "www.example.com", WildcardPolicy: routecore.WildcardPolicyNone}
	rejectedAs := func(reason, message string) Decision {
		return Decision{Verdict: Rejected, Reason: reason, Message: message, Host: "www.example.com", WildcardPolicy: routecore.WildcardPolicyNone}
	}
	const refused = "HAProxy refuses the route's configuration: unable to load SSL certificate"
	alpha, beta := entry("alpha", earlier, admittedCond), entry("beta", earlier, rejectedCond(ReasonNotAdmitted, "wildcard routes are not allowed"))
	tests := []struct {
		name     string
		have     []routecore.RouteIngress
		decision Decision
		want     []routecore.RouteIngress
		changed  bool
	}{
		{"ours between two others: rewritten in place", []routecore.RouteIngress{alpha, entry("public", earlier, admittedCond), beta},
			rejectedAs(ReasonHostAlreadyClaimed, "route a already exposes www.example.com and is older"),
			[]routecore.RouteIngress{alpha, entry("public", at, rejectedCond(ReasonHostAlreadyClaimed, "route a already exposes www.example.com and is older")), beta}, true},
		{"appended after every other router's", []routecore.RouteIngress{alpha, beta}, admitted,
			[]routecore.RouteIngress{alpha, beta, entry("public", at, admittedCond)}, true},
		{"another condition beside a holding Admitted: kept, no write", []routecore.RouteIngress{entry("public", earlier, other, admittedCond)}, admitted,
			[]routecore.RouteIngress{entry("public", earlier, other, admittedCond)}, false},
		{"another condition beside a changed Admitted: the entry is rewritten with Admitted alone",
			[]routecore.RouteIngress{entry("public", earlier, other, admittedCond)}, rejectedAs(ReasonNotServable, refused),
			[]routecore.RouteIngress{entry("public", at, rejectedCond(ReasonNotServable, refused))}, true},
		{"only another condition: rewritten", []routecore.RouteIngress{entry("public", earlier, other)}, admitted,
			[]routecore.RouteIngress{entry("public", at, admittedCond)}, true},
		{"RouteNotServable: False with the data plane's words", []routecore.RouteIngress{entry("public", earlier, admittedCond)},
			rejectedAs(ReasonNotServable, refused), []routecore.RouteIngress{entry("public", at, rejectedCond(ReasonNotServable, refused))}, true},
		{"admitted again after RouteNotServable: True, no reason or message",
			[]routecore.RouteIngress{entry("public", earlier, rejectedCond(ReasonNotServable, refused))}, admitted,
			[]routecore.RouteIngress{entry("public", at, admittedCond)}, true},
		{"the same RouteNotServable again: no write", []routecore.RouteIngress{entry("public", earlier, rejectedCond(ReasonNotServable, refused))},
			rejectedAs(ReasonNotServable, refused), []routecore.RouteIngress{entry("public", earlier, rejectedCond(ReasonNotServable, refused))}, false},
		{"a rejection without a host (NoHostValue) writes an entry without a host", nil,
			Decision{Verdict: Rejected, Reason: ReasonNoHostValue, Message: "no host value was defined for the route", WildcardPolicy: routecore.WildcardPolicyNone},
			[]routecore.RouteIngress{func() routecore.RouteIngress {
				e := entry("public", at, rejectedCond(ReasonNoHostValue, "no host value was defined for the route"))
				e.Host = ""
				return e
			}()}, true},
		{"a rejected wildcard route reports its policy", nil,
			Decision{Verdict: Rejected, Reason: ReasonNotAdmitted, Message: "wildcard routes are not allowed", Host: "www.example.com",
				WildcardPolicy: routecore.WildcardPolicySubdomain},
			[]routecore.RouteIngress{func() routecore.RouteIngress {
				e := entry("public", at, rejectedCond(ReasonNotAdmitted, "wildcard routes are not allowed"))
				e.WildcardPolicy = routecore.WildcardPolicySubdomain
				return e
			}()}, true},
		{"ignored: ours goes from between the others, their order stays",
			[]routecore.RouteIngress{alpha, entry("public", earlier, admittedCond), beta, entry("public", earlier, admittedCond)},
			Decision{Verdict: Ignored}, []routecore.RouteIngress{alpha, beta}, true},
		{"an entry of a router whose name contains ours is not ours", []routecore.RouteIngress{entry("public-2", earlier, admittedCond)},
			Decision{Verdict: Ignored}, []routecore.RouteIngress{entry("public-2", earlier, admittedCond)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			route := &routecore.Route{Status: routecore.RouteStatus{Ingress: tt.have}}
			before := route.DeepCopy()
			got, changed := DesiredStatus(route, tt.decision, id, now)
			if changed != tt.changed || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DesiredStatus = %+v, changed %v\nwant %+v, changed %v", got, changed, tt.want, tt.changed)
			}
			if !reflect.DeepEqual(route, before) {
				t.Error("DesiredStatus modified the route")
			}
		})
	}
}

// TestStatusLifecycle: from Route objects through the Store's decisions to
// the status the router writes, step by step, each write applied to the
// object as the API server would keep it: a route admitted, reported not
// servable, admitted again once changed, losing its host to an older
// route, then relabelled out of the shard. Each step says whether the
// router writes, and what the entry then says; the other router's entry
// is never touched, and an unchanged entry keeps its transition time.
func TestStatusLifecycle(t *testing.T) {
	id := StatusIdentity{RouterName: "public"}
	s := NewStore(AdmissionConfig{RouteSelector: labels.SelectorFromSet(labels.Set{"shard": "a"})})
	obj := rt("ns", "web", "www.example.com", 5, withLabels("shard", "a"))
	otherRouter := routecore.RouteIngress{Host: "www.example.com", RouterName: "internal", WildcardPolicy: routecore.WildcardPolicyNone,
		Conditions: []routecore.RouteIngressCondition{{Type: routecore.RouteAdmitted, Status: corev1.ConditionTrue}}}
	obj.Status.Ingress = []routecore.RouteIngress{otherRouter}
	clock := epoch
	// write judges obj as it is and applies the router's status to it.
	write := func(change func(*routecore.Route)) (bool, Snapshot) {
		if change != nil {
			obj = obj.DeepCopy()
			change(obj)
			obj.ResourceVersion += "+"
			s.SetRoute(obj)
		}
		snap := s.Build(true)
		d, _ := snap.Decisions.Get("ns/web")
		clock = clock.Add(time.Minute)
		ingress, changed := DesiredStatus(obj, d, id, clock)
		obj = obj.DeepCopy()
		obj.Status.Ingress = ingress
		return changed, snap
	}
	type want struct {
		written bool
		status  corev1.ConditionStatus // "" when the router has no entry
		reason  string
		message string
		since   int // minutes after epoch of the transition
	}
	const words = "HAProxy refuses the route's configuration"
	steps := []struct {
		name string
		do   func() (bool, Snapshot)
		want want
	}{
		{"admitted", func() (bool, Snapshot) { return write(func(*routecore.Route) {}) }, want{true, corev1.ConditionTrue, "", "", 1}},
		{"the echo of the router's own write: nothing to write", func() (bool, Snapshot) { return write(func(*routecore.Route) {}) },
			want{false, corev1.ConditionTrue, "", "", 1}},
		{"reported not servable", func() (bool, Snapshot) {
			served, _ := s.snapshot.Routes.Get("ns/web")
			s.SetNotServable(served, words)
			return write(nil)
		}, want{true, corev1.ConditionFalse, ReasonNotServable, words, 3}},
		{"a label change: still not servable, nothing to write", func() (bool, Snapshot) {
			return write(func(r *routecore.Route) { r.Labels["team"] = "x" })
		}, want{false, corev1.ConditionFalse, ReasonNotServable, words, 3}},
		{"the route changes: admitted again", func() (bool, Snapshot) { return write(func(r *routecore.Route) { r.Spec.Path = "/v2" }) },
			want{true, corev1.ConditionTrue, "", "", 5}},
		{"an older route of another namespace takes the host", func() (bool, Snapshot) {
			s.SetRoute(rt("old", "first", "www.example.com", 1, withLabels("shard", "a"), withPath("/v2")))
			return write(nil)
		}, want{true, corev1.ConditionFalse, ReasonHostAlreadyClaimed, "a route in another namespace holds www.example.com and is older than web", 6}},
		{"relabelled out of the shard: the entry goes", func() (bool, Snapshot) {
			return write(func(r *routecore.Route) { r.Labels = map[string]string{"shard": "b"} })
		}, want{true, "", "", "", 0}},
		{"still out: nothing to write", func() (bool, Snapshot) { return write(func(r *routecore.Route) { r.Spec.Path = "/v3" }) },
			want{false, "", "", "", 0}},
	}
	for _, step := range steps {
		written, _ := step.do()
		t.Run(step.name, func(t *testing.T) {
			if written != step.want.written {
				t.Errorf("written %v, want %v", written, step.want.written)
			}
			var ours []routecore.RouteIngress
			for _, e := range obj.Status.Ingress {
				if e.RouterName == "public" {
					ours = append(ours, e)
				}
			}
			if !reflect.DeepEqual(obj.Status.Ingress[0], otherRouter) {
				t.Errorf("the other router's entry is now %+v", obj.Status.Ingress[0])
			}
			if step.want.status == "" {
				if len(ours) != 0 {
					t.Errorf("entries %+v, want none", ours)
				}
				return
			}
			if len(ours) != 1 || len(ours[0].Conditions) != 1 {
				t.Fatalf("entries %+v, want one with one condition", ours)
			}
			c := ours[0].Conditions[0]
			since := epoch.Add(time.Duration(step.want.since) * time.Minute)
			if c.Status != step.want.status || c.Reason != step.want.reason || c.Message != step.want.message || !c.LastTransitionTime.Time.Equal(since) {
				t.Errorf("condition %s %q %q since %v, want %s %q %q since %v", c.Status, c.Reason, c.Message, c.LastTransitionTime,
					step.want.status, step.want.reason, step.want.message, since)
			}
		})
	}
}

// TestStatusWriterQueues: which routes the status writer checks for each
// snapshot: none before the first complete (synced) snapshot, every route
// at that one, then only the routes each snapshot changed, including the
// changes of snapshots it skipped; CheckAll checks every route again, but
// only once a complete snapshot was seen.
func TestStatusWriterQueues(t *testing.T) {
	(&StatusWriter{}).CheckAll() // before Start: nothing to check, no queue
	feed := &Feed{}
	w := &StatusWriter{Snapshots: feed.Subscribe()}
	w.queue = workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { w.watchSnapshots(ctx); close(done) }()
	decisions := func(keys ...string) PMap[Decision] {
		var m PMap[Decision]
		for _, k := range keys {
			m = m.Set(k, Decision{Verdict: Admitted})
		}
		return m
	}
	changes := func(keys ...string) Changes {
		c := Changes{Routes: map[string]bool{}, Services: map[string]bool{}}
		for _, k := range keys {
			c.Routes[k] = true
		}
		return c
	}
	// seen waits until the writer holds snapshot version v and n routes
	// are queued, then takes them from the queue.
	seen := func(v uint64, n int) []string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			w.mu.Lock()
			have := w.snapshot.Version
			w.mu.Unlock()
			if have == v && w.queue.Len() >= n {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the writer holds version %d with %d routes queued, want version %d with %d", have, w.queue.Len(), v, n)
			}
			time.Sleep(time.Millisecond)
		}
		var keys []string
		for w.queue.Len() > 0 {
			k, _ := w.queue.Get()
			w.queue.Done(k)
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}
	steps := []struct {
		name string
		snap Snapshot
		then func()
		want []string
	}{
		{"an incomplete snapshot: nothing", Snapshot{Version: 1, Decisions: decisions("ns/a", "ns/b"), Changed: changes("ns/a", "ns/b")}, nil, nil},
		{"CheckAll before a complete snapshot: nothing", Snapshot{Version: 2, Decisions: decisions("ns/a", "ns/b"), Changed: changes("ns/b")},
			w.CheckAll, nil},
		{"the first complete snapshot: every route", Snapshot{Version: 3, Synced: true, Decisions: decisions("ns/a", "ns/b", "ns/c"), Changed: changes("ns/c")},
			nil, []string{"ns/a", "ns/b", "ns/c"}},
		{"then only what changed", Snapshot{Version: 4, Synced: true, Decisions: decisions("ns/a", "ns/b", "ns/c"), Changed: changes("ns/b")},
			nil, []string{"ns/b"}},
		{"a deleted route is checked (its decision is gone)", Snapshot{Version: 5, Synced: true, Decisions: decisions("ns/a", "ns/b"), Changed: changes("ns/c")},
			nil, []string{"ns/c"}},
		{"CheckAll: every route of the latest snapshot", Snapshot{Version: 6, Synced: true, Decisions: decisions("ns/a", "ns/b"), Changed: changes()},
			w.CheckAll, []string{"ns/a", "ns/b"}},
	}
	for _, step := range steps {
		feed.Publish(step.snap)
		if step.then != nil {
			seen(step.snap.Version, 0)
			step.then()
		}
		if got := seen(step.snap.Version, len(step.want)); !slices.Equal(got, step.want) {
			t.Errorf("%s: checked %v, want %v", step.name, got, step.want)
		}
	}
	cancel()
	<-done
}
