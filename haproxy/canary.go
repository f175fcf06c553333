package haproxy

import (
	"github.com/routeshift/routeshift/router"
)

// Header and cookie canaries (routeshift.io/canary-*): acls read the
// header and the cookie, two http-request rules set txn.canary to "want"
// (the canary serves the request) or "never" (another service does), and
// use-server rules pick one of the chosen services' server slots at random
// (txn.canary_pick), then, in slot order, the first usable one: HAProxy
// skips use-server rules whose server is disabled or down. use-server
// selects servers of weight 0 and runs before the sticky-session cookie
// is read. A request neither decides is balanced by the weights. Slots
// added through the runtime API get no use-server rule until the next
// reload. Routes without a usable canary render nothing of it.

// CanaryData is a route's canary rules.
type CanaryData struct {
	ACLs []CanaryACL
	// Want and Never are the conditions of the two decisions.
	Want, Never string
	// Picks are the slots each decision chooses from; a decision without
	// slots has none.
	Picks []CanaryPick
}

// CanaryACL is one named acl: its name and its criterion.
type CanaryACL struct {
	Name, Criterion string
}

// CanaryPick is the server slots of one decision ("want" or "never").
type CanaryPick struct {
	Decision string
	Servers  []string
}

// canaryRules fills in the route's canary acls and decisions, nothing
// when the route has no usable canary (a canary-backend among the
// alternate backends, and a header or cookie). It returns why a value
// cannot be written safely, or "".
func canaryRules(rt *router.Route, d *BackendData) string {
	o := &rt.Overrides
	if canaryIndex(rt) < 0 || o.CanaryByHeader == "" && o.CanaryByCookie == "" {
		return ""
	}
	const bad = "a canary header, cookie, value or pattern cannot be quoted"
	c := &CanaryData{}
	var hdrWant, hdrNever, ckWant, ckNever string
	if h := o.CanaryByHeader; h != "" {
		if !tokenSafe(h) {
			return bad
		}
		want := "-m str 'always'"
		switch {
		case o.CanaryByHeaderValue != "" && o.CanaryByHeaderPattern != "":
			// Exclusive: the webhook refuses both; the router serves
			// the route without the header.
			want = ""
		case o.CanaryByHeaderValue != "":
			v, ok := quote(o.CanaryByHeaderValue)
			if !ok {
				return bad
			}
			want = "-m str " + v
		case o.CanaryByHeaderPattern != "":
			p, ok := quote(o.CanaryByHeaderPattern)
			if !ok {
				return bad
			}
			want = "-m reg " + p
		}
		if want != "" {
			hdrWant, hdrNever = "canary_header_want", "canary_header_never"
			c.ACLs = append(c.ACLs, CanaryACL{hdrWant, "req.fhdr(" + h + ") " + want}, CanaryACL{hdrNever, "req.fhdr(" + h + ") -m str 'never'"})
		}
	}
	if ck := o.CanaryByCookie; ck != "" {
		if !tokenSafe(ck) {
			return bad
		}
		ckWant, ckNever = "canary_cookie_want", "canary_cookie_never"
		c.ACLs = append(c.ACLs, CanaryACL{ckWant, "req.cook(" + ck + ") -m str 'always'"}, CanaryACL{ckNever, "req.cook(" + ck + ") -m str 'never'"})
	}
	switch {
	case hdrWant != "" && ckWant != "":
		c.Want = hdrWant + " || !" + hdrNever + " " + ckWant
		c.Never = hdrNever + " || !" + hdrWant + " " + ckNever
	case hdrWant != "":
		c.Want, c.Never = hdrWant, hdrNever
	case ckWant != "":
		c.Want, c.Never = ckWant, ckNever
	default:
		return ""
	}
	d.Canary = c
	return ""
}

// canaryIndex is the index in rt.Backends of the canary: an alternate
// backend named by canary-backend that is not spec.to's service; -1 when
// there is none.
func canaryIndex(rt *router.Route) int {
	name := rt.Overrides.CanaryBackend
	if name == "" || len(rt.Backends) == 0 || rt.Backends[0].Service.Name == name {
		return -1
	}
	for i := 1; i < len(rt.Backends); i++ {
		if rt.Backends[i].Service.Name == name {
			return i
		}
	}
	return -1
}

// canaryServers fills in the slots of the decisions from the backend's
// slot groups (named s0, s1... in order): "want" chooses among the
// canary's slots, "never" among those of the other services with a weight
// above 0, or of all the other services when none has one.
func canaryServers(rt *router.Route, d *BackendData, groups []slotGroup) {
	if d.Canary == nil {
		return
	}
	i := canaryIndex(rt)
	canary := router.Key(rt.Backends[i].Service.Namespace, rt.Backends[i].Service.Name)
	weighted := map[string]bool{}
	for _, b := range rt.Backends {
		if key := router.Key(b.Service.Namespace, b.Service.Name); key != canary && b.Weight > 0 {
			weighted[key] = true
		}
	}
	var want, never, others []string
	n := 0
	for _, g := range groups {
		for range g.slots {
			name := d.Servers[n].Name
			n++
			switch {
			case g.service == canary:
				want = append(want, name)
			case weighted[g.service]:
				never = append(never, name)
			default:
				others = append(others, name)
			}
		}
	}
	if len(weighted) == 0 {
		never = others
	}
	if len(want) > 0 {
		d.Canary.Picks = append(d.Canary.Picks, CanaryPick{Decision: "want", Servers: want})
	}
	if len(never) > 0 {
		d.Canary.Picks = append(d.Canary.Picks, CanaryPick{Decision: "never", Servers: never})
	}
}

// tokenSafe reports whether s is made of letters, digits, '-', '_' and
// '.', which a sample fetch argument holds as they are.
func tokenSafe(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
