package haproxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/freeport"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
	"github.com/routeshift/routeshift/router/routertest"
)

// Helpers of the traffic tests: a routeshift data plane (router.Store ->
// router.Feed -> DataPlane running a real HAProxy on free loopback ports),
// Go backends on loopback, and clients that send real requests through
// HAProxy.

// trafficRouter is one data plane under test. Routes and endpoints go
// into its Store; publish hands the next snapshot to the DataPlane, whose
// metrics go to reg.
type trafficRouter struct {
	t   testing.TB
	cfg proxyconfig.Config
	// storeMu guards store between the test and the data plane's reports
	// (NotServable).
	storeMu sync.Mutex
	store   *router.Store
	feed    *router.Feed
	p       *DataPlane
	reg     *prometheus.Registry
	metrics *runtime.Metrics
	rv      int
	// filePoll, when set, replaces the DataPlane's file check interval.
	filePoll time.Duration
	// ticks, when set, replaces the RELOAD_INTERVAL ticker, and now the
	// clock the interval is measured with.
	ticks chan time.Time
	now   func() time.Time
	// slices are the EndpointSlice names set per service key.
	slices map[string]map[string]bool

	logMu sync.Mutex
	logs  strings.Builder
	// haproxyOut is what HAProxy printed (it goes to standard error too).
	haproxyOut strings.Builder
	// relayed, when set, leaves HAProxy's output to the data plane, which
	// relays it into its log as the router does (haproxyOut stays empty),
	// and logs at debug level too.
	relayed bool
}

// Write records HAProxy's output.
func (r *trafficRouter) Write(p []byte) (int, error) {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	os.Stderr.Write(p)
	return r.haproxyOut.Write(p)
}

// haproxyOutput is everything HAProxy has printed.
func (r *trafficRouter) haproxyOutput() string {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	return r.haproxyOut.String()
}

// logged is everything the process has logged.
func (r *trafficRouter) logged() string {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	return r.logs.String()
}

// trafficWorkDir is a fresh working directory: t.TempDir(), unless its path
// is too long for HAProxy's unix sockets or has characters the renderer
// refuses in paths.
func trafficWorkDir(t testing.TB) string {
	dir := t.TempDir()
	if len(dir) <= 70 && proxyconfig.PathSafe(dir) {
		return dir
	}
	dir, err := os.MkdirTemp("", "traffic")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// trafficDataPlane is the default data plane on free loopback ports.
func trafficDataPlane(t testing.TB) proxyconfig.Config {
	d := settings.Defaults().DataPlane
	d.WorkingDir = trafficWorkDir(t)
	d.BindAddress = "127.0.0.1"
	ports := freePorts(t, 4)
	d.HTTPPort, d.HTTPSPort, d.SNIPort, d.NoSNIPort = ports[0], ports[1], ports[2], ports[3]
	d.ReloadInterval = time.Second
	// HAProxy sizes its file descriptors after maxconn: stay within the
	// test process's limit.
	d.MaxConnections = 4000
	return d
}

// freePorts returns n distinct free loopback ports, outside the range
// client sockets take theirs from (HAProxy binds them later).
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		p, err := freeport.Get()
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, p)
	}
	return ports
}

// newTrafficRouter returns a router whose data plane has mods applied; it
// is not started.
func newTrafficRouter(t testing.TB, mods ...func(*proxyconfig.Config)) *trafficRouter {
	t.Helper()
	requireHAProxy(t)
	d := trafficDataPlane(t)
	for _, m := range mods {
		m(&d)
	}
	reg := prometheus.NewRegistry()
	metrics, err := runtime.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	return &trafficRouter{t: t, cfg: d, store: router.NewStore(router.AdmissionConfig{AllowLoopbackEndpoints: true}), feed: &router.Feed{},
		reg: reg, metrics: metrics, slices: map[string]map[string]bool{}}
}

// start publishes what the store holds, starts the DataPlane and waits
// until it is ready. The DataPlane is stopped (and Serve awaited) at
// cleanup.
func (r *trafficRouter) start() *trafficRouter {
	r.t.Helper()
	done := r.launch(nil)
	eventually(r.t, 2*time.Minute, "the process is ready", func() error {
		select {
		case err := <-done:
			r.t.Fatalf("DataPlane.Serve returned early: %v", err)
		default:
		}
		if !r.p.Ready() {
			return errors.New("not ready")
		}
		return nil
	})
	return r
}

// launch creates the DataPlane, runs beforeRun (when not nil), starts it
// and publishes what the store holds, without waiting for anything. The
// returned channel receives what Serve returns early.
func (r *trafficRouter) launch(beforeRun func()) <-chan error {
	r.t.Helper()
	var err error
	opts := DataPlaneOptions{Metrics: r.metrics, Now: r.now, Log: r}
	verbosity := 0
	if r.relayed {
		opts.Log, verbosity = nil, 1
	}
	r.p, err = NewDataPlane(r.cfg, opts)
	if err != nil {
		r.t.Fatal(err)
	}
	if beforeRun != nil {
		beforeRun()
	}
	if r.filePoll > 0 {
		r.p.filePoll = r.filePoll
	}
	if r.ticks != nil {
		r.p.ticks = r.ticks
	}
	// The data plane logs into the test's log.
	logger := funcr.New(func(prefix, args string) {
		r.logMu.Lock()
		fmt.Fprintf(&r.logs, "%s %s\n", prefix, args)
		r.logMu.Unlock()
		r.t.Logf("%s %s", prefix, args)
	}, funcr.Options{Verbosity: verbosity})
	ctx, cancel := context.WithCancel(logf.IntoContext(context.Background(), logger))
	done := make(chan error, 1)
	sub := r.feed.Subscribe()
	go func() { done <- r.p.Serve(ctx, sub, r) }()
	r.t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				r.t.Errorf("DataPlane.Serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			r.t.Error("DataPlane.Serve did not return within 30s of the end of its context")
		}
	})
	r.publish()
	return done
}

// route adds or changes a route (with a new resourceVersion, so that the
// store sees a change).
func (r *trafficRouter) route(rt *routecore.Route) {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	r.rv++
	rt.ResourceVersion = strconv.Itoa(r.rv)
	r.store.SetRoute(rt)
}

func (r *trafficRouter) deleteRoute(ns, name string) {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	r.store.DeleteRoute(ns, name)
}

// NotServable is the data plane's feedback: as the router does, the store
// records it and the next snapshot is published.
func (r *trafficRouter) NotServable(route *router.Route, message string) {
	r.storeMu.Lock()
	r.store.SetNotServable(route, message)
	r.storeMu.Unlock()
	r.publish()
}

// decision is the store's latest decision on route ns/name.
func (r *trafficRouter) decision(ns, name string) router.Decision {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	d, _ := r.feed.Latest()
	got, _ := d.Decisions.Get(ns + "/" + name)
	return got
}

// endpoints makes the backends the ready endpoints of service ns/svc, one
// EndpointSlice each (the backends listen on different ports).
func (r *trafficRouter) endpoints(ns, svc string, bs ...*goBackend) {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	k := ns + "/" + svc
	want := map[string]bool{}
	for _, b := range bs {
		name := fmt.Sprintf("%s-%d", svc, b.port)
		want[name] = true
		r.store.SetEndpointSlice(endpointSlice(ns, svc, name, b.ip, b.port))
	}
	for name := range r.slices[k] {
		if !want[name] {
			r.store.DeleteEndpointSlice(ns, name, svc)
		}
	}
	r.slices[k] = want
}

// publish builds a snapshot of the store and hands the snapshot to the data plane.
func (r *trafficRouter) publish() {
	r.storeMu.Lock()
	defer r.storeMu.Unlock()
	r.feed.Publish(r.store.Build(true))
}

// reloads is the number of reloads HAProxy's master reports.
func (r *trafficRouter) reloads() int {
	r.t.Helper()
	var n int
	eventually(r.t, 10*time.Second, "the master CLI answers show proc", func() error {
		var err error
		n, _, err = r.p.process.Reloads()
		return err
	})
	return n
}

// masterPid is the pid of the HAProxy master the data plane runs.
func (r *trafficRouter) masterPid() int { return r.p.process.PID() }

func endpointSlice(ns, svc, name, ip string, port int32) *discoveryv1.EndpointSlice {
	ready := true
	portName := "http"
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &portName, Port: &port}},
	}
}

// Route builders (router/routertest), under the short names the router's
// own tests use.
var (
	rt       = routertest.Route
	withPath = routertest.WithPath
	wildcard = routertest.Wildcard
)

// More Route modifiers for rt.

func toService(name string) func(*routecore.Route) {
	return func(r *routecore.Route) { r.Spec.To.Name = name }
}

// weighted sets spec.to's weight and adds alternate backends (name, weight).
func weighted(to int32, alternates ...any) func(*routecore.Route) {
	return func(r *routecore.Route) {
		r.Spec.To.Weight = &to
		for i := 0; i < len(alternates); i += 2 {
			w := int32(alternates[i+1].(int))
			r.Spec.AlternateBackends = append(r.Spec.AlternateBackends,
				routecore.RouteTargetReference{Kind: "Service", Name: alternates[i].(string), Weight: &w})
		}
	}
}

func annotated(kv ...string) func(*routecore.Route) {
	return func(r *routecore.Route) {
		if r.Annotations == nil {
			r.Annotations = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			r.Annotations[kv[i]] = kv[i+1]
		}
	}
}

// terminated sets spec.tls; leaf (and its issuer ca) may be nil.
func terminated(term routecore.TLSTerminationType, policy routecore.InsecureEdgeTerminationPolicyType, leaf, ca *certs.KeyPair) func(*routecore.Route) {
	return func(r *routecore.Route) {
		r.Spec.TLS = &routecore.TLSConfig{Termination: term, InsecureEdgeTerminationPolicy: policy}
		if leaf != nil {
			r.Spec.TLS.Certificate, r.Spec.TLS.Key = string(leaf.CertPEM), string(leaf.KeyPEM)
		}
		if ca != nil {
			r.Spec.TLS.CACertificate = string(ca.CertPEM)
		}
	}
}

func destinationCA(ca *certs.KeyPair) func(*routecore.Route) {
	return func(r *routecore.Route) { r.Spec.TLS.DestinationCACertificate = string(ca.CertPEM) }
}

// Certificates.

func newCA(t testing.TB, name string) *certs.KeyPair {
	t.Helper()
	ca, err := certs.NewCA(name)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// issue is a serving certificate of ca for the names (DNS names or IPs).
func issue(t testing.TB, ca *certs.KeyPair, names ...string) *certs.KeyPair {
	t.Helper()
	opts := certs.Options{CommonName: names[0]}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			opts.IPs = append(opts.IPs, ip)
		} else {
			opts.DNSNames = append(opts.DNSNames, n)
		}
	}
	kp, err := ca.Issue(opts)
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

func pool(cas ...*certs.KeyPair) *x509.CertPool {
	p := x509.NewCertPool()
	for _, ca := range cas {
		p.AddCert(ca.Cert)
	}
	return p
}

func tlsServerConfig(t testing.TB, kp *certs.KeyPair) *tls.Config {
	t.Helper()
	pair, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}}
}

// Backends.

// goBackend is a Go HTTP(S) server on loopback; by default it answers
// every request with its name in the body and the X-Backend header.
type goBackend struct {
	name string
	ip   string
	port int32
	hits atomic.Int64
	// stop closes the listener and every connection: the port refuses
	// connections from then on.
	stop func()
}

// newBackend starts a backend; handler nil answers with the name. tlsCfg
// nil serves plain HTTP.
func newBackend(t testing.TB, name string, handler http.HandlerFunc, tlsCfg *tls.Config) *goBackend {
	t.Helper()
	b := &goBackend{name: name}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b.ip, b.port = "127.0.0.1", int32(l.Addr().(*net.TCPAddr).Port)
	if tlsCfg != nil {
		l = tls.NewListener(l, tlsCfg)
	}
	srv := &http.Server{ErrorLog: log.New(io.Discard, "", 0), Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b.hits.Add(1)
		w.Header().Set("X-Backend", name)
		if handler != nil {
			handler(w, req)
			return
		}
		fmt.Fprint(w, name)
	})}
	go srv.Serve(l)
	b.stop = func() { srv.Close() }
	t.Cleanup(b.stop)
	return b
}

// Clients.

// reply is what a request through HAProxy got.
type reply struct {
	code   int
	body   string
	header http.Header
	tls    *tls.ConnectionState
	err    error
}

func (x reply) String() string {
	if x.err != nil {
		return "error: " + x.err.Error()
	}
	return fmt.Sprintf("%d %q", x.code, x.body)
}

// served reports whether backend name answered with 200.
func (x reply) served(name string) bool {
	return x.err == nil && x.code == http.StatusOK && x.header.Get("X-Backend") == name
}

type clientOptions struct {
	keepAlive bool
	// roots verify the router's certificate; nil skips verification.
	roots *x509.CertPool
	// source is the client's address (default 127.0.0.1).
	source  net.IP
	timeout time.Duration
}

// client sends requests for any host to the router: http:// to its HTTP
// port, https:// to its HTTPS port (with SNI from the URL). It follows no
// redirects.
func (r *trafficRouter) client(o clientOptions) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if o.source != nil {
		dialer.LocalAddr = &net.TCPAddr{IP: o.source}
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			port := r.cfg.HTTPPort
			if strings.HasSuffix(addr, ":443") {
				port = r.cfg.HTTPSPort
			}
			return dialer.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		},
		TLSClientConfig:     &tls.Config{RootCAs: o.roots, InsecureSkipVerify: o.roots == nil},
		DisableKeepAlives:   !o.keepAlive,
		MaxIdleConnsPerHost: 16,
	}
	timeout := o.timeout
	if timeout == 0 {
		timeout = 15 * time.Second
	}
	return &http.Client{Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// fetch sends a GET with optional header name/value pairs.
func fetch(c *http.Client, url string, header ...string) reply {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return reply{err: err}
	}
	for i := 0; i < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return reply{code: resp.StatusCode, body: string(body), header: resp.Header, tls: resp.TLS, err: err}
}

// get sends one plain-HTTP request on a new connection.
func (r *trafficRouter) get(host, path string) reply {
	return fetch(r.client(clientOptions{}), "http://"+host+path)
}

// eventually polls f until it returns nil, failing the test with f's last
// error after timeout.
func eventually(t testing.TB, timeout time.Duration, what string, f func() error) {
	t.Helper()
	poll(t, timeout, 50*time.Millisecond, what, f)
}

// poll is eventually with the given interval between attempts.
func poll(t testing.TB, timeout, interval time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %v", what, timeout, err)
		}
		time.Sleep(interval)
	}
}

// servedBy polls until a request for host+path is answered by backend
// name (a configuration change has been applied).
func (r *trafficRouter) servedBy(host, path, name string) {
	r.t.Helper()
	eventually(r.t, 30*time.Second, "http://"+host+path+" served by "+name, func() error {
		if x := r.get(host, path); !x.served(name) {
			return errors.New(x.String())
		}
		return nil
	})
}

// counterValue is the value of a counter of the router's registry, summed
// over its labels.
func (r *trafficRouter) counterValue(t testing.TB, name string) float64 {
	t.Helper()
	var sum float64
	for _, m := range r.metric(t, name) {
		sum += m.GetCounter().GetValue()
	}
	return sum
}

// counterValues are the values of a counter with one label, by the label's
// value.
func (r *trafficRouter) counterValues(t testing.TB, name string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, m := range r.metric(t, name) {
		out[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
	}
	return out
}

// summaryCount is the number of observations of a summary of the router's
// registry.
func (r *trafficRouter) summaryCount(t testing.TB, name string) uint64 {
	t.Helper()
	return r.metric(t, name)[0].GetSummary().GetSampleCount()
}

// metric is the series of a metric of the router's registry; a counter
// with labels may have none yet.
func (r *trafficRouter) metric(t testing.TB, name string) []*dto.Metric {
	t.Helper()
	mfs, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()
		}
	}
	if name == "routeshift_router_reloads_total" {
		return nil // no reload yet
	}
	t.Fatalf("no metric %s in the registry", name)
	return nil
}

// writeTempFile writes a file in a temporary directory and returns its
// path.
func writeTempFile(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(trafficWorkDir(t), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// allowWildcardRoutes makes the router admit routes with wildcardPolicy
// Subdomain (ROUTER_ALLOW_WILDCARD_ROUTES). It replaces the store: call it
// before adding routes or endpoints.
func (r *trafficRouter) allowWildcardRoutes() *trafficRouter {
	r.store = router.NewStore(router.AdmissionConfig{AllowLoopbackEndpoints: true, AllowWildcardRoutes: true})
	return r
}
