package router

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
)

// FuzzStoreIncremental: whatever sequence of route events arrives, judging
// incrementally gives the same decisions as judging the final set of routes
// from scratch, and the store's index of plain routes holding their hosts
// stays true. The input bytes drive the events: routes of three namespaces
// on hosts of two domains, plain or wildcard, with or without a path, HTTP,
// edge or passthrough.
func FuzzStoreIncremental(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 200, 3, 4})
	f.Add([]byte{0, 0, 0, 255, 128, 64, 32, 16, 8, 4, 2, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		for _, cfg := range []AdmissionConfig{
			{AllowWildcardRoutes: true},
			{AllowWildcardRoutes: true, DisableNamespaceOwnershipCheck: true},
			{RouteSelector: labels.SelectorFromSet(labels.Set{"s": "1"})},
		} {
			incremental := NewStore(cfg)
			final := map[string]*routecore.Route{}
			for i := 0; i+2 < len(ops); i += 3 {
				ns := fmt.Sprintf("ns%d", ops[i]%3)
				name := fmt.Sprintf("r%d", ops[i+1]%6)
				k := ns + "/" + name
				if ops[i+2]%7 == 0 {
					incremental.DeleteRoute(ns, name)
					delete(final, k)
				} else {
					hosts := []string{"a.x.com", "b.x.com", "wild.x.com", "a.y.com"}
					r := rt(ns, name, hosts[int(ops[i+2])%len(hosts)], int(ops[i+2]%5))
					r.ResourceVersion = fmt.Sprint(i)
					if ops[i+2]%3 == 0 {
						wildcard(r)
					}
					if ops[i+2]%4 == 1 {
						r.Spec.Path = "/p"
					}
					if ops[i+2]%2 == 0 {
						r.Labels = map[string]string{"s": "1"}
					}
					switch ops[i+1] / 6 % 3 {
					case 1:
						withTLS(routecore.TLSTerminationEdge)(r)
					case 2:
						withTLS(routecore.TLSTerminationPassthrough)(r)
					}
					incremental.SetRoute(r)
					final[k] = r
				}
				if ops[i]%2 == 0 {
					incremental.Build(true)
					checkHolders(t, incremental)
				}
			}
			got := verdicts(incremental.Build(true))
			checkHolders(t, incremental)
			fresh := NewStore(cfg)
			for _, r := range final {
				fresh.SetRoute(r)
			}
			want := verdicts(fresh.Build(true))
			if !slices.Equal(got, want) {
				t.Fatalf("incremental:\n%v\nfrom scratch:\n%v", got, want)
			}
			served := incremental.snapshot.Routes.Len()
			admitted := 0
			for _, line := range got {
				if slices.Contains([]byte(line), ' ') && len(line) > 9 && line[len(line)-8:] == "admitted" {
					admitted++
				}
			}
			if served != admitted {
				t.Fatalf("%d routes served, %d admitted", served, admitted)
			}
		}
	})
}

// checkHolders fails unless every domain's holders index lists exactly the
// plain contenders that hold their claims, by namespace, oldest first.
func checkHolders(t *testing.T, s *Store) {
	t.Helper()
	for domain, ds := range s.domains {
		want := map[string][]*contender{}
		for _, group := range ds.hosts {
			for _, ct := range group {
				if ct.holds {
					want[ct.namespace] = append(want[ct.namespace], ct)
				}
			}
		}
		for _, list := range want {
			slices.SortFunc(list, older)
		}
		if !maps.EqualFunc(ds.holders, want, func(a, b []*contender) bool { return slices.Equal(a, b) }) {
			t.Fatalf("domain %q: holders %v, want %v", domain, ds.holders, want)
		}
	}
}

// checkShardStep compares a snapshot with what a shard step expects: the
// decisions, which routes are served, which route keys changed, and the
// Store's verdict counters against the decisions.
func checkShardStep(t *testing.T, s *Store, snap Snapshot, want []string, servedKeys, changed []string) {
	t.Helper()
	expect(t, snap, want...)
	var gotServed []string
	for k, r := range snap.Routes.All() {
		gotServed = append(gotServed, k)
		if d, _ := snap.Decisions.Get(k); d.Verdict != Admitted || r.Host != d.Host {
			t.Errorf("%s served for host %q, decision %+v", k, r.Host, d)
		}
	}
	slices.Sort(gotServed)
	slices.Sort(servedKeys)
	if !slices.Equal(gotServed, servedKeys) {
		t.Errorf("served %v, want %v", gotServed, servedKeys)
	}
	gotChanged := slices.Sorted(maps.Keys(snap.Changed.Routes))
	slices.Sort(changed)
	if !slices.Equal(gotChanged, changed) {
		t.Errorf("changed routes %v, want %v", gotChanged, changed)
	}
	var counts [3]int
	for _, d := range snap.Decisions.All() {
		counts[d.Verdict]++
	}
	if counts != s.verdicts {
		t.Errorf("verdict counters %v, decisions count %v", s.verdicts, counts)
	}
}

// TestNamespaceShardRelabel: with NAMESPACE_LABELS, a namespace's routes
// enter the shard when its labels come to match, leave it when they stop
// matching or the namespace is deleted, and come back with it; routes of
// other namespaces are not touched.
func TestNamespaceShardRelabel(t *testing.T) {
	sel, err := labels.Parse("shard=a")
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(AdmissionConfig{NamespaceSelector: sel})
	s.SetNamespace("other", map[string]string{"shard": "a"})
	s.SetRoute(rt("other", "o", "o.example.com", 0))
	s.SetRoute(rt("team", "web", "web.example.com", 1))
	s.SetRoute(rt("team", "api", "web.example.com", 2, withPath("/api")))
	in := []string{"other/o admitted", "team/api admitted", "team/web admitted"}
	out := []string{"other/o admitted", "team/api ignored", "team/web ignored"}
	both := []string{"team/api", "team/web"}
	steps := []shardStep{
		{"namespace not known yet", func() {}, out, []string{"other/o"}, []string{"other/o", "team/api", "team/web"}},
		{"labels do not match", func() { s.SetNamespace("team", map[string]string{"shard": "b"}) }, out, []string{"other/o"}, nil},
		{"relabelled into the shard", func() { s.SetNamespace("team", map[string]string{"shard": "a", "tier": "x"}) },
			in, []string{"other/o", "team/api", "team/web"}, both},
		{"another label changes: still in", func() { s.SetNamespace("team", map[string]string{"shard": "a"}) },
			in, []string{"other/o", "team/api", "team/web"}, nil},
		{"relabelled out", func() { s.SetNamespace("team", map[string]string{"shard": "b"}) }, out, []string{"other/o"}, both},
		{"relabelled in again", func() { s.SetNamespace("team", map[string]string{"shard": "a"}) },
			in, []string{"other/o", "team/api", "team/web"}, both},
		{"namespace deleted", func() { s.DeleteNamespace("team") }, out, []string{"other/o"}, both},
		{"namespace created again, matching", func() { s.SetNamespace("team", map[string]string{"shard": "a"}) },
			in, []string{"other/o", "team/api", "team/web"}, both},
		{"namespace with all labels removed", func() { s.SetNamespace("team", nil) }, out, []string{"other/o"}, both},
	}
	for _, step := range steps {
		step.do()
		snap := s.Build(true)
		t.Run(step.name, func(t *testing.T) { checkShardStep(t, s, snap, step.want, step.served, step.changed) })
	}
}

// shardStep is one step of the namespace shard tests: what it does, the
// decisions, served routes and changed routes it must give.
type shardStep struct {
	name    string
	do      func()
	want    []string
	served  []string
	changed []string
}

// TestNamespaceShardAge: a route whose namespace is relabelled into the
// shard is judged by its age like any other: older than the holder of its
// host in another namespace, it takes the host, and gives it back when it
// leaves the shard again.
func TestNamespaceShardAge(t *testing.T) {
	s := NewStore(AdmissionConfig{NamespaceSelector: labels.SelectorFromSet(labels.Set{"shard": "a"})})
	s.SetNamespace("nsx", map[string]string{"shard": "a"})
	s.SetNamespace("nsy", map[string]string{"shard": "b"})
	s.SetRoute(rt("nsy", "y", "h.example.com", 1))
	s.SetRoute(rt("nsx", "x", "h.example.com", 2))
	xHolds := []string{"nsx/x admitted", "nsy/y ignored"}
	yHolds := []string{"nsy/y admitted", "nsx/x rejected HostAlreadyClaimed: a route in another namespace holds h.example.com and is older than x"}
	both := []string{"nsx/x", "nsy/y"}
	steps := []shardStep{
		{"younger route holds the host", func() {}, xHolds, []string{"nsx/x"}, both},
		{"older route's namespace relabelled in", func() { s.SetNamespace("nsy", map[string]string{"shard": "a"}) }, yHolds, []string{"nsy/y"}, both},
		{"relabelled out", func() { s.SetNamespace("nsy", map[string]string{"shard": "b"}) }, xHolds, []string{"nsx/x"}, both},
		{"relabelled in", func() { s.SetNamespace("nsy", map[string]string{"shard": "a"}) }, yHolds, []string{"nsy/y"}, both},
		{"older route's namespace deleted", func() { s.DeleteNamespace("nsy") }, xHolds, []string{"nsx/x"}, both},
	}
	for _, step := range steps {
		step.do()
		snap := s.Build(true)
		t.Run(step.name, func(t *testing.T) { checkShardStep(t, s, snap, step.want, step.served, step.changed) })
	}
}

// TestStoreServices: a Service's TCP ports reach its endpoints in the
// snapshot; a Service event marks only that service changed, and only when
// its ports change; earlier snapshots keep what they had.
func TestStoreServices(t *testing.T) {
	s := NewStore(AdmissionConfig{})
	s.SetEndpointSlice(webSlice("web-a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{slicePort("http", 8080, "")},
		sliceEndpoint("ready", "", "10.0.0.1")))
	service := func(name, resourceVersion string, ports ...corev1.ServicePort) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: resourceVersion},
			Spec: corev1.ServiceSpec{Ports: ports}}
	}
	http80 := corev1.ServicePort{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}
	dns := corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}
	first := s.Build(true)
	steps := []struct {
		name    string
		do      func()
		changed []string
		ports   []ServicePort
	}{
		{"the Service arrives: its TCP ports", func() { s.SetService(service("web", "1", http80, dns)) },
			[]string{"ns/web"}, []ServicePort{{Port: 80, Name: "http"}}},
		{"a change that leaves the ports alone changes nothing", func() {
			svc := service("web", "2", http80, dns)
			svc.Labels = map[string]string{"tier": "front"}
			s.SetService(svc)
		}, nil, []ServicePort{{Port: 80, Name: "http"}}},
		{"another Service changes only itself", func() { s.SetService(service("other", "1", http80)) },
			[]string{"ns/other"}, []ServicePort{{Port: 80, Name: "http"}}},
		{"the ports change", func() { s.SetService(service("web", "3", corev1.ServicePort{Name: "http", Port: 8000})) },
			[]string{"ns/web"}, []ServicePort{{Port: 8000, Name: "http"}}},
		{"the Service is deleted", func() { s.DeleteService("ns", "web") }, []string{"ns/web"}, nil},
		{"deleting it again changes nothing", func() { s.DeleteService("ns", "web") }, nil, nil},
	}
	for _, step := range steps {
		step.do()
		snap := s.Build(true)
		t.Run(step.name, func(t *testing.T) {
			if got := slices.Sorted(maps.Keys(snap.Changed.Services)); !slices.Equal(got, step.changed) {
				t.Errorf("changed services %v, want %v", got, step.changed)
			}
			web, ok := snap.Services.Get("ns/web")
			if !ok || len(web.Endpoints) != 1 {
				t.Fatalf("ns/web endpoints %+v", web)
			}
			if !slices.Equal(web.Ports, step.ports) {
				t.Errorf("ports %v, want %v", web.Ports, step.ports)
			}
		})
	}
	if web, _ := first.Services.Get("ns/web"); web.Ports != nil {
		t.Errorf("the snapshot before the Service changed to ports %v", web.Ports)
	}
}

// TestServicePortsOnly: the router's cache keeps of a Service its identity
// and ports (with their appProtocol), what SetService reads, and nothing
// else, but for the load balancer status of the Service whose address the
// router publishes.
func TestServicePortsOnly(t *testing.T) {
	h2c := "kubernetes.io/h2c"
	ports := []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), AppProtocol: &h2c}}
	lb := corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "u", ResourceVersion: "7",
			Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"big": "annotation"}},
		Spec:   corev1.ServiceSpec{Ports: ports, Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.0.10"},
		Status: corev1.ServiceStatus{LoadBalancer: lb},
	}
	kept := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "u", ResourceVersion: "7"},
		Spec: corev1.ServiceSpec{Ports: ports}}
	published := kept.DeepCopy()
	published.Status.LoadBalancer = lb
	web := types.NamespacedName{Namespace: "ns", Name: "web"}
	tests := []struct {
		name string
		cfg  Config
		want *corev1.Service
	}{
		{"no published Service", Config{}, kept},
		{"another Service published", Config{PublishService: types.NamespacedName{Namespace: "ns", Name: "router"}}, kept},
		{"this Service published", Config{PublishService: web}, published},
		{"a fixed address wins", Config{PublishService: web, PublishStatusAddress: "10.0.0.1"}, kept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := servicePortsOnly(tt.cfg)(svc)
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(got, tt.want) {
				t.Errorf("kept %+v, want %+v", got, tt.want)
			}
		})
	}
	other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}
	if got, _ := servicePortsOnly(Config{})(other); got != other {
		t.Errorf("another kind of object is changed: %+v", got)
	}
}

// TestStoreExternalCertificateChanges: a route served with its external
// certificate serves the secret's new content when the secret changes, and
// is rejected when it goes (EXTENDED_VALIDATION).
func TestStoreExternalCertificateChanges(t *testing.T) {
	p, err := fixtures.Certificates()
	if err != nil {
		t.Fatal(err)
	}
	secret := func(kp *certs.KeyPair) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tls"}, Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: kp.CertPEM, corev1.TLSPrivateKeyKey: kp.KeyPEM}}
	}
	s := NewStore(AdmissionConfig{ExtendedValidation: true})
	s.SetSecret(secret(p.Leaf))
	s.SetRoute(rt("ns", "r", "www.example.com", 1, func(r *routecore.Route) {
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge,
			ExternalCertificate: &routecore.LocalObjectReference{Name: "tls"}}
	}))
	served := func(snap Snapshot) string {
		r, ok := snap.Routes.Get("ns/r")
		if !ok {
			return "not served"
		}
		return r.TLS.Certificate
	}
	if got := served(s.Build(true)); got != string(p.Leaf.CertPEM) {
		t.Fatalf("served certificate %q, want the secret's", got)
	}
	s.SetSecret(secret(p.Other))
	if got := served(s.Build(true)); got != string(p.Other.CertPEM) {
		t.Errorf("after the secret changed, served certificate %q, want its new content", got)
	}
	s.DeleteSecret("ns", "tls")
	snap := s.Build(true)
	if got := served(snap); got != "not served" {
		t.Errorf("after the secret went, served %q", got)
	}
	if d, _ := snap.Decisions.Get("ns/r"); d.Reason != ReasonExternalCertificateValidation {
		t.Errorf("decision %+v, want %s", d, ReasonExternalCertificateValidation)
	}
}

// TestStoreAppProtocol: an endpoint's application protocol is its Service
// port's when that has one, else its EndpointSlice port's; a change of the
// Service's appProtocol is a change of the service.
func TestStoreAppProtocol(t *testing.T) {
	h2c, ws := "kubernetes.io/h2c", "kubernetes.io/ws"
	grpcPort := slicePort("grpc", 9090, "")
	webPort := slicePort("web", 8080, "")
	webPort.AppProtocol = &ws
	s := NewStore(AdmissionConfig{})
	s.SetEndpointSlice(webSlice("web-a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{grpcPort, webPort},
		sliceEndpoint("ready", "", "10.0.0.1")))
	service := func(resourceVersion string, grpcProtocol *string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", ResourceVersion: resourceVersion},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "grpc", Port: 90, AppProtocol: grpcProtocol}, {Name: "web", Port: 80}}}}
	}
	steps := []struct {
		name    string
		do      func()
		changed bool
		want    map[string]string // port name -> appProtocol
	}{
		{"slices alone: the slice's appProtocol", func() {}, true, map[string]string{"grpc": "", "web": ws}},
		{"the Service names h2c for grpc", func() { s.SetService(service("1", &h2c)) }, true, map[string]string{"grpc": h2c, "web": ws}},
		{"the Service drops it", func() { s.SetService(service("2", nil)) }, true, map[string]string{"grpc": "", "web": ws}},
	}
	for _, step := range steps {
		step.do()
		snap := s.Build(true)
		t.Run(step.name, func(t *testing.T) {
			if got := snap.Changed.Services["ns/web"]; got != step.changed {
				t.Errorf("service changed %v, want %v", got, step.changed)
			}
			web, _ := snap.Services.Get("ns/web")
			got := map[string]string{}
			for _, e := range web.Endpoints {
				got[e.PortName] = e.AppProtocol
			}
			if !maps.Equal(got, step.want) {
				t.Errorf("appProtocols %v, want %v", got, step.want)
			}
		})
	}
}

// TestStoreResync: the informers' resync delivers every object again,
// unchanged (same UID and resourceVersion): nothing is judged or merged
// again. Objects without a resourceVersion always count as changed.
func TestStoreResync(t *testing.T) {
	s := NewStore(AdmissionConfig{})
	r := rt("ns", "web", "web.example.com", 0)
	r.ResourceVersion, r.UID = "5", "u1"
	es := webSlice("web-a", discoveryv1.AddressTypeIPv4, []discoveryv1.EndpointPort{slicePort("http", 8080, "")}, sliceEndpoint("ready", "", "10.0.0.1"))
	es.ResourceVersion, es.UID = "6", "u2"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tls", ResourceVersion: "7", UID: "u3"}}
	deliver := func() {
		s.SetRoute(r.DeepCopy())
		s.SetEndpointSlice(es.DeepCopy())
		s.SetSecret(secret.DeepCopy())
	}
	deliver()
	if snap := s.Build(true); snap.Changed.Empty() {
		t.Fatal("the first delivery changed nothing")
	}
	deliver()
	if snap := s.Build(true); !snap.Changed.Empty() {
		t.Errorf("a resync changed routes %v, services %v", snap.Changed.Routes, snap.Changed.Services)
	}
	unversioned := es.DeepCopy()
	unversioned.ResourceVersion = ""
	s.SetEndpointSlice(unversioned)
	if snap := s.Build(true); !snap.Changed.Services["ns/web"] {
		t.Error("a slice without resourceVersion was taken as unchanged")
	}
}

// TestRouteUpdates: a route that changes is judged again with the routes
// of its old host and of its new one: moving away frees its host for the
// next claimant, moving back takes it again by age, a change of path alone
// serves anew without touching the other routes, and a route turned
// wildcard competes for the whole domain. Each step names exactly the
// routes whose decision or served value changed.
func TestRouteUpdates(t *testing.T) {
	s := NewStore(AdmissionConfig{AllowWildcardRoutes: true})
	version := 0
	set := func(r *routecore.Route) func() {
		return func() {
			version++
			r = r.DeepCopy()
			r.ResourceVersion = fmt.Sprint("v", version)
			s.SetRoute(r)
		}
	}
	const (
		aOn1    = "ns1/a admitted"
		bOn1    = "ns2/b admitted"
		bLoses  = "ns2/b rejected HostAlreadyClaimed: a route in another namespace holds h1.x.com and is older than b"
		cOther  = "ns3/c admitted"
		dOtherY = "ns2/d admitted"
	)
	steps := []struct {
		shardStep
		hosts map[string]string // route -> the host it is served for
	}{
		{shardStep{"the oldest of two namespaces holds h1", func() {
			set(rt("ns1", "a", "h1.x.com", 1))()
			set(rt("ns2", "b", "h1.x.com", 2))()
			set(rt("ns3", "c", "other.x.com", 0))()
			set(rt("ns2", "d", "d.y.com", 5))()
		}, []string{aOn1, bLoses, cOther, dOtherY}, []string{"ns1/a", "ns3/c", "ns2/d"}, []string{"ns1/a", "ns2/b", "ns3/c", "ns2/d"}},
			map[string]string{"ns1/a": "h1.x.com"}},
		{shardStep{"the holder moves to h2: the next claimant gets h1", set(rt("ns1", "a", "h2.x.com", 1)),
			[]string{"ns1/a admitted", bOn1, cOther, dOtherY}, []string{"ns1/a", "ns2/b", "ns3/c", "ns2/d"}, []string{"ns1/a", "ns2/b"}},
			map[string]string{"ns1/a": "h2.x.com", "ns2/b": "h1.x.com"}},
		{shardStep{"it moves back: older, it takes h1 again", set(rt("ns1", "a", "h1.x.com", 1)),
			[]string{aOn1, bLoses, cOther, dOtherY}, []string{"ns1/a", "ns3/c", "ns2/d"}, []string{"ns1/a", "ns2/b"}},
			map[string]string{"ns1/a": "h1.x.com"}},
		{shardStep{"a new path on the holder: only it is served anew", set(rt("ns1", "a", "h1.x.com", 1, withPath("/v2"))),
			[]string{aOn1, bLoses, cOther, dOtherY}, []string{"ns1/a", "ns3/c", "ns2/d"}, []string{"ns1/a"}},
			map[string]string{"ns1/a": "h1.x.com"}},
		{shardStep{"the loser moves to another domain: admitted there, nothing else changes", set(rt("ns2", "b", "b.y.com", 2)),
			[]string{aOn1, "ns2/b admitted", cOther, dOtherY}, []string{"ns1/a", "ns2/b", "ns3/c", "ns2/d"}, []string{"ns2/b"}},
			map[string]string{"ns2/b": "b.y.com"}},
		{shardStep{"it comes back to h1 with another path: still another namespace's host", set(rt("ns2", "b", "h1.x.com", 2, withPath("/b"))),
			[]string{aOn1, bLoses, cOther, dOtherY}, []string{"ns1/a", "ns3/c", "ns2/d"}, []string{"ns2/b"}},
			map[string]string{}},
		{shardStep{"the holder turns wildcard: an older host of another namespace blocks it, and h1 is free", set(rt("ns1", "a", "h1.x.com", 1, wildcard)),
			[]string{"ns1/a rejected HostAlreadyClaimed: a route in another namespace holds host h1.x.com", bOn1, cOther, dOtherY},
			[]string{"ns2/b", "ns3/c", "ns2/d"}, []string{"ns1/a", "ns2/b"}},
			map[string]string{"ns2/b": "h1.x.com"}},
		{shardStep{"the blocking host goes: the wildcard wins the domain, and b loses h1", func() { s.DeleteRoute("ns3", "c") },
			[]string{aOn1, "ns2/b rejected HostAlreadyClaimed: a route in another namespace holds host h1.x.com", dOtherY},
			[]string{"ns1/a", "ns2/d"}, []string{"ns1/a", "ns2/b", "ns3/c"}},
			map[string]string{"ns1/a": "h1.x.com"}},
		{shardStep{"another domain's route is untouched by the wildcard: a new host there is admitted", set(rt("ns3", "e", "e.y.com", 6)),
			[]string{aOn1, "ns2/b rejected HostAlreadyClaimed: a route in another namespace holds host h1.x.com", dOtherY, "ns3/e admitted"},
			[]string{"ns1/a", "ns2/d", "ns3/e"}, []string{"ns3/e"}},
			map[string]string{"ns3/e": "e.y.com"}},
		{shardStep{"the wildcard is deleted: b gets h1", func() { s.DeleteRoute("ns1", "a") },
			[]string{bOn1, dOtherY, "ns3/e admitted"}, []string{"ns2/b", "ns2/d", "ns3/e"}, []string{"ns1/a", "ns2/b"}},
			map[string]string{"ns2/b": "h1.x.com"}},
		{shardStep{"deleted and created again in one batch: judged anew, reported changed", func() {
			s.DeleteRoute("ns2", "d")
			set(rt("ns2", "d", "d.y.com", 5))()
		}, []string{bOn1, dOtherY, "ns3/e admitted"}, []string{"ns2/b", "ns2/d", "ns3/e"}, []string{"ns2/d"}},
			map[string]string{"ns2/d": "d.y.com"}},
	}
	for _, step := range steps {
		step.do()
		snap := s.Build(true)
		t.Run(step.name, func(t *testing.T) {
			checkShardStep(t, s, snap, step.want, step.served, step.changed)
			for k, host := range step.hosts {
				if r, ok := snap.Routes.Get(k); !ok || r.Host != host {
					t.Errorf("%s served %v for host %q, want %q", k, ok, r.Host, host)
				}
			}
			checkHolders(t, s)
		})
	}
}

// TestSnapshotsStay: a snapshot once returned never changes: later builds
// build new maps and leave the old ones (which a data plane may still be
// rendering) as they were; versions count up; Synced is what the caller
// says.
func TestSnapshotsStay(t *testing.T) {
	s := store(AdmissionConfig{}, rt("ns1", "a", "h.x.com", 1), rt("ns2", "b", "h.x.com", 2))
	first := s.Build(false)
	servedA, _ := first.Routes.Get("ns1/a")
	s.DeleteRoute("ns1", "a")
	s.SetRoute(rt("ns3", "c", "c.x.com", 3))
	second := s.Build(true)
	expect(t, first, "ns1/a admitted",
		"ns2/b rejected HostAlreadyClaimed: a route in another namespace holds h.x.com and is older than b")
	expect(t, second, "ns2/b admitted", "ns3/c admitted")
	if got, ok := first.Routes.Get("ns1/a"); !ok || got != servedA || got.Host != "h.x.com" {
		t.Errorf("the first snapshot's ns1/a is now %v %+v", ok, got)
	}
	if _, ok := first.Routes.Get("ns2/b"); ok {
		t.Error("the first snapshot serves ns2/b, admitted only later")
	}
	if first.Synced || !second.Synced {
		t.Errorf("synced %v then %v, want false then true", first.Synced, second.Synced)
	}
	if first.Version+1 != second.Version {
		t.Errorf("versions %d then %d", first.Version, second.Version)
	}
	if third := s.Build(true); !third.Changed.Empty() || third.Version != second.Version+1 {
		t.Errorf("a build without events: changed %v, version %d", third.Changed, third.Version)
	}
}

// TestServedRoute: what the data plane is given for an admitted route,
// from the Route object: the effective host, the backends in order with
// their weights (100 when none is written), the target port, annotation
// values that are valid (a bad one is dropped, the route still served),
// an exact path only with a path, header actions and TLS as written.
func TestServedRoute(t *testing.T) {
	w := func(n int32) *int32 { return &n }
	headers := &routecore.RouteHTTPHeaders{Actions: routecore.RouteHTTPHeaderActions{Request: []routecore.RouteHTTPHeader{
		{Name: "X-A", Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Delete}}}}}
	port := intstr.FromString("https")
	tests := []struct {
		name  string
		cfg   AdmissionConfig
		route *routecore.Route
		check func(t *testing.T, r *Route)
	}{
		{"backends in order, with weights", AdmissionConfig{}, rt("ns", "r", "www.x.com", 1, func(r *routecore.Route) {
			r.Spec.To.Weight = w(0)
			r.Spec.AlternateBackends = []routecore.RouteTargetReference{{Kind: "Service", Name: "b", Weight: w(256)}, {Kind: "Service", Name: "c"}}
		}), func(t *testing.T, r *Route) {
			want := []Backend{{types.NamespacedName{Namespace: "ns", Name: "svc"}, 0}, {types.NamespacedName{Namespace: "ns", Name: "b"}, 256},
				{types.NamespacedName{Namespace: "ns", Name: "c"}, routecore.DefaultWeight}}
			if !slices.Equal(r.Backends, want) {
				t.Errorf("backends %v, want %v", r.Backends, want)
			}
		}},
		{"identity and age", AdmissionConfig{}, rt("ns", "r", "www.x.com", 7), func(t *testing.T, r *Route) {
			if r.Key() != "ns/r" || r.UID != "uid-ns-r" || !r.Created.Equal(epoch.Add(7e9)) || r.Wildcard {
				t.Errorf("served %s uid %s created %v wildcard %v", r.Key(), r.UID, r.Created, r.Wildcard)
			}
		}},
		{"the generated host", AdmissionConfig{HostnameTemplate: "${name}.apps.x.com"}, rt("ns", "r", "", 1), func(t *testing.T, r *Route) {
			if r.Host != "r.apps.x.com" {
				t.Errorf("host %q", r.Host)
			}
		}},
		{"a wildcard route", AdmissionConfig{AllowWildcardRoutes: true}, rt("ns", "r", "w.x.com", 1, wildcard), func(t *testing.T, r *Route) {
			if !r.Wildcard || r.Host != "w.x.com" {
				t.Errorf("wildcard %v host %q", r.Wildcard, r.Host)
			}
		}},
		{"target port", AdmissionConfig{}, rt("ns", "r", "www.x.com", 1, func(r *routecore.Route) {
			r.Spec.Port = &routecore.RoutePort{TargetPort: port}
		}), func(t *testing.T, r *Route) {
			if r.TargetPort == nil || *r.TargetPort != port {
				t.Errorf("target port %v", r.TargetPort)
			}
		}},
		{"no port: every endpoint port", AdmissionConfig{}, rt("ns", "r", "www.x.com", 1), func(t *testing.T, r *Route) {
			if r.TargetPort != nil {
				t.Errorf("target port %v", r.TargetPort)
			}
		}},
		{"an exact path", AdmissionConfig{}, rt("ns", "r", "www.x.com", 1, withPath("/api"), func(r *routecore.Route) {
			r.Annotations = map[string]string{routecore.AnnPathType: "Exact"}
		}), func(t *testing.T, r *Route) {
			if !r.ExactPath || r.Path != "/api" {
				t.Errorf("exact %v path %q", r.ExactPath, r.Path)
			}
		}},
		{"Exact without a path matches the whole host", AdmissionConfig{}, rt("ns", "r", "www.x.com", 1, func(r *routecore.Route) {
			r.Annotations = map[string]string{routecore.AnnPathType: "Exact"}
		}), func(t *testing.T, r *Route) {
			if r.ExactPath {
				t.Error("exact path without a path")
			}
		}},
		{"valid annotation values kept, a bad one dropped", AdmissionConfig{}, rt("ns", "r", "www.x.com", 1, func(r *routecore.Route) {
			r.Annotations = map[string]string{routecore.AnnTimeout: "5 minutes", routecore.AnnPathType: "Prefix", "unrelated": "x"}
		}), func(t *testing.T, r *Route) {
			if r.Overrides.Timeout != 0 || r.Overrides.ExactPath {
				t.Errorf("overrides %+v", r.Overrides)
			}
		}},
		{"a valid timeout", AdmissionConfig{}, rt("ns", "r", "www.x.com", 1, func(r *routecore.Route) {
			r.Annotations = map[string]string{routecore.AnnTimeout: "5500ms"}
		}), func(t *testing.T, r *Route) {
			if r.Overrides.Timeout != 5500*time.Millisecond {
				t.Errorf("timeout %v", r.Overrides.Timeout)
			}
		}},
		{"header actions and TLS as written", AdmissionConfig{}, rt("ns", "r", "www.x.com", 1, withTLS(routecore.TLSTerminationEdge),
			func(r *routecore.Route) { r.Spec.HTTPHeaders = headers }), func(t *testing.T, r *Route) {
			if r.HTTPHeaders != headers || r.Termination() != routecore.TLSTerminationEdge {
				t.Errorf("headers %+v termination %q", r.HTTPHeaders, r.Termination())
			}
		}},
		{"plain HTTP has no termination", AdmissionConfig{}, rt("ns", "r", "www.x.com", 1), func(t *testing.T, r *Route) {
			if r.TLS != nil || r.Termination() != "" {
				t.Errorf("TLS %+v", r.TLS)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := store(tt.cfg, tt.route).Build(true)
			r, ok := snap.Routes.Get("ns/r")
			if !ok {
				d, _ := snap.Decisions.Get("ns/r")
				t.Fatalf("not served: %+v", d)
			}
			tt.check(t, r)
		})
	}
}

// TestNamespaceEventsOutsideANamespaceShard: without NAMESPACE_LABELS a
// namespace's labels decide nothing, so its events re-judge no route.
func TestNamespaceEventsOutsideANamespaceShard(t *testing.T) {
	s := store(AdmissionConfig{RouteSelector: labels.SelectorFromSet(labels.Set{"shard": "a"})},
		rt("ns", "a", "a.example.com", 1, withLabels("shard", "a")), rt("ns", "b", "b.example.com", 2))
	expect(t, s.Build(true), "ns/a admitted", "ns/b ignored")
	for _, event := range []func(){
		func() { s.SetNamespace("ns", map[string]string{"shard": "a"}) },
		func() { s.SetNamespace("ns", map[string]string{"shard": "b"}) },
		func() { s.DeleteNamespace("ns") },
	} {
		event()
		if snap := s.Build(true); !snap.Changed.Empty() {
			t.Errorf("a namespace event changed %v", snap.Changed.Routes)
		}
	}
	expect(t, s.Build(true), "ns/a admitted", "ns/b ignored")
}
