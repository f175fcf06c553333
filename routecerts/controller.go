package routecerts

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/routeshift/routeshift/routecore"
)

// Reconciler keeps, for each Route, the objects Desired says it needs,
// points the Route at its Secret once cert-manager has issued the
// certificate, removes all of it when the Route stops naming an issuer, and
// reports progress as events on the Route.
type Reconciler struct {
	// Client reads Routes through the manager's cache and writes to the
	// API server.
	Client client.Client
	// Owned reads the objects kept for Routes (labelled RouteLabel) from
	// the controller's own cache.
	Owned client.Reader
	// API reads from the API server: Secrets (a get by name, so no cache of
	// Secrets for this controller), and objects the cache has not caught
	// up with.
	API client.Reader
	// Events records events on Routes.
	Events events.EventRecorder
	// Router is the service account the Roles grant.
	Router RouterAccount

	// reported is the last progress event of each Route ("reason: message"),
	// so that each is recorded once; a deleted Route leaves nothing.
	mu       sync.Mutex
	reported map[types.NamespacedName]string
}

// Reconcile syncs one Route.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	route := &routecore.Route{}
	if err := r.Client.Get(ctx, req.NamespacedName, route); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err) // deleted: garbage collection removes what it owned
	}
	if route.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	want, problem := Desired(route, r.Router)
	switch {
	case problem != "":
		r.report(route, nil, corev1.EventTypeWarning, ReasonNotRequested, problem)
		return reconcile.Result{}, nil
	case want == nil:
		r.forget(req.NamespacedName)
		return reconcile.Result{}, r.remove(ctx, route)
	}
	cert, err := r.ensure(ctx, route, want)
	if taken := (nameTakenError{}); errors.As(err, &taken) {
		r.report(route, nil, corev1.EventTypeWarning, ReasonNotRequested, err.Error())
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, r.follow(ctx, route, cert)
}

// ensure creates or updates the Role, the RoleBinding and the Certificate
// (in that order: the router may read the Secret before it exists), and
// returns the Certificate as stored.
func (r *Reconciler) ensure(ctx context.Context, route *routecore.Route, want *Objects) (*cmapi.Certificate, error) {
	if err := ensureOne(ctx, r, route, "Role", want.Role, &rbacv1.Role{}, func(have, want *rbacv1.Role) bool {
		if equality.Semantic.DeepEqual(have.Rules, want.Rules) && labelsMatch(have.Labels, want.Labels) {
			return false
		}
		have.Rules, have.Labels = want.Rules, withLabels(have.Labels, want.Labels)
		return true
	}); err != nil {
		return nil, err
	}
	if err := ensureOne(ctx, r, route, "RoleBinding", want.RoleBinding, &rbacv1.RoleBinding{}, func(have, want *rbacv1.RoleBinding) bool {
		if equality.Semantic.DeepEqual(have.Subjects, want.Subjects) && labelsMatch(have.Labels, want.Labels) {
			return false
		}
		have.Subjects, have.Labels = want.Subjects, withLabels(have.Labels, want.Labels)
		return true
	}); err != nil {
		return nil, err
	}
	cert := &cmapi.Certificate{}
	created, updated := false, false
	err := ensureOne(ctx, r, route, "Certificate", want.Certificate, cert, func(have, want *cmapi.Certificate) bool {
		if equality.Semantic.DeepEqual(have.Spec, want.Spec) && labelsMatch(have.Labels, want.Labels) {
			return false
		}
		have.Spec, have.Labels, updated = want.Spec, withLabels(have.Labels, want.Labels), true
		return true
	})
	if errors.Is(err, errCreated) {
		cert, created, err = want.Certificate, true, nil
	}
	switch {
	case err != nil:
		return nil, err
	case created:
		r.Events.Eventf(route, cert, corev1.EventTypeNormal, ReasonRequested, "Request", "Created Certificate %s for %v from %s %s; cert-manager fills Secret %s",
			cert.Name, names(&cert.Spec), cert.Spec.IssuerRef.Kind, cert.Spec.IssuerRef.Name, cert.Spec.SecretName)
	case updated:
		r.Events.Eventf(route, cert, corev1.EventTypeNormal, ReasonUpdated, "Request", "Updated Certificate %s for %v from %s %s; cert-manager issues a new certificate",
			cert.Name, names(&cert.Spec), cert.Spec.IssuerRef.Kind, cert.Spec.IssuerRef.Name)
	}
	return cert, nil
}

// errCreated tells the caller of ensure that the object did not exist and
// was created from want.
var errCreated = errors.New("created")

// nameTakenError reports an object in the way of one the Route needs.
type nameTakenError struct{ kind, name string }

func (e nameTakenError) Error() string {
	return fmt.Sprintf("%s %s exists and does not belong to this Route: delete or rename it, or rename the Route", e.kind, e.name)
}

// ensure makes the object named like want exist, owned by the Route, with
// what update copies from want (update reports whether it changed have).
// An object of that name the Route does not own is left alone, and an
// error says so.
func ensureOne[T client.Object](ctx context.Context, r *Reconciler, route *routecore.Route, kind string, want, have T, update func(have, want T) bool) error {
	err := r.Owned.Get(ctx, client.ObjectKeyFromObject(want), have)
	if apierrors.IsNotFound(err) {
		err = r.Client.Create(ctx, want)
		if err == nil {
			logf.FromContext(ctx).V(1).Info("created", "kind", kind, "name", want.GetName())
			return errCreated
		}
		if apierrors.IsAlreadyExists(err) { // the cache is behind
			err = r.API.Get(ctx, client.ObjectKeyFromObject(want), have)
		}
	}
	switch {
	case err != nil:
		return err
	case !ownedBy(have, route):
		return nameTakenError{kind: kind, name: want.GetName()}
	case update(have, want):
		if err := r.Client.Update(ctx, have); err != nil {
			return fmt.Errorf("updating %s %s: %w", kind, want.GetName(), err)
		}
		logf.FromContext(ctx).V(1).Info("updated", "kind", kind, "name", want.GetName())
	}
	return nil
}

// follow reports cert-manager's progress and, once the certificate is
// issued and its Secret exists, points the Route at the Secret.
func (r *Reconciler) follow(ctx context.Context, route *routecore.Route, cert *cmapi.Certificate) error {
	var req *cmapi.CertificateRequest
	if !isReady(cert) {
		var err error
		if req, err = r.nextRequest(ctx, route, cert); err != nil {
			return err
		}
	}
	p := ProgressOf(cert, req)
	if !p.Ready && p.Reason != "" {
		eventType := corev1.EventTypeNormal
		if p.Reason == ReasonFailed {
			eventType = corev1.EventTypeWarning
		}
		r.report(route, cert, eventType, p.Reason, p.Message)
	}
	if !p.Ready {
		return nil
	}
	updated := Reference(route, cert.Spec.SecretName)
	if updated == nil {
		return nil
	}
	secret := &corev1.Secret{}
	if err := r.API.Get(ctx, client.ObjectKey{Namespace: route.Namespace, Name: cert.Spec.SecretName}, secret); err != nil {
		// Ready without its Secret: the Secret was deleted a moment ago;
		// cert-manager notices and issues again.
		return client.IgnoreNotFound(err)
	}
	if err := r.Client.Update(ctx, updated); err != nil {
		return fmt.Errorf("pointing the Route at Secret %s: %w", cert.Spec.SecretName, err)
	}
	r.report(route, cert, corev1.EventTypeNormal, ReasonIssued, fmt.Sprintf(
		"Certificate %s is issued; the Route serves it from Secret %s (spec.tls.externalCertificate)", cert.Name, cert.Spec.SecretName))
	return nil
}

// nextRequest finds, among the CertificateRequests of the Route, the one
// cert-manager made for the Certificate's next revision.
func (r *Reconciler) nextRequest(ctx context.Context, route *routecore.Route, cert *cmapi.Certificate) (*cmapi.CertificateRequest, error) {
	var list cmapi.CertificateRequestList
	if err := r.Owned.List(ctx, &list, client.InNamespace(route.Namespace), client.MatchingLabels{RouteLabel: route.Name}); err != nil {
		return nil, err
	}
	next := NextRevision(cert)
	for i := range list.Items {
		cr := &list.Items[i]
		if cr.Annotations[cmapi.CertificateRequestRevisionAnnotationKey] == next && cr.Annotations[cmapi.CertificateNameKey] == cert.Name {
			return cr, nil
		}
	}
	return nil, nil
}

// remove undoes what the controller did for a Route that names no issuer
// any more: the reference first (the router goes back to its default
// certificate while it may still read the Secret), then the Certificate
// and the router's access. cert-manager leaves the Secret, as it does for
// every deleted Certificate.
func (r *Reconciler) remove(ctx context.Context, route *routecore.Route) error {
	removed := false
	if updated := Unreference(route); updated != nil {
		if err := r.Client.Update(ctx, updated); err != nil {
			return fmt.Errorf("removing the Route's reference to its certificate Secret: %w", err)
		}
		removed = true
	}
	secret := routecore.CertificateSecretName(route.Name)
	for _, obj := range []client.Object{
		&cmapi.Certificate{}, &rbacv1.RoleBinding{}, &rbacv1.Role{},
	} {
		name := RoleName(secret)
		if _, ok := obj.(*cmapi.Certificate); ok {
			name = CertificateName(route.Name)
		}
		gone, err := r.deleteOwned(ctx, route, name, obj)
		if err != nil {
			return err
		}
		removed = removed || gone
	}
	if removed {
		r.Events.Eventf(route, nil, corev1.EventTypeNormal, ReasonRemoved, "Remove",
			"The Route names no cert-manager issuer: removed its Certificate %s, the router's access to Secret %s and the Route's reference to it; the router serves its default certificate",
			CertificateName(route.Name), secret)
	}
	return nil
}

// deleteOwned deletes the object named name if the Route owns it, and
// reports whether it did.
func (r *Reconciler) deleteOwned(ctx context.Context, route *routecore.Route, name string, obj client.Object) (bool, error) {
	err := r.Owned.Get(ctx, client.ObjectKey{Namespace: route.Namespace, Name: name}, obj)
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	case !ownedBy(obj, route):
		return false, nil
	}
	uid := obj.GetUID()
	if err := r.Client.Delete(ctx, obj, client.Preconditions{UID: &uid}); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return true, nil
}

// report records an event on the Route when its reason and message differ
// from the last one reported for the Route.
func (r *Reconciler) report(route *routecore.Route, related runtime.Object, eventType, reason, message string) {
	key := types.NamespacedName{Namespace: route.Namespace, Name: route.Name}
	line := reason + ": " + message
	r.mu.Lock()
	if r.reported == nil {
		r.reported = map[types.NamespacedName]string{}
	}
	same := r.reported[key] == line
	r.reported[key] = line
	r.mu.Unlock()
	if !same {
		r.Events.Eventf(route, related, eventType, reason, "Sync", "%s", clip(message))
	}
}

func (r *Reconciler) forget(key types.NamespacedName) {
	r.mu.Lock()
	delete(r.reported, key)
	r.mu.Unlock()
}

// maxNote is the longest note the API server accepts in an event.
const maxNote = 1024

func clip(s string) string {
	if len(s) <= maxNote {
		return s
	}
	return s[:maxNote-4] + " …"
}

// names are the names a Certificate covers, for messages.
func names(spec *cmapi.CertificateSpec) []string {
	out := append([]string{}, spec.DNSNames...)
	out = append(out, spec.IPAddresses...)
	out = append(out, spec.URIs...)
	out = append(out, spec.EmailAddresses...)
	if len(out) == 0 && spec.CommonName != "" {
		out = append(out, spec.CommonName)
	}
	return out
}

func labelsMatch(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// withLabels is have with want's labels set; other labels stay.
func withLabels(have, want map[string]string) map[string]string {
	out := maps.Clone(have)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, want)
	return out
}
