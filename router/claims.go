package router

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/routeshift/routeshift/routecore"
)

// Host claims. Routes that pass admissionRules compete for their hosts,
// oldest first: a route holds its claim unless an older holder conflicts
// with it (claimConflict). The Store keeps the contenders of each domain
// (domainState) and re-judges only what a change can affect: the routes of
// a host, and in a domain with wildcard routes those and the wildcards
// (judgeHosts), the whole domain only when a wildcard route wins or loses
// its claim.

// contender is a route that passed the checks that need no other route,
// competing for its host.
type contender struct {
	key       string
	namespace string
	name      string
	uid       types.UID
	created   time.Time
	host      string
	wildcard  bool
	path      string
	tls       bool
	passthru  bool
	// certReason and certMessage reject the route after it won its claim:
	// a route with a broken certificate still holds its host, so that no
	// other namespace takes it over.
	certReason, certMessage string
	// holds records whether the contender held its claim when the Store
	// last judged it.
	holds bool
}

// older orders contenders: earlier creation first, ties by UID.
func older(a, b *contender) int {
	return cmp.Or(a.created.Compare(b.created), cmp.Compare(a.uid, b.uid))
}

// judge decides, oldest first, which contenders win their claims: a
// contender holds its claim unless an older holder conflicts with it, and is
// admitted when it holds it and its certificates pass. Contenders of one
// domain interact only through the same host or through wildcard routes, so
// callers may judge one host's contenders alone when the domain has no
// wildcard contender. held are plain contenders outside the judged set that
// hold their claims: they count as older holders of their namespace's hosts
// (which is all a wildcard route asks of the domain's other hosts) and are
// not decided. decide receives each judged contender's decision and whether
// it holds its claim.
func (c *AdmissionConfig) judge(contenders, held []*contender, decide func(ct *contender, d Decision, holds bool)) {
	slices.SortFunc(contenders, older)
	slices.SortFunc(held, older)
	byHost := map[string][]*contender{}
	var wildcards []*contender
	plainByNamespace := map[string]*contender{}
	hold := func(ct *contender) {
		if _, ok := plainByNamespace[ct.namespace]; !ok {
			plainByNamespace[ct.namespace] = ct
		}
	}
	for _, ct := range contenders {
		for len(held) > 0 && older(held[0], ct) < 0 {
			hold(held[0])
			held = held[1:]
		}
		msg := c.claimConflict(ct, byHost[ct.host], wildcards, plainByNamespace)
		d := Decision{Verdict: Admitted, Host: ct.host, WildcardPolicy: routecore.WildcardPolicyNone}
		if ct.wildcard {
			d.WildcardPolicy = routecore.WildcardPolicySubdomain
		}
		if msg != "" {
			d.Verdict, d.Reason, d.Message = Rejected, ReasonHostAlreadyClaimed, msg
			decide(ct, d, false)
			continue
		}
		if ct.wildcard {
			wildcards = append(wildcards, ct)
		} else {
			byHost[ct.host] = append(byHost[ct.host], ct)
			hold(ct)
		}
		if ct.certReason != "" {
			d.Verdict, d.Reason, d.Message = Rejected, ct.certReason, ct.certMessage
		}
		decide(ct, d, true)
	}
}

// claimConflict returns why ct loses to an older contender holding its
// claim, or "". While the namespace ownership check is on, messages never
// name Routes of other namespaces: their names are not the reader's
// business. With it off, any namespace may share a host, and a conflict
// names the Route holding the host and path, whatever its namespace, as
// OpenShift's router does.
func (c *AdmissionConfig) claimConflict(ct *contender, sameHost, wildcards []*contender, plainByNamespace map[string]*contender) string {
	foreign := func(o *contender) bool { return o.namespace != ct.namespace && !c.DisableNamespaceOwnershipCheck }
	exposes := func(o *contender) string {
		return fmt.Sprintf("route %s already exposes %s and is older", o.name, ct.host)
	}
	if !ct.wildcard {
		for _, o := range sameHost {
			switch {
			case foreign(o):
				return fmt.Sprintf("a route in another namespace holds %s and is older than %s", ct.host, ct.name)
			case sameHostConflict(o, ct):
				return exposes(o)
			}
		}
		for _, w := range wildcards {
			switch {
			case foreign(w):
				return fmt.Sprintf("a route in another namespace holds host %s", ct.host)
			case w.host == ct.host && sameHostConflict(w, ct):
				// The wildcard route's own host is its claim too: the
				// younger plain route would take that host's traffic.
				return exposes(w)
			}
		}
		return ""
	}
	for _, w := range wildcards {
		switch {
		case foreign(w):
			return fmt.Sprintf("a route in another namespace holds host %s", ct.host)
		case w.path == ct.path:
			return fmt.Sprintf("wildcard route %s/%s has host *.%s, blocking %s", w.namespace, w.name, DomainKey(w.host), ct.host)
		case w.host == ct.host && sameHostConflict(w, ct):
			return exposes(w)
		}
	}
	if !c.DisableNamespaceOwnershipCheck {
		for ns := range plainByNamespace {
			if ns != ct.namespace {
				return fmt.Sprintf("a route in another namespace holds host %s", ct.host)
			}
		}
	}
	// Its own host is a wildcard route's claim too, under the rules of
	// plain routes (OpenShift's UniqueHost): the routes of the host that
	// are left belong to ct's namespace, or the check is off.
	for _, o := range sameHost {
		if sameHostConflict(o, ct) {
			return exposes(o)
		}
	}
	return ""
}

// sameHostConflict reports whether two routes of one host cannot both hold
// it: they have the same path, or both are TLS routes and one is
// passthrough (which takes the host's whole TLS traffic, by SNI).
func sameHostConflict(a, b *contender) bool {
	return a.path == b.path || (a.tls && b.tls && (a.passthru || b.passthru))
}

// domainState holds the contenders for hosts in one domain.
type domainState struct {
	hosts     map[string]map[string]*contender // host -> route key -> contender
	wildcards map[string]*contender            // route key -> wildcard contender
	// holders are the plain contenders holding their claims, by namespace,
	// oldest first: what a wildcard contender asks of the domain's hosts.
	holders map[string][]*contender
}

// setHolds records whether a plain contender holds its claim.
func (ds *domainState) setHolds(ct *contender, holds bool) {
	if ct.holds == holds {
		return
	}
	ct.holds = holds
	if ct.wildcard {
		return
	}
	list := ds.holders[ct.namespace]
	i, _ := slices.BinarySearchFunc(list, ct, older)
	if holds {
		ds.holders[ct.namespace] = slices.Insert(list, i, ct)
		return
	}
	if j := slices.Index(list[i:], ct); j >= 0 { // past contenders of the same age
		list = slices.Delete(list, i+j, i+j+1)
	}
	if len(list) == 0 {
		delete(ds.holders, ct.namespace)
	} else {
		ds.holders[ct.namespace] = list
	}
}

// oldestHolders returns, of the plain contenders holding hosts other than
// skip, the oldest and the oldest of another namespace: for a wildcard
// contender of any namespace, whether another namespace holds an older host
// is whether one of those two is older and of another namespace.
func (ds *domainState) oldestHolders(skip map[string]bool) []*contender {
	var first, second *contender
	for _, list := range ds.holders {
		i := 0
		for i < len(list) && skip[list[i].host] {
			i++
		}
		if i == len(list) {
			continue
		}
		switch ct := list[i]; {
		case first == nil || older(ct, first) < 0:
			first, second = ct, first
		case second == nil || older(ct, second) < 0:
			second = ct
		}
	}
	var out []*contender
	for _, ct := range []*contender{first, second} {
		if ct != nil {
			out = append(out, ct)
		}
	}
	return out
}

// judgeHosts re-judges the given hosts of a domain with wildcard routes in
// time proportional to them, not to the domain. A plain contender's verdict
// depends only on its host and on the wildcard contenders that hold their
// claims; a wildcard contender's on the other wildcards, on its own host and
// on whether another namespace holds an older host of the domain. So it
// judges the wildcards with the contenders of the given hosts and of the
// wildcards' hosts, and stands in for every other host with the oldest
// holders oldestHolders picks. If every wildcard contender keeps its hold,
// the other hosts keep their verdicts: the judgement is recorded and
// judgeHosts returns true. Otherwise it records nothing and returns false,
// and the whole domain must be judged.
func (ds *domainState) judgeHosts(cfg *AdmissionConfig, hosts map[string]bool, record func(*contender, Decision, bool)) bool {
	judged := make(map[string]bool, len(hosts)+len(ds.wildcards))
	var contenders []*contender
	for _, w := range ds.wildcards {
		contenders = append(contenders, w)
		judged[w.host] = true
	}
	for host := range hosts {
		judged[host] = true
	}
	for host := range judged {
		for _, ct := range ds.hosts[host] {
			contenders = append(contenders, ct)
		}
	}
	type result struct {
		ct    *contender
		d     Decision
		holds bool
	}
	results := make([]result, 0, len(contenders))
	stable := true
	cfg.judge(contenders, ds.oldestHolders(judged), func(ct *contender, d Decision, holds bool) {
		stable = stable && (!ct.wildcard || holds == ct.holds)
		results = append(results, result{ct, d, holds})
	})
	if !stable {
		return false
	}
	for _, r := range results {
		record(r.ct, r.d, r.holds)
	}
	return true
}
