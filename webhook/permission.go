package webhook

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
)

// Authorizer answers whether a user may perform an action, through a
// SubjectAccessReview.
type Authorizer interface {
	Allowed(ctx context.Context, user authenticationv1.UserInfo, attrs authorizationv1.ResourceAttributes) (bool, error)
}

// SubjectAccessReviewer is the Authorizer that asks the API server.
type SubjectAccessReviewer struct {
	Client client.Client
}

// Allowed creates a SubjectAccessReview for user and attrs.
func (s SubjectAccessReviewer) Allowed(ctx context.Context, user authenticationv1.UserInfo, attrs authorizationv1.ResourceAttributes) (bool, error) {
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user.Username, UID: user.UID, Groups: user.Groups, ResourceAttributes: &attrs,
	}}
	if len(user.Extra) > 0 {
		sar.Spec.Extra = make(map[string]authorizationv1.ExtraValue, len(user.Extra))
		for k, v := range user.Extra {
			sar.Spec.Extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	if err := s.Client.Create(ctx, sar); err != nil {
		return false, err
	}
	return sar.Status.Allowed, nil
}

// Permission messages, as OpenShift writes them.
const (
	hostDenied        = "you do not have permission to set the host field of the route"
	subdomainDenied   = "you do not have permission to set the subdomain field of the route"
	certificateDenied = "you do not have permission to set certificate fields on the route"
)

var (
	hostPath      = field.NewPath("spec", "host")
	subdomainPath = field.NewPath("spec", "subdomain")
	tlsPath       = field.NewPath("spec", "tls")
)

// customHost checks the routes/custom-host permission of the requesting
// user: on create, setting a host or certificate fields needs create; on
// update, changing the host or subdomain needs update, and changing
// certificate fields needs create or update (docs/validation.md).
func (s *Server) customHost(ctx context.Context, r *review) field.ErrorList {
	if r.old == nil {
		return s.customHostOnCreate(ctx, r)
	}
	return s.customHostOnUpdate(ctx, r)
}

func (s *Server) customHostOnCreate(ctx context.Context, r *review) field.ErrorList {
	route := r.route
	hostSet := route.Spec.Host != "" && !s.hostWasGenerated(route)
	certSet := hasCertificateFields(route.Spec.TLS)
	if !hostSet && !certSet {
		return nil
	}
	path := tlsPath
	if hostSet {
		path = hostPath
	}
	allowed, err := s.mayUseCustomHost(ctx, r, "create")
	switch {
	case err != nil:
		return field.ErrorList{field.InternalError(path, err)}
	case allowed:
		return nil
	case hostSet:
		return field.ErrorList{field.Forbidden(hostPath, hostDenied)}
	default:
		return field.ErrorList{field.Forbidden(tlsPath, certificateDenied)}
	}
}

// hostWasGenerated reports whether the host is the one the mutating webhook
// generates for this route; the user needs no permission to receive it.
func (s *Server) hostWasGenerated(route *routecore.Route) bool {
	return route.Annotations[routecore.HostGeneratedAnnotation] == "true" &&
		route.Spec.Host == routecore.GenerateHost(route.Name, route.Namespace, s.defaults.RouteSuffix)
}

func (s *Server) customHostOnUpdate(ctx context.Context, r *review) field.ErrorList {
	route, old := r.route, r.old
	hostChanged := route.Spec.Host != old.Spec.Host
	subdomainChanged := route.Spec.Subdomain != old.Spec.Subdomain
	certChanged := certificateChanged(route.Spec.TLS, old.Spec.TLS)
	if !hostChanged && !subdomainChanged && !certChanged {
		return nil
	}
	errPath := hostPath
	if subdomainChanged {
		errPath = subdomainPath
	}
	allowed, err := s.mayUseCustomHost(ctx, r, "update")
	switch {
	case err != nil:
		return field.ErrorList{field.InternalError(errPath, err)}
	case allowed:
		return nil
	case hostChanged:
		return field.ErrorList{field.Invalid(hostPath, route.Spec.Host, hostDenied)}
	case subdomainChanged:
		return field.ErrorList{field.Invalid(subdomainPath, route.Spec.Subdomain, subdomainDenied)}
	}
	// Only certificates changed: create is enough.
	if allowed, err = s.mayUseCustomHost(ctx, r, "create"); err != nil {
		return field.ErrorList{field.InternalError(tlsPath, err)}
	} else if allowed {
		return nil
	}
	return certificateChangeErrors(route.Spec.TLS, old.Spec.TLS)
}

func (s *Server) mayUseCustomHost(ctx context.Context, r *review, verb string) (bool, error) {
	return s.authorizer.Allowed(ctx, r.req.UserInfo, authorizationv1.ResourceAttributes{
		Namespace: r.req.Namespace, Verb: verb, Group: routecore.GroupName, Resource: "routes", Subresource: "custom-host",
	})
}

func hasCertificateFields(tls *routecore.TLSConfig) bool {
	return tls != nil && (tls.Certificate != "" || tls.Key != "" || tls.CACertificate != "" ||
		tls.DestinationCACertificate != "" || (tls.ExternalCertificate != nil && tls.ExternalCertificate.Name != ""))
}

// certificateChanged follows OpenShift: removing certificate fields is free,
// adding TLS without them is free, and an external certificate always
// counts as a change because the secret's content cannot be compared.
func certificateChanged(tls, old *routecore.TLSConfig) bool {
	switch {
	case tls == nil || !hasCertificateFields(tls):
		return false
	case old == nil:
		return true
	case tls.ExternalCertificate != nil && tls.ExternalCertificate.Name != "":
		return true
	}
	return tls.CACertificate != old.CACertificate || tls.Certificate != old.Certificate ||
		tls.DestinationCACertificate != old.DestinationCACertificate || tls.Key != old.Key
}

// certificateChangeErrors names each changed certificate field; the values
// are redacted.
func certificateChangeErrors(tls, old *routecore.TLSConfig) field.ErrorList {
	if old == nil {
		return field.ErrorList{field.Invalid(tlsPath, "redacted tls data", certificateDenied)}
	}
	var errs field.ErrorList
	for _, f := range []struct {
		name, now, was, redacted string
	}{
		{"caCertificate", tls.CACertificate, old.CACertificate, "redacted ca certificate data"},
		{"certificate", tls.Certificate, old.Certificate, "redacted certificate data"},
		{"destinationCACertificate", tls.DestinationCACertificate, old.DestinationCACertificate, "redacted destination ca certificate data"},
		{"key", tls.Key, old.Key, "redacted key data"},
	} {
		if f.now != f.was {
			errs = append(errs, field.Invalid(tlsPath.Child(f.name), f.redacted, certificateDenied))
		}
	}
	if ext := tls.ExternalCertificate; ext != nil && ext.Name != "" {
		errs = append(errs, field.Invalid(tlsPath.Child("externalCertificate"), ext.Name, certificateDenied))
	}
	return errs
}

// externalCertificate checks that the router can read the secret a route
// names in spec.tls.externalCertificate, that it exists, and that it is a
// kubernetes.io/tls secret.
func (s *Server) externalCertificate(ctx context.Context, r *review) field.ErrorList {
	tls := r.route.Spec.TLS
	if tls == nil || tls.ExternalCertificate == nil || tls.ExternalCertificate.Name == "" || tls.Certificate != "" ||
		(tls.Termination != routecore.TLSTerminationEdge && tls.Termination != routecore.TLSTerminationReencrypt) {
		return nil
	}
	name, path := tls.ExternalCertificate.Name, tlsPath.Child("externalCertificate")
	secret, errs := s.routerSecret(ctx, r.route.Namespace, name, path)
	if secret == nil && len(errs) > 0 && errs[len(errs)-1].Type == field.ErrorTypeInternal {
		return errs
	}
	if err := routecore.ValidateExternalCertificateSecret(path, name, secret); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// basicAuthSecret checks that the router can read the Secret a route's
// routeshift.io/auth-basic-secret annotation names, that it exists, and
// that it holds htpasswd data the router can check.
func (s *Server) basicAuthSecret(ctx context.Context, r *review) field.ErrorList {
	name := routecore.BasicAuthSecret(r.route)
	if name == "" {
		return nil
	}
	path := field.NewPath("metadata", "annotations").Key(routecore.AnnAuthBasicSecret)
	secret, errs := s.routerSecret(ctx, r.route.Namespace, name, path)
	if secret == nil && len(errs) > 0 && errs[len(errs)-1].Type == field.ErrorTypeInternal {
		return errs
	}
	if _, err := routecore.ValidateBasicAuthSecret(path, name, secret); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// routerSecret returns the Secret namespace/name (nil when it does not
// exist) and, at path, what the router may not do with it: the router
// reads a route's Secrets with get, watch and list on that Secret alone.
// An internal error ends the list.
func (s *Server) routerSecret(ctx context.Context, namespace, name string, path *field.Path) (*corev1.Secret, field.ErrorList) {
	var errs field.ErrorList
	ns, _, err := serviceaccount.SplitUsername(s.routerServiceAccount)
	if err != nil {
		return nil, field.ErrorList{field.InternalError(path, fmt.Errorf("router service account %q: %w", s.routerServiceAccount, err))}
	}
	router := authenticationv1.UserInfo{Username: s.routerServiceAccount, Groups: serviceaccount.MakeGroupNames(ns)}
	for _, verb := range []string{"get", "watch", "list"} {
		allowed, err := s.authorizer.Allowed(ctx, router, authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: verb, Resource: "secrets", Name: name,
		})
		switch {
		case err != nil:
			return nil, append(errs, field.InternalError(path, err))
		case !allowed:
			errs = append(errs, field.Forbidden(path, fmt.Sprintf("router serviceaccount does not have permission to %s this secret", verb)))
		}
	}
	secret := &corev1.Secret{}
	switch err := s.secrets.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, secret); {
	case apierrors.IsNotFound(err):
		secret = nil
	case err != nil:
		return nil, append(errs, field.InternalError(path, err))
	}
	return secret, errs
}
