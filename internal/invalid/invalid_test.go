package invalid

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// kubectlPrints is what kubectl's own error handler prints for status: its
// CheckErr, with the exit replaced by keeping the message (to which kubectl
// adds a newline when it lacks one).
func kubectlPrints(t *testing.T, status metav1.Status) string {
	t.Helper()
	var printed string
	cmdutil.BehaviorOnFatal(func(msg string, _ int) {
		if !strings.HasSuffix(msg, "\n") {
			msg += "\n"
		}
		printed = msg
	})
	t.Cleanup(cmdutil.DefaultBehaviorOnFatal)
	cmdutil.CheckErr(&apierrors.StatusError{ErrStatus: status})
	return printed
}

// TestMessageIsKubectls: Message prints, for the statuses the webhook
// returns and the odd ones it never does, exactly what kubectl prints.
func TestMessageIsKubectls(t *testing.T) {
	weight := field.Invalid(field.NewPath("spec", "to", "weight"), 300, "weight must be an integer between 0 and 256")
	path := field.Invalid(field.NewPath("spec", "path"), "api", "path must begin with /")
	host := field.Invalid(field.NewPath("spec", "host"), "A.B.example.com", "a lowercase RFC 1123 label must consist of lower case alphanumeric characters")
	tests := []struct {
		name   string
		status metav1.Status
		want   string
	}{
		{"one cause", RouteStatus("heavy", field.ErrorList{weight}),
			`The Route "heavy" is invalid: spec.to.weight: Invalid value: 300: weight must be an integer between 0 and 256` + "\n"},
		{"two causes", RouteStatus("web", field.ErrorList{path, weight}),
			`The Route "web" is invalid: ` + "\n" +
				`* spec.path: Invalid value: "api": path must begin with /` + "\n" +
				`* spec.to.weight: Invalid value: 300: weight must be an integer between 0 and 256` + "\n"},
		{"causes that read the same are printed once", RouteStatus("web", field.ErrorList{host, path, host}),
			`The Route "web" is invalid: ` + "\n" +
				`* spec.host: Invalid value: "A.B.example.com": a lowercase RFC 1123 label must consist of lower case alphanumeric characters` + "\n" +
				`* spec.path: Invalid value: "api": path must begin with /` + "\n"},
		{"two causes that read the same are one", RouteStatus("web", field.ErrorList{host, host}),
			`The Route "web" is invalid: spec.host: Invalid value: "A.B.example.com": a lowercase RFC 1123 label must consist of lower case alphanumeric characters` + "\n"},
		{"no name yet (generateName)", RouteStatus("", field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name or generateName is required")}),
			`The Route "" is invalid: metadata.name: Required value: name or generateName is required` + "\n"},
		{"a cause without a field", metav1.Status{Reason: metav1.StatusReasonInvalid,
			Details: &metav1.StatusDetails{Kind: "Route", Name: "web", Causes: []metav1.StatusCause{{Message: "Forbidden: not allowed"}}}},
			`The Route "web" is invalid: : Forbidden: not allowed` + "\n"},
		{"no causes", RouteStatus("web", nil), `The Route "web" is invalid` + "\n"},
		{"no details", metav1.Status{Reason: metav1.StatusReasonInvalid, Message: "bad"}, "The request is invalid: bad\n"},
		{"no details, no message", metav1.Status{Reason: metav1.StatusReasonInvalid}, "The request is invalid\n"},
		{"details without kind or name", metav1.Status{Reason: metav1.StatusReasonInvalid, Message: "bad", Details: &metav1.StatusDetails{}},
			"The request is invalid: bad\n"},
		{"causes without kind or name", metav1.Status{Reason: metav1.StatusReasonInvalid, Message: "bad",
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Field: "spec.host", Message: "Required value"}}}},
			"The request is invalid: spec.host: Required value\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Message(tt.status)
			if got != tt.want {
				t.Errorf("Message =\n%s\nwant\n%s", got, tt.want)
			}
			if kubectl := kubectlPrints(t, tt.status); got != kubectl {
				t.Errorf("Message =\n%q\nkubectl prints\n%q", got, kubectl)
			}
		})
	}
}

// TestRouteMessage: the offline message is the webhook's status printed.
func TestRouteMessage(t *testing.T) {
	errs := field.ErrorList{field.Required(field.NewPath("spec", "to", "name"), "")}
	want := `The Route "web" is invalid: spec.to.name: Required value` + "\n"
	if got := RouteMessage("web", errs); got != want {
		t.Errorf("RouteMessage = %q, want %q", got, want)
	}
	st := RouteStatus("web", errs)
	if st.Reason != metav1.StatusReasonInvalid || st.Code != 422 || st.Details.Group != "route.openshift.io" || st.Details.Kind != "Route" {
		t.Errorf("RouteStatus = %+v, want an Invalid (422) status of route.openshift.io Route", st)
	}
}
