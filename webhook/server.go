package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/routeshift/routeshift/routecore"
)

// Paths the handlers are served at; the webhook configurations in
// manifests/ point at them.
const (
	MutatePath   = "/mutate-route"
	ValidatePath = "/validate-route"
)

// DefaultRouterServiceAccount is the router's service account in the
// manifests; external certificate secrets must be readable by it.
const DefaultRouterServiceAccount = "system:serviceaccount:routeshift:router"

// Options configure the admission handlers.
type Options struct {
	// RouteSuffix ends generated hosts (default routecore.DefaultRouteSuffix).
	RouteSuffix string
	// SkipCertificateChecks turns off the certificate checks at admission.
	SkipCertificateChecks bool
	// RouterServiceAccount is the user name of the router's service account
	// (system:serviceaccount:NAMESPACE:NAME).
	RouterServiceAccount string
}

// Server holds the admission handlers and what they need from the cluster.
type Server struct {
	defaults             routecore.DefaultOptions
	validation           routecore.ValidateOptions
	routerServiceAccount string

	authorizer Authorizer
	// routes lists Routes by host (a cache with the HostIndex field index);
	// nil turns the claimed-host warning off.
	routes client.Reader
	// secrets reads external certificate secrets, and the cert-manager
	// issuers Routes name, directly (no cache, so the webhook needs only
	// get on them).
	secrets client.Reader
	metrics *metrics
}

// New returns the handlers for opts. authorizer and secrets are required;
// routes may be nil.
func New(opts Options, authorizer Authorizer, routes, secrets client.Reader, reg prometheus.Registerer) (*Server, error) {
	if opts.RouteSuffix == "" {
		opts.RouteSuffix = routecore.DefaultRouteSuffix
	}
	if err := routecore.ValidateRouteSuffix(opts.RouteSuffix); err != nil {
		return nil, fmt.Errorf("route suffix: %w", err)
	}
	if opts.RouterServiceAccount == "" {
		opts.RouterServiceAccount = DefaultRouterServiceAccount
	}
	if _, _, err := serviceaccount.SplitUsername(opts.RouterServiceAccount); err != nil {
		return nil, fmt.Errorf("router service account %q: want system:serviceaccount:NAMESPACE:NAME", opts.RouterServiceAccount)
	}
	if authorizer == nil || secrets == nil {
		return nil, errors.New("webhook: an authorizer and a secrets reader are required")
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	return &Server{
		defaults:             routecore.DefaultOptions{RouteSuffix: opts.RouteSuffix},
		validation:           routecore.ValidateOptions{SkipCertificateChecks: opts.SkipCertificateChecks},
		routerServiceAccount: opts.RouterServiceAccount,
		authorizer:           authorizer, routes: routes, secrets: secrets, metrics: m,
	}, nil
}

// Register serves the handlers on srv.
func (s *Server) Register(srv ctrlwebhook.Server) {
	srv.Register(MutatePath, bodyDeadline(&admission.Webhook{Handler: &routeHandler{name: "mutate", handle: s.mutate, metrics: s.metrics}, RecoverPanic: ptr(true)}))
	srv.Register(ValidatePath, bodyDeadline(&admission.Webhook{Handler: s.ValidatingHandler(), RecoverPanic: ptr(true)}))
}

// ValidatingHandler is the handler Register serves at ValidatePath, for
// callers that admit Routes in process, such as internal/docgen, which
// prints its answers.
func (s *Server) ValidatingHandler() admission.Handler {
	return &routeHandler{name: "validate", handle: s.validate, metrics: s.metrics}
}

// BodyReadTimeout is how long a handler waits for the body of a request
// once its headers are in. The API server sends an AdmissionReview at once
// and stops waiting for the answer after the webhook configurations'
// timeoutSeconds (5), so a client that trickles its body in is cut off
// rather than holding a connection and a goroutine.
const BodyReadTimeout = 5 * time.Second

// bodyDeadline bounds the reading of each request's body by
// BodyReadTimeout; the answer (a 400 when the body came too slowly) is
// written without a deadline.
func bodyDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).SetReadDeadline(time.Now().Add(BodyReadTimeout)); err != nil {
			logf.FromContext(r.Context()).Error(err, "cannot bound the time to read the request body")
		}
		next.ServeHTTP(w, r)
	})
}

func ptr[T any](v T) *T { return &v }

// SetupWithManager indexes Routes by host in the manager's cache, and
// serves the handlers on the manager's webhook server, with metrics in
// controller-runtime's registry.
func SetupWithManager(ctx context.Context, mgr manager.Manager, opts Options) (*Server, error) {
	if err := mgr.GetFieldIndexer().IndexField(ctx, &routecore.Route{}, HostIndex, IndexRouteHost); err != nil {
		return nil, fmt.Errorf("indexing routes by host: %w", err)
	}
	s, err := New(opts, SubjectAccessReviewer{Client: mgr.GetClient()}, mgr.GetCache(), mgr.GetAPIReader(), ctrlmetrics.Registry)
	if err != nil {
		return nil, err
	}
	s.Register(mgr.GetWebhookServer())
	return s, nil
}
