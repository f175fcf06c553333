package ingress

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/routecore"
)

// withUID sets the Ingress's UID.
func withUID(uid string) func(*networkingv1.Ingress) {
	return func(ing *networkingv1.Ingress) { ing.UID = types.UID(uid) }
}

func keyOf(ing *networkingv1.Ingress) types.NamespacedName {
	return types.NamespacedName{Namespace: ing.Namespace, Name: ing.Name}
}

func seen(names ...string) []routecore.Route {
	var out []routecore.Route
	for _, n := range names {
		out = append(out, *route("www.example.com", "/", "web", withName(n)))
	}
	return out
}

// wantRemembered checks the number of entries and the gauge that follows it.
func wantRemembered(t *testing.T, m *memory, want int) {
	t.Helper()
	if got := m.len(); got != want {
		t.Errorf("%d Ingresses remembered, want %d", got, want)
	}
	var got dto.Metric
	if err := m.size.Write(&got); err != nil {
		t.Fatal(err)
	}
	if got.GetGauge().GetValue() != float64(want) {
		t.Errorf("gauge %v, want %d", got.GetGauge().GetValue(), want)
	}
}

// Many Ingresses, each with a pending Route creation and a reported
// problem, are created, deleted and forgotten: nothing is left.
func TestMemoryForgetsDeletedIngresses(t *testing.T) {
	m := &memory{size: prometheus.NewGauge(prometheus.GaugeOpts{Name: "remembered"})}
	var ings []*networkingv1.Ingress
	for i := range 200 {
		ing := ingress(named(fmt.Sprintf("web-%d", i)), withUID(fmt.Sprintf("uid-%d", i)))
		ings = append(ings, ing)
		m.expectCreated(ing, "web-aaaaa")
		if !m.reportChanged(ing, ReasonIncomplete, "Incomplete ingress to route rules detected: no service") {
			t.Fatalf("first problem of %s not reported", ing.Name)
		}
	}
	wantRemembered(t, m, len(ings))
	for _, ing := range ings {
		m.forget(keyOf(ing))
	}
	wantRemembered(t, m, 0)
	if len(m.byKey) != 0 {
		t.Errorf("entries left: %v", m.byKey)
	}
}

// An entry with nothing left in it goes without forget: an Ingress whose
// Routes the cache shows and that has no problem takes no memory.
func TestMemoryDropsEmptyEntries(t *testing.T) {
	m := &memory{size: prometheus.NewGauge(prometheus.GaugeOpts{Name: "remembered"})}
	ing := ingress(withUID("uid-1"))
	m.expectCreated(ing, "web-aaaaa")
	m.expectCreated(ing, "web-bbbbb")
	m.reportChanged(ing, ReasonIgnoredAnnotations, "annotation nginx.ingress.kubernetes.io/x has no effect")
	m.observe(ing, seen("web-aaaaa"))
	wantRemembered(t, m, 1)
	m.observe(ing, seen("web-bbbbb"))
	m.reportChanged(ing, ReasonIgnoredAnnotations, "")
	wantRemembered(t, m, 0)
	// Reading leaves nothing behind either.
	if m.pending(ing, "web-aaaaa") || m.reportChanged(ing, ReasonFailed, "") {
		t.Error("pending or reported after everything was cleared")
	}
	wantRemembered(t, m, 0)
}

// An Ingress deleted and created again under the same name starts afresh,
// and the entry of the old one is replaced, not kept beside it.
func TestMemoryNewUIDStartsAfresh(t *testing.T) {
	m := &memory{size: prometheus.NewGauge(prometheus.GaugeOpts{Name: "remembered"})}
	old, recreated := ingress(withUID("uid-old")), ingress(withUID("uid-new"))
	const problem = "Incomplete ingress to route rules detected: no service"
	m.expectCreated(old, "web-aaaaa")
	m.reportChanged(old, ReasonIncomplete, problem)
	if m.pending(recreated, "web-aaaaa") {
		t.Error("the old Ingress's Route creation is pending for the new one")
	}
	if !m.reportChanged(recreated, ReasonIncomplete, problem) {
		t.Error("the new Ingress's problem is not reported: the old one's report suppressed it")
	}
	wantRemembered(t, m, 1)
	if e := m.byKey[keyOf(recreated)]; e.uid != "uid-new" || len(e.created) != 0 {
		t.Errorf("entry %+v, want uid-new without expected Routes", e)
	}
}

func TestMemoryReports(t *testing.T) {
	m := &memory{}
	ing := ingress(withUID("uid-1"))
	steps := []struct {
		reason, message string
		want            bool
	}{
		{ReasonIncomplete, "a", true},
		{ReasonIncomplete, "a", false},
		{ReasonFailed, "a", true}, // reasons are separate
		{ReasonIncomplete, "b", true},
		{ReasonIncomplete, "", false},
		{ReasonIncomplete, "b", true}, // back after it was gone
	}
	for i, s := range steps {
		if got := m.reportChanged(ing, s.reason, s.message); got != s.want {
			t.Errorf("step %d: reportChanged(%s, %q) = %v, want %v", i, s.reason, s.message, got, s.want)
		}
	}
}

// A Route expected for longer than expectationTTL is no longer pending, and
// the next observation drops it even though the cache never showed it.
func TestMemoryExpectationsLapse(t *testing.T) {
	m := &memory{}
	ing := ingress(withUID("uid-1"))
	m.expectCreated(ing, "web-aaaaa")
	m.expectCreated(ing, "web-bbbbb")
	if !m.pending(ing, "web-aaaaa") || m.pending(ing, "web-ccccc") {
		t.Fatal("pending does not follow expectCreated")
	}
	m.byKey[keyOf(ing)].created["web-aaaaa"] = time.Now().Add(-expectationTTL)
	if m.pending(ing, "web-aaaaa") {
		t.Error("an expectation older than expectationTTL is still pending")
	}
	m.observe(ing, nil)
	if got := m.byKey[keyOf(ing)].created; len(got) != 1 || got["web-bbbbb"].IsZero() {
		t.Errorf("expected Routes after observing none %v, want only web-bbbbb", got)
	}
	m.observe(ing, seen("web-bbbbb"))
	if m.len() != 0 {
		t.Errorf("entry left after every Route was seen: %+v", m.byKey)
	}
}
