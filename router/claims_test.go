package router

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/routecore"
)

// TestJudgeHostsRule is the rule the Store's shortcut (judgeHosts) rests
// on: in a domain with wildcard routes, a plain contender's verdict depends
// only on the contenders of its own host and on the wildcard contenders,
// and a wildcard contender's on the other wildcards, on its own host and
// on whether another namespace holds an older host of the domain, which
// the two oldest holders of other namespaces' hosts (oldestHolders) tell.
// So judging the wildcards with the contenders of some hosts and of the
// wildcards' own hosts, with those holders standing in for every other
// host, decides them as judging the whole domain does. It is checked on
// random domains, in both ownership modes, against the whole domain's
// judgement, for every host.
func TestJudgeHostsRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, disabled := range []bool{false, true} {
		cfg := &AdmissionConfig{DisableNamespaceOwnershipCheck: disabled}
		for domain := range 300 {
			contenders := randomDomain(rng, domain)
			whole := judgeAll(cfg, contenders)
			ds := domainOf(contenders, whole)
			for _, host := range hostsOf(contenders) {
				if got, ok := judgeShortcut(cfg, ds, host); ok {
					for key, d := range got {
						if d != whole[key] {
							t.Errorf("ownership check off %v, domain %d, host %s: %s is %+v judged with the shortcut, %+v with the whole domain\n%s",
								disabled, domain, host, key, d, whole[key], describe(contenders))
						}
					}
				} else {
					t.Errorf("ownership check off %v, domain %d, host %s: a wildcard route's hold changes, though nothing did\n%s",
						disabled, domain, host, describe(contenders))
				}
			}
		}
	}
}

// judged is a contender's decision and whether it holds its claim.
type judged struct {
	Decision
	holds bool
}

// randomDomain is up to 8 contenders in sub.example.com: plain and
// wildcard, of 3 namespaces, on 4 hosts, with 2 paths, some TLS, some
// passthrough.
func randomDomain(rng *rand.Rand, seed int) []*contender {
	var out []*contender
	for i := range 1 + rng.IntN(8) {
		ct := &contender{key: fmt.Sprintf("d%d/r%d", seed, i), namespace: fmt.Sprintf("ns%d", rng.IntN(3)), name: fmt.Sprintf("r%d", i),
			uid: types.UID(fmt.Sprintf("uid-%d", i)), created: time.Unix(int64(rng.IntN(5)), 0),
			host: fmt.Sprintf("h%d.sub.example.com", rng.IntN(4)), wildcard: rng.IntN(4) == 0, path: []string{"", "/a"}[rng.IntN(2)]}
		ct.tls = rng.IntN(2) == 0
		ct.passthru = ct.tls && rng.IntN(3) == 0
		out = append(out, ct)
	}
	return out
}

// judgeAll judges a whole domain, as judgeDomain does without a shortcut.
func judgeAll(cfg *AdmissionConfig, contenders []*contender) map[string]judged {
	out := map[string]judged{}
	cfg.judge(slices.Clone(contenders), nil, func(ct *contender, d Decision, holds bool) { out[ct.key] = judged{d, holds} })
	return out
}

// domainOf is the Store's state of the domain after judging it whole.
func domainOf(contenders []*contender, whole map[string]judged) *domainState {
	ds := &domainState{hosts: map[string]map[string]*contender{}, wildcards: map[string]*contender{}, holders: map[string][]*contender{}}
	for _, ct := range contenders {
		c := *ct
		if c.wildcard {
			ds.wildcards[c.key] = &c
		} else {
			if ds.hosts[c.host] == nil {
				ds.hosts[c.host] = map[string]*contender{}
			}
			ds.hosts[c.host][c.key] = &c
		}
		ds.setHolds(&c, whole[c.key].holds)
	}
	return ds
}

// judgeShortcut judges host's contenders with judgeHosts; false when it
// finds that the whole domain must be judged.
func judgeShortcut(cfg *AdmissionConfig, ds *domainState, host string) (map[string]judged, bool) {
	got := map[string]judged{}
	if len(ds.wildcards) == 0 {
		// Without wildcard routes a host is judged alone.
		cfg.judge(slices.Collect(maps.Values(ds.hosts[host])), nil, func(ct *contender, d Decision, holds bool) { got[ct.key] = judged{d, holds} })
		return got, true
	}
	ok := ds.judgeHosts(cfg, map[string]bool{host: true}, func(ct *contender, d Decision, holds bool) { got[ct.key] = judged{d, holds} })
	return got, ok
}

func hostsOf(contenders []*contender) []string {
	var out []string
	for _, ct := range contenders {
		if !slices.Contains(out, ct.host) {
			out = append(out, ct.host)
		}
	}
	return out
}

func describe(contenders []*contender) string {
	var s string
	for _, ct := range contenders {
		s += fmt.Sprintf("  %s %s/%s host %s path %q wildcard %v tls %v passthrough %v created %d uid %s\n",
			ct.key, ct.namespace, ct.name, ct.host, ct.path, ct.wildcard, ct.tls, ct.passthru, ct.created.Unix(), ct.uid)
	}
	return s
}

// TestStoreIncrementalEqualsFromScratch: after any sequence of route and
// namespace events, committed at random points, every snapshot of a store
// that judges incrementally holds the decisions and served values a new
// store judging the same objects at once holds; its Changed.Routes names
// exactly the routes whose decision or served value differs from the
// previous snapshot (and those deleted meanwhile); its counters and its
// index of hosts held stay true. Random sequences cover all configurations
// whose rules the shortcut could get wrong: both ownership modes, a
// namespace shard, a route shard and generated hosts.
func TestStoreIncrementalEqualsFromScratch(t *testing.T) {
	shard := labels.SelectorFromSet(labels.Set{"shard": "a"})
	configs := map[string]AdmissionConfig{
		"ownership check on":  {AllowWildcardRoutes: true},
		"ownership check off": {AllowWildcardRoutes: true, DisableNamespaceOwnershipCheck: true},
		"namespace shard":     {AllowWildcardRoutes: true, NamespaceSelector: shard},
		"route shard":         {AllowWildcardRoutes: true, RouteSelector: shard},
		"generated hosts":     {AllowWildcardRoutes: true, HostnameTemplate: "${namespace}.x.com", RouterDomain: "x.com"},
	}
	for name, cfg := range configs {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			for seq := range 150 {
				runSequence(t, cfg, rng, seq)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// world is the objects a sequence has left: what a new store is given.
type world struct {
	routes     map[string]*routecore.Route
	namespaces map[string]map[string]string
}

// runSequence applies 30 random events to a store, committing now and
// then, and checks each snapshot against a store built from scratch.
func runSequence(t *testing.T, cfg AdmissionConfig, rng *rand.Rand, seq int) {
	t.Helper()
	s := NewStore(cfg)
	w := world{routes: map[string]*routecore.Route{}, namespaces: map[string]map[string]string{}}
	prev := s.Commit(true)
	deleted := map[string]bool{}
	var log []string
	for step := range 30 {
		log = append(log, randomEvent(rng, s, &w, deleted, fmt.Sprint(seq, "-", step)))
		if rng.IntN(3) > 0 && step < 29 {
			continue
		}
		snap := s.Commit(true)
		if msg := compareWithScratch(cfg, s, w, prev, snap, deleted); msg != "" {
			t.Errorf("sequence %d after:\n  %s\n%s", seq, strings.Join(log, "\n  "), msg)
			return
		}
		checkHolders(t, s)
		prev = snap
		clear(deleted)
	}
}

// randomEvent applies one random event to s and w and describes it.
func randomEvent(rng *rand.Rand, s *Store, w *world, deleted map[string]bool, version string) string {
	ns := fmt.Sprintf("ns%d", rng.IntN(3))
	switch rng.IntN(10) {
	case 0:
		name := fmt.Sprintf("r%d", rng.IntN(5))
		s.DeleteRoute(ns, name)
		if w.routes[ns+"/"+name] != nil {
			deleted[ns+"/"+name] = true
		}
		delete(w.routes, ns+"/"+name)
		return "delete route " + ns + "/" + name
	case 1:
		l := map[string]string{"shard": []string{"a", "b"}[rng.IntN(2)]}
		s.SetNamespace(ns, l)
		w.namespaces[ns] = l
		return fmt.Sprintf("namespace %s labels %v", ns, l)
	case 2:
		s.DeleteNamespace(ns)
		delete(w.namespaces, ns)
		return "delete namespace " + ns
	}
	r := randomRoute(rng, ns, version)
	s.SetRoute(r)
	w.routes[r.Namespace+"/"+r.Name] = r
	return fmt.Sprintf("route %s/%s host %q subdomain %q path %q wildcard %v tls %v labels %v age %d", r.Namespace, r.Name,
		r.Spec.Host, r.Spec.Subdomain, r.Spec.Path, r.Spec.WildcardPolicy == routecore.WildcardPolicySubdomain,
		r.Spec.TLS != nil, r.Labels, r.CreationTimestamp.Unix()-epoch.Unix())
}

// randomRoute is one of 5 routes of ns, on one of a few hosts of two
// domains (or none, or a subdomain), maybe a wildcard, with a path, TLS
// and a shard label.
func randomRoute(rng *rand.Rand, ns, version string) *routecore.Route {
	hosts := []string{"a.x.com", "b.x.com", "w.x.com", "a.y.com", "", "ns1.x.com"}
	r := rt(ns, fmt.Sprintf("r%d", rng.IntN(5)), hosts[rng.IntN(len(hosts))], rng.IntN(4))
	r.ResourceVersion = version
	if r.Spec.Host == "" && rng.IntN(2) == 0 {
		r.Spec.Subdomain = "sub"
	}
	if rng.IntN(4) == 0 {
		wildcard(r)
	}
	r.Spec.Path = []string{"", "", "/p", "/q"}[rng.IntN(4)]
	switch rng.IntN(4) {
	case 1:
		withTLS(routecore.TLSTerminationEdge)(r)
	case 2:
		if r.Spec.Path == "" {
			withTLS(routecore.TLSTerminationPassthrough)(r)
		}
	}
	if rng.IntN(3) > 0 {
		r.Labels = map[string]string{"shard": "a"}
	}
	return r
}

// compareWithScratch returns what differs between the incremental store's
// snapshot and a new store's, and between its Changed.Routes and what
// really changed since prev; "" when nothing does.
func compareWithScratch(cfg AdmissionConfig, s *Store, w world, prev, snap Snapshot, deleted map[string]bool) string {
	fresh := NewStore(cfg)
	for ns, l := range w.namespaces {
		fresh.SetNamespace(ns, l)
	}
	for _, r := range w.routes {
		fresh.SetRoute(r)
	}
	want := fresh.Commit(true)
	var diffs []string
	for k, d := range want.Decisions.All() {
		if got, _ := snap.Decisions.Get(k); got != d {
			diffs = append(diffs, fmt.Sprintf("%s: incremental %+v, from scratch %+v", k, got, d))
		}
	}
	if snap.Decisions.Len() != want.Decisions.Len() {
		diffs = append(diffs, fmt.Sprintf("%d decisions, from scratch %d", snap.Decisions.Len(), want.Decisions.Len()))
	}
	for k, r := range want.Routes.All() {
		if got, ok := snap.Routes.Get(k); !ok || !reflect.DeepEqual(got, r) {
			diffs = append(diffs, fmt.Sprintf("%s served: incremental %+v, from scratch %+v", k, got, r))
		}
	}
	if snap.Routes.Len() != want.Routes.Len() {
		diffs = append(diffs, fmt.Sprintf("%d routes served, from scratch %d", snap.Routes.Len(), want.Routes.Len()))
	}
	if s.verdicts != fresh.verdicts {
		diffs = append(diffs, fmt.Sprintf("verdict counters %v, from scratch %v", s.verdicts, fresh.verdicts))
	}
	for _, k := range changedKeys(prev, snap, deleted) {
		if !snap.Changed.Routes[k] {
			diffs = append(diffs, k+" changed but is not in Changed.Routes")
		}
	}
	for k := range snap.Changed.Routes {
		if !slices.Contains(changedKeys(prev, snap, deleted), k) {
			diffs = append(diffs, k+" is in Changed.Routes but did not change")
		}
	}
	return strings.Join(diffs, "\n")
}

// changedKeys are the routes deleted since prev and those whose decision
// or served value differs between prev and next.
func changedKeys(prev, next Snapshot, deleted map[string]bool) []string {
	out := slices.Collect(maps.Keys(deleted))
	add := func(k string) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, pair := range [][2]Snapshot{{prev, next}, {next, prev}} {
		for k, d := range pair[0].Decisions.All() {
			if o, ok := pair[1].Decisions.Get(k); !ok || o != d {
				add(k)
			}
		}
		for k, r := range pair[0].Routes.All() {
			if o, ok := pair[1].Routes.Get(k); !ok || o != r {
				add(k)
			}
		}
	}
	return out
}
