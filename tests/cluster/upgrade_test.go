package cluster

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
	"github.com/routeshift/routeshift/tests/framework/node"
)

// previousRelease is the release an upgrade starts from: its tag, and the
// commit the tag names, for clones that carry no tags.
var previousRelease = struct{ tag, commit string }{"v0.1.0", "6312319e765f1c484a9864b359fd857f1b5c2dfd"}

// TestUpgrade installs the previous release's self-signed overlay with that
// release's image, makes Routes (one of an Ingress) and waits for the
// router's status, then applies HEAD's overlay over it: the pods run the
// new image, every Route keeps its identity, spec and status, and is
// still served. Then HEAD's uninstall leaves nothing behind.
func TestUpgrade(t *testing.T) {
	cl := newCluster(t)
	old := checkoutPreviousRelease(t)
	oldImage, err := node.ManifestsImage(old)
	if err != nil {
		t.Fatal(err)
	}
	newImage, err := node.ManifestsImage(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if oldImage == newImage {
		t.Fatalf("the previous release and HEAD both run %s: a release changes VERSION", oldImage)
	}
	archive := filepath.Join(t.TempDir(), "previous.tar")
	if err := cl.n.WriteRouteshiftImage(context.Background(), old, oldImage, archive); err != nil {
		t.Fatal(err)
	}
	if err := cl.n.ImportImage(context.Background(), archive); err != nil {
		t.Fatal(err)
	}

	previous := variant{name: "previous", install: func(t *testing.T, cl *cluster) {
		cl.kubectl(t, "apply", "-k", filepath.Join(old, "manifests", "overlays", "self-signed"))
	}}
	inst := cl.installVariant(t, previous)
	ns := inst.namespace(t, "upgrade")
	inst.apply(t, shopYAML(ns))
	before := inst.admittedRoutes(t, ns, 2)

	inst.v = kustomizeVariant("self-signed")
	oldPods := podNames(inst.pods(t, ""))
	inst.v.install(t, cl)
	inst.waitRolledOut(t)
	inst.waitGone(t, "old", oldPods, 5*time.Minute)
	for _, p := range inst.pods(t, "") {
		for _, c := range p.Spec.Containers {
			if c.Image != newImage {
				t.Errorf("after the upgrade pod %s runs %s, want %s", p.Name, c.Image, newImage)
			}
		}
	}
	after := inst.admittedRoutes(t, ns, 2)
	for name, r := range before {
		a, ok := after[name]
		switch {
		case !ok:
			t.Errorf("Route %s/%s is gone after the upgrade", ns, name)
		case a.UID != r.UID || a.Spec.Host != r.Spec.Host:
			t.Errorf("Route %s changed in the upgrade: uid %s host %s, was uid %s host %s", name, a.UID, a.Spec.Host, r.UID, r.Spec.Host)
		case admittedSince(a) != admittedSince(r):
			t.Errorf("Route %s: its Admitted status was written again in the upgrade (%s, was %s)", name, admittedSince(a), admittedSince(r))
		}
	}
	for _, e := range inst.entrances(t) {
		if err := inst.expectShop("https", e.https, secureHost(ns)); err != nil {
			t.Errorf("after the upgrade, via %s: %v", e.name, err)
		}
	}
	inst.uninstallAndCheck(t)
}

// checkoutPreviousRelease extracts the previous release's tree into a
// temporary directory and returns it.
func checkoutPreviousRelease(t *testing.T) string {
	t.Helper()
	commit := previousRelease.commit
	if out, err := exec.Command("git", "-C", repoRoot, "rev-parse", "--verify", "--quiet", previousRelease.tag+"^{commit}").Output(); err == nil {
		if got := strings.TrimSpace(string(out)); got != commit {
			t.Fatalf("tag %s names %s, but the tests upgrade from %s: update previousRelease", previousRelease.tag, got, commit)
		}
	}
	dir := t.TempDir()
	archive := exec.Command("git", "-C", repoRoot, "archive", "--format=tar", commit)
	extract := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	extract.Stdin = pipe
	var errOut strings.Builder
	archive.Stderr = &errOut
	if err := extract.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s (release %s): %v: %s (a clone with its history is needed)", commit, previousRelease.tag, err, errOut.String())
	}
	if err := extract.Wait(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// admittedRoutes waits until ns holds want Routes, each Admitted by the
// router "public", and returns them by name.
func (inst *installation) admittedRoutes(t *testing.T, ns string, want int) map[string]routecore.Route {
	t.Helper()
	out := map[string]routecore.Route{}
	framework.EventuallyWithin(t, 3*time.Minute, fmt.Sprintf("%d Routes admitted in %s", want, ns), func() error {
		var routes routecore.RouteList
		if err := inst.c.List(ctx(t), &routes, client.InNamespace(ns)); err != nil {
			return err
		}
		clear(out)
		for _, r := range routes.Items {
			if admittedSince(r) == "" {
				return fmt.Errorf("Route %s is not admitted by router public: %+v", r.Name, r.Status.Ingress)
			}
			out[r.Name] = r
		}
		if len(out) != want {
			return fmt.Errorf("%d Routes", len(out))
		}
		return nil
	})
	return out
}

// admittedSince is when router "public" admitted r, or "" if it has not.
func admittedSince(r routecore.Route) string {
	for _, in := range r.Status.Ingress {
		for _, c := range in.Conditions {
			if in.RouterName == "public" && c.Type == routecore.RouteAdmitted && c.Status == corev1.ConditionTrue && c.LastTransitionTime != nil {
				return c.LastTransitionTime.UTC().Format(time.RFC3339)
			}
		}
	}
	return ""
}
