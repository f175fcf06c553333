package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/routeshift/routeshift/internal/invalid"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/routecore/examples"
	"github.com/routeshift/routeshift/webhook"
)

// webhookExample is a check only the webhook makes, because it needs the
// cluster: who asks, and what the cluster holds and answers.
type webhookExample struct {
	examples.Example
	// allowed answers the webhook's SubjectAccessReviews.
	allowed authorizer
	// secret is the Secret web-tls in the Route's namespace, if any.
	secret *corev1.Secret
	// holder is an older Route, in another namespace, with the same host.
	holder *routecore.Route
}

// exampleUser is who creates the example Routes.
const exampleUser = "alice"

// authorizer answers SubjectAccessReviews with a function of the user.
type authorizer func(user string) bool

func (a authorizer) Allowed(_ context.Context, user authenticationv1.UserInfo, _ authorizationv1.ResourceAttributes) (bool, error) {
	return a(user.Username), nil
}

var (
	anyone   authorizer = func(string) bool { return true }
	onlyUser authorizer = func(user string) bool { return user == exampleUser }
	notUser  authorizer = func(user string) bool { return user != exampleUser }
)

// webhookExamples are the refusals and the warning that need the cluster.
func webhookExamples() (refused, warned []webhookExample, err error) {
	leaf, other, err := examples.KeyPairs()
	if err != nil {
		return nil, nil, err
	}
	secret := func(typ corev1.SecretType) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "web-tls", Namespace: examples.Namespace}, Type: typ,
			Data: map[string][]byte{corev1.TLSCertKey: []byte(leaf.Certificate), corev1.TLSPrivateKeyKey: []byte(leaf.Key)}}
	}
	external := examples.WithTLS(routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, ExternalCertificate: &routecore.LocalObjectReference{Name: "web-tls"}})
	noHost := func(r *routecore.Route) { r.Spec.Host = "" }
	refused = []webhookExample{
		{examples.Example{Rule: "Setting `spec.host` on create needs `create` on `routes/custom-host` (a generated host needs nothing)",
			Shows: "a host, by a user without the permission", Change: examples.Unchanged}, notUser, nil, nil},
		{examples.Example{Rule: "Setting certificate fields on create needs the same permission", Shows: "no host, an edge certificate and key",
			Change: examples.Both(noHost, examples.EdgeWith(leaf.Certificate, leaf.Key, ""))}, notUser, nil, nil},
		{examples.Example{Rule: "Changing `spec.host` needs `update` on `routes/custom-host`", Shows: "host changed to `shop.example.com`",
			Old: examples.Unchanged, Change: func(r *routecore.Route) { r.Spec.Host = "shop.example.com" }}, notUser, nil, nil},
		{examples.Example{Rule: "Changing `spec.subdomain` needs `update` on `routes/custom-host`", Shows: "subdomain changed from `shop` to `store`",
			Old: func(r *routecore.Route) { r.Spec.Host, r.Spec.Subdomain = "", "shop" }, Change: func(r *routecore.Route) { r.Spec.Subdomain = "store" }}, notUser, nil, nil},
		{examples.Example{Rule: "Changing certificate fields needs `update` or `create` on `routes/custom-host` (removing them needs nothing)", Shows: "certificate and key replaced",
			Old: examples.EdgeWith(leaf.Certificate, leaf.Key, ""), Change: examples.EdgeWith(other.Certificate, other.Key, "")}, notUser, nil, nil},
		{examples.Example{Rule: "The router's service account (`--router-service-account`) can get, watch and list the `externalCertificate` Secret",
			Shows: "an external certificate the router may not read", Change: external}, onlyUser, secret(corev1.SecretTypeTLS), nil},
		{examples.Example{Rule: "The `externalCertificate` Secret exists", Shows: "`externalCertificate: {name: web-tls}`, no such Secret", Change: external}, anyone, nil, nil},
		{examples.Example{Rule: "… and is of type `kubernetes.io/tls`", Shows: "an `Opaque` Secret", Change: external}, anyone, secret(corev1.SecretTypeOpaque), nil},
	}
	holder := examples.Base()
	holder.Name, holder.Namespace, holder.UID, holder.CreationTimestamp = "www", "other-team", "holder-uid", metav1.Unix(0, 0)
	warned = []webhookExample{
		{examples.Example{Rule: "The host is held by an older Route in another namespace", Shows: "`host: www.example.com`, taken by `other-team/www`",
			Change: examples.Unchanged}, onlyUser, nil, holder},
	}
	return refused, warned, nil
}

// webhookRows are the rows of the refusals, which must be refused, and of
// the warning, which must be allowed with warnings.
func webhookRows() (refused, warned []row, err error) {
	refusals, warnings, err := webhookExamples()
	if err != nil {
		return nil, nil, err
	}
	for _, e := range refusals {
		resp, err := e.admit()
		if err != nil {
			return nil, nil, err
		}
		if resp.Allowed || resp.Result == nil || resp.Result.Details == nil {
			return nil, nil, fmt.Errorf("webhook example %q: not refused as invalid: %+v", e.Rule, resp.Result)
		}
		refused = append(refused, row{Rule: cell(e.Rule), Shows: cell(e.Shows), Message: messageCell(kubectlLines(invalid.Message(*resp.Result)), "")})
	}
	for _, e := range warnings {
		resp, err := e.admit()
		if err != nil {
			return nil, nil, err
		}
		if !resp.Allowed || len(resp.Warnings) == 0 {
			return nil, nil, fmt.Errorf("webhook example %q: allowed=%t, no warning", e.Rule, resp.Allowed)
		}
		warned = append(warned, row{Rule: cell(e.Rule), Shows: cell(e.Shows), Message: messageCell(warningLines(resp.Warnings), "")})
	}
	return refused, warned, nil
}

// admit asks the webhook's validating handler, in process, about the
// example as the API server does after mutating admission (the Route
// defaulted), with a cluster holding the example's Secret and Route.
func (e webhookExample) admit() (admission.Response, error) {
	cluster, routes, err := e.cluster()
	if err != nil {
		return admission.Response{}, err
	}
	srv, err := webhook.New(webhook.Options{}, e.allowed, routes, cluster, prometheus.NewRegistry())
	if err != nil {
		return admission.Response{}, err
	}
	req, err := e.request()
	if err != nil {
		return admission.Response{}, err
	}
	ctx := logf.IntoContext(context.Background(), logr.Discard())
	return srv.ValidatingHandler().Handle(ctx, req), nil
}

// cluster is what the webhook reads: the example's Secret and, when it
// has one, the Route holding its host (else no Routes reader, which turns
// the claim warning off).
func (e webhookExample) cluster() (secrets, routes client.Reader, err error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, nil, err
	}
	if err := routecore.AddToScheme(scheme); err != nil {
		return nil, nil, err
	}
	b := fake.NewClientBuilder().WithScheme(scheme).WithIndex(&routecore.Route{}, webhook.HostIndex, webhook.IndexRouteHost)
	if e.secret != nil {
		b.WithObjects(e.secret)
	}
	if e.holder == nil {
		return b.Build(), nil, nil
	}
	c := b.WithObjects(e.holder).Build()
	return c, c, nil
}

// request is the admission request for the example, by exampleUser.
func (e webhookExample) request() (admission.Request, error) {
	res := e.Run()
	req := admissionv1.AdmissionRequest{
		UID:       "example",
		Kind:      metav1.GroupVersionKind{Group: routecore.GroupName, Version: "v1", Kind: "Route"},
		Resource:  metav1.GroupVersionResource{Group: routecore.GroupName, Version: "v1", Resource: "routes"},
		Name:      res.Route.Name,
		Namespace: res.Route.Namespace,
		Operation: admissionv1.Create,
		UserInfo:  authenticationv1.UserInfo{Username: exampleUser, Groups: []string{"system:authenticated"}},
	}
	var err error
	if req.Object.Raw, err = json.Marshal(res.Route); err != nil {
		return admission.Request{}, err
	}
	if res.Old != nil {
		req.Operation = admissionv1.Update
		if req.OldObject.Raw, err = json.Marshal(res.Old); err != nil {
			return admission.Request{}, err
		}
	}
	return admission.Request{AdmissionRequest: req}, nil
}
