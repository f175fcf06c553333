package router

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

// TestResyncHealsStatus: an entry of the router removed from a Route's
// status behind its back is written again at the next resync
// (RESYNC_INTERVAL), also where no event makes the router look: a rejected
// Route whose decision did not change. An admitted Route heals too.
func TestResyncHealsStatus(t *testing.T) {
	cp := framework.Cluster(t)
	ns := isolatedNamespace(t, cp, "resync", nil)
	cp.StartRouter(t, "resyncer", "--namespace-labels", only(ns), "--resync-interval", "2s")
	host := "shared." + ns + ".example.com"
	create(t, cp, route(ns, "a", host, nil), route(ns, "b", host, nil))
	// Created in the same second, either may hold the host.
	want := map[string]string{}
	framework.Eventually(t, "one route admitted, the other rejected", func() error {
		a, b := entries(getRoute(t, cp, ns, "a")), entries(getRoute(t, cp, ns, "b"))
		pair := []string{fmt.Sprint(a), fmt.Sprint(b)}
		slices.Sort(pair)
		if pair[0] != "[resyncer: False HostAlreadyClaimed]" || pair[1] != "[resyncer: True]" {
			return fmt.Errorf("a %q, b %q", a, b)
		}
		want["a"], want["b"] = a[0], b[0]
		return nil
	})

	for _, name := range []string{"a", "b"} {
		r := getRoute(t, cp, ns, name)
		r.Status.Ingress = nil
		if err := cp.Client.Status().Update(context.Background(), r); err != nil {
			t.Fatalf("removing the status of %s: %v", name, err)
		}
	}
	waitStatus(t, cp, ns, "a", want["a"])
	waitStatus(t, cp, ns, "b", want["b"])
}
