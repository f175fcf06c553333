package router

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/routeshift/routeshift/routecore"
)

// Consumer serves the snapshots a router publishes: a data plane. Every
// replica of a router runs its consumers.
type Consumer interface {
	// Serve consumes the snapshots of sub until ctx ends, telling fb
	// about the routes it cannot serve; an error stops the router.
	Serve(ctx context.Context, sub *Subscription, fb Feedback) error
	// Ready reports whether the consumer serves a complete (synced)
	// snapshot.
	Ready() bool
}

// Feedback is how a consumer tells the router about the routes it was
// given but cannot serve, so that their status says so.
type Feedback interface {
	// NotServable reports that route, the very value a snapshot held,
	// cannot be served, and why (message, in the data plane's words, for
	// the route's owner). The router rejects it as RouteNotServable, and
	// keeps its host claim, until the route's value changes; the
	// consumer then gets the new value to try. A report on a value the
	// router no longer serves is ignored.
	NotServable(route *Route, message string)
}

// FeedbackFunc is a Feedback made of a function.
type FeedbackFunc func(route *Route, message string)

// NotServable calls f.
func (f FeedbackFunc) NotServable(route *Route, message string) { f(route, message) }

// Router is one router instance: it watches Routes, Namespaces,
// EndpointSlices and Services, reads the Secrets its routes name one by
// one, judges them in a Store, and publishes snapshots to the status
// writer and its consumers.
type Router struct {
	cfg       Config
	metrics   *Metrics
	consumers []Consumer
	store     *Store
	feed      *Feed
	events    chan func(*Store)
	// secrets reads the Secrets routes name (nil: none are read).
	secrets *secretWatches
	// stopped is closed when the store loop ends: nobody applies events
	// any more.
	stopped chan struct{}
	// published is whether a synced snapshot has been published.
	published bool
	// handlersSynced report whether each event handler has been handed
	// its informer's initial list (see waitForSync).
	handlersSynced []toolscache.InformerSynced
}

// NewRouter returns a router with an empty store that serves its
// snapshots to consumers and records its metrics in metrics (nil: none).
func NewRouter(cfg Config, metrics *Metrics, consumers ...Consumer) *Router {
	store := NewStore(cfg.Admission)
	store.WatchSecrets()
	return &Router{cfg: cfg, metrics: metrics, consumers: consumers, store: store, feed: &Feed{},
		events: make(chan func(*Store), 4096), stopped: make(chan struct{})}
}

// NotServable records a consumer's report (Feedback) in the store, in
// order with the cluster's events.
func (r *Router) NotServable(route *Route, message string) {
	select {
	case r.events <- func(s *Store) { s.SetNotServable(route, message) }:
	case <-r.stopped:
	}
}

// Feed is where the router publishes snapshots.
func (r *Router) Feed() *Feed { return r.feed }

// Ready reports whether every consumer serves a complete snapshot.
func (r *Router) Ready() bool {
	for _, c := range r.consumers {
		if !c.Ready() {
			return false
		}
	}
	return true
}

// RunOptions are what a running router needs besides its Config.
type RunOptions struct {
	// LeaseDuration and friends tune leader election among replicas.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Runnables are extra components (the health and metrics server)
	// started with the router.
	Runnables []manager.Runnable
	// StopTimeout bounds how long the consumers and runnables may take to
	// stop once the context ends (0: controller-runtime's default, 30 s).
	StopTimeout time.Duration
}

// Run runs the router until ctx ends: caches, the store loop, the status
// writer (on the elected replica), the consumers and opts.Runnables.
func (r *Router) Run(ctx context.Context, restConfig *rest.Config, opts RunOptions) error {
	if r.cfg.UpdateStatus && r.cfg.Namespace == "" {
		return errors.New("ROUTER_SERVICE_NAMESPACE (or $POD_NAMESPACE) is required to write route status: " +
			"the replicas of a router elect the one that writes in a Lease there; set it, or set ROUTER_UPDATE_STATUS=false")
	}
	mgr, err := r.newManager(restConfig, opts)
	if err != nil {
		return err
	}
	if r.secrets, err = r.newSecretWatches(restConfig); err != nil {
		return err
	}
	if err := r.watch(ctx, mgr.GetCache()); err != nil {
		return err
	}
	if err := mgr.Add(EveryReplica(func(ctx context.Context) error { return r.loop(ctx, r.waitForSync(mgr.GetCache())) })); err != nil {
		return err
	}
	if r.cfg.UpdateStatus {
		if err := r.addStatusWriter(ctx, mgr); err != nil {
			return err
		}
	}
	for _, c := range r.consumers {
		sub := r.feed.Subscribe()
		if err := mgr.Add(EveryReplica(func(ctx context.Context) error { return c.Serve(ctx, sub, r) })); err != nil {
			return err
		}
	}
	for _, run := range opts.Runnables {
		if err := mgr.Add(run); err != nil {
			return err
		}
	}
	return mgr.Start(ctx)
}

// addStatusWriter adds the status writer, which follows the published
// Service's address when there is one.
func (r *Router) addStatusWriter(ctx context.Context, mgr manager.Manager) error {
	w := &StatusWriter{ID: r.cfg.StatusIdentity(), Client: mgr.GetClient(), Reader: mgr.GetCache(),
		Snapshots: r.feed.Subscribe(), Metrics: r.metrics, Resync: r.cfg.ResyncInterval}
	if svc, ok := r.cfg.PublishedService(); ok {
		w.AddressFrom = svc
		if err := followAddress(ctx, mgr.GetCache(), svc, w); err != nil {
			return err
		}
	}
	return mgr.Add(w)
}

func (r *Router) newManager(restConfig *rest.Config, opts RunOptions) (manager.Manager, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := routecore.AddToScheme(scheme); err != nil {
		return nil, err
	}
	stripManagedFields := func(o any) (any, error) {
		if m, ok := o.(client.Object); ok {
			m.SetManagedFields(nil)
		}
		return o, nil
	}
	return ctrl.NewManager(restConfig, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, // the router serves its own metrics on ROUTER_LISTEN_ADDR
		Cache: cache.Options{
			SyncPeriod:       durationOr(r.cfg.ResyncInterval),
			DefaultTransform: stripManagedFields,
			ByObject: map[client.Object]cache.ByObject{
				// Only the ports of Services, what a numeric targetPort names,
				// and the published Service's load balancer.
				&corev1.Service{}: {Transform: servicePortsOnly(r.cfg)},
			},
		},
		LeaderElection:                r.cfg.UpdateStatus,
		LeaderElectionID:              "routeshift-router-" + r.cfg.Name,
		LeaderElectionNamespace:       r.cfg.Namespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 durationOr(opts.LeaseDuration),
		RenewDeadline:                 durationOr(opts.RenewDeadline),
		RetryPeriod:                   durationOr(opts.RetryPeriod),
		GracefulShutdownTimeout:       durationOr(opts.StopTimeout),
	})
}

// servicePortsOnly keeps of a Service what the Store reads (its name and
// ports, with their application protocols), and of the Service whose
// address the router publishes its load balancer's status, so that the
// cache does not hold every Service whole.
func servicePortsOnly(cfg Config) func(any) (any, error) {
	published, _ := cfg.PublishedService()
	return func(o any) (any, error) {
		svc, ok := o.(*corev1.Service)
		if !ok {
			return o, nil
		}
		kept := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: svc.Name, UID: svc.UID, ResourceVersion: svc.ResourceVersion},
			Spec:       corev1.ServiceSpec{Ports: svc.Spec.Ports},
		}
		if svc.Namespace == published.Namespace && svc.Name == published.Name {
			kept.Status.LoadBalancer = svc.Status.LoadBalancer
		}
		return kept, nil
	}
}

func durationOr(d time.Duration) *time.Duration {
	if d == 0 {
		return nil
	}
	return &d
}

// watch turns informer events into store updates, in order, for the loop.
func (r *Router) watch(ctx context.Context, c cache.Cache) error {
	handlers := []struct {
		obj client.Object
		set func(*Store, client.Object)
		del func(*Store, client.Object)
	}{
		{&routecore.Route{}, func(s *Store, o client.Object) { s.SetRoute(o.(*routecore.Route)) },
			func(s *Store, o client.Object) { s.DeleteRoute(o.GetNamespace(), o.GetName()) }},
		{&corev1.Namespace{}, func(s *Store, o client.Object) { s.SetNamespace(o.GetName(), o.GetLabels()) },
			func(s *Store, o client.Object) { s.DeleteNamespace(o.GetName()) }},
		{&discoveryv1.EndpointSlice{}, func(s *Store, o client.Object) { s.SetEndpointSlice(o.(*discoveryv1.EndpointSlice)) },
			func(s *Store, o client.Object) {
				s.DeleteEndpointSlice(o.GetNamespace(), o.GetName(), o.GetLabels()[discoveryv1.LabelServiceName])
			}},
		{&corev1.Service{}, func(s *Store, o client.Object) { s.SetService(o.(*corev1.Service)) },
			func(s *Store, o client.Object) { s.DeleteService(o.GetNamespace(), o.GetName()) }},
	}
	for _, h := range handlers {
		inf, err := c.GetInformer(ctx, h.obj)
		if err != nil {
			return fmt.Errorf("watching %T: %w", h.obj, err)
		}
		set, del := h.set, h.del
		reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { r.send(o, set) },
			UpdateFunc: func(_, o any) { r.send(o, set) },
			DeleteFunc: func(o any) {
				if tomb, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
					o = tomb.Obj
				}
				r.send(o, del)
			},
		})
		if err != nil {
			return err
		}
		r.handlersSynced = append(r.handlersSynced, reg.HasSynced)
	}
	return nil
}

// waitForSync waits until the cache has listed every watched kind and each
// event handler has been handed every object of that list. The informers
// sync before their handlers have seen the list: a model published at the
// cache's sync alone lacks routes and endpoints that exist, and a router
// that serves it reports ready while answering 503 for them.
func (r *Router) waitForSync(c cache.Cache) func(context.Context) bool {
	return func(ctx context.Context) bool {
		return c.WaitForCacheSync(ctx) && toolscache.WaitForCacheSync(ctx.Done(), r.handlersSynced...)
	}
}

func (r *Router) send(o any, apply func(*Store, client.Object)) {
	if obj, ok := o.(client.Object); ok {
		r.events <- func(s *Store) { apply(s, obj) }
	}
}

// loop applies events to the store and, after each batch, builds and
// publishes a snapshot. Before the caches have synced it only applies
// (after publishing one empty snapshot, unless ports bind after sync).
func (r *Router) loop(ctx context.Context, waitForSync func(context.Context) bool) error {
	defer close(r.stopped)
	if r.secrets != nil {
		defer r.secrets.stop()
	}
	log := logf.FromContext(ctx).WithName("router")
	synced := make(chan struct{})
	go func() {
		if waitForSync(ctx) {
			close(synced)
		}
	}()
	isSynced := false
	if !r.cfg.WaitForSync {
		// Let the data plane bind its ports at once, as OpenShift's router
		// does by default: it answers 503 until the first complete model,
		// and the router is not ready before it. The snapshot is empty,
		// not partial: admission decided on half the routes would serve
		// hosts to the wrong routes.
		r.updateModel(false)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-synced:
			synced, isSynced = nil, true
			log.Info("caches synced; publishing the first complete model")
		case ev := <-r.events:
			ev(r.store)
		}
		// Every event queued is applied before a model is built: at sync the
		// handlers have queued the whole initial list, some of it unapplied.
	drain:
		for {
			select {
			case ev := <-r.events:
				ev(r.store)
			default:
				break drain
			}
		}
		if isSynced {
			r.updateModel(true)
			if r.secrets != nil {
				start, stop := r.store.SecretWatches()
				r.secrets.sync(ctx, start, stop)
			}
		}
	}
}

func (r *Router) updateModel(synced bool) {
	start := time.Now()
	snap := r.store.Build(synced)
	// With WaitForSync nothing is published before the first complete
	// model, so the data plane opens its ports only with it.
	held := r.cfg.WaitForSync && !snap.Synced
	if !held && (!snap.Changed.Empty() || snap.Version == 1 || (snap.Synced && !r.published)) {
		r.feed.Publish(snap)
		r.published = r.published || snap.Synced
	}
	r.metrics.modelUpdated(time.Since(start).Seconds(), r.store.verdicts, r.store.notServable)
}

// newSecretWatches reads Secrets with a client of their own, allowed more
// requests per second than the manager's: a router starting with many
// routes lists each of their Secrets.
func (r *Router) newSecretWatches(restConfig *rest.Config) (*secretWatches, error) {
	cfg := rest.CopyConfig(restConfig)
	cfg.QPS, cfg.Burst = 200, 400
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return newSecretWatches(cs.CoreV1(), func(ctx context.Context, ev func(*Store)) {
		select {
		case r.events <- ev:
		case <-ctx.Done():
		case <-r.stopped:
		}
	}), nil
}

// EveryReplica is a runnable that runs on every replica of a router, not
// only on the elected one.
type EveryReplica func(ctx context.Context) error

// Start runs the function.
func (f EveryReplica) Start(ctx context.Context) error { return f(ctx) }

// NeedLeaderElection is false: every replica serves.
func (f EveryReplica) NeedLeaderElection() bool { return false }
