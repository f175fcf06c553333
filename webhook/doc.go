// Package webhook adapts routecore to Kubernetes admission: a mutating
// handler that defaults Routes (host generation, host restore, termination
// normalisation) and rejects invalid ones, and a validating handler that
// re-validates the final object, checks the routes/custom-host permission
// with SubjectAccessReviews, checks external certificate secrets, and returns
// warnings. It adds no rule of its own to the route model: it imports
// routecore for the rules and internal/invalid for the refusal, never the
// router, the ingress controller or a data plane.
//
// Validation runs in the mutating handler too: the API server validates the
// CRD schema between mutating and validating admission, and its generic
// schema messages would otherwise pre-empt OpenShift's for weights, item
// counts and enums.
package webhook
