package routecerts

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/routeshift/routeshift/routecore"
)

// ControllerName names the controller in logs, metrics and events.
const ControllerName = "route-certificates"

// Options configure the controller.
type Options struct {
	// RouterServiceAccount is the user name of the router's service account
	// (system:serviceaccount:NAMESPACE:NAME), which the Roles grant.
	RouterServiceAccount string
	// Workers is the number of Routes reconciled in parallel (default 4).
	Workers int
	// PollInterval is how often the controller looks for cert-manager's
	// CRDs until the API server serves them (default 10s).
	PollInterval time.Duration
}

// SetupWithManager registers the controller with mgr. It starts once the
// API server serves cert-manager's Certificates and CertificateRequests:
// a cluster without cert-manager runs everything else, and the controller
// starts by itself when cert-manager is installed later.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	router, err := ParseRouterAccount(opts.RouterServiceAccount)
	if err != nil {
		return err
	}
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 10 * time.Second
	}
	return mgr.Add(&starter{mgr: mgr, opts: opts, router: router})
}

// starter waits for cert-manager's CRDs, then starts the controller and its
// own cache of the objects it keeps. It runs on the elected leader only.
type starter struct {
	mgr    ctrl.Manager
	opts   Options
	router RouterAccount
}

// NeedLeaderElection: only the leader reconciles.
func (s *starter) NeedLeaderElection() bool { return true }

func (s *starter) Start(ctx context.Context) error {
	log := logf.FromContext(ctx).WithName(ControllerName)
	dc, err := discovery.NewDiscoveryClientForConfig(s.mgr.GetConfig())
	if err != nil {
		return err
	}
	for waited := false; ; waited = true {
		served, err := certManagerServed(dc)
		switch {
		case err != nil:
			log.Error(err, "looking for cert-manager's CRDs")
		case served:
			log.Info("cert-manager's CRDs are served: starting the controller")
			return s.setup()
		case !waited:
			log.Info("waiting for cert-manager: the API server does not serve " + cmapi.SchemeGroupVersion.String() + " Certificates and CertificateRequests; Routes get certificates once it does")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(s.opts.PollInterval):
		}
	}
}

// certManagerServed reports whether the API server serves the two
// cert-manager resources the controller reads.
func certManagerServed(dc discovery.DiscoveryInterface) (bool, error) {
	list, err := dc.ServerResourcesForGroupVersion(cmapi.SchemeGroupVersion.String())
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var found []string
	for _, r := range list.APIResources {
		found = append(found, r.Name)
	}
	return slices.Contains(found, "certificates") && slices.Contains(found, "certificaterequests"), nil
}

// setup builds the controller's cache and the controller, and adds both to
// the running manager, which starts them.
func (s *starter) setup() error {
	mgr := s.mgr
	owned, err := cache.New(mgr.GetConfig(), CacheOptions(mgr))
	if err != nil {
		return fmt.Errorf("creating the cache of the objects kept for Routes: %w", err)
	}
	if err := mgr.Add(owned); err != nil {
		return err
	}
	r := &Reconciler{Client: mgr.GetClient(), Owned: owned, API: mgr.GetAPIReader(),
		Events: mgr.GetEventRecorder(ControllerName), Router: s.router}
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&routecore.Route{}, builder.WithPredicates(routePredicate())).
		WatchesRawSource(source.Kind(owned, &cmapi.Certificate{}, byRouteLabel[*cmapi.Certificate]())).
		WatchesRawSource(source.Kind(owned, &cmapi.CertificateRequest{}, byRouteLabel[*cmapi.CertificateRequest]())).
		WatchesRawSource(source.Kind(owned, &rbacv1.Role{}, byRouteLabel[*rbacv1.Role]())).
		WatchesRawSource(source.Kind(owned, &rbacv1.RoleBinding{}, byRouteLabel[*rbacv1.RoleBinding]())).
		WithOptions(controller.Options{MaxConcurrentReconciles: s.opts.Workers}).
		Complete(r)
}

// CacheOptions are those of the controller's own cache: only objects
// labelled with RouteLabel (Certificates, CertificateRequests, Roles and
// RoleBindings the controller made), without managed fields, and
// CertificateRequests without their CSR and certificate, which the
// controller never reads.
func CacheOptions(mgr ctrl.Manager) cache.Options {
	req, _ := labels.NewRequirement(RouteLabel, selection.Exists, nil)
	return cache.Options{
		Scheme:               mgr.GetScheme(),
		Mapper:               mgr.GetRESTMapper(),
		HTTPClient:           mgr.GetHTTPClient(),
		DefaultLabelSelector: labels.NewSelector().Add(*req),
		DefaultTransform:     trim,
	}
}

func trim(o any) (any, error) {
	if m, ok := o.(client.Object); ok {
		m.SetManagedFields(nil)
	}
	if cr, ok := o.(*cmapi.CertificateRequest); ok {
		cr.Spec.Request, cr.Status.Certificate, cr.Status.CA = nil, nil, nil
	}
	return o, nil
}

// byRouteLabel enqueues the Route an object is kept for.
func byRouteLabel[T client.Object]() handler.TypedEventHandler[T, reconcile.Request] {
	return handler.TypedEnqueueRequestsFromMapFunc(func(_ context.Context, o T) []reconcile.Request {
		name := o.GetLabels()[RouteLabel]
		if name == "" {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
	})
}

// routePredicate passes Routes that name an issuer or hold a reference the
// controller set, when they are created or deleted, or when their spec or
// annotations change (not for the router's status writes).
func routePredicate() predicate.Predicate {
	interesting := func(o client.Object) bool {
		a := o.GetAnnotations()
		_, referenced := a[ExternalCertificateAnnotation]
		return referenced || routecore.CertificateIssuerKey(a) != ""
	}
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return interesting(e.Object) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return interesting(e.Object) },
		GenericFunc: func(e event.GenericEvent) bool { return interesting(e.Object) },
		UpdateFunc: func(e event.UpdateEvent) bool {
			changed := e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() ||
				!maps.Equal(e.ObjectOld.GetAnnotations(), e.ObjectNew.GetAnnotations())
			return changed && (interesting(e.ObjectOld) || interesting(e.ObjectNew))
		},
	}
}
