package routecore

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestBackendTagRules: the `validate` tags of a backend give OpenShift's
// errors, in field order, on the backend's path; a weight may be left out
// (Default gives 100) but not be out of 0..256.
func TestBackendTagRules(t *testing.T) {
	path := field.NewPath("spec", "alternateBackends").Index(2)
	tests := []struct {
		name string
		ref  RouteTargetReference
		want []string
	}{
		{"valid", RouteTargetReference{Kind: "Service", Name: "web", Weight: weight(1)}, nil},
		{"no weight", RouteTargetReference{Kind: "Service", Name: "web"}, nil},
		{"weight 0", RouteTargetReference{Kind: "Service", Name: "web", Weight: weight(0)}, nil},
		{"weight 256", RouteTargetReference{Kind: "Service", Name: "web", Weight: weight(256)}, nil},
		{"weight 257", RouteTargetReference{Kind: "Service", Name: "web", Weight: weight(257)},
			[]string{"spec.alternateBackends[2].weight: Invalid value: 257: weight must be an integer between 0 and 256"}},
		{"weight -1", RouteTargetReference{Kind: "Service", Name: "web", Weight: weight(-1)},
			[]string{"spec.alternateBackends[2].weight: Invalid value: -1: weight must be an integer between 0 and 256"}},
		{"kind in lower case", RouteTargetReference{Kind: "service", Name: "web"},
			[]string{`spec.alternateBackends[2].kind: Invalid value: "service": must reference a Service`}},
		{"kind not defaulted", RouteTargetReference{Name: "web"},
			[]string{`spec.alternateBackends[2].kind: Invalid value: "": must reference a Service`}},
		{"everything wrong, in field order", RouteTargetReference{Kind: "Pod", Weight: weight(1000)}, []string{
			`spec.alternateBackends[2].kind: Invalid value: "Pod": must reference a Service`,
			"spec.alternateBackends[2].name: Required value",
			"spec.alternateBackends[2].weight: Invalid value: 1000: weight must be an integer between 0 and 256"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameMessages(t, structRules(&tt.ref, path), tt.want)
		})
	}
}

// TestTagRuleWithoutMessage: a tag that has no OpenShift message is an
// internal error naming the tag, never a silent pass.
func TestTagRuleWithoutMessage(t *testing.T) {
	type withUnlistedTag struct {
		Port int `json:"port" validate:"min=1"`
	}
	sameMessages(t, structRules(&withUnlistedTag{}, field.NewPath("spec")),
		[]string{"spec.port: Internal error: no message for rule min"})
	if errs := structRules(&withUnlistedTag{Port: 1}, field.NewPath("spec")); len(errs) != 0 {
		t.Errorf("a valid value: %v", errs)
	}
}

// TestDefaultThenValidate: Default gives what the tags require of an
// omitted kind and weight, so a backend written as {name: web} is valid.
func TestDefaultThenValidate(t *testing.T) {
	r := route(func(r *Route) {
		r.Spec.To = RouteTargetReference{Name: "web"}
		r.Spec.AlternateBackends = []RouteTargetReference{{Name: "canary"}, {Name: "old", Weight: weight(0)}}
	})
	Default(r, nil, DefaultOptions{})
	sameMessages(t, ValidateRoute(r, ValidateOptions{}), nil)
}
