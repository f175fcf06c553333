package cli

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/routeshift/routeshift/haproxy"
	"github.com/routeshift/routeshift/routecore"
)

// metricsAuth guards a /metrics endpoint as OpenShift's router guards its
// own: with the stats credentials (basic), or with a bearer token whose user
// the API server says may read it (kubernetes: a TokenReview, then a
// SubjectAccessReview of access), or not at all (none).
type metricsAuth struct {
	mode           string
	user, password string
	access         metricsAccess
	client         kubernetes.Interface

	mu      sync.Mutex
	now     func() time.Time
	decided map[[sha256.Size]byte]authDecision
}

// metricsAccess is what a reader of /metrics must be allowed to do.
type metricsAccess struct {
	resource    *authorizationv1.ResourceAttributes
	nonResource *authorizationv1.NonResourceAttributes
	what        string // the permission, for messages
	role        string // the ClusterRole of the manifests that grants it
}

// authDecision is a token's answer, remembered so that a scraper's every
// request does not cost the API server two reviews.
type authDecision struct {
	status  int // http.StatusOK, StatusUnauthorized or StatusForbidden
	message string
	expires time.Time
}

const (
	allowedFor = time.Minute      // how long an allowed token is remembered
	refusedFor = 10 * time.Second // and a refused one
	maxDecided = 1024             // tokens remembered at most
)

// routerMetricsAccess is OpenShift's check of its router's /metrics.
func routerMetricsAccess(router string) metricsAccess {
	return metricsAccess{
		resource: &authorizationv1.ResourceAttributes{
			Verb: "get", Group: routecore.GroupVersion.Group, Resource: "routers", Subresource: "metrics", Name: router,
		},
		what: "get routers/metrics " + router + " in route.openshift.io",
		role: "routeshift:router-metrics-reader",
	}
}

// managerMetricsAccess is the usual check of a controller's /metrics.
var managerMetricsAccess = metricsAccess{
	nonResource: &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/metrics"},
	what:        "get the non-resource URL /metrics",
	role:        "routeshift:metrics-reader",
}

func newMetricsAuth(mode, user, password string, access metricsAccess, client kubernetes.Interface) *metricsAuth {
	return &metricsAuth{mode: mode, user: user, password: password, access: access,
		client: client, now: time.Now, decided: map[[sha256.Size]byte]authDecision{}}
}

// wrap returns next behind the check.
func (a *metricsAuth) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch a.mode {
		case haproxy.MetricsAuthNone:
			next.ServeHTTP(w, req)
		case haproxy.MetricsAuthBasic:
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

func (a *metricsAuth) tokenDecision(req *http.Request) (int, string) {
	token, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if token = strings.TrimSpace(token); !ok || token == "" {
		return http.StatusUnauthorized, "Unauthorized: send a bearer token of a user who may " + a.access.what +
			" (the ClusterRole " + a.access.role + " grants it)"
	}
	key := sha256.Sum256([]byte(token))
	now := a.now()
	a.mu.Lock()
	d, ok := a.decided[key]
	a.mu.Unlock()
	if ok && now.Before(d.expires) {
		return d.status, d.message
	}
	ctx, cancel := context.WithTimeout(req.Context(), 10*time.Second)
	defer cancel()
	status, message, err := a.review(ctx, token)
	if err != nil {
		ctrl.Log.Error(err, "checking a /metrics request failed", "remote", req.RemoteAddr)
		return http.StatusInternalServerError, "Internal Server Error: the API server could not check the token; see the router's log"
	}
	if status == http.StatusOK {
		d = authDecision{status: status, message: message, expires: now.Add(allowedFor)}
	} else {
		d = authDecision{status: status, message: message, expires: now.Add(refusedFor)}
	}
	a.mu.Lock()
	if len(a.decided) >= maxDecided {
		clear(a.decided)
	}
	a.decided[key] = d
	a.mu.Unlock()
	return status, message
}

// review asks the API server who the token's user is and whether they may
// get routers/metrics of this router.
func (a *metricsAuth) review(ctx context.Context, token string) (int, string, error) {
	tr, err := a.client.AuthenticationV1().TokenReviews().Create(ctx,
		&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return 0, "", fmt.Errorf("TokenReview: %w", err)
	}
	if !tr.Status.Authenticated {
		return http.StatusUnauthorized, "Unauthorized: the API server does not accept the token", nil
	}
	u := tr.Status.User
	extra := make(map[string]authorizationv1.ExtraValue, len(u.Extra))
	for k, v := range u.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	sar, err := a.client.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra,
			ResourceAttributes: a.access.resource, NonResourceAttributes: a.access.nonResource,
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return 0, "", fmt.Errorf("SubjectAccessReview: %w", err)
	}
	if !sar.Status.Allowed {
		return http.StatusForbidden, fmt.Sprintf("Forbidden: user %q may not %s (bind the ClusterRole %s)",
			u.Username, a.access.what, a.access.role), nil
	}
	return http.StatusOK, "", nil
}
