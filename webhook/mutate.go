package webhook

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"gomodules.xyz/jsonpatch/v2"

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
	defaulted, err := json.Marshal(r.route)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	resp := admission.PatchResponseFromRaw(r.req.Object.Raw, defaulted)
	resp.Patches = slices.DeleteFunc(resp.Patches, encodingNoise)
	if len(resp.Patches) == 0 {
		resp.PatchType = nil
	}
	return resp
}

// encodingNoise reports the operations that encoding a typed object adds
// but defaulting did not ask for: creationTimestamp: null and an empty
// status, so that the patch holds only what defaulting changed.
func encodingNoise(op jsonpatch.JsonPatchOperation) bool {
	if op.Operation != "add" {
		return false
	}
	switch op.Path {
	case "/metadata/creationTimestamp":
		return op.Value == nil
	case "/status":
		st, ok := op.Value.(map[string]any)
		return ok && len(st) == 0
	}
	return false
}
