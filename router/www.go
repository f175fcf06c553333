package router

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/routeshift/routeshift/routecore"
)

// Redirect claims (routeshift.io/www-redirect). A route with the
// annotation claims its other host (routecore.WWWRedirectHost of its
// effective host) besides its own. The claim never takes anything from
// another route: it is judged after the host claims, and a route's own
// admission never depends on it. A redirect claim holds when
//
//   - its route is served (admitted for its own host);
//   - no route of the router names the other host as its own host
//     (a contender for it: in the shard and past the checks that need no
//     other route), whatever their ages;
//   - the other host is in no denied domain and, with an allowed list, in
//     an allowed domain;
//   - no wildcard route of another namespace holds the other host's domain
//     (while the namespace ownership check is on);
//   - no older redirect claim of the same host holds it and is of another
//     namespace (ownership check on) or has the same path.
//
// A served route whose claim does not hold is served for its own host
// only, and its Admitted condition says why the other host is not
// redirected.

// redirectClaim is a route's claim of its other host.
type redirectClaim struct {
	ct   *contender // the route's own contender: key, namespace, age, path
	host string     // the other host
	// holds and why are the claim's last judgement: why says, for a
	// served route, why the claim does not hold ("" when it does).
	holds bool
	why   string
}

// wwwClaims are the Store's redirect claims.
type wwwClaims struct {
	byHost   map[string]map[string]*redirectClaim // other host -> route key -> claim
	byDomain map[string]map[string]bool           // domain -> other hosts claimed in it
	dirty    map[string]bool                      // other hosts to judge again
	// withdrawn are the claims withdrawn since the last Build, by route
	// key: a route judged again claims anew, and starts from its former
	// claim's judgement, so that what it serves and says does not change
	// back and forth within a Build.
	withdrawn map[string]*redirectClaim
}

// markRedirect asks for the claims of host to be judged again.
func (w *wwwClaims) markRedirect(host string) {
	if w.byHost[host] != nil {
		w.dirty[host] = true
	}
}

// domainChanged asks for every claim in domain to be judged again: a
// wildcard route there won or lost its claim.
func (w *wwwClaims) domainChanged(domain string) {
	for host := range w.byDomain[domain] {
		w.dirty[host] = true
	}
}

// claimRedirect records the redirect claim of a route that competes for
// its own host (ct), when it asks for one and can have one.
func (s *Store) claimRedirect(st *routeState, r *routecore.Route, ct *contender) {
	if ct.wildcard || !isTrue(r.Annotations[routecore.AnnWWWRedirect]) || routecore.WWWRedirectHostError(ct.host) != "" {
		return
	}
	if tls := r.Spec.TLS; tls != nil && tls.Termination == routecore.TLSTerminationPassthrough {
		return
	}
	w := &s.www
	if w.byHost == nil {
		w.byHost, w.byDomain, w.dirty = map[string]map[string]*redirectClaim{}, map[string]map[string]bool{}, map[string]bool{}
		w.withdrawn = map[string]*redirectClaim{}
	}
	c := &redirectClaim{ct: ct, host: routecore.WWWRedirectHost(ct.host)}
	if prev := w.withdrawn[ct.key]; prev != nil && prev.host == c.host {
		c.holds, c.why = prev.holds, prev.why
	}
	st.redirect = c
	if w.byHost[c.host] == nil {
		w.byHost[c.host] = map[string]*redirectClaim{}
	}
	w.byHost[c.host][ct.key] = c
	addToIndex(w.byDomain, DomainKey(c.host), c.host)
	w.dirty[c.host] = true
}

// withdrawRedirect removes the route's redirect claim, if any.
func (s *Store) withdrawRedirect(st *routeState) {
	c := st.redirect
	if c == nil {
		return
	}
	st.redirect = nil
	w := &s.www
	w.withdrawn[c.ct.key] = c
	delete(w.byHost[c.host], c.ct.key)
	if len(w.byHost[c.host]) == 0 {
		delete(w.byHost, c.host)
		removeFromIndex(w.byDomain, DomainKey(c.host), c.host)
		delete(w.dirty, c.host)
		return
	}
	w.dirty[c.host] = true
}

// judgeRedirects judges the claims of the hosts marked since the last
// Build, after the host claims, and updates what their routes serve and
// say.
func (s *Store) judgeRedirects(routes *PMapEditor[*Route], decisions *PMapEditor[Decision], changed Changes) {
	for host := range s.www.dirty {
		claims := make([]*redirectClaim, 0, len(s.www.byHost[host]))
		for _, c := range s.www.byHost[host] {
			claims = append(claims, c)
		}
		slices.SortFunc(claims, func(a, b *redirectClaim) int { return older(a.ct, b.ct) })
		var held []*redirectClaim
		for _, c := range claims {
			st := s.routes[c.ct.key]
			holds, why := false, ""
			if st.served != nil {
				why = s.redirectConflict(c, held)
				holds = why == ""
			}
			if holds {
				held = append(held, c)
			}
			if holds != c.holds || why != c.why {
				c.holds, c.why = holds, why
				s.redirectChanged(c.ct.key, st, routes, decisions, changed)
			}
		}
	}
	clear(s.www.dirty)
	clear(s.www.withdrawn)
}

// redirectConflict says why claim c cannot hold its host, held being the
// older claims of the host that hold it; "" when it can.
func (s *Store) redirectConflict(c *redirectClaim, held []*redirectClaim) string {
	host, domain := c.host, DomainKey(c.host)
	foreign := func(namespace string) bool {
		return namespace != c.ct.namespace && !s.cfg.DisableNamespaceOwnershipCheck
	}
	ds := s.domains[domain]
	if ds != nil && len(ds.hosts[host]) > 0 {
		return fmt.Sprintf("a route has %s as its host", host)
	}
	if ds != nil {
		for _, w := range ds.wildcards {
			if w.host == host {
				return fmt.Sprintf("a route has %s as its host", host)
			}
		}
	}
	if s.cfg.DeniedDomains.Matches(host) {
		return fmt.Sprintf("%s is in the list of denied domains", host)
	}
	if len(s.cfg.AllowedDomains) > 0 && !s.cfg.AllowedDomains.Matches(host) {
		return fmt.Sprintf("%s is not in the allowed list of domains", host)
	}
	if ds != nil {
		for _, w := range ds.wildcards {
			if w.holds && foreign(w.namespace) {
				return fmt.Sprintf("a route in another namespace holds host %s", host)
			}
		}
	}
	for _, o := range held {
		switch {
		case foreign(o.ct.namespace):
			return fmt.Sprintf("an older route in another namespace redirects %s", host)
		case o.ct.path == c.ct.path:
			return fmt.Sprintf("route %s already redirects %s and is older", o.ct.name, host)
		}
	}
	return ""
}

// redirectChanged brings the route's served value and decision in line
// with its redirect claim's new judgement.
func (s *Store) redirectChanged(k string, st *routeState, routes *PMapEditor[*Route], decisions *PMapEditor[Decision], changed Changes) {
	if st.served != nil && st.served.WWWRedirectHost != st.redirectHost() {
		next := *st.served
		next.WWWRedirectHost = st.redirectHost()
		st.served = &next
		routes.Set(k, st.served)
		changed.Routes[k] = true
	}
	if !st.decided || st.decision.Verdict != Admitted {
		return
	}
	if d := st.decision; d.Message != st.redirectNote() {
		d.Message = st.redirectNote()
		st.decision = d
		decisions.Set(k, d)
		changed.Routes[k] = true
	}
}

// redirectHost is the other host the route serves: its claim's, while
// the claim holds.
func (st *routeState) redirectHost() string {
	if c := st.redirect; c != nil && c.holds {
		return c.host
	}
	return ""
}

// redirectNote is the message of an admitted route whose redirect claim
// does not hold, "" otherwise.
func (st *routeState) redirectNote() string {
	c := st.redirect
	if c == nil || c.why == "" {
		return ""
	}
	return fmt.Sprintf("%s: %s is not redirected to this route: %s", routecore.AnnWWWRedirect, c.host, c.why)
}

// isTrue reads a boolean annotation as the catalogue does.
func isTrue(v string) bool {
	b, _ := strconv.ParseBool(v)
	return b
}
