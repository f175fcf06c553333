package router

import (
	"maps"
	"reflect"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/routeshift/routeshift/routecore"
)

// Store is a router's view of the cluster and its judgement of every Route
// in it. It takes Route, Namespace, EndpointSlice, Service and Secret events, marks
// what they affect, and on Build re-judges only that and produces the next
// Snapshot. Work per Build is proportional to the change: a route is
// re-judged with the routes of its host (and, when its domain has wildcard
// routes, with those and their hosts; the whole domain only when a wildcard
// route wins or loses its claim), a service's endpoints are merged alone.
//
// A Store is not safe for concurrent use: one goroutine owns it.
type Store struct {
	cfg AdmissionConfig

	routes      map[string]*routeState
	byNamespace map[string]map[string]bool // namespace -> route keys
	// bySecret indexes the routes of the shard by the secrets they name
	// (spec.tls.externalCertificate): namespace/secret -> route keys.
	bySecret   map[string]map[string]bool
	namespaces map[string]labels.Set
	domains    map[string]*domainState
	slices     map[string]map[string]*discoveryv1.EndpointSlice // service key -> slice name -> slice
	ports      map[string][]ServicePort                         // service key -> the Service's ports
	secrets    map[string]*corev1.Secret
	// reads, when the secrets are read one by one (WatchSecrets), is what
	// the store knows of those reads; nil when every secret is given.
	reads *secretReads
	// complete is whether a synced snapshot has been built.
	complete bool

	dirtyRoutes   map[string]bool
	dirtyHosts    map[string]map[string]bool // domain -> hosts
	dirtyDomains  map[string]bool
	dirtyServices map[string]bool
	gone          map[string]bool // routes deleted since the last Build

	// verdicts counts the routes per Verdict; notServable those rejected
	// as RouteNotServable.
	verdicts    [3]int
	notServable int
	snapshot    Snapshot

	// www are the redirect claims (www-redirect, www.go).
	www wwwClaims
}

// routeState is what the Store knows about one Route.
type routeState struct {
	route *routecore.Route
	// judged is the value its contender, decision and served value were
	// made from: route, or an older value while route waits for a secret
	// to be read (nil before the route was first judged).
	judged *routecore.Route
	// secrets are the keys of the secrets it is indexed under (bySecret).
	secrets   []string
	contender *contender // nil when the route competes for nothing
	decision  Decision
	decided   bool   // decision has been recorded in a snapshot
	served    *Route // when admitted; rebuilt when the route or host changes
	servedFor *routecore.Route
	// unservable is the data plane's report that it cannot serve served.
	unservable *unservable
	// redirect is the route's claim of its other host (www.go), or nil.
	redirect *redirectClaim
}

// NewStore returns an empty store judging with cfg.
func NewStore(cfg AdmissionConfig) *Store {
	return &Store{
		cfg: cfg, routes: map[string]*routeState{}, byNamespace: map[string]map[string]bool{},
		bySecret: map[string]map[string]bool{}, namespaces: map[string]labels.Set{}, domains: map[string]*domainState{},
		slices: map[string]map[string]*discoveryv1.EndpointSlice{}, ports: map[string][]ServicePort{}, secrets: map[string]*corev1.Secret{},
		dirtyRoutes: map[string]bool{}, dirtyHosts: map[string]map[string]bool{}, dirtyDomains: map[string]bool{},
		dirtyServices: map[string]bool{}, gone: map[string]bool{},
	}
}

// SetRoute records a Route added or changed.
func (s *Store) SetRoute(r *routecore.Route) {
	k := Key(r.Namespace, r.Name)
	st := s.routes[k]
	if st == nil {
		st = &routeState{}
		s.routes[k] = st
		addToIndex(s.byNamespace, r.Namespace, k)
	} else if unchanged(st.route, r) {
		return // a resync
	}
	st.route = r
	s.dirtyRoutes[k] = true
}

// DeleteRoute records a Route deleted, or gone from the router's view.
func (s *Store) DeleteRoute(namespace, name string) {
	k := Key(namespace, name)
	st := s.routes[k]
	if st == nil {
		return
	}
	s.withdraw(st)
	removeFromIndex(s.byNamespace, namespace, k)
	s.indexSecrets(k, st)
	if st.decided {
		s.count(st.decision, -1)
	}
	delete(s.routes, k)
	delete(s.dirtyRoutes, k)
	s.gone[k] = true
}

// SetNamespace records a namespace's labels (the shard may depend on them).
func (s *Store) SetNamespace(name string, l map[string]string) {
	if old, ok := s.namespaces[name]; ok && maps.Equal(old, l) {
		return
	}
	s.namespaces[name] = labels.Set(maps.Clone(l))
	s.namespaceChanged(name)
}

// DeleteNamespace records a namespace deleted.
func (s *Store) DeleteNamespace(name string) {
	delete(s.namespaces, name)
	s.namespaceChanged(name)
}

func (s *Store) namespaceChanged(name string) {
	if s.cfg.NamespaceSelector == nil {
		return
	}
	for k := range s.byNamespace[name] {
		s.dirtyRoutes[k] = true
	}
}

// SetEndpointSlice records an EndpointSlice added or changed.
func (s *Store) SetEndpointSlice(es *discoveryv1.EndpointSlice) {
	svc := es.Labels[discoveryv1.LabelServiceName]
	if svc == "" {
		return
	}
	k := Key(es.Namespace, svc)
	if s.slices[k] == nil {
		s.slices[k] = map[string]*discoveryv1.EndpointSlice{}
	}
	if old := s.slices[k][es.Name]; old != nil && unchanged(old, es) {
		return // a resync
	}
	s.slices[k][es.Name] = es
	s.dirtyServices[k] = true
}

// DeleteEndpointSlice records an EndpointSlice deleted.
func (s *Store) DeleteEndpointSlice(namespace, name, service string) {
	k := Key(namespace, service)
	if _, ok := s.slices[k][name]; !ok {
		return
	}
	delete(s.slices[k], name)
	if len(s.slices[k]) == 0 {
		delete(s.slices, k)
	}
	s.dirtyServices[k] = true
}

// SetService records a Service added or changed. Only its TCP ports matter:
// they let a route's numeric targetPort name a service port, and say which
// application protocol their endpoints speak.
func (s *Store) SetService(svc *corev1.Service) {
	k := Key(svc.Namespace, svc.Name)
	var ports []ServicePort
	for _, p := range svc.Spec.Ports {
		if p.Protocol == "" || p.Protocol == corev1.ProtocolTCP {
			ports = append(ports, ServicePort{Port: p.Port, Name: p.Name, AppProtocol: ptr.Deref(p.AppProtocol, "")})
		}
	}
	if old, ok := s.ports[k]; ok && slices.Equal(old, ports) {
		return
	}
	s.ports[k] = ports
	s.dirtyServices[k] = true
}

// DeleteService records a Service deleted.
func (s *Store) DeleteService(namespace, name string) {
	k := Key(namespace, name)
	if _, ok := s.ports[k]; !ok {
		return
	}
	delete(s.ports, k)
	s.dirtyServices[k] = true
}

// SetSecret records a Secret added or changed; only routes that name it
// (external certificate, basic authentication) care.
func (s *Store) SetSecret(secret *corev1.Secret) {
	k := Key(secret.Namespace, secret.Name)
	s.reads.read(k, "")
	if old := s.secrets[k]; old != nil && unchanged(old, secret) {
		return // a resync
	}
	s.secrets[k] = secret
	s.secretChanged(k)
}

// DeleteSecret records a Secret deleted, or found missing.
func (s *Store) DeleteSecret(namespace, name string) {
	k := Key(namespace, name)
	s.reads.read(k, "")
	delete(s.secrets, k)
	s.secretChanged(k)
}

// secretChanged re-judges the routes whose external certificate is the
// secret k and has them served anew: what they serve holds the secret's
// content.
func (s *Store) secretChanged(k string) {
	for rk := range s.bySecret[k] {
		s.dirtyRoutes[rk] = true
		s.routes[rk].servedFor = nil
	}
}

// Build judges what changed since the last Build and returns the new
// snapshot. Routes deleted (and perhaps added again) are cleared first, then
// what changed is re-judged. synced marks the snapshot as reflecting a complete initial
// listing of the cluster; the first such snapshot also waits until no
// route waits for its secret to be read (WatchSecrets).
func (s *Store) Build(synced bool) Snapshot {
	next := Snapshot{Version: s.snapshot.Version + 1, CreatedAt: time.Now(),
		Changed: Changes{Routes: map[string]bool{}, Services: map[string]bool{}}}
	routes, decisions := s.snapshot.Routes.Edit(), s.snapshot.Decisions.Edit()
	for k := range s.gone {
		routes.Delete(k)
		decisions.Delete(k)
		next.Changed.Routes[k] = true
	}
	for k := range s.dirtyRoutes {
		s.reassess(k, s.routes[k], routes, decisions, next.Changed)
	}
	for domain := range s.dirtyDomains {
		s.judgeDomain(domain, nil, routes, decisions, next.Changed)
	}
	for domain, hosts := range s.dirtyHosts {
		if !s.dirtyDomains[domain] {
			s.judgeDomain(domain, hosts, routes, decisions, next.Changed)
		}
	}
	s.judgeRedirects(routes, decisions, next.Changed)
	services := s.snapshot.Services.Edit()
	for k := range s.dirtyServices {
		ns, name := SplitKey(k)
		sl := make([]*discoveryv1.EndpointSlice, 0, len(s.slices[k]))
		for _, es := range s.slices[k] {
			sl = append(sl, es)
		}
		if len(sl) == 0 {
			services.Delete(k)
		} else {
			se := ServiceEndpointsFromSlices(types.NamespacedName{Namespace: ns, Name: name}, sl, s.cfg.AllowLoopbackEndpoints)
			se.Ports = s.ports[k] // replaced, never modified, when the Service changes
			se.applyServiceProtocols()
			services.Set(k, se)
		}
		next.Changed.Services[k] = true
	}
	next.Routes, next.Decisions, next.Services = routes.Freeze(), decisions.Freeze(), services.Freeze()
	// Routes waiting for their secret keep the first complete snapshot
	// back: it would lack them.
	next.Synced = synced && (s.complete || s.reads.waitingRoutes() == 0)
	s.complete = next.Synced
	clear(s.gone)
	clear(s.dirtyRoutes)
	clear(s.dirtyHosts)
	clear(s.dirtyDomains)
	clear(s.dirtyServices)
	s.snapshot = next
	return next
}

// reassess re-runs the checks that need no other route, moving the route's
// contender between domains as needed. A route of the shard that names a
// secret not read yet waits for it: until then it keeps its former
// judgement, and a new route has none.
func (s *Store) reassess(k string, st *routeState, routes *PMapEditor[*Route], decisions *PMapEditor[Decision], changed Changes) {
	r := st.route
	nsLabels, nsKnown := s.namespaces[r.Namespace]
	inShard := s.cfg.inShard(r, nsLabels, nsKnown)
	if s.waitsForSecret(k, r, inShard) {
		s.indexSecrets(k, st, r, st.judged)
		return
	}
	st.judged = r
	s.withdraw(st)
	if !inShard {
		s.indexSecrets(k, st)
		s.decide(k, st, Decision{Verdict: Ignored}, routes, decisions, changed)
		return
	}
	s.indexSecrets(k, st, r)
	host := s.cfg.effectiveHost(r)
	rejection, ct := s.cfg.precheck(k, r, host, s.secretOf(r.Namespace))
	if rejection != nil {
		s.decide(k, st, *rejection, routes, decisions, changed)
		return
	}
	st.contender = ct
	s.claimRedirect(st, r, ct)
	domain := DomainKey(ct.host)
	ds := s.domains[domain]
	if ds == nil {
		ds = &domainState{hosts: map[string]map[string]*contender{}, wildcards: map[string]*contender{}, holders: map[string][]*contender{}}
		s.domains[domain] = ds
	}
	if ct.wildcard {
		ds.wildcards[k] = ct
		s.dirtyDomains[domain] = true
		return
	}
	if ds.hosts[ct.host] == nil {
		ds.hosts[ct.host] = map[string]*contender{}
	}
	ds.hosts[ct.host][k] = ct
	s.markHost(domain, ct.host)
}

// withdraw removes the route's contender from its domain, marking what it
// competed with for re-judgement.
func (s *Store) withdraw(st *routeState) {
	s.withdrawRedirect(st)
	ct := st.contender
	if ct == nil {
		return
	}
	st.contender = nil
	domain := DomainKey(ct.host)
	ds := s.domains[domain]
	if ds == nil {
		return
	}
	if ct.wildcard && ct.holds {
		s.www.domainChanged(domain)
	}
	ds.setHolds(ct, false)
	if ct.wildcard {
		delete(ds.wildcards, ct.key)
		s.dirtyDomains[domain] = true
	} else {
		delete(ds.hosts[ct.host], ct.key)
		if len(ds.hosts[ct.host]) == 0 {
			delete(ds.hosts, ct.host)
		}
		s.markHost(domain, ct.host)
	}
	if len(ds.hosts) == 0 && len(ds.wildcards) == 0 {
		delete(s.domains, domain)
	}
}

func (s *Store) markHost(domain, host string) {
	if s.dirtyHosts[domain] == nil {
		s.dirtyHosts[domain] = map[string]bool{}
	}
	s.dirtyHosts[domain][host] = true
	s.www.markRedirect(host)
}

// judgeDomain re-judges the contenders of the given hosts of a domain, or
// of the whole domain when hosts is nil, or when the domain has wildcard
// routes and judging the hosts alone changes which of them hold.
func (s *Store) judgeDomain(domain string, hosts map[string]bool, routes *PMapEditor[*Route], decisions *PMapEditor[Decision], changed Changes) {
	ds := s.domains[domain]
	if ds == nil {
		return
	}
	record := func(ct *contender, d Decision, holds bool) {
		if ct.wildcard && ct.holds != holds {
			s.www.domainChanged(domain)
		}
		ds.setHolds(ct, holds)
		s.decide(ct.key, s.routes[ct.key], d, routes, decisions, changed)
	}
	if hosts != nil && len(ds.wildcards) > 0 && ds.judgeHosts(&s.cfg, hosts, record) {
		return
	}
	var contenders []*contender
	if hosts == nil || len(ds.wildcards) > 0 {
		for _, group := range ds.hosts {
			for _, ct := range group {
				contenders = append(contenders, ct)
			}
		}
		for _, ct := range ds.wildcards {
			contenders = append(contenders, ct)
		}
	} else {
		for host := range hosts {
			for _, ct := range ds.hosts[host] {
				contenders = append(contenders, ct)
			}
		}
	}
	s.cfg.judge(contenders, nil, record)
}

// decide records a route's decision and, for admitted routes, what to
// serve. An admitted route the data plane reported it cannot serve stays
// in the snapshot's routes (its value unchanged) with the decision
// RouteNotServable, until its value changes.
func (s *Store) decide(k string, st *routeState, d Decision, routes *PMapEditor[*Route], decisions *PMapEditor[Decision], changed Changes) {
	if st.redirect != nil {
		s.www.markRedirect(st.redirect.host)
	}
	if d.Verdict == Admitted {
		if st.served == nil || st.servedFor != st.judged || st.served.Host != d.Host {
			// A new object that serves the same (its status written,
			// a label changed) keeps the value served: the data plane
			// has nothing to redo, and what it reported about that
			// value still holds.
			next := s.serve(st.judged, d.Host)
			next.WWWRedirectHost = st.redirectHost()
			if st.served == nil || !reflect.DeepEqual(st.served, next) {
				st.served = next
				routes.Set(k, st.served)
				changed.Routes[k] = true
			}
			st.servedFor = st.judged
		}
		d = st.servable(d)
		if d.Verdict == Admitted {
			d.Message = st.redirectNote()
		}
	} else if st.served != nil {
		st.served, st.servedFor = nil, nil
		routes.Delete(k)
		changed.Routes[k] = true
	}
	if st.decided && d == st.decision {
		return
	}
	if st.decided {
		s.count(st.decision, -1)
	}
	s.count(d, 1)
	st.decision, st.decided = d, true
	decisions.Set(k, d)
	changed.Routes[k] = true
}

// count adds n to the counters of d's verdict and reason.
func (s *Store) count(d Decision, n int) {
	s.verdicts[d.Verdict] += n
	if d.Reason == ReasonNotServable {
		s.notServable += n
	}
}

// unservable is what the data plane reported about a route it cannot
// serve: the value it was given and why.
type unservable struct {
	route   *Route
	message string
}

// servable turns an admission into a RouteNotServable rejection while the
// data plane cannot serve the value the route is served with; a new value
// clears the report, so that the data plane tries again.
func (st *routeState) servable(d Decision) Decision {
	u := st.unservable
	switch {
	case u == nil:
		return d
	case u.route != st.served:
		st.unservable = nil
		return d
	}
	d.Verdict, d.Reason, d.Message = Rejected, ReasonNotServable, u.message
	return d
}

// SetNotServable records the data plane's report that it cannot serve
// route, the value a snapshot holds for its key, and why. A report on a
// value the store no longer serves (the route changed, lost its claim or
// went meanwhile) is stale and ignored.
func (s *Store) SetNotServable(route *Route, message string) {
	k := route.Key()
	st := s.routes[k]
	if st == nil || st.served != route || (st.unservable != nil && *st.unservable == unservable{route, message}) {
		return
	}
	st.unservable = &unservable{route: route, message: message}
	s.dirtyRoutes[k] = true
}

var annotationsPath = field.NewPath("metadata", "annotations")

// serve builds the data plane's view of an admitted route.
func (s *Store) serve(r *routecore.Route, host string) *Route {
	out := &Route{Namespace: r.Namespace, Name: r.Name, UID: r.UID, Created: r.CreationTimestamp.Time,
		Host: host, Wildcard: r.Spec.WildcardPolicy == routecore.WildcardPolicySubdomain,
		Path: r.Spec.Path, HTTPHeaders: r.Spec.HTTPHeaders}
	out.Overrides, _ = routecore.ParseAnnotations(r.Annotations, annotationsPath)
	out.ExactPath = out.Overrides.ExactPath && out.Path != ""
	if r.Spec.Port != nil {
		tp := r.Spec.Port.TargetPort
		out.TargetPort = &tp
	}
	if r.Spec.TLS != nil {
		tls := r.Spec.TLS
		if ext := externalSecret(r); ext != "" {
			if secret := s.secrets[Key(r.Namespace, ext)]; secret != nil {
				tls = withExternalCertificate(r, secret).Spec.TLS
			}
		}
		out.TLS = tls
	}
	if name := routecore.BasicAuthSecret(r); name != "" {
		if secret := s.secrets[Key(r.Namespace, name)]; secret != nil {
			if users, err := routecore.ValidateBasicAuthSecret(nil, name, secret); err == nil {
				out.BasicAuth = &BasicAuth{Users: users, Realm: out.Overrides.AuthBasicRealm, Forward: out.Overrides.AuthBasicForward}
			}
		}
	}
	for _, ref := range append([]routecore.RouteTargetReference{r.Spec.To}, r.Spec.AlternateBackends...) {
		w := routecore.DefaultWeight
		if ref.Weight != nil {
			w = max(0, min(*ref.Weight, 256))
		}
		out.Backends = append(out.Backends, Backend{Service: types.NamespacedName{Namespace: r.Namespace, Name: ref.Name}, Weight: w})
	}
	return out
}

// unchanged reports whether next is the object the store already has (have,
// not nil): the same UID and resourceVersion, as the informers deliver
// every object again on each resync. Objects without a resourceVersion
// (tests, offline input) always count as changed.
func unchanged(have, next metav1.Object) bool {
	return next.GetResourceVersion() != "" && have.GetResourceVersion() == next.GetResourceVersion() && have.GetUID() == next.GetUID()
}

func externalSecret(r *routecore.Route) string {
	if r == nil || r.Spec.TLS == nil || r.Spec.TLS.ExternalCertificate == nil {
		return ""
	}
	return r.Spec.TLS.ExternalCertificate.Name
}

func addToIndex(idx map[string]map[string]bool, k, v string) {
	if idx[k] == nil {
		idx[k] = map[string]bool{}
	}
	idx[k][v] = true
}

func removeFromIndex(idx map[string]map[string]bool, k, v string) {
	delete(idx[k], v)
	if len(idx[k]) == 0 {
		delete(idx, k)
	}
}
