package router

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
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
