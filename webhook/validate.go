package webhook

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// validationSteps are the checks of the validating handler, in the order
// their errors are reported: permission first, as OpenShift does.
var validationSteps = []func(*Server, context.Context, *review) field.ErrorList{
	(*Server).customHost,
	func(s *Server, _ context.Context, r *review) field.ErrorList { return r.validate(s.validation) },
	(*Server).externalCertificate,
	(*Server).basicAuthSecret,
}

// validate re-validates the final Route (other mutating webhooks may have
// run after ours), checks permissions and external certificates, and
// returns warnings with the answer.
func (s *Server) validate(ctx context.Context, r *review) admission.Response {
	var errs field.ErrorList
	for _, step := range validationSteps {
		errs = append(errs, step(s, ctx, r)...)
	}
	if len(errs) > 0 {
		return denyInvalid(r.route.Name, errs)
	}
	return admission.Allowed("").WithWarnings(s.warnings(ctx, r)...)
}
