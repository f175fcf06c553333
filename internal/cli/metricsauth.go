package cli

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/routecore"
)

// metricsAuth guards a /metrics endpoint as OpenShift's router guards its
// own: with the stats credentials (basic), with a bearer token whose user
// the API server says may read it (kubernetes: k8s.io/apiserver's delegated
// authentication and authorization, which send the TokenReview and the
// SubjectAccessReview and remember their answers), or not at all (none).
type metricsAuth struct {
	mode           string
	user, password string
	access         metricsAccess
	authn          authenticator.Request
	authz          authorizer.Authorizer
}

// metricsAccess is what a reader of /metrics must be allowed to do.
type metricsAccess struct {
	attributes authorizer.AttributesRecord // without the user
	what       string                      // the permission, for messages
	role       string                      // the ClusterRole of the manifests that grants it
}

// How long the API server's answers are remembered, so that a scraper's
// every request does not cost it two reviews: an allowed token a minute, a
// refusal 10 seconds (a role just bound takes effect soon).
const (
	allowedFor  = time.Minute
	refusedFor  = 10 * time.Second
	reviewLimit = 10 * time.Second // each review's time limit
)

// reviewRetry is the retry of reviews that failed (not refused) while the
// API server is briefly unavailable, as kube-apiserver's own delegation.
var reviewRetry = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}

// routerMetricsAccess is OpenShift's check of its router's /metrics.
func routerMetricsAccess(router string) metricsAccess {
	return metricsAccess{
		attributes: authorizer.AttributesRecord{Verb: "get", APIGroup: routecore.GroupVersion.Group,
			Resource: "routers", Subresource: "metrics", Name: router, ResourceRequest: true},
		what: "get routers/metrics " + router + " in route.openshift.io",
		role: "routeshift:router-metrics-reader",
	}
}

// managerMetricsAccess is the usual check of a controller's /metrics.
var managerMetricsAccess = metricsAccess{
	attributes: authorizer.AttributesRecord{Verb: "get", Path: "/metrics"},
	what:       "get the non-resource URL /metrics",
	role:       "routeshift:metrics-reader",
}

// newMetricsAuth returns the check of mode; every mode but none and basic
// asks the API server through clients.
func newMetricsAuth(mode, user, password string, access metricsAccess, clients kubernetes.Interface) (*metricsAuth, error) {
	a := &metricsAuth{mode: mode, user: user, password: password, access: access}
	if mode == settings.MetricsAuthNone || mode == settings.MetricsAuthBasic {
		return a, nil
	}
	var err error
	a.authn, _, err = authenticatorfactory.DelegatingAuthenticatorConfig{
		Anonymous:                &apiserver.AnonymousAuthConfig{Enabled: false},
		TokenAccessReviewClient:  clients.AuthenticationV1(),
		TokenAccessReviewTimeout: reviewLimit,
		WebhookRetryBackoff:      &reviewRetry,
		CacheTTL:                 allowedFor,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("the authentication of /metrics: %w", err)
	}
	a.authz, err = authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: clients.AuthorizationV1(),
		AllowCacheTTL:             allowedFor,
		DenyCacheTTL:              refusedFor,
		WebhookRetryBackoff:       &reviewRetry,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("the authorization of /metrics: %w", err)
	}
	return a, nil
}

// wrap returns next behind the check.
func (a *metricsAuth) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch a.mode {
		case settings.MetricsAuthNone:
			next.ServeHTTP(w, req)
		case settings.MetricsAuthBasic:
			if !a.basicOK(req) {
				w.Header().Set("WWW-Authenticate", `Basic realm="routeshift metrics"`)
				http.Error(w, "Unauthorized: send the router's STATS_USERNAME and STATS_PASSWORD", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, req)
		default: // kubernetes, and anything unexpected: fail closed
			status, message := a.tokenDecision(req)
			if status != http.StatusOK {
				if status == http.StatusUnauthorized {
					w.Header().Set("WWW-Authenticate", `Bearer realm="routeshift metrics"`)
				}
				http.Error(w, message, status)
				return
			}
			next.ServeHTTP(w, req)
		}
	})
}

func (a *metricsAuth) basicOK(req *http.Request) bool {
	user, password, ok := req.BasicAuth()
	// Compare both, always, in constant time.
	u := subtle.ConstantTimeCompare([]byte(user), []byte(a.user))
	p := subtle.ConstantTimeCompare([]byte(password), []byte(a.password))
	return ok && u&p == 1
}

// tokenDecision asks the API server who the bearer token's user is and
// whether they may read /metrics: http.StatusOK, or the status and message
// to answer with.
func (a *metricsAuth) tokenDecision(req *http.Request) (int, string) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(token) == "" {
		return http.StatusUnauthorized, "Unauthorized: send a bearer token of a user who may " + a.access.what +
			" (the ClusterRole " + a.access.role + " grants it)"
	}
	resp, ok, err := a.authn.AuthenticateRequest(req)
	switch {
	case err != nil && unavailable(err):
		ctrl.Log.Error(err, "checking a /metrics request failed", "remote", req.RemoteAddr)
		return http.StatusInternalServerError, "Internal Server Error: the API server could not check the token; see the log"
	case !ok:
		return http.StatusUnauthorized, "Unauthorized: the API server does not accept the token"
	}
	attributes := a.access.attributes
	attributes.User = resp.User
	decision, _, err := a.authz.Authorize(req.Context(), attributes)
	switch {
	case err != nil:
		ctrl.Log.Error(err, "checking a /metrics request failed", "remote", req.RemoteAddr, "user", resp.User.GetName())
		return http.StatusInternalServerError, "Internal Server Error: the API server could not check the permission; see the log"
	case decision != authorizer.DecisionAllow:
		return http.StatusForbidden, fmt.Sprintf("Forbidden: user %q may not %s (bind the ClusterRole %s)",
			resp.User.GetName(), a.access.what, a.access.role)
	}
	return http.StatusOK, ""
}

// unavailable tells a TokenReview that could not be made (the API server
// unreachable, or refusing the review) from its answer that the token is
// not valid, which the authenticator also returns as an error.
func unavailable(err error) bool {
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		for _, e := range agg.Errors() {
			if unavailable(e) {
				return true
			}
		}
		return false
	}
	var status apierrors.APIStatus
	var request *url.Error
	return errors.As(err, &status) || errors.As(err, &request) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
