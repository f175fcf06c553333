package webhook

import (
	"context"
	"encoding/json"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/routeshift/routeshift/routecore"
)

// mutate defaults the Route and rejects it if it is invalid; it returns the
// defaulting as a JSON patch.
//
// A Route created with only metadata.generateName has no name yet when
// mutating admission runs (the API server names it afterwards), and a
// generated host needs the name; such Routes are named here, the same way
// the API server would.
func (s *Server) mutate(_ context.Context, r *review) admission.Response {
	if r.req.Operation == admissionv1.Create && r.route.Name == "" && r.route.GenerateName != "" {
		r.route.Name = names.SimpleNameGenerator.GenerateName(r.route.GenerateName)
	}
	routecore.Default(r.route, r.old, s.defaults)
	if errs := r.validate(s.validation); len(errs) > 0 {
		return denyInvalid(r.route.Name, errs)
	}
	defaulted, err := marshalLike(r.route, r.req.Object.Raw)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(r.req.Object.Raw, defaulted)
}

// marshalLike marshals route, leaving out the empty values that encoding a
// typed object adds but the request did not have (creationTimestamp: null,
// status: {}), so that the patch holds only what defaulting changed.
func marshalLike(route *routecore.Route, raw []byte) ([]byte, error) {
	js, err := json.Marshal(route)
	if err != nil {
		return nil, err
	}
	var obj, orig map[string]any
	if err := json.Unmarshal(js, &obj); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &orig); err != nil {
		return nil, err
	}
	if st, ok := obj["status"].(map[string]any); ok && len(st) == 0 && orig["status"] == nil {
		delete(obj, "status")
	}
	meta, _ := obj["metadata"].(map[string]any)
	origMeta, _ := orig["metadata"].(map[string]any)
	if meta != nil && meta["creationTimestamp"] == nil && (origMeta == nil || origMeta["creationTimestamp"] == nil) {
		delete(meta, "creationTimestamp")
	}
	return json.Marshal(obj)
}
