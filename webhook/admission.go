package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/routeshift/routeshift/internal/invalid"
	"github.com/routeshift/routeshift/routecore"
)

// review is one admission request for a Route, decoded.
type review struct {
	req   admission.Request
	route *routecore.Route
	// old is the stored Route on UPDATE, nil on CREATE.
	old *routecore.Route
}

// decodeReview decodes the request's object and, on UPDATE, the old object.
func decodeReview(req admission.Request) (*review, error) {
	r := &review{req: req, route: &routecore.Route{}}
	if err := json.Unmarshal(req.Object.Raw, r.route); err != nil {
		return nil, fmt.Errorf("decoding the Route: %w", err)
	}
	if r.route.Namespace == "" {
		r.route.Namespace = req.Namespace
	}
	if req.Operation == admissionv1.Update {
		r.old = &routecore.Route{}
		if err := json.Unmarshal(req.OldObject.Raw, r.old); err != nil {
			return nil, fmt.Errorf("decoding the stored Route: %w", err)
		}
	}
	return r, nil
}

// validate runs routecore's create or update validation.
func (r *review) validate(opts routecore.ValidateOptions) field.ErrorList {
	if r.old == nil {
		return routecore.ValidateRoute(r.route, opts)
	}
	return routecore.ValidateRouteUpdate(r.route, r.old, opts)
}

// denyInvalid refuses the request with an Invalid API status, which kubectl
// prints as `The Route "NAME" is invalid: FIELD: ...`.
func denyInvalid(name string, errs field.ErrorList) admission.Response {
	status := invalid.RouteStatus(name, errs)
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &status}}
}

// handlerFunc is a Route admission step: it turns a decoded review into a
// response.
type handlerFunc func(ctx context.Context, r *review) admission.Response

// routeHandler decodes Route requests, times them and passes them to a
// handlerFunc. Requests for anything but routes are allowed untouched, so a
// misconfigured webhook cannot block other resources.
type routeHandler struct {
	name    string
	handle  handlerFunc
	metrics *metrics
}

func (h *routeHandler) Handle(ctx context.Context, req admission.Request) admission.Response {
	start := time.Now()
	resp := h.serve(ctx, req)
	elapsed := time.Since(start)
	h.metrics.observe(h.name, req.Operation, resp, elapsed)
	// The logger carries the request UID, object and user (controller-runtime
	// adds them): denials are logged, allowed requests only verbosely.
	log := logf.FromContext(ctx).WithValues("webhook", h.name, "operation", req.Operation, "duration", elapsed)
	switch {
	case !resp.Allowed && resp.Result != nil:
		log.Info("denied", "code", resp.Result.Code, "reason", resp.Result.Message)
	default:
		log.V(1).Info("allowed", "patches", len(resp.Patches), "warnings", len(resp.Warnings))
	}
	return resp
}

func (h *routeHandler) serve(ctx context.Context, req admission.Request) admission.Response {
	if req.Resource.Group != routecore.GroupName || req.Resource.Resource != "routes" || req.SubResource != "" {
		return admission.Allowed("not a Route")
	}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	r, err := decodeReview(req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	return h.handle(ctx, r)
}
