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
// namespace events, built at random points, every snapshot of a store
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
		// Routes rejected before any claim, and certificates rejected
		// after the claim is won (the route keeps its host).
		"domains and certificates": {AllowWildcardRoutes: true, ExtendedValidation: true,
			AllowedDomains: ParseDomainList("x.com"), DeniedDomains: ParseDomainList("b.x.com")},
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

// runSequence applies 30 random events to a store, building snapshots now and
// then, and checks each snapshot against a store built from scratch.
func runSequence(t *testing.T, cfg AdmissionConfig, rng *rand.Rand, seq int) {
	t.Helper()
	s := NewStore(cfg)
	w := world{routes: map[string]*routecore.Route{}, namespaces: map[string]map[string]string{}}
	prev := s.Build(true)
	deleted := map[string]bool{}
	var log []string
	for step := range 30 {
		log = append(log, randomEvent(rng, s, &w, deleted, fmt.Sprint(seq, "-", step)))
		if rng.IntN(3) > 0 && step < 29 {
			continue
		}
		snap := s.Build(true)
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
	switch rng.IntN(5) {
	case 1:
		withTLS(routecore.TLSTerminationEdge)(r)
	case 2:
		if r.Spec.Path == "" {
			withTLS(routecore.TLSTerminationPassthrough)(r)
		}
	case 3: // refused by EXTENDED_VALIDATION
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: "not a certificate", Key: "not a key"}
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
	want := fresh.Build(true)
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

// TestJudge: judge on its own, from contenders to the order it decides
// them in (oldest first, ties by UID), their decisions and whether they
// hold their claims. A route rejected for its certificate still holds its
// host; a rejected wildcard holds nothing; held contenders outside the
// judged set count as older holders of their namespace and get no
// decision.
func TestJudge(t *testing.T) {
	c := func(key string, age int, host string, mods ...func(*contender)) *contender {
		ns, name, _ := strings.Cut(key, "/")
		ct := &contender{key: key, namespace: ns, name: name, uid: types.UID("uid-" + key), created: epoch.Add(time.Duration(age) * time.Second), host: host}
		for _, m := range mods {
			m(ct)
		}
		return ct
	}
	wild := func(ct *contender) { ct.wildcard = true }
	path := func(p string) func(*contender) { return func(ct *contender) { ct.path = p } }
	badCert := func(ct *contender) { ct.certReason, ct.certMessage = ReasonExtendedValidationFailed, "bad certificate" }
	tests := []struct {
		name       string
		cfg        AdmissionConfig
		contenders []*contender
		held       []*contender
		want       []string // in the order decided: "key verdict holds [reason: message]"
	}{
		{"oldest first, ties by UID", AdmissionConfig{}, []*contender{
			c("ns2/b", 1, "h.x.com", path("/b")), c("ns1/a", 1, "h.x.com", path("/a")), c("ns0/z", 0, "z.x.com")},
			nil, []string{"ns0/z admitted true", "ns1/a admitted true",
				"ns2/b rejected false HostAlreadyClaimed: a route in another namespace holds h.x.com and is older than b"}},
		{"a broken certificate keeps the host", AdmissionConfig{}, []*contender{
			c("ns1/a", 1, "h.x.com", badCert), c("ns2/b", 2, "h.x.com")},
			nil, []string{"ns1/a rejected true ExtendedValidationFailed: bad certificate",
				"ns2/b rejected false HostAlreadyClaimed: a route in another namespace holds h.x.com and is older than b"}},
		{"a broken certificate that loses its claim says so, not the certificate", AdmissionConfig{}, []*contender{
			c("ns1/a", 1, "h.x.com"), c("ns2/b", 2, "h.x.com", badCert)},
			nil, []string{"ns1/a admitted true",
				"ns2/b rejected false HostAlreadyClaimed: a route in another namespace holds h.x.com and is older than b"}},
		{"a rejected wildcard blocks nothing", AdmissionConfig{}, []*contender{
			c("ns1/a", 1, "a.x.com"), c("ns2/w", 2, "w.x.com", wild), c("ns2/w2", 3, "v.x.com", wild, path("/p")), c("ns3/b", 4, "b.x.com")},
			nil, []string{"ns1/a admitted true",
				"ns2/w rejected false HostAlreadyClaimed: a route in another namespace holds host w.x.com",
				"ns2/w2 rejected false HostAlreadyClaimed: a route in another namespace holds host v.x.com",
				"ns3/b admitted true"}},
		{"a wildcard that wins blocks younger hosts of other namespaces", AdmissionConfig{}, []*contender{
			c("ns1/w", 1, "w.x.com", wild), c("ns2/a", 2, "a.x.com"), c("ns1/b", 3, "b.x.com")},
			nil, []string{"ns1/w admitted true",
				"ns2/a rejected false HostAlreadyClaimed: a route in another namespace holds host a.x.com", "ns1/b admitted true"}},
		{"an older holder outside the judged set blocks another namespace's wildcard and gets no decision", AdmissionConfig{},
			[]*contender{c("ns2/w", 2, "w.x.com", wild), c("ns2/a", 3, "a.x.com")},
			[]*contender{c("ns1/h", 1, "h.x.com")},
			[]string{"ns2/w rejected false HostAlreadyClaimed: a route in another namespace holds host w.x.com", "ns2/a admitted true"}},
		{"a younger holder outside the judged set does not", AdmissionConfig{},
			[]*contender{c("ns2/w", 2, "w.x.com", wild)},
			[]*contender{c("ns1/h", 3, "h.x.com")},
			[]string{"ns2/w admitted true"}},
		{"a holder of the same namespace does not", AdmissionConfig{},
			[]*contender{c("ns2/w", 2, "w.x.com", wild)},
			[]*contender{c("ns2/h", 1, "h.x.com")},
			[]string{"ns2/w admitted true"}},
		{"ownership check off: only paths conflict, and messages name the holder", AdmissionConfig{DisableNamespaceOwnershipCheck: true},
			[]*contender{c("ns1/a", 1, "h.x.com"), c("ns2/b", 2, "h.x.com", path("/b")), c("ns3/c", 3, "h.x.com", path("/b")),
				c("ns4/w", 4, "w.x.com", wild), c("ns5/w", 5, "v.x.com", wild)},
			[]*contender{c("ns0/h", 0, "h0.x.com")},
			[]string{"ns1/a admitted true", "ns2/b admitted true",
				"ns3/c rejected false HostAlreadyClaimed: route b already exposes h.x.com and is older",
				"ns4/w admitted true",
				"ns5/w rejected false HostAlreadyClaimed: wildcard route ns4/w has host *.x.com, blocking v.x.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			tt.cfg.judge(tt.contenders, tt.held, func(ct *contender, d Decision, holds bool) {
				line := fmt.Sprintf("%s %s %v", ct.key, d.Verdict, holds)
				if d.Verdict == Rejected {
					line += " " + d.Reason + ": " + d.Message
				}
				wantPolicy := routecore.WildcardPolicyNone
				if ct.wildcard {
					wantPolicy = routecore.WildcardPolicySubdomain
				}
				if d.Host != ct.host || d.WildcardPolicy != wantPolicy {
					t.Errorf("%s decided for host %q policy %q", ct.key, d.Host, d.WildcardPolicy)
				}
				got = append(got, line)
			})
			if !slices.Equal(got, tt.want) {
				t.Errorf("decided\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

// TestDomainHolders: the index of plain contenders holding hosts, by
// namespace and oldest first (contenders of the same age included), and
// the two oldest holders a wildcard contender is judged against, skipping
// the hosts being judged.
func TestDomainHolders(t *testing.T) {
	c := func(ns, name string, age int, host string) *contender {
		return &contender{key: ns + "/" + name, namespace: ns, name: name, uid: types.UID(ns + name), created: epoch.Add(time.Duration(age) * time.Second), host: host}
	}
	a1, a2, a3 := c("nsa", "a1", 1, "h1.x.com"), c("nsa", "a2", 2, "h2.x.com"), c("nsa", "a3", 2, "h3.x.com")
	b1, b2 := c("nsb", "b1", 0, "h4.x.com"), c("nsb", "b2", 3, "h1.x.com")
	d1 := c("nsd", "d1", 5, "h5.x.com")
	w := &contender{key: "nsa/w", namespace: "nsa", name: "w", wildcard: true, host: "w.x.com"}
	ds := &domainState{holders: map[string][]*contender{}}
	names := func(list []*contender) string {
		var out []string
		for _, ct := range list {
			out = append(out, ct.name)
		}
		return strings.Join(out, " ")
	}
	index := func() string {
		var out []string
		for _, ns := range slices.Sorted(maps.Keys(ds.holders)) {
			out = append(out, ns+": "+names(ds.holders[ns]))
		}
		return strings.Join(out, "; ")
	}
	steps := []struct {
		name   string
		do     func()
		index  string
		skip   []string
		oldest string
	}{
		{"out of order, same ages", func() {
			for _, ct := range []*contender{a3, a1, b2, a2, d1, b1} {
				ds.setHolds(ct, true)
			}
		}, "nsa: a1 a2 a3; nsb: b1 b2; nsd: d1", nil, "b1 a1"},
		{"a wildcard is never a holder", func() { ds.setHolds(w, true) }, "nsa: a1 a2 a3; nsb: b1 b2; nsd: d1", nil, "b1 a1"},
		{"the hosts judged are skipped", func() {}, "nsa: a1 a2 a3; nsb: b1 b2; nsd: d1", []string{"h4.x.com", "h1.x.com"}, "a2 d1"},
		{"holding again changes nothing", func() { ds.setHolds(a2, true) }, "nsa: a1 a2 a3; nsb: b1 b2; nsd: d1", nil, "b1 a1"},
		{"the second of two of the same age lets go", func() { ds.setHolds(a3, false) }, "nsa: a1 a2; nsb: b1 b2; nsd: d1", nil, "b1 a1"},
		{"the first of a namespace lets go", func() { ds.setHolds(b1, false) }, "nsa: a1 a2; nsb: b2; nsd: d1", nil, "a1 b2"},
		{"a namespace's last lets go: it leaves the index", func() {
			ds.setHolds(b2, false)
			ds.setHolds(b2, false)
		}, "nsa: a1 a2; nsd: d1", nil, "a1 d1"}, // the second is of another namespace
		{"skipping one namespace's hosts", func() {}, "nsa: a1 a2; nsd: d1", []string{"h1.x.com", "h2.x.com"}, "d1"},
		{"nothing left", func() {
			for _, ct := range []*contender{a1, a2, d1} {
				ds.setHolds(ct, false)
			}
		}, "", nil, ""},
	}
	for _, step := range steps {
		step.do()
		skip := map[string]bool{}
		for _, h := range step.skip {
			skip[h] = true
		}
		if got := index(); got != step.index {
			t.Errorf("%s: holders %q, want %q", step.name, got, step.index)
		}
		if got := names(ds.oldestHolders(skip)); got != step.oldest {
			t.Errorf("%s: oldest holders %q, want %q", step.name, got, step.oldest)
		}
	}
}
