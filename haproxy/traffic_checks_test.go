package haproxy

import (
	"context"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/routecore"
)

// Health checks across reloads and their timing: an endpoint the checks
// marked DOWN stays DOWN through a reload for an unrelated change (the
// server-state file), and a route with a very long check interval does not
// delay the first checks of the others.

// serverStat is one server row of HAProxy's `show stat`.
type serverStat struct {
	status string
	// lastchg is the number of seconds since the last status change.
	lastchg int
}

// serverStats reads `show stat` of the current worker: the servers of
// backend by name.
func (r *trafficRouter) serverStats(t *testing.T, backend string) map[string]serverStat {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	text, err := r.p.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rd := csv.NewReader(strings.NewReader(strings.TrimPrefix(text, "# ")))
	rd.FieldsPerRecord = -1
	rows, err := rd.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	out := map[string]serverStat{}
	for i, row := range rows {
		if i == 0 {
			for j, name := range row {
				col[name] = j
			}
			continue
		}
		if len(row) > col["lastchg"] && row[col["pxname"]] == backend && row[col["svname"]] != "BACKEND" {
			lastchg, _ := strconv.Atoi(row[col["lastchg"]])
			out[row[col["svname"]]] = serverStat{status: row[col["status"]], lastchg: lastchg}
		}
	}
	return out
}

// TestTrafficHealthAcrossReload: an endpoint whose health checks failed is
// DOWN in the new worker from its first moment after a reload caused by
// another route, since as long as it was in the old one: HAProxy loaded
// its state, it did not find it out again (a new worker without the state
// starts every server UP, and would count the time DOWN from its own
// checks). Requests keep going to the healthy endpoint only.
func TestTrafficHealthAcrossReload(t *testing.T) {
	r := newTrafficRouter(t)
	live, dead := newBackend(t, "live", nil, nil), newBackend(t, "dead", nil, nil)
	r.endpoints("ns", "web", live, dead)
	r.route(rt("ns", "web", "web.example.com", 1, toService("web"), annotated(routecore.AnnHealthCheckInterval, "200ms")))
	r.start()
	dead.stop() // its port refuses connections from now on
	const backend, downFor = "be_http:ns:web", 10
	deadSlot := ""
	eventually(t, 90*time.Second, fmt.Sprintf("the dead endpoint DOWN by its checks for %ds", downFor), func() error {
		for name, s := range r.serverStats(t, backend) {
			if s.status == "DOWN" && s.lastchg >= downFor {
				deadSlot = name
				return nil
			}
		}
		return fmt.Errorf("servers %v", r.serverStats(t, backend))
	})

	reloads := r.reloads()
	r.route(rt("ns", "aaa", "aaa.example.com", 2, toService("live"))) // a backend before web's: HAProxy's ids shift
	r.publish()
	r.waitReloads(reloads + 1)
	if s := r.serverStats(t, backend)[deadSlot]; s.status != "DOWN" || s.lastchg < downFor {
		t.Errorf("after the reload, the dead endpoint's slot %s is %+v, want DOWN for %ds at least, as before", deadSlot, s, downFor)
	}
	for range 10 {
		if x := r.get("web.example.com", "/"); !x.served("live") {
			t.Errorf("after the reload: %v, want served by the live endpoint", x)
		}
	}
}

// TestTrafficFirstChecks: a route whose checks run every hour does not
// hold back the first checks of a route with sub-second checks: its dead
// endpoints are DOWN soon after the start.
func TestTrafficFirstChecks(t *testing.T) {
	r := newTrafficRouter(t)
	a1, a2 := newBackend(t, "a1", nil, nil), newBackend(t, "a2", nil, nil)
	live, dead1, dead2 := newBackend(t, "live", nil, nil), newBackend(t, "dead-1", nil, nil), newBackend(t, "dead-2", nil, nil)
	dead1.stop()
	dead2.stop()
	r.endpoints("ns", "slow", a1, a2)
	r.endpoints("ns", "fast", live, dead1, dead2)
	r.route(rt("ns", "slow", "slow.example.com", 1, toService("slow"), annotated(routecore.AnnHealthCheckInterval, "1h")))
	r.route(rt("ns", "fast", "fast.example.com", 2, toService("fast"), annotated(routecore.AnnHealthCheckInterval, "200ms")))
	r.start()
	eventually(t, 60*time.Second, "both dead endpoints of the fast route DOWN", func() error {
		down := 0
		stats := r.serverStats(t, "be_http:ns:fast")
		for _, s := range stats {
			if s.status == "DOWN" {
				down++
			}
		}
		if down != 2 {
			return fmt.Errorf("servers %v", stats)
		}
		return nil
	})
}
