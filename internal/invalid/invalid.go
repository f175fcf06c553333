// Package invalid prints the refusal of an object as kubectl prints an
// Invalid API error: `The Route "NAME" is invalid: FIELD: MESSAGE`, one
// cause on that line or several as a list. The admission webhook refuses
// with RouteStatus; `routeshift validate` and the generated reference pages
// print with Message, so what they show is what kubectl shows for the
// webhook's answer. It imports routecore and apimachinery only.
package invalid

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/routecore"
)

// RouteStatus is the API status that refuses a Route named name for errs:
// an Invalid status whose details carry one cause per error.
func RouteStatus(name string, errs field.ErrorList) metav1.Status {
	return apierrors.NewInvalid(routecore.GroupKind, name, errs).Status()
}

// RouteMessage is what kubectl prints when the webhook refuses a Route
// named name for errs (Message of RouteStatus).
func RouteMessage(name string, errs field.ErrorList) string {
	return Message(RouteStatus(name, errs))
}

// Message is what kubectl prints for an Invalid API status, newline
// included: "The KIND "NAME" is invalid: " and the one cause on that line,
// or each cause on a line of its own after "* ". Causes that read the same
// are printed once, as kubectl does.
func Message(status metav1.Status) string {
	d := status.Details
	if d == nil {
		return line("The request is invalid", status.Message)
	}
	head := "The request is invalid"
	switch {
	case d.Kind != "" || d.Name != "":
		head = fmt.Sprintf("The %s %q is invalid", d.Kind, d.Name)
	case len(d.Causes) == 0:
		return line(head, status.Message)
	}
	causes := distinctCauses(d.Causes)
	switch len(causes) {
	case 0:
		return head + "\n"
	case 1:
		return head + ": " + causes[0] + "\n"
	}
	var b strings.Builder
	b.WriteString(head + ": \n")
	for _, c := range causes {
		b.WriteString("* " + c + "\n")
	}
	return b.String()
}

// line is head, ": " and detail when there is one, and a newline.
func line(head, detail string) string {
	if detail != "" {
		head += ": " + detail
	}
	return head + "\n"
}

// distinctCauses are the causes as "FIELD: MESSAGE", each text once, in
// their order.
func distinctCauses(causes []metav1.StatusCause) []string {
	seen := make(map[string]bool, len(causes))
	out := make([]string, 0, len(causes))
	for _, c := range causes {
		text := c.Field + ": " + c.Message
		if !seen[text] {
			seen[text] = true
			out = append(out, text)
		}
	}
	return out
}
