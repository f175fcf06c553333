// Package examples holds an example Route for every rule of routecore's
// validation: what the rule says, a change that breaks it (or only seems
// to) and the exact errors or warnings routecore gives. routecore's tests
// run every example, and internal/docgen prints them as
// docs/reference/validation.md, so the page shows what the tests pin.
//
// It imports routecore and certs (for the example certificates) only; it
// holds no test code and decides nothing.
package examples

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/routecore"
)

// Example is one rule and a Route that shows it.
type Example struct {
	// Rule says what is checked, in Markdown.
	Rule string
	// Shows says, in Markdown, what the example Route does.
	Shows string
	// Old, when set, makes the example an update: the stored Route is
	// Base changed by Old, and the example is that Route changed by
	// Change.
	Old func(*routecore.Route)
	// Change turns Base (or the stored Route) into the example.
	Change func(*routecore.Route)
	// Errors are routecore's errors for the example, as field.Error
	// prints each; none when the example is accepted.
	Errors []string
	// Warnings are routecore's warnings for an accepted example.
	Warnings []string
	// Elide is a value that the errors repeat and that is too long to
	// print whole.
	Elide string
}

// Table is one table of the reference page: its name in the page's
// template and its examples, in the order the page lists them.
type Table struct {
	Name     string
	Examples []Example
}

// The example Routes' name and namespace, and the host they start with.
const (
	Name      = "example"
	Namespace = "demo"
	Host      = "www.example.com"
)

// Base is the valid Route every example starts from.
func Base() *routecore.Route {
	return &routecore.Route{
		TypeMeta:   metav1.TypeMeta{APIVersion: routecore.GroupVersion.String(), Kind: "Route"},
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace},
		Spec:       routecore.RouteSpec{Host: Host, To: routecore.RouteTargetReference{Name: "web"}},
	}
}

// Result is what routecore makes of an example.
type Result struct {
	// Route is the example Route, defaulted as the webhook defaults it;
	// Old is the stored Route of an update, defaulted likewise.
	Route, Old *routecore.Route
	// Errors are ValidateRoute's (ValidateRouteUpdate's for an update).
	Errors field.ErrorList
	// Warnings are routecore.Warnings', with this cluster's route suffix
	// on create.
	Warnings []string
}

// Run defaults the example Route (and the stored one) with routecore's
// defaults, validates it as the webhook does, and collects its warnings.
func (e Example) Run() Result {
	var res Result
	res.Route = Base()
	if e.Old != nil {
		res.Old = Base()
		e.Old(res.Old)
		routecore.Default(res.Old, nil, routecore.DefaultOptions{})
		res.Route = res.Old.DeepCopy()
	}
	e.Change(res.Route)
	routecore.Default(res.Route, res.Old, routecore.DefaultOptions{})
	var warn routecore.WarningOptions
	if res.Old == nil {
		res.Errors = routecore.ValidateRoute(res.Route, routecore.ValidateOptions{})
		warn.GeneratedHostSuffix = routecore.DefaultRouteSuffix
	} else {
		res.Errors = routecore.ValidateRouteUpdate(res.Route, res.Old, routecore.ValidateOptions{})
	}
	res.Warnings = routecore.Warnings(res.Route, warn)
	return res
}

// Tables are every example, by the table of the page they are in: the
// refusals on create by part of the Route (metadata, annotations, host,
// path, backends, port, tls, wildcard, headers, certificates), the
// refusals on update (updates) and the updates let through (ratchets),
// what is accepted on purpose (accepted) and the warnings (warnings). It
// fails when an annotation of the catalogue has no example values.
func Tables() ([]Table, error) {
	p, err := newPKI()
	if err != nil {
		return nil, err
	}
	annotations, err := annotationExamples()
	if err != nil {
		return nil, err
	}
	return []Table{
		{"metadata", metadata()},
		{"annotations", annotations},
		{"host", host()},
		{"path", path()},
		{"backends", backends()},
		{"port", port()},
		{"tls", tls(p)},
		{"wildcard", wildcard()},
		{"headers", headers()},
		{"certificates", certificates(p)},
		{"updates", updates()},
		{"ratchets", ratchets(p)},
		{"accepted", accepted(p)},
		{"warnings", warnings()},
	}, nil
}
