package router

import (
	"fmt"
	"maps"
	"slices"
	"testing"

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
					incremental.Commit(true)
					checkHolders(t, incremental)
				}
			}
			got := verdicts(incremental.Commit(true))
			checkHolders(t, incremental)
			fresh := NewStore(cfg)
			for _, r := range final {
				fresh.SetRoute(r)
			}
			want := verdicts(fresh.Commit(true))
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
		snap := s.Commit(true)
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
		snap := s.Commit(true)
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
	first := s.Commit(true)
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
		snap := s.Commit(true)
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
	if got := served(s.Commit(true)); got != string(p.Leaf.CertPEM) {
		t.Fatalf("served certificate %q, want the secret's", got)
	}
	s.SetSecret(secret(p.Other))
	if got := served(s.Commit(true)); got != string(p.Other.CertPEM) {
		t.Errorf("after the secret changed, served certificate %q, want its new content", got)
	}
	s.DeleteSecret("ns", "tls")
	snap := s.Commit(true)
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
		snap := s.Commit(true)
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
	if snap := s.Commit(true); snap.Changed.Empty() {
		t.Fatal("the first delivery changed nothing")
	}
	deliver()
	if snap := s.Commit(true); !snap.Changed.Empty() {
		t.Errorf("a resync changed routes %v, services %v", snap.Changed.Routes, snap.Changed.Services)
	}
	unversioned := es.DeepCopy()
	unversioned.ResourceVersion = ""
	s.SetEndpointSlice(unversioned)
	if snap := s.Commit(true); !snap.Changed.Services["ns/web"] {
		t.Error("a slice without resourceVersion was taken as unchanged")
	}
}
