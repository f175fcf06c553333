package router

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router/routertest"
)

// Route builders (router/routertest), under the short names these tests use.
var (
	epoch      = routertest.Epoch
	rt         = routertest.Route
	withPath   = routertest.WithPath
	wildcard   = routertest.Wildcard
	withLabels = routertest.WithLabels
	withTLS    = routertest.WithTLS
)

// verdicts renders every decision as "ns/name admitted" or
// "ns/name rejected Reason: message", sorted, as `routeshift render` prints.
func verdicts(s Snapshot) []string {
	var out []string
	for k, d := range s.Decisions.All() {
		line := k + " " + d.Verdict.String()
		if d.Verdict == Rejected {
			line += " " + d.Reason + ": " + d.Message
		}
		out = append(out, line)
	}
	slices.Sort(out)
	return out
}

func expect(t *testing.T, s Snapshot, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := verdicts(s); !slices.Equal(got, want) {
		t.Errorf("decisions:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func store(cfg AdmissionConfig, routes ...*routecore.Route) *Store {
	s := NewStore(cfg)
	for _, r := range routes {
		s.SetRoute(r)
	}
	return s
}

// TestHostClaims: the oldest route wins a host; other namespaces lose it,
// the same namespace adds paths (docs/router.md, host claims).
func TestHostClaims(t *testing.T) {
	cfg := AdmissionConfig{}
	t.Run("another namespace loses the host", func(t *testing.T) {
		s := store(cfg, rt("nsa", "r1", "h.example.com", 1), rt("nsb", "r2", "h.example.com", 2))
		expect(t, s.Build(true), "nsa/r1 admitted",
			"nsb/r2 rejected HostAlreadyClaimed: a route in another namespace holds h.example.com and is older than r2")
	})
	t.Run("paths of the same namespace are added", func(t *testing.T) {
		s := store(cfg, rt("nsa", "a", "h.example.com", 1, withPath("/a")), rt("nsa", "b", "h.example.com", 2, withPath("/b")))
		expect(t, s.Build(true), "nsa/a admitted", "nsa/b admitted")
	})
	t.Run("on the same path the oldest wins", func(t *testing.T) {
		s := store(cfg, rt("nsa", "old", "h.example.com", 1, withPath("/a")), rt("nsa", "new", "h.example.com", 2, withPath("/a")))
		expect(t, s.Build(true), "nsa/old admitted",
			"nsa/new rejected HostAlreadyClaimed: route old already exposes h.example.com and is older")
	})
	t.Run("deleting the older route hands the host to the other namespace", func(t *testing.T) {
		s := store(cfg, rt("nsa", "r1", "h.example.com", 1, withPath("/one")), rt("nsb", "r2", "h.example.com", 2),
			rt("nsa", "r3", "h.example.com", 3, withPath("/three")))
		expect(t, s.Build(true), "nsa/r1 admitted", "nsa/r3 admitted",
			"nsb/r2 rejected HostAlreadyClaimed: a route in another namespace holds h.example.com and is older than r2")
		s.DeleteRoute("nsa", "r1")
		expect(t, s.Build(true), "nsb/r2 admitted",
			"nsa/r3 rejected HostAlreadyClaimed: a route in another namespace holds h.example.com and is older than r3")
	})
	t.Run("an older route relabelled into the shard replaces the holder", func(t *testing.T) {
		sharded := AdmissionConfig{RouteSelector: labels.SelectorFromSet(labels.Set{"shard": "a"})}
		y := rt("nsy", "y", "h.example.com", 1)
		s := store(sharded, y, rt("nsx", "x", "h.example.com", 2, withLabels("shard", "a")))
		expect(t, s.Build(true), "nsx/x admitted", "nsy/y ignored")
		relabelled := y.DeepCopy()
		relabelled.Labels, relabelled.ResourceVersion = map[string]string{"shard": "a"}, "2"
		s.SetRoute(relabelled)
		expect(t, s.Build(true), "nsy/y admitted",
			"nsx/x rejected HostAlreadyClaimed: a route in another namespace holds h.example.com and is older than x")
	})
	t.Run("deleting the holder promotes the next oldest contender", func(t *testing.T) {
		s := store(cfg, rt("ns1", "a", "h.example.com", 1), rt("ns2", "b", "h.example.com", 2), rt("ns3", "c", "h.example.com", 3))
		s.Build(true)
		s.DeleteRoute("ns1", "a")
		expect(t, s.Build(true), "ns2/b admitted",
			"ns3/c rejected HostAlreadyClaimed: a route in another namespace holds h.example.com and is older than c")
	})
	t.Run("ties in creation time are broken by UID", func(t *testing.T) {
		s := store(cfg, rt("ns2", "b", "h.example.com", 1), rt("ns1", "a", "h.example.com", 1))
		expect(t, s.Build(true), "ns1/a admitted",
			"ns2/b rejected HostAlreadyClaimed: a route in another namespace holds h.example.com and is older than b")
	})
	t.Run("passthrough excludes other TLS routes of the host, not plain ones", func(t *testing.T) {
		s := store(cfg, rt("ns", "pt", "h.example.com", 1, withTLS(routecore.TLSTerminationPassthrough)),
			rt("ns", "edge", "h.example.com", 2, withPath("/api"), withTLS(routecore.TLSTerminationEdge)),
			rt("ns", "plain", "h.example.com", 3, withPath("/web")))
		expect(t, s.Build(true), "ns/pt admitted", "ns/plain admitted",
			"ns/edge rejected HostAlreadyClaimed: route pt already exposes h.example.com and is older")
	})
}

// TestNamespaceOwnership: each case with the namespace ownership check on
// and off. On, the owner namespace owns the host, its paths and, for
// wildcard routes, the domain; off, a route is rejected only when its
// host+path is already claimed (docs/router.md). The messages are
// OpenShift's router's.
func TestNamespaceOwnership(t *testing.T) {
	r1 := rt("ns1", "r1", "www.abc.xyz", 1)
	tests := []struct {
		name    string
		routes  []*routecore.Route
		on, off []string
	}{
		{"the first claim", []*routecore.Route{r1},
			[]string{"ns1/r1 admitted"},
			[]string{"ns1/r1 admitted"}},
		// On, ns1 owns the host and all its paths; off, ns2 may add a
		// path.
		{"another namespace adds a path",
			[]*routecore.Route{r1, rt("ns2", "r2", "www.abc.xyz", 2, withPath("/path1/path2"))},
			[]string{"ns1/r1 admitted", "ns2/r2 rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than r2"},
			[]string{"ns1/r1 admitted", "ns2/r2 admitted"}},
		// The owner's own paths never conflict.
		{"the owner adds a path",
			[]*routecore.Route{r1, rt("ns1", "r1b", "www.abc.xyz", 2, withPath("/path1"))},
			[]string{"ns1/r1 admitted", "ns1/r1b admitted"},
			[]string{"ns1/r1 admitted", "ns1/r1b admitted"}},
		// Off: another host of the domain is no host+path already
		// claimed.
		{"a wildcard owner and another namespace's host in its domain",
			[]*routecore.Route{rt("ns1", "w", "wildcard.abc.xyz", 1, wildcard), rt("ns2", "z", "z.abc.xyz", 2)},
			[]string{"ns1/w admitted", "ns2/z rejected HostAlreadyClaimed: a route in another namespace holds host z.abc.xyz"},
			[]string{"ns1/w admitted", "ns2/z admitted"}},
		// On: r1 makes ns1 the owner of the domain abc.xyz for wildcard
		// routes.
		{"another namespace's wildcard in the owner's domain",
			[]*routecore.Route{r1, rt("ns2", "w", "wildcard.abc.xyz", 2, wildcard)},
			[]string{"ns1/r1 admitted", "ns2/w rejected HostAlreadyClaimed: a route in another namespace holds host wildcard.abc.xyz"},
			[]string{"ns1/r1 admitted", "ns2/w admitted"}},
		// On: as OpenShift's router, a plain host blocks other namespaces'
		// wildcard claims on its domain, not their plain hosts.
		{"other namespaces claim other hosts of the domain",
			[]*routecore.Route{r1, rt("ns2", "foo", "foo.abc.xyz", 2), rt("ns3", "bar", "bar.abc.xyz", 3), rt("ns4", "baz", "baz.abc.xyz", 4)},
			[]string{"ns1/r1 admitted", "ns2/foo admitted", "ns3/bar admitted", "ns4/baz admitted"},
			[]string{"ns1/r1 admitted", "ns2/foo admitted", "ns3/bar admitted", "ns4/baz admitted"}},
		// On: as another namespace's wildcard in the owner's domain.
		{"a third namespace's wildcard",
			[]*routecore.Route{r1, rt("ns3", "wildthing", "wildthing.abc.xyz", 3, wildcard)},
			[]string{"ns1/r1 admitted", "ns3/wildthing rejected HostAlreadyClaimed: a route in another namespace holds host wildthing.abc.xyz"},
			[]string{"ns1/r1 admitted", "ns3/wildthing admitted"}},
		// On: ns1 owns the host, so no other namespace gets in, whatever
		// the path.
		{"a claimed host+path, in the same namespace and in another",
			[]*routecore.Route{r1, rt("ns2", "r2", "www.abc.xyz", 2, withPath("/p1/p2")),
				rt("ns2", "rx", "www.abc.xyz", 3, withPath("/p1/p2")), rt("ns5", "ry", "www.abc.xyz", 4, withPath("/p1/p2"))},
			[]string{"ns1/r1 admitted",
				"ns2/r2 rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than r2",
				"ns2/rx rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than rx",
				"ns5/ry rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than ry"},
			[]string{"ns1/r1 admitted", "ns2/r2 admitted",
				"ns2/rx rejected HostAlreadyClaimed: route r2 already exposes www.abc.xyz and is older",
				"ns5/ry rejected HostAlreadyClaimed: route r2 already exposes www.abc.xyz and is older"}},

		// A wildcard route's own host is a claim under the rules of plain
		// routes (OpenShift's UniqueHost), whichever of the two is older.
		{"a younger wildcard route on a plain route's host and path, same namespace",
			[]*routecore.Route{rt("ns1", "plain", "foo.example.com", 1), rt("ns1", "w", "foo.example.com", 2, wildcard)},
			[]string{"ns1/plain admitted", "ns1/w rejected HostAlreadyClaimed: route plain already exposes foo.example.com and is older"},
			[]string{"ns1/plain admitted", "ns1/w rejected HostAlreadyClaimed: route plain already exposes foo.example.com and is older"}},
		{"a younger wildcard route on another namespace's host and path",
			[]*routecore.Route{rt("ns1", "plain", "foo.example.com", 1), rt("ns2", "w", "foo.example.com", 2, wildcard)},
			[]string{"ns1/plain admitted", "ns2/w rejected HostAlreadyClaimed: a route in another namespace holds host foo.example.com"},
			[]string{"ns1/plain admitted", "ns2/w rejected HostAlreadyClaimed: route plain already exposes foo.example.com and is older"}},
		{"a younger wildcard route on a plain route's host with another path",
			[]*routecore.Route{rt("ns1", "plain", "foo.example.com", 1), rt("ns1", "w", "foo.example.com", 2, wildcard, withPath("/api"))},
			[]string{"ns1/plain admitted", "ns1/w admitted"},
			[]string{"ns1/plain admitted", "ns1/w admitted"}},
		{"a younger wildcard TLS route on a passthrough route's host",
			[]*routecore.Route{rt("ns1", "pt", "foo.example.com", 1, withTLS(routecore.TLSTerminationPassthrough)),
				rt("ns1", "w", "foo.example.com", 2, wildcard, withPath("/api"), withTLS(routecore.TLSTerminationEdge))},
			[]string{"ns1/pt admitted", "ns1/w rejected HostAlreadyClaimed: route pt already exposes foo.example.com and is older"},
			[]string{"ns1/pt admitted", "ns1/w rejected HostAlreadyClaimed: route pt already exposes foo.example.com and is older"}},
		{"a younger plain TLS route on a passthrough wildcard route's host",
			[]*routecore.Route{rt("ns1", "w", "foo.example.com", 1, wildcard, withTLS(routecore.TLSTerminationPassthrough)),
				rt("ns1", "edge", "foo.example.com", 2, withPath("/api"), withTLS(routecore.TLSTerminationEdge)),
				rt("ns1", "plain", "foo.example.com", 3, withPath("/web"))},
			[]string{"ns1/w admitted", "ns1/plain admitted", "ns1/edge rejected HostAlreadyClaimed: route w already exposes foo.example.com and is older"},
			[]string{"ns1/w admitted", "ns1/plain admitted", "ns1/edge rejected HostAlreadyClaimed: route w already exposes foo.example.com and is older"}},
		{"a younger plain route on a wildcard route's host and path",
			[]*routecore.Route{rt("ns1", "w", "www.abc.xyz", 1, wildcard), rt("ns1", "r", "www.abc.xyz", 2), rt("ns1", "p", "www.abc.xyz", 3, withPath("/p"))},
			[]string{"ns1/w admitted", "ns1/p admitted", "ns1/r rejected HostAlreadyClaimed: route w already exposes www.abc.xyz and is older"},
			[]string{"ns1/w admitted", "ns1/p admitted", "ns1/r rejected HostAlreadyClaimed: route w already exposes www.abc.xyz and is older"}},
		{"a younger wildcard TLS route on a passthrough wildcard route's host",
			[]*routecore.Route{rt("ns1", "w", "foo.example.com", 1, wildcard, withTLS(routecore.TLSTerminationPassthrough)),
				rt("ns1", "w2", "foo.example.com", 2, wildcard, withPath("/api"), withTLS(routecore.TLSTerminationEdge))},
			[]string{"ns1/w admitted", "ns1/w2 rejected HostAlreadyClaimed: route w already exposes foo.example.com and is older"},
			[]string{"ns1/w admitted", "ns1/w2 rejected HostAlreadyClaimed: route w already exposes foo.example.com and is older"}},
		{"wildcard routes share the domain by path",
			[]*routecore.Route{rt("ns1", "w", "wildcard.abc.xyz", 1, wildcard), rt("ns1", "w2", "other.abc.xyz", 2, wildcard, withPath("/api")),
				rt("ns1", "w3", "third.abc.xyz", 3, wildcard), rt("ns1", "plain", "z.abc.xyz", 4)},
			[]string{"ns1/w admitted", "ns1/w2 admitted", "ns1/plain admitted",
				"ns1/w3 rejected HostAlreadyClaimed: wildcard route ns1/w has host *.abc.xyz, blocking third.abc.xyz"},
			[]string{"ns1/w admitted", "ns1/w2 admitted", "ns1/plain admitted",
				"ns1/w3 rejected HostAlreadyClaimed: wildcard route ns1/w has host *.abc.xyz, blocking third.abc.xyz"}},
		{"another namespace's wildcard route with the same path",
			[]*routecore.Route{rt("ns1", "w", "wildcard.abc.xyz", 1, wildcard), rt("ns2", "w2", "other.abc.xyz", 2, wildcard)},
			[]string{"ns1/w admitted", "ns2/w2 rejected HostAlreadyClaimed: a route in another namespace holds host other.abc.xyz"},
			[]string{"ns1/w admitted", "ns2/w2 rejected HostAlreadyClaimed: wildcard route ns1/w has host *.abc.xyz, blocking other.abc.xyz"}},
	}
	for _, tt := range tests {
		for _, mode := range []struct {
			name string
			off  bool
			want []string
		}{{"check on", false, tt.on}, {"check off", true, tt.off}} {
			t.Run(tt.name+", "+mode.name, func(t *testing.T) {
				cfg := AdmissionConfig{AllowWildcardRoutes: true, DisableNamespaceOwnershipCheck: mode.off}
				expect(t, store(cfg, tt.routes...).Build(true), mode.want...)
			})
		}
	}
	t.Run("wildcard routes need ROUTER_ALLOW_WILDCARD_ROUTES", func(t *testing.T) {
		expect(t, store(AdmissionConfig{}, rt("ns1", "w", "wildcard.abc.xyz", 1, wildcard)).Build(true),
			"ns1/w rejected RouteNotAdmitted: wildcard routes are not allowed")
	})
}

// TestDomains: ROUTER_ALLOWED_DOMAINS and ROUTER_DENIED_DOMAINS match
// whole labels, the denied list winning (docs/router.md, domains).
func TestDomains(t *testing.T) {
	const (
		admitted   = "admitted"
		denied     = "rejected RouteNotAdmitted: host in list of denied domains"
		notAllowed = "rejected RouteNotAdmitted: host not in the allowed list of domains"
	)
	type host struct{ name, want string }
	tests := []struct {
		name            string
		allowed, denied string
		hosts           []host
	}{
		{"deny list only", "", "open.header.test, openshift.org, block.it", []host{
			{"foo.header.test", admitted}, {"www.allow.it", admitted}, {"www.openshift.test", admitted},
			{"open.header.test", denied}, {"www.open.header.test", denied}, {"block.it", denied},
			{"franco.baresi.block.it", denied}, {"openshift.org", denied}, {"api.openshift.org", denied},
		}},
		{"allow list only", "stickshift.org, kates.net", "", []host{
			{"stickshift.org", admitted}, {"www.stickshift.org", admitted}, {"kates.net", admitted},
			{"api.kates.net", admitted}, {"erno.r.kube.kates.net", admitted},
			{"www.open.header.test", notAllowed}, {"drive.ottomatic.org", notAllowed}, {"www.wayless.com", notAllowed},
			{"www.deny.it", notAllowed},
		}},
		// The deny list is checked first: hosts the allow list would admit
		// but the deny list names are denied for that.
		{"deny list beats allow list", "openshift.org, kates.net", "ops.openshift.org, metrics.kates.net", []host{
			{"openshift.org", admitted}, {"api.openshift.org", admitted}, {"m.api.openshift.org", admitted},
			{"kates.net", admitted}, {"api.kates.net", admitted},
			{"www.open.header.test", notAllowed}, {"ops.openshift.org", denied}, {"log.ops.openshift.org", denied},
			{"www.block.it", notAllowed}, {"metrics.kates.net", denied}, {"int.metrics.kates.net", denied},
		}},
	}
	for _, tt := range tests {
		cfg := AdmissionConfig{AllowedDomains: ParseDomainList(tt.allowed), DeniedDomains: ParseDomainList(tt.denied)}
		for _, h := range tt.hosts {
			t.Run(tt.name+" "+h.name, func(t *testing.T) {
				expect(t, store(cfg, rt("ns", "r", h.name, 1)).Build(true), "ns/r "+h.want)
			})
		}
	}
}

// TestShards: three routers select namespaces by label (name prefixes,
// which label selectors cannot express, become an "initial" label). Overlapped, router-2 (K-T)
// and router-3 (Q-Z) both serve Q-T; with router-2 narrowed to K-P, every
// namespace has exactly one router.
func TestShards(t *testing.T) {
	tests := []struct {
		name    string
		routers map[string]string // router -> its selector
		want    map[string]string // initial -> the routers that admit its namespace's route
	}{
		{"overlapped", map[string]string{
			"router-1": "initial in (a,b,c,d,e,f,g,h,i,j)",
			"router-2": "initial in (k,l,m,n,o,p,q,r,s,t)",
			"router-3": "initial in (q,r,s,t,u,v,w,x,y,z)",
		}, map[string]string{
			"a": "router-1", "b": "router-1", "c": "router-1", "d": "router-1", "e": "router-1",
			"f": "router-1", "g": "router-1", "h": "router-1", "i": "router-1", "j": "router-1",
			"k": "router-2", "l": "router-2", "m": "router-2", "n": "router-2", "o": "router-2", "p": "router-2",
			"q": "router-2 router-3", "r": "router-2 router-3", "s": "router-2 router-3", "t": "router-2 router-3",
			"u": "router-3", "v": "router-3", "w": "router-3", "x": "router-3", "y": "router-3", "z": "router-3",
		}},
		{"router-2 narrowed to K-P", map[string]string{
			"router-1": "initial in (a,b,c,d,e,f,g,h,i,j)",
			"router-2": "initial in (k,l,m,n,o,p)",
			"router-3": "initial in (q,r,s,t,u,v,w,x,y,z)",
		}, map[string]string{
			"a": "router-1", "b": "router-1", "c": "router-1", "d": "router-1", "e": "router-1",
			"f": "router-1", "g": "router-1", "h": "router-1", "i": "router-1", "j": "router-1",
			"k": "router-2", "l": "router-2", "m": "router-2", "n": "router-2", "o": "router-2", "p": "router-2",
			"q": "router-3", "r": "router-3", "s": "router-3", "t": "router-3",
			"u": "router-3", "v": "router-3", "w": "router-3", "x": "router-3", "y": "router-3", "z": "router-3",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string][]string{}
			for _, router := range slices.Sorted(maps.Keys(tt.routers)) {
				sel, err := labels.Parse(tt.routers[router])
				if err != nil {
					t.Fatal(err)
				}
				s := NewStore(AdmissionConfig{NamespaceSelector: sel})
				for i, l := range "abcdefghijklmnopqrstuvwxyz" {
					ns := string(l) + "-team"
					s.SetNamespace(ns, map[string]string{"initial": string(l)})
					s.SetRoute(rt(ns, "r", ns+".example.com", i))
				}
				for k, d := range s.Build(true).Decisions.All() {
					switch d.Verdict {
					case Admitted:
						got[k[:1]] = append(got[k[:1]], router)
					case Rejected:
						t.Errorf("%s rejects %s: %s", router, k, d.Message)
					}
				}
			}
			for initial, routers := range tt.want {
				if g := strings.Join(got[initial], " "); g != routers {
					t.Errorf("%s-team is served by %q, want %q", initial, g, routers)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("namespaces served: %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRouteShard: ROUTE_LABELS selects routes; a route relabelled out of the
// shard is ignored, and its host goes to the next contender.
func TestRouteShard(t *testing.T) {
	cfg := AdmissionConfig{RouteSelector: labels.SelectorFromSet(labels.Set{"sla": "high"})}
	holder := rt("ns1", "a", "h.example.com", 1, withLabels("sla", "high"))
	s := store(cfg, holder, rt("ns2", "b", "h.example.com", 2, withLabels("sla", "high")), rt("ns3", "c", "c.example.com", 3))
	expect(t, s.Build(true), "ns1/a admitted", "ns3/c ignored",
		"ns2/b rejected HostAlreadyClaimed: a route in another namespace holds h.example.com and is older than b")
	out := holder.DeepCopy()
	out.Labels, out.ResourceVersion = map[string]string{"sla": "low"}, "2"
	s.SetRoute(out)
	expect(t, s.Build(true), "ns1/a ignored", "ns2/b admitted", "ns3/c ignored")
}

// TestDefensiveChecks: routes that bypassed the webhook are judged by
// routecore's rules; annotation values are ignored, not refused.
func TestDefensiveChecks(t *testing.T) {
	long := strings.Repeat("a", 64)
	tests := []struct {
		name  string
		cfg   AdmissionConfig
		route *routecore.Route
		want  string
	}{
		{"no host", AdmissionConfig{}, rt("ns", "r", "", 1),
			"ns/r rejected NoHostValue: no host value was defined for the route"},
		{"invalid host", AdmissionConfig{}, rt("ns", "r", long+".example.com", 1),
			`ns/r rejected InvalidHost: host name validation errors: spec.host: Invalid value: "` + long + `.example.com": must be no more than 63 characters`},
		{"upper-case host", AdmissionConfig{}, rt("ns", "r", "WWW.example.com", 1),
			`ns/r rejected InvalidHost: host name validation errors: spec.host: Invalid value: "WWW.example.com": host must conform to DNS 952 subdomain conventions, ` +
				`spec.host: Invalid value: "WWW.example.com": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{"passthrough with a path", AdmissionConfig{}, rt("ns", "r", "h.example.com", 1, withPath("/x"), withTLS(routecore.TLSTerminationPassthrough)),
			`ns/r rejected RouteNotAdmitted: spec.path: Invalid value: "/x": passthrough termination does not support paths`},
		{"a bad annotation value is ignored", AdmissionConfig{}, rt("ns", "r", "h.example.com", 1,
			func(r *routecore.Route) { r.Annotations = map[string]string{routecore.AnnTimeout: "5 minutes"} }), "ns/r admitted"},
		{"a path over routecore's limit (HAProxy would refuse its rewrite)", AdmissionConfig{}, rt("ns", "r", "h.example.com", 1,
			withPath("/"+strings.Repeat("a.", 16400)), func(r *routecore.Route) {
				r.Annotations = map[string]string{routecore.AnnRewriteTarget: "/"}
			}), "ns/r rejected RouteNotAdmitted: spec.path: Too long: may not be more than 2048 bytes"},
		{"more header actions than routecore's limit", AdmissionConfig{}, rt("ns", "r", "h.example.com", 1, func(r *routecore.Route) {
			r.Spec.HTTPHeaders = &routecore.RouteHTTPHeaders{}
			for i := range routecore.MaxHeaderActions + 1 {
				r.Spec.HTTPHeaders.Actions.Request = append(r.Spec.HTTPHeaders.Actions.Request, routecore.RouteHTTPHeader{
					Name: fmt.Sprintf("X-%d", i), Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Delete}})
			}
		}), "ns/r rejected RouteNotAdmitted: spec.httpHeaders.actions.request: Invalid value: 21: request headers list can't exceed 20 items"},
		{"an over-long rewrite target is ignored", AdmissionConfig{}, rt("ns", "r", "h.example.com", 1, withPath("/a"), func(r *routecore.Route) {
			r.Annotations = map[string]string{routecore.AnnRewriteTarget: "/" + strings.Repeat("t", routecore.MaxRewriteTargetLength)}
		}), "ns/r admitted"},
		{"spec.subdomain with ROUTER_DOMAIN", AdmissionConfig{RouterDomain: "apps.example.com"},
			rt("ns", "r", "", 1, func(r *routecore.Route) { r.Spec.Subdomain = "shop" }), "ns/r admitted"},
		{"ROUTER_SUBDOMAIN names hostless routes", AdmissionConfig{HostnameTemplate: "${name}-${namespace}.apps.example.com"},
			rt("ns", "r", "", 1), "ns/r admitted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, store(tt.cfg, tt.route).Build(true), tt.want)
		})
	}
}

// TestEffectiveHost: ROUTER_SUBDOMAIN, its overrides, and spec.subdomain.
func TestEffectiveHost(t *testing.T) {
	tmpl := HostnameTemplate("${name}-${namespace}.apps.example.com")
	tests := []struct {
		name string
		cfg  AdmissionConfig
		r    *routecore.Route
		want string
	}{
		{"host kept", AdmissionConfig{HostnameTemplate: tmpl}, rt("ns", "r", "www.example.com", 1), "www.example.com"},
		{"template for hostless routes", AdmissionConfig{HostnameTemplate: tmpl}, rt("ns", "r", "", 1), "r-ns.apps.example.com"},
		{"ROUTER_OVERRIDE_HOSTNAME", AdmissionConfig{HostnameTemplate: tmpl, OverrideHostname: true}, rt("ns", "r", "www.example.com", 1), "r-ns.apps.example.com"},
		{"ROUTER_OVERRIDE_DOMAINS", AdmissionConfig{HostnameTemplate: tmpl, OverrideDomains: ParseDomainList("router.default.svc.cluster.local")},
			rt("ns", "r", "r-ns.router.default.svc.cluster.local", 1), "r-ns.apps.example.com"},
		{"other domains not overridden", AdmissionConfig{HostnameTemplate: tmpl, OverrideDomains: ParseDomainList("cluster.local")},
			rt("ns", "r", "www.example.com", 1), "www.example.com"},
		{"subdomain", AdmissionConfig{RouterDomain: "apps.example.com"}, rt("ns", "r", "", 1, func(r *routecore.Route) { r.Spec.Subdomain = "shop" }), "shop.apps.example.com"},
		{"upper-case host kept (validation refuses it)", AdmissionConfig{}, rt("ns", "r", "WWW.Example.com", 1), "WWW.Example.com"},
		{"upper-case host in ROUTER_OVERRIDE_DOMAINS", AdmissionConfig{HostnameTemplate: tmpl, OverrideDomains: ParseDomainList("cluster.local")},
			rt("ns", "r", "R-NS.Cluster.Local", 1), "r-ns.apps.example.com"},
	}
	for _, tt := range tests {
		if got := tt.cfg.effectiveHost(tt.r); got != tt.want {
			t.Errorf("%s: host %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestAdmissionExtendedValidation: EXTENDED_VALIDATION on rejects a route
// whose certificate is broken or does not match its key with
// ExtendedValidationFailed (the route still holds its host against other
// namespaces); off, the router admits and serves it as it is.
func TestAdmissionExtendedValidation(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	tlsWith := func(term routecore.TLSTerminationType, cert, key string) func(*routecore.Route) {
		return func(r *routecore.Route) {
			r.Spec.TLS = &routecore.TLSConfig{Termination: term, Certificate: cert, Key: key, CACertificate: string(p.CA.CertPEM)}
		}
	}
	leaf, leafKey, otherKey := string(p.Leaf.CertPEM), string(p.Leaf.KeyPEM), string(p.Other.KeyPEM)
	const mismatch = `spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`
	tests := []struct {
		name    string
		tls     func(*routecore.Route)
		message string // ExtendedValidationFailed message with validation on; "" when valid
	}{
		{"edge with matching key", tlsWith(routecore.TLSTerminationEdge, leaf, leafKey), ""},
		{"edge with another certificate's key", tlsWith(routecore.TLSTerminationEdge, leaf, otherKey), mismatch},
		{"reencrypt with another certificate's key", tlsWith(routecore.TLSTerminationReencrypt, leaf, otherKey), mismatch},
		{"edge with a certificate that is not PEM", tlsWith(routecore.TLSTerminationEdge, "not a certificate", leafKey),
			`spec.tls.certificate: Invalid value: "redacted certificate data": invalid/empty certificate data: data does not contain any valid RSA or ECDSA certificates`},
	}
	for _, tt := range tests {
		for _, extended := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, EXTENDED_VALIDATION=%v", tt.name, extended), func(t *testing.T) {
				r := rt("ns", "r", "www.example.com", 1, tt.tls)
				s := store(AdmissionConfig{ExtendedValidation: extended}, r, rt("other", "late", "www.example.com", 2))
				snap := s.Build(true)
				late := "other/late rejected HostAlreadyClaimed: a route in another namespace holds www.example.com and is older than late"
				if !extended || tt.message == "" {
					expect(t, snap, "ns/r admitted", late)
					got, ok := snap.Routes.Get("ns/r")
					if !ok || got.TLS == nil || got.TLS.Certificate != r.Spec.TLS.Certificate || got.TLS.Key != r.Spec.TLS.Key {
						t.Errorf("ns/r served %v with TLS %+v, want the route's certificate and key as written", ok, got)
					}
					return
				}
				expect(t, snap, "ns/r rejected ExtendedValidationFailed: "+tt.message, late)
				if _, ok := snap.Routes.Get("ns/r"); ok {
					t.Error("ns/r is served although rejected")
				}
			})
		}
	}
}

// TestAdmissionRules: one route on its own, from its object and the
// router's configuration to the whole decision (verdict, reason, message,
// effective host and wildcard policy). The checks run in order (a host,
// valid, not denied, allowed, wildcard policy) and the first that fails
// gives the reason, so cases that break several rules pin the order.
func TestAdmissionRules(t *testing.T) {
	tmpl := HostnameTemplate("${name}-${namespace}.apps.example.com")
	subdomain := func(s string) func(*routecore.Route) { return func(r *routecore.Route) { r.Spec.Subdomain = s } }
	none, sub := routecore.WildcardPolicyNone, routecore.WildcardPolicySubdomain
	admit := func(host string, policy routecore.WildcardPolicyType) Decision {
		return Decision{Verdict: Admitted, Host: host, WildcardPolicy: policy}
	}
	reject := func(reason, message, host string, policy routecore.WildcardPolicyType) Decision {
		return Decision{Verdict: Rejected, Reason: reason, Message: message, Host: host, WildcardPolicy: policy}
	}
	const (
		noHost     = "no host value was defined for the route"
		denied     = "host in list of denied domains"
		notAllowed = "host not in the allowed list of domains"
		noWildcard = "wildcard routes are not allowed"
	)
	long := strings.Repeat("n", 61) // with "-ns", one over a label's 63
	tests := []struct {
		name  string
		cfg   AdmissionConfig
		route *routecore.Route
		want  Decision
	}{
		{"a plain route", AdmissionConfig{}, rt("ns", "r", "www.example.com", 1), admit("www.example.com", none)},
		{"no wildcard policy written: reported as None", AdmissionConfig{},
			rt("ns", "r", "www.example.com", 1, func(r *routecore.Route) { r.Spec.WildcardPolicy = "" }), admit("www.example.com", none)},
		{"no wildcard policy written, rejected: reported as None", AdmissionConfig{DeniedDomains: ParseDomainList("example.com")},
			rt("ns", "r", "www.example.com", 1, func(r *routecore.Route) { r.Spec.WildcardPolicy = "" }),
			reject(ReasonNotAdmitted, denied, "www.example.com", none)},

		// A host, from spec.host, spec.subdomain or ROUTER_SUBDOMAIN.
		{"no host, nothing to make one", AdmissionConfig{}, rt("ns", "r", "", 1), reject(ReasonNoHostValue, noHost, "", none)},
		{"spec.subdomain without ROUTER_DOMAIN", AdmissionConfig{}, rt("ns", "r", "", 1, subdomain("shop")),
			reject(ReasonNoHostValue, noHost, "", none)},
		{"spec.subdomain with ROUTER_DOMAIN", AdmissionConfig{RouterDomain: "apps.example.com"}, rt("ns", "r", "", 1, subdomain("shop")),
			admit("shop.apps.example.com", none)},
		{"spec.host wins over spec.subdomain", AdmissionConfig{RouterDomain: "apps.example.com"},
			rt("ns", "r", "www.example.com", 1, subdomain("shop")), admit("www.example.com", none)},
		{"spec.subdomain wins over ROUTER_SUBDOMAIN", AdmissionConfig{RouterDomain: "apps.example.com", HostnameTemplate: tmpl},
			rt("ns", "r", "", 1, subdomain("shop")), admit("shop.apps.example.com", none)},
		{"ROUTER_OVERRIDE_HOSTNAME replaces spec.subdomain's host too",
			AdmissionConfig{RouterDomain: "apps.example.com", HostnameTemplate: tmpl, OverrideHostname: true},
			rt("ns", "r", "", 1, subdomain("shop")), admit("r-ns.apps.example.com", none)},
		{"ROUTER_SUBDOMAIN for a hostless route", AdmissionConfig{HostnameTemplate: tmpl}, rt("ns", "r", "", 1),
			admit("r-ns.apps.example.com", none)},
		{"ROUTER_SUBDOMAIN quoted and upper case: the host is lower case",
			AdmissionConfig{HostnameTemplate: `"${name}.Apps.Example.COM"`}, rt("ns", "r", "", 1), admit("r.apps.example.com", none)},
		{"ROUTER_SUBDOMAIN making a label over 63 characters", AdmissionConfig{HostnameTemplate: tmpl}, rt("ns", long, "", 1),
			reject(ReasonInvalidHost, `host name validation errors: spec.host: Invalid value: "`+long+`-ns.apps.example.com": must be no more than 63 characters`,
				long+"-ns.apps.example.com", none)},
		{"ROUTER_OVERRIDE_HOSTNAME moves a host into the allowed domains",
			AdmissionConfig{HostnameTemplate: tmpl, OverrideHostname: true, AllowedDomains: ParseDomainList("apps.example.com")},
			rt("ns", "r", "www.elsewhere.org", 1), admit("r-ns.apps.example.com", none)},
		{"ROUTER_OVERRIDE_DOMAINS moves a denied host out of the denied domain",
			AdmissionConfig{HostnameTemplate: tmpl, OverrideDomains: ParseDomainList("cluster.local"), DeniedDomains: ParseDomainList("cluster.local")},
			rt("ns", "r", "r.svc.cluster.local", 1), admit("r-ns.apps.example.com", none)},
		{"a host outside ROUTER_OVERRIDE_DOMAINS is judged as written",
			AdmissionConfig{HostnameTemplate: tmpl, OverrideDomains: ParseDomainList("cluster.local"), DeniedDomains: ParseDomainList("example.org")},
			rt("ns", "r", "www.example.org", 1), reject(ReasonNotAdmitted, denied, "www.example.org", none)},
		{"the generated host is judged against the denied domains",
			AdmissionConfig{HostnameTemplate: tmpl, DeniedDomains: ParseDomainList("apps.example.com")},
			rt("ns", "r", "", 1), reject(ReasonNotAdmitted, denied, "r-ns.apps.example.com", none)},

		// Order of the checks.
		{"invalid and denied: invalid first", AdmissionConfig{DeniedDomains: ParseDomainList("example.com")},
			rt("ns", "r", "-bad.example.com", 1),
			reject(ReasonInvalidHost, `host name validation errors: spec.host: Invalid value: "-bad.example.com": host must conform to DNS 952 subdomain conventions, `+
				`spec.host: Invalid value: "-bad.example.com": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
				"-bad.example.com", none)},
		{"denied and not allowed: denied first",
			AdmissionConfig{DeniedDomains: ParseDomainList("example.com"), AllowedDomains: ParseDomainList("example.org")},
			rt("ns", "r", "www.example.com", 1), reject(ReasonNotAdmitted, denied, "www.example.com", none)},
		{"allowed and denied: denied wins", AdmissionConfig{DeniedDomains: ParseDomainList("www.example.com"), AllowedDomains: ParseDomainList("example.com")},
			rt("ns", "r", "www.example.com", 1), reject(ReasonNotAdmitted, denied, "www.example.com", none)},
		{"not allowed and a wildcard: the domain first", AdmissionConfig{AllowedDomains: ParseDomainList("example.org")},
			rt("ns", "r", "wild.example.com", 1, wildcard), reject(ReasonNotAdmitted, notAllowed, "wild.example.com", sub)},
		{"denied wildcard route", AdmissionConfig{AllowWildcardRoutes: true, DeniedDomains: ParseDomainList("wild.example.com")},
			rt("ns", "r", "wild.example.com", 1, wildcard), reject(ReasonNotAdmitted, denied, "wild.example.com", sub)},
		{"no wildcard routes: the policy is reported", AdmissionConfig{AllowedDomains: ParseDomainList("example.com")},
			rt("ns", "r", "wild.example.com", 1, wildcard), reject(ReasonNotAdmitted, noWildcard, "wild.example.com", sub)},
		{"a wildcard route is matched by its own host", AdmissionConfig{AllowWildcardRoutes: true, AllowedDomains: ParseDomainList("wild.example.com")},
			rt("ns", "r", "wild.example.com", 1, wildcard), admit("wild.example.com", sub)},
		{"invalid route on a hostless template route: validation sees the generated host",
			AdmissionConfig{HostnameTemplate: tmpl}, rt("ns", "r", "", 1, withPath("/x"), withTLS(routecore.TLSTerminationPassthrough)),
			reject(ReasonNotAdmitted, `spec.path: Invalid value: "/x": passthrough termination does not support paths`, "r-ns.apps.example.com", none)},
		{"a route without a service", AdmissionConfig{}, rt("ns", "r", "www.example.com", 1, func(r *routecore.Route) { r.Spec.To.Name = "" }),
			reject(ReasonNotAdmitted, "spec.to.name: Required value", "www.example.com", none)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := store(tt.cfg, tt.route).Build(true)
			k := tt.route.Namespace + "/" + tt.route.Name
			got, _ := snap.Decisions.Get(k)
			if got != tt.want {
				t.Errorf("decision\n  %+v\nwant\n  %+v", got, tt.want)
			}
			served, ok := snap.Routes.Get(k)
			switch {
			case ok != (tt.want.Verdict == Admitted):
				t.Errorf("served %v, decision %s", ok, tt.want.Verdict)
			case ok && served.Host != tt.want.Host:
				t.Errorf("served for host %q, decided %q", served.Host, tt.want.Host)
			}
		})
	}
}

// TestShardSelectors: ROUTE_LABELS and NAMESPACE_LABELS must both match; a
// route of a namespace the router has not seen is outside a namespace
// shard even when the selector matches no labels at all. A route outside
// the shard gets the bare Ignored decision (no host: the router writes no
// status for it).
func TestShardSelectors(t *testing.T) {
	parse := func(s string) labels.Selector {
		sel, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return sel
	}
	tests := []struct {
		name         string
		routes, nses string // selectors, "" for none
		routeLabels  []string
		nsLabels     map[string]string // nil: namespace not known
		admitted     bool
	}{
		{"no selectors", "", "", nil, nil, true},
		{"route selector matches", "shard=a", "", []string{"shard", "a"}, nil, true},
		{"route selector does not match", "shard=a", "", []string{"shard", "b"}, nil, false},
		{"route selector, route without labels", "shard=a", "", nil, nil, false},
		{"a negative route selector admits a route without labels", "shard!=b", "", nil, nil, true},
		{"an exists route selector", "shard", "", []string{"shard", ""}, nil, true},
		{"namespace selector, namespace matches", "", "team=x", nil, map[string]string{"team": "x"}, true},
		{"namespace selector, namespace does not match", "", "team=x", nil, map[string]string{"team": "y"}, false},
		{"namespace selector, namespace unknown", "", "team=x", nil, nil, false},
		{"a negative namespace selector, namespace unknown", "", "team!=x", nil, nil, false},
		{"a negative namespace selector, namespace without labels", "", "team!=x", nil, map[string]string{}, true},
		{"both match", "shard=a", "team=x", []string{"shard", "a"}, map[string]string{"team": "x"}, true},
		{"route matches, namespace does not", "shard=a", "team=x", []string{"shard", "a"}, map[string]string{"team": "y"}, false},
		{"namespace matches, route does not", "shard=a", "team=x", []string{"shard", "b"}, map[string]string{"team": "x"}, false},
		{"set-based selectors", "shard in (a,b)", "team notin (y)", []string{"shard", "b"}, map[string]string{"team": "x"}, true},
		{"route labels do not select the namespace", "", "shard=a", []string{"shard", "a"}, map[string]string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg AdmissionConfig
			if tt.routes != "" {
				cfg.RouteSelector = parse(tt.routes)
			}
			if tt.nses != "" {
				cfg.NamespaceSelector = parse(tt.nses)
			}
			s := NewStore(cfg)
			if tt.nsLabels != nil {
				s.SetNamespace("ns", tt.nsLabels)
			}
			var mods []func(*routecore.Route)
			if tt.routeLabels != nil {
				mods = append(mods, withLabels(tt.routeLabels...))
			}
			s.SetRoute(rt("ns", "r", "www.example.com", 1, mods...))
			snap := s.Build(true)
			got, _ := snap.Decisions.Get("ns/r")
			want := Decision{Verdict: Ignored}
			if tt.admitted {
				want = Decision{Verdict: Admitted, Host: "www.example.com", WildcardPolicy: routecore.WildcardPolicyNone}
			}
			if got != want {
				t.Errorf("decision %+v, want %+v", got, want)
			}
			if _, served := snap.Routes.Get("ns/r"); served != tt.admitted {
				t.Errorf("served %v", served)
			}
		})
	}
}

// TestGeneratedHostClaims: hosts made by ROUTER_SUBDOMAIN and
// spec.subdomain compete like written ones: a template without ${name}
// gives every route of a namespace one host, shared by path and won by the
// oldest, and another namespace's route on that host loses it.
func TestGeneratedHostClaims(t *testing.T) {
	subdomain := func(s string) func(*routecore.Route) { return func(r *routecore.Route) { r.Spec.Subdomain = s } }
	cfg := AdmissionConfig{HostnameTemplate: "${namespace}.apps.example.com", RouterDomain: "apps.example.com"}
	s := store(cfg,
		rt("shop", "a", "", 1),
		rt("shop", "b", "", 2, withPath("/b")),
		rt("shop", "c", "", 3),
		rt("blog", "d", "", 4),
		rt("blog", "e", "shop.apps.example.com", 5, withPath("/e")),
		rt("blog", "f", "", 6, subdomain("shop")))
	expect(t, s.Build(true), "shop/a admitted", "shop/b admitted",
		"shop/c rejected HostAlreadyClaimed: route a already exposes shop.apps.example.com and is older",
		"blog/d admitted",
		"blog/e rejected HostAlreadyClaimed: a route in another namespace holds shop.apps.example.com and is older than e",
		"blog/f rejected HostAlreadyClaimed: a route in another namespace holds shop.apps.example.com and is older than f")
	s.DeleteNamespace("shop") // no namespace selector: nothing changes
	s.DeleteRoute("shop", "a")
	expect(t, s.Build(true), "shop/b admitted", "shop/c admitted", "blog/d admitted",
		"blog/e rejected HostAlreadyClaimed: a route in another namespace holds shop.apps.example.com and is older than e",
		"blog/f rejected HostAlreadyClaimed: a route in another namespace holds shop.apps.example.com and is older than f")
	s.DeleteRoute("shop", "b")
	s.DeleteRoute("shop", "c")
	expect(t, s.Build(true), "blog/d admitted", "blog/e admitted", "blog/f admitted")
}

// TestCertificateRejection: the external certificate secret and, with
// EXTENDED_VALIDATION, the certificates themselves, from the route and
// what the router knows of its secret to the reason and message.
func TestCertificateRejection(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	tlsSecretOf := func(typ corev1.SecretType, cert, key []byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tls"}, Type: typ,
			Data: map[string][]byte{corev1.TLSCertKey: cert, corev1.TLSPrivateKeyKey: key}}
	}
	good := tlsSecretOf(corev1.SecretTypeTLS, p.Leaf.CertPEM, p.Leaf.KeyPEM)
	mismatched := tlsSecretOf(corev1.SecretTypeTLS, p.Leaf.CertPEM, p.Other.KeyPEM)
	opaque := tlsSecretOf(corev1.SecretTypeOpaque, p.Leaf.CertPEM, p.Leaf.KeyPEM)
	ext := func(name string) *routecore.Route {
		return rt("ns", "r", "www.example.com", 1, func(r *routecore.Route) {
			r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, ExternalCertificate: &routecore.LocalObjectReference{Name: name}}
		})
	}
	inline := rt("ns", "r", "www.example.com", 1, func(r *routecore.Route) {
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: string(p.Leaf.CertPEM), Key: string(p.Other.KeyPEM)}
	})
	const (
		forbidden = "spec.tls.externalCertificate: Forbidden: router serviceaccount does not have permission to get this secret"
		mismatch  = `spec.tls.key: Invalid value: "redacted key data": tls: private key does not match public key`
	)
	tests := []struct {
		name       string
		route      *routecore.Route
		secret     *corev1.Secret
		unreadable string
		extended   bool
		reason     string
		message    string
	}{
		{"plain HTTP", rt("ns", "r", "www.example.com", 1), nil, "", true, "", ""},
		{"edge without certificates", rt("ns", "r", "www.example.com", 1, withTLS(routecore.TLSTerminationEdge)), nil, "", true, "", ""},
		{"an empty external certificate name counts as none", ext(""), nil, "", true, "", ""},
		{"unreadable", ext("tls"), nil, "router serviceaccount does not have permission to get this secret", false,
			ReasonExternalCertificateValidation, forbidden},
		{"unreadable, extended", ext("tls"), nil, "router serviceaccount does not have permission to get this secret", true,
			ReasonExternalCertificateValidation, forbidden},
		{"missing, not extended: admitted", ext("tls"), nil, "", false, "", ""},
		{"missing, extended", ext("tls"), nil, "", true,
			ReasonExternalCertificateValidation, `spec.tls.externalCertificate: Not found: "secrets \"tls\" not found"`},
		{"not of type TLS, not extended: admitted", ext("tls"), opaque, "", false, "", ""},
		{"not of type TLS, extended", ext("tls"), opaque, "", true,
			ReasonExternalCertificateValidation, `spec.tls.externalCertificate: Invalid value: "tls": secret of type "kubernetes.io/tls" required`},
		{"a good secret, extended", ext("tls"), good, "", true, "", ""},
		{"a secret whose key does not match, not extended: admitted", ext("tls"), mismatched, "", false, "", ""},
		{"a secret whose key does not match, extended: the secret's certificate is checked", ext("tls"), mismatched, "", true,
			ReasonExtendedValidationFailed, mismatch},
		{"inline certificate with another key, not extended", inline, nil, "", false, "", ""},
		{"inline certificate with another key, extended", inline, nil, "", true, ReasonExtendedValidationFailed, mismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			lookup := func(name string) (*corev1.Secret, string) {
				asked = append(asked, name)
				return tt.secret, tt.unreadable
			}
			reason, message := certificateRejection(tt.route, lookup, tt.extended)
			if reason != tt.reason || message != tt.message {
				t.Errorf("got %q %q\nwant %q %q", reason, message, tt.reason, tt.message)
			}
			if want := externalSecret(tt.route); want != "" && !slices.Equal(asked, []string{want}) || want == "" && len(asked) > 0 {
				t.Errorf("looked up secrets %q, want only the route's external certificate %q", asked, want)
			}
		})
	}
}

// TestValidationRejection: errors on spec.host make InvalidHost, naming
// only the host errors; any other error makes RouteNotAdmitted with all of
// them.
func TestValidationRejection(t *testing.T) {
	host := field.Invalid(field.NewPath("spec", "host"), "X", "bad host")
	host2 := field.Invalid(field.NewPath("spec", "host"), "X", "too long")
	path := field.Invalid(field.NewPath("spec", "path"), "x", "must start with /")
	port := field.Required(field.NewPath("spec", "port"), "needed")
	tests := []struct {
		name            string
		errs            field.ErrorList
		reason, message string
	}{
		{"a host error", field.ErrorList{host}, ReasonInvalidHost, `host name validation errors: spec.host: Invalid value: "X": bad host`},
		{"two host errors, in order", field.ErrorList{host, host2}, ReasonInvalidHost,
			`host name validation errors: spec.host: Invalid value: "X": bad host, spec.host: Invalid value: "X": too long`},
		{"a host error among others: only the host's", field.ErrorList{path, host}, ReasonInvalidHost,
			`host name validation errors: spec.host: Invalid value: "X": bad host`},
		{"another field", field.ErrorList{path}, ReasonNotAdmitted, `spec.path: Invalid value: "x": must start with /`},
		{"two other fields", field.ErrorList{path, port}, ReasonNotAdmitted,
			`[spec.path: Invalid value: "x": must start with /, spec.port: Required value: needed]`},
	}
	for _, tt := range tests {
		if reason, message := validationRejection(tt.errs); reason != tt.reason || message != tt.message {
			t.Errorf("%s: got %q %q\nwant %q %q", tt.name, reason, message, tt.reason, tt.message)
		}
	}
}

// TestClaimsAfterDeletion: deleting a route frees what it held, in both
// ownership modes: the next claimant by age is admitted, the others are
// judged against it, and only the routes whose decision changed (and the
// deleted one) are reported changed.
func TestClaimsAfterDeletion(t *testing.T) {
	type mode struct{ before, after []string }
	tests := []struct {
		name    string
		routes  []*routecore.Route
		delete  string
		on, off mode
	}{
		{"a wildcard owner of the domain",
			[]*routecore.Route{rt("ns1", "w", "w.abc.xyz", 1, wildcard), rt("ns2", "z", "z.abc.xyz", 2), rt("ns3", "w2", "v.abc.xyz", 3, wildcard)},
			"ns1/w",
			mode{[]string{"ns1/w admitted", "ns2/z rejected HostAlreadyClaimed: a route in another namespace holds host z.abc.xyz",
				"ns3/w2 rejected HostAlreadyClaimed: a route in another namespace holds host v.abc.xyz"},
				[]string{"ns2/z admitted", "ns3/w2 rejected HostAlreadyClaimed: a route in another namespace holds host v.abc.xyz"}},
			mode{[]string{"ns1/w admitted", "ns2/z admitted",
				"ns3/w2 rejected HostAlreadyClaimed: wildcard route ns1/w has host *.abc.xyz, blocking v.abc.xyz"},
				[]string{"ns2/z admitted", "ns3/w2 admitted"}}},
		{"the holder of a host and path",
			[]*routecore.Route{rt("ns1", "r1", "www.abc.xyz", 1, withPath("/p")), rt("ns2", "r2", "www.abc.xyz", 2, withPath("/p")),
				rt("ns3", "r3", "www.abc.xyz", 3, withPath("/p")), rt("ns3", "r4", "www.abc.xyz", 4, withPath("/q"))},
			"ns1/r1",
			mode{[]string{"ns1/r1 admitted",
				"ns2/r2 rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than r2",
				"ns3/r3 rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than r3",
				"ns3/r4 rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than r4"},
				[]string{"ns2/r2 admitted",
					"ns3/r3 rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than r3",
					"ns3/r4 rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than r4"}},
			mode{[]string{"ns1/r1 admitted",
				"ns2/r2 rejected HostAlreadyClaimed: route r1 already exposes www.abc.xyz and is older",
				"ns3/r3 rejected HostAlreadyClaimed: route r1 already exposes www.abc.xyz and is older", "ns3/r4 admitted"},
				[]string{"ns2/r2 admitted", "ns3/r3 rejected HostAlreadyClaimed: route r2 already exposes www.abc.xyz and is older", "ns3/r4 admitted"}}},
		{"a plain host that kept another namespace's wildcard out",
			[]*routecore.Route{rt("ns1", "r", "www.abc.xyz", 1), rt("ns2", "w", "wild.abc.xyz", 2, wildcard), rt("ns2", "p", "p.abc.xyz", 3)},
			"ns1/r",
			mode{[]string{"ns1/r admitted", "ns2/w rejected HostAlreadyClaimed: a route in another namespace holds host wild.abc.xyz", "ns2/p admitted"},
				[]string{"ns2/w admitted", "ns2/p admitted"}},
			mode{[]string{"ns1/r admitted", "ns2/w admitted", "ns2/p admitted"}, []string{"ns2/w admitted", "ns2/p admitted"}}},
		{"a route that held nothing",
			[]*routecore.Route{rt("ns1", "r", "www.abc.xyz", 1), rt("ns2", "r", "www.abc.xyz", 2), rt("ns3", "r", "www.abc.xyz", 3)},
			"ns2/r",
			mode{[]string{"ns1/r admitted",
				"ns2/r rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than r",
				"ns3/r rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than r"},
				[]string{"ns1/r admitted", "ns3/r rejected HostAlreadyClaimed: a route in another namespace holds www.abc.xyz and is older than r"}},
			mode{[]string{"ns1/r admitted", "ns2/r rejected HostAlreadyClaimed: route r already exposes www.abc.xyz and is older",
				"ns3/r rejected HostAlreadyClaimed: route r already exposes www.abc.xyz and is older"},
				[]string{"ns1/r admitted", "ns3/r rejected HostAlreadyClaimed: route r already exposes www.abc.xyz and is older"}}},
	}
	for _, tt := range tests {
		for name, m := range map[string]struct {
			off bool
			mode
		}{"check on": {false, tt.on}, "check off": {true, tt.off}} {
			t.Run(tt.name+", "+name, func(t *testing.T) {
				s := store(AdmissionConfig{AllowWildcardRoutes: true, DisableNamespaceOwnershipCheck: m.off}, tt.routes...)
				expect(t, s.Build(true), m.before...)
				ns, n, _ := strings.Cut(tt.delete, "/")
				s.DeleteRoute(ns, n)
				snap := s.Build(true)
				expect(t, snap, m.after...)
				want := []string{tt.delete}
				for _, line := range m.after {
					if !slices.Contains(m.before, line) {
						want = append(want, line[:strings.Index(line, " ")])
					}
				}
				slices.Sort(want)
				if got := slices.Sorted(maps.Keys(snap.Changed.Routes)); !slices.Equal(got, want) {
					t.Errorf("changed %v, want %v", got, want)
				}
			})
		}
	}
}

// TestClaimDomains: host claims are judged within a domain, the host
// without its first label: a wildcard route covers the hosts one label
// below its domain, not deeper ones nor the domain itself, so routes of
// other namespaces there keep their hosts, and a single-label host is its
// own partition.
func TestClaimDomains(t *testing.T) {
	tests := []struct {
		name   string
		routes []*routecore.Route
		want   []string
	}{
		{"a wildcard covers one label below its domain",
			[]*routecore.Route{rt("ns1", "w", "w.x.com", 1, wildcard), rt("ns2", "a", "a.x.com", 2), rt("ns2", "deep", "deep.a.x.com", 3),
				rt("ns2", "top", "x.com", 4)},
			[]string{"ns1/w admitted", "ns2/a rejected HostAlreadyClaimed: a route in another namespace holds host a.x.com",
				"ns2/deep admitted", "ns2/top admitted"}},
		{"wildcards of nested domains do not meet",
			[]*routecore.Route{rt("ns1", "w", "w.x.com", 1, wildcard), rt("ns2", "w", "w.a.x.com", 2, wildcard), rt("ns3", "b", "b.a.x.com", 3)},
			[]string{"ns1/w admitted", "ns2/w admitted", "ns3/b rejected HostAlreadyClaimed: a route in another namespace holds host b.a.x.com"}},
		{"an older plain host keeps another namespace's wildcard out of its domain only",
			[]*routecore.Route{rt("ns1", "a", "a.y.com", 1), rt("ns2", "w", "w.y.com", 2, wildcard), rt("ns2", "v", "v.z.y.com", 3, wildcard)},
			[]string{"ns1/a admitted", "ns2/w rejected HostAlreadyClaimed: a route in another namespace holds host w.y.com", "ns2/v admitted"}},
		{"the same name in two domains", []*routecore.Route{rt("ns1", "a", "www.x.com", 1), rt("ns2", "a", "www.y.com", 2)},
			[]string{"ns1/a admitted", "ns2/a admitted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, store(AdmissionConfig{AllowWildcardRoutes: true}, tt.routes...).Build(true), tt.want...)
		})
	}
}

// TestSameHostConflicts: two routes of one namespace share a host unless
// they have the same path, or both are TLS routes and one is passthrough
// (which takes the host's whole TLS traffic by SNI); the older keeps it.
func TestSameHostConflicts(t *testing.T) {
	const (
		plain = routecore.TLSTerminationType("")
		edge  = routecore.TLSTerminationEdge
		reenc = routecore.TLSTerminationReencrypt
		pass  = routecore.TLSTerminationPassthrough
	)
	tests := []struct {
		older, younger         routecore.TLSTerminationType
		olderPath, youngerPath string
		conflict               bool
	}{
		{plain, plain, "", "", true},
		{plain, plain, "/a", "/b", false},
		{plain, edge, "/a", "/a", true},
		{edge, reenc, "/a", "/b", false},
		{edge, reenc, "", "", true},
		{pass, edge, "", "/b", true},
		{edge, pass, "/a", "", true},
		{pass, pass, "", "", true},
		{pass, plain, "", "/b", false},
		{plain, pass, "/a", "", false},
		{reenc, pass, "/a", "", true},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%q %q then %q %q", tt.older, tt.olderPath, tt.younger, tt.youngerPath)
		t.Run(name, func(t *testing.T) {
			mods := func(term routecore.TLSTerminationType, path string) []func(*routecore.Route) {
				m := []func(*routecore.Route){withPath(path)}
				if term != plain {
					m = append(m, withTLS(term))
				}
				return m
			}
			s := store(AdmissionConfig{}, rt("ns", "old", "h.x.com", 1, mods(tt.older, tt.olderPath)...),
				rt("ns", "new", "h.x.com", 2, mods(tt.younger, tt.youngerPath)...))
			want := "ns/new admitted"
			if tt.conflict {
				want = "ns/new rejected HostAlreadyClaimed: route old already exposes h.x.com and is older"
			}
			expect(t, s.Build(true), "ns/old admitted", want)
		})
	}
}

// TestOverriddenHostsClaim: with ROUTER_OVERRIDE_HOSTNAME routes compete
// for the hosts the template makes, not the ones they wrote: two
// namespaces writing one host both get their own.
func TestOverriddenHostsClaim(t *testing.T) {
	cfg := AdmissionConfig{HostnameTemplate: "${name}-${namespace}.apps.x.com", OverrideHostname: true}
	s := store(cfg, rt("ns1", "web", "www.x.com", 1), rt("ns2", "web", "www.x.com", 2), rt("ns2", "web2", "web-ns1.apps.x.com", 3))
	snap := s.Build(true)
	expect(t, snap, "ns1/web admitted", "ns2/web admitted", "ns2/web2 admitted")
	for k, host := range map[string]string{"ns1/web": "web-ns1.apps.x.com", "ns2/web": "web-ns2.apps.x.com", "ns2/web2": "web2-ns2.apps.x.com"} {
		if d, _ := snap.Decisions.Get(k); d.Host != host {
			t.Errorf("%s decided for host %q, want %q", k, d.Host, host)
		}
	}
}
