package ingress

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/routeshift/routeshift/ingress/nginx"
	"github.com/routeshift/routeshift/routecore"
)

// Event reasons on Ingresses, all of Warning events.
const (
	// ReasonIncomplete reports rules and paths that produced no Route.
	ReasonIncomplete = "IncompleteIngressToRouteRules"
	// ReasonFailed reports a Route the API refused to create, update or delete.
	ReasonFailed = "FailedIngressToRouteConversion"
	// ReasonInvalidAnnotation reports an unparsable reconcile-labels value.
	ReasonInvalidAnnotation = "InvalidAnnotationValue"
	// ReasonIgnoredAnnotations reports annotations of other Ingress
	// controllers, which Routes do not honour (see AnnotationHints).
	ReasonIgnoredAnnotations = "IgnoredIngressAnnotations"
	// ReasonApproximated reports ingress-nginx annotations of an adopted
	// Ingress whose behaviour the Routes keep only approximately, or as a
	// router-wide setting.
	ReasonApproximated = "ApproximatedIngressNginxAnnotations"
	// ReasonNotSupported reports ingress-nginx annotations of an adopted
	// Ingress that the Routes cannot honour.
	ReasonNotSupported = "UnsupportedIngressNginxAnnotations"
	// ReasonRefused reports ingress-nginx snippet annotations of an adopted
	// Ingress, which are never honoured.
	ReasonRefused = "RefusedIngressNginxAnnotations"
)

// Field indexes of the controller's cache.
const (
	routeOwnerIndex    = "metadata.controllerUID"
	ingressSvcIndex    = "spec.serviceNames"
	ingressSecretIndex = "spec.secretNames"
	ingressHostIndex   = "spec.rules.host"
)

// Reconciler makes the Routes owned by each managed Ingress equal to what
// Translate says they should be: it creates missing Routes, reverts edits,
// deletes Routes the Ingress no longer asks for, reports problems as events,
// and writes the canonical hostnames (names or IP addresses) of the routers
// that admitted its Routes into the Ingress's status.
type Reconciler struct {
	Client client.Client
	// Events records events on Ingresses.
	Events events.EventRecorder
	// ControllerName is the IngressClass controller this reconciler serves.
	ControllerName string
	// Options say which Ingresses are taken and which are adopted.
	Options Options
	// PublishAdoptedStatus writes the status of adopted Ingresses too.
	PublishAdoptedStatus bool

	// nginxConfig gives adopted Ingresses the global defaults of
	// ingress-nginx's ConfigMap, when one is named (else TranslateWith
	// assumes ingress-nginx's documented defaults).
	nginxConfig *nginxConfig

	metrics *controllerMetrics
	// memory holds what the reconciler remembers of each Ingress between
	// syncs; a deleted Ingress leaves nothing in it.
	memory memory
}

type controllerMetrics struct {
	writes       *prometheus.CounterVec
	statusWrites *prometheus.CounterVec
}

// Reconcile syncs one Ingress.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ing := &networkingv1.Ingress{}
	if err := r.Client.Get(ctx, req.NamespacedName, ing); err != nil {
		if apierrors.IsNotFound(err) {
			r.memory.forget(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err) // deleted: garbage collection removes its Routes
	}
	if ing.DeletionTimestamp != nil {
		r.memory.forget(req.NamespacedName)
		return reconcile.Result{}, nil
	}
	opts := r.Options
	opts.ControllerName = r.ControllerName
	if opts.adopts() && r.nginxConfig.name.Name != "" {
		var err error
		if opts.Nginx, err = r.nginxConfig.current(ctx, r.Client); err != nil {
			return reconcile.Result{}, err
		}
	}
	res := TranslateWith(ing, cachedObjects{ctx: ctx, reader: r.Client}, opts)
	if !res.Managed {
		r.memory.forget(req.NamespacedName)
		return reconcile.Result{}, nil // another controller's: its Routes are left alone
	}
	var owned routecore.RouteList
	if err := r.Client.List(ctx, &owned, client.InNamespace(ing.Namespace), client.MatchingFields{routeOwnerIndex: string(ing.UID)}); err != nil {
		return reconcile.Result{}, err
	}
	r.memory.observe(ing, owned.Items)
	syncErr := r.syncRoutes(ctx, ing, res, owned.Items)
	r.report(ing, ReasonIncomplete, problemsNote(res.Problems))
	r.report(ing, ReasonInvalidAnnotation, res.InvalidReconcileLabels)
	if res.Adopted {
		approximated, unsupported, refused := findingNotes(res.Conversion)
		r.report(ing, ReasonApproximated, approximated)
		r.report(ing, ReasonNotSupported, unsupported)
		r.report(ing, ReasonRefused, refused)
	} else {
		r.report(ing, ReasonIgnoredAnnotations, strings.Join(AnnotationHints(ing), "; "))
	}
	failure := ""
	if syncErr != nil {
		failure = "Error in converting Ingress to Route: " + syncErr.Error()
	}
	r.report(ing, ReasonFailed, failure)
	if res.Adopted && !r.PublishAdoptedStatus {
		// ingress-nginx still owns the class and publishes its address
		// until DNS moves; two controllers would overwrite each other.
		return reconcile.Result{}, syncErr
	}
	if err := r.updateStatus(ctx, ing, res, owned.Items); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, syncErr
}

func problemsNote(problems []string) string {
	if len(problems) == 0 {
		return ""
	}
	return "Incomplete ingress to route rules detected: " + strings.Join(problems, "; ")
}

// maxNote is the longest note the API server accepts in an event.
const maxNote = 1024

// clipNote shortens a note to maxNote bytes, on a character boundary.
func clipNote(s string) string {
	if len(s) <= maxNote {
		return s
	}
	const more = " …"
	cut := maxNote - len(more)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + more
}

// syncRoutes creates, updates and deletes owned Routes until they equal
// res.Routes. It carries on past failures and returns them together.
func (r *Reconciler) syncRoutes(ctx context.Context, ing *networkingv1.Ingress, res Result, owned []routecore.Route) error {
	existing := make(map[string]*routecore.Route, len(owned))
	for i := range owned {
		existing[owned[i].Name] = &owned[i]
	}
	var failures []string
	for _, want := range res.Routes {
		have, ok := existing[want.Name]
		delete(existing, want.Name)
		var err error
		switch {
		case !ok && r.memory.pending(ing, want.Name):
			// Created moments ago; the cache has not caught up.
		case !ok && r.nameTaken(ctx, want):
			err = nameTakenError(want.Name)
		case !ok:
			err = r.write(ctx, "create", want.Name, func() error { return r.Client.Create(ctx, want) })
			if err == nil {
				r.memory.expectCreated(ing, want.Name)
			}
			switch {
			case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
				return nil // the namespace, Ingress included, is going away
			case apierrors.IsAlreadyExists(err):
				err = nameTakenError(want.Name)
			}
		case needsUpdate(have, want, res.ReconcileLabels):
			err = r.write(ctx, "update", want.Name, func() error { return r.Client.Update(ctx, merge(have, want, res.ReconcileLabels)) })
		}
		if err != nil {
			failures = append(failures, fmt.Sprintf("route %s: %v", want.Name, err))
		}
	}
	for _, stale := range sortedRoutes(existing) {
		err := r.write(ctx, "delete", stale.Name, func() error {
			return client.IgnoreNotFound(r.Client.Delete(ctx, stale, client.Preconditions{UID: &stale.UID}))
		})
		if err != nil {
			failures = append(failures, fmt.Sprintf("route %s: %v", stale.Name, err))
		}
	}
	if len(failures) > 0 {
		return fmt.Errorf("%s", strings.Join(failures, "; "))
	}
	return nil
}

// nameTakenError says that a Route of the Ingress cannot be created under
// its name, and what to do.
func nameTakenError(name string) error {
	return fmt.Errorf("a Route named %s already exists and is not owned by this Ingress: delete or rename that Route, or rename the Ingress", name)
}

// nameTaken reports whether the cache holds a Route of want's name that the
// Ingress does not own: creating it would fail, and the Route is not ours to
// change. The sync is retried, with back-off, until the name is free.
func (r *Reconciler) nameTaken(ctx context.Context, want *routecore.Route) bool {
	other := &routecore.Route{}
	return r.Client.Get(ctx, client.ObjectKeyFromObject(want), other) == nil
}

// write performs one API write on the named Route, counting and logging it.
func (r *Reconciler) write(ctx context.Context, op, name string, do func() error) error {
	err := do()
	result := "ok"
	if err != nil {
		result = "error"
	}
	r.metrics.writes.WithLabelValues(op, result).Inc()
	logf.FromContext(ctx).V(1).Info("route "+op, "route", name, "error", err)
	return err
}

// needsUpdate reports whether an owned Route differs from what the Ingress
// asks for: spec, annotations and controller reference always; labels only
// with reconcile-labels.
func needsUpdate(have, want *routecore.Route, reconcileLabels bool) bool {
	return !equality.Semantic.DeepEqual(have.Spec, want.Spec) ||
		!maps.Equal(have.Annotations, want.Annotations) ||
		!equality.Semantic.DeepEqual(have.OwnerReferences, want.OwnerReferences) ||
		(reconcileLabels && !maps.Equal(have.Labels, want.Labels))
}

// merge returns have with want's spec, annotations, owner references and,
// with reconcile-labels, labels: user edits are reverted.
func merge(have, want *routecore.Route, reconcileLabels bool) *routecore.Route {
	out := have.DeepCopy()
	out.Spec = *want.Spec.DeepCopy()
	out.Annotations = maps.Clone(want.Annotations)
	out.OwnerReferences = slices.Clone(want.OwnerReferences)
	if reconcileLabels {
		out.Labels = maps.Clone(want.Labels)
	}
	return out
}

func sortedRoutes(m map[string]*routecore.Route) []*routecore.Route {
	out := slices.Collect(maps.Values(m))
	slices.SortFunc(out, func(a, b *routecore.Route) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// report records a Warning event when its message for this Ingress changed
// since the last one of the same reason; an empty message only clears the
// memory. Every reason is a problem the Ingress's owner should fix, so all
// are Warnings (`kubectl get events --field-selector type=Warning` lists
// them), also IncompleteIngressToRouteRules, which OpenShift records as Normal.
func (r *Reconciler) report(ing *networkingv1.Ingress, reason, message string) {
	if !r.memory.reportChanged(ing, reason, message) {
		return
	}
	r.Events.Eventf(ing, nil, corev1.EventTypeWarning, reason, "Sync", "%s", clipNote(message))
}

// cachedObjects reads what Translate needs from the controller's cache.
type cachedObjects struct {
	ctx    context.Context
	reader client.Reader
}

func (c cachedObjects) Service(namespace, name string) *corev1.Service {
	svc := &corev1.Service{}
	if c.reader.Get(c.ctx, types.NamespacedName{Namespace: namespace, Name: name}, svc) != nil {
		return nil
	}
	return svc
}

func (c cachedObjects) Secret(namespace, name string) *corev1.Secret {
	s := &corev1.Secret{}
	if c.reader.Get(c.ctx, types.NamespacedName{Namespace: namespace, Name: name}, s) != nil {
		return nil
	}
	return s
}

func (c cachedObjects) IngressClass(name string) *networkingv1.IngressClass {
	ic := &networkingv1.IngressClass{}
	if c.reader.Get(c.ctx, types.NamespacedName{Name: name}, ic) != nil {
		return nil
	}
	return ic
}

func (c cachedObjects) AllIngressClasses() []*networkingv1.IngressClass {
	var list networkingv1.IngressClassList
	if c.reader.List(c.ctx, &list) != nil {
		return nil
	}
	out := make([]*networkingv1.IngressClass, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}

func (c cachedObjects) Ingresses(namespace, host string) []*networkingv1.Ingress {
	var list networkingv1.IngressList
	if c.reader.List(c.ctx, &list, client.InNamespace(namespace), client.MatchingFields{ingressHostIndex: host}) != nil {
		return nil
	}
	out := make([]*networkingv1.Ingress, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out
}

func (c cachedObjects) Canaries(namespace, host string) []*networkingv1.Ingress {
	var out []*networkingv1.Ingress
	for _, ing := range c.Ingresses(namespace, host) {
		if IsCanary(ing) {
			out = append(out, ing)
		}
	}
	return out
}

// findingNotes are the event messages of an adopted Ingress's conversion:
// the annotations kept only approximately (or router-wide), those not
// supported, and the refused snippets; "" for a kind with none. Findings
// about ingress-nginx's defaults are left out: they are not the Ingress's
// annotations, they would be the same on every Ingress, and `translate`
// reports them.
func findingNotes(conv *nginx.Conversion) (approximated, unsupported, refused string) {
	var a, u, r []string
	for _, f := range conv.Findings {
		if f.Default {
			continue
		}
		line := f.Describe()
		switch f.Verdict {
		case nginx.Approximate, nginx.RouterWide:
			a = append(a, line)
		case nginx.NotSupported:
			u = append(u, line)
		case nginx.Refused:
			r = append(r, line)
		}
	}
	return strings.Join(a, "; "), strings.Join(u, "; "), strings.Join(r, "; ")
}

// ControllerOptions configure the controller.
type ControllerOptions struct {
	// ControllerName is the IngressClass controller served (default
	// DefaultControllerName).
	ControllerName string
	// Adopt says which other Ingresses are taken, converted from
	// ingress-nginx (its ControllerName is ignored).
	Adopt Options
	// PublishAdoptedStatus writes status.loadBalancer of adopted Ingresses
	// too; by default ingress-nginx keeps publishing it during a parallel
	// run.
	PublishAdoptedStatus bool
	// NginxConfigMap names ingress-nginx's ConfigMap, whose global
	// defaults (timeouts, ssl-redirect, hsts, …) adopted Ingresses get;
	// the controller watches it and follows its changes. Empty, or while
	// it does not exist: ingress-nginx's documented defaults. The cache
	// must then come from CacheOptions with the same name.
	NginxConfigMap types.NamespacedName
	// Workers is the number of Ingresses reconciled in parallel (default 4).
	Workers int
}

// SetupWithManager registers the controller: it watches Ingresses, the
// Routes they own, IngressClasses, the Services and TLS or Opaque Secrets
// they refer to, and ingress-nginx's ConfigMap when it adopts Ingresses.
func SetupWithManager(ctx context.Context, mgr ctrl.Manager, opts ControllerOptions) (*Reconciler, error) {
	if opts.ControllerName == "" {
		opts.ControllerName = DefaultControllerName
	}
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	writes := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "routeshift_ingress_route_writes_total",
		Help: "Route writes by the Ingress-to-Route controller, by operation (create, update, delete) and result (ok, error).",
	}, []string{"op", "result"})
	statusWrites := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "routeshift_ingress_status_writes_total",
		Help: "Ingress status.loadBalancer updates by the Ingress-to-Route controller, by result (ok, error).",
	}, []string{"result"})
	remembered := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "routeshift_ingress_remembered_ingresses",
		Help: "Ingresses the Ingress-to-Route controller remembers something of between syncs (Route creations the cache has not shown yet, the last message of each event reason); deleted Ingresses leave nothing.",
	})
	for _, c := range []prometheus.Collector{writes, statusWrites, remembered} {
		if err := ctrlmetrics.Registry.Register(c); err != nil {
			return nil, err
		}
	}
	r := &Reconciler{Client: mgr.GetClient(), Events: mgr.GetEventRecorder("ingress-to-route"),
		ControllerName: opts.ControllerName, Options: opts.Adopt, PublishAdoptedStatus: opts.PublishAdoptedStatus, metrics: &controllerMetrics{writes: writes, statusWrites: statusWrites},
		memory: memory{size: remembered}, nginxConfig: &nginxConfig{name: opts.NginxConfigMap}}
	if err := indexFields(ctx, mgr); err != nil {
		return nil, err
	}
	byIndex := func(index string) handler.EventHandler {
		return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			return r.ingressesMatching(ctx, o.GetNamespace(), client.MatchingFields{index: o.GetName()})
		})
	}
	allIngresses := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, _ client.Object) []reconcile.Request {
		return r.ingressesMatching(ctx, "")
	})
	certSecrets := predicate.NewPredicateFuncs(func(o client.Object) bool {
		s, ok := o.(*corev1.Secret)
		return ok && (s.Type == corev1.SecretTypeTLS || s.Type == corev1.SecretTypeOpaque)
	})
	b := ctrl.NewControllerManagedBy(mgr)
	if cm := opts.NginxConfigMap; cm.Name != "" && opts.Adopt.adopts() {
		// its global defaults change every adopted Ingress's Routes
		b = b.Watches(&corev1.ConfigMap{}, allIngresses, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetNamespace() == cm.Namespace && o.GetName() == cm.Name
		})))
	}
	err := b.
		Named("ingress-to-route").
		For(&networkingv1.Ingress{}).
		Owns(&routecore.Route{}).
		Watches(&networkingv1.IngressClass{}, allIngresses).
		Watches(&networkingv1.Ingress{}, handler.EnqueueRequestsFromMapFunc(r.canaryPartners)).
		Watches(&corev1.Service{}, byIndex(ingressSvcIndex)).
		Watches(&corev1.Secret{}, byIndex(ingressSecretIndex), builder.WithPredicates(certSecrets)).
		WithOptions(controller.Options{MaxConcurrentReconciles: opts.Workers}).
		Complete(r)
	return r, err
}

func (r *Reconciler) ingressesMatching(ctx context.Context, namespace string, opts ...client.ListOption) []reconcile.Request {
	var list networkingv1.IngressList
	if namespace != "" {
		opts = append(opts, client.InNamespace(namespace))
	}
	if err := r.Client.List(ctx, &list, opts...); err != nil {
		logf.FromContext(ctx).Error(err, "listing ingresses to requeue")
		return nil
	}
	reqs := make([]reconcile.Request, len(list.Items))
	for i := range list.Items {
		reqs[i] = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: list.Items[i].Namespace, Name: list.Items[i].Name}}
	}
	return reqs
}

// canaryPartners maps an Ingress event to the Ingresses of the same
// namespace and host that it may change: a canary's primaries, or a
// primary's canaries (whose problems say whether a primary exists).
func (r *Reconciler) canaryPartners(ctx context.Context, o client.Object) []reconcile.Request {
	ing, ok := o.(*networkingv1.Ingress)
	if !ok || !r.Options.adopts() {
		return nil
	}
	canary := IsCanary(ing)
	objs := cachedObjects{ctx: ctx, reader: r.Client}
	var reqs []reconcile.Request
	for _, host := range ruleHosts(ing) {
		for _, other := range objs.Ingresses(ing.Namespace, host) {
			if other.Name == ing.Name || (!canary && !IsCanary(other)) {
				continue
			}
			req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: other.Namespace, Name: other.Name}}
			if !slices.Contains(reqs, req) {
				reqs = append(reqs, req)
			}
		}
	}
	return reqs
}

// indexFields indexes Routes by controller UID and Ingresses by the
// Services and Secrets they refer to.
func indexFields(ctx context.Context, mgr ctrl.Manager) error {
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(ctx, &routecore.Route{}, routeOwnerIndex, func(o client.Object) []string {
		if ref := metav1.GetControllerOf(o); ref != nil && ref.Kind == "Ingress" {
			return []string{string(ref.UID)}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &networkingv1.Ingress{}, ingressSvcIndex, func(o client.Object) []string {
		var names []string
		for _, rule := range o.(*networkingv1.Ingress).Spec.Rules {
			if rule.HTTP == nil {
				continue
			}
			for _, p := range rule.HTTP.Paths {
				if p.Backend.Service != nil {
					names = append(names, p.Backend.Service.Name)
				}
			}
		}
		return names
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &networkingv1.Ingress{}, ingressHostIndex, func(o client.Object) []string {
		return ruleHosts(o.(*networkingv1.Ingress))
	}); err != nil {
		return err
	}
	return idx.IndexField(ctx, &networkingv1.Ingress{}, ingressSecretIndex, func(o client.Object) []string {
		ing := o.(*networkingv1.Ingress)
		var names []string
		for _, t := range ing.Spec.TLS {
			names = append(names, t.SecretName)
		}
		if ca := ing.Annotations[DestinationCAAnnotation]; ca != "" {
			names = append(names, ca)
		}
		if ca := ing.Annotations[nginx.Prefix+"proxy-ssl-secret"]; ca != "" {
			names = append(names, ca[strings.LastIndex(ca, "/")+1:])
		}
		return names
	})
}
