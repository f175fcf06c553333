package router

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
