package main

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/internal/invalid"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/routecore/examples"
	"github.com/routeshift/routeshift/router"
)

// The validation page runs every example of routecore/examples through
// routecore (as the webhook defaults and validates), a router Store (the
// Router column) and, for the checks that need the cluster, the webhook's
// own handler (webhook.go). Every message on the page is what that code
// printed, as kubectl prints it; an example whose errors differ from those
// its entry names makes docgen fail instead of printing a wrong row.

// row is an example after running the code, as the cells of its row.
type row struct {
	Rule, Shows string
	// Message is kubectl's lines for the errors, or the warnings ("" for
	// an accepted example).
	Message string
	// Router is the router's verdict; "" for updates.
	Router string
}

// validationData is the rows of every table of the page, by name.
func validationData() (any, error) {
	tables, err := examples.Tables()
	if err != nil {
		return nil, err
	}
	data := map[string][]row{}
	for _, t := range tables {
		for _, e := range t.Examples {
			r, err := exampleRow(e)
			if err != nil {
				return nil, fmt.Errorf("%s example %q: %w", t.Name, e.Rule, err)
			}
			data[t.Name] = append(data[t.Name], r)
		}
	}
	refused, warned, err := webhookRows()
	if err != nil {
		return nil, err
	}
	data["permissions"] = refused
	data["warnings"] = append(data["warnings"], warned...)
	return data, nil
}

// exampleRow runs an example; its errors and warnings must be those its
// entry names (routecore's TestExamples says the same).
func exampleRow(e examples.Example) (row, error) {
	res := e.Run()
	var got []string
	for _, err := range res.Errors {
		got = append(got, err.Error())
	}
	if !slices.Equal(got, e.Errors) || (len(got) == 0 && !slices.Equal(res.Warnings, e.Warnings)) {
		return row{}, fmt.Errorf("routecore gives %q and warnings %q, not what routecore/examples says: run go test ./routecore -run TestExamples",
			got, res.Warnings)
	}
	r := row{Rule: cell(e.Rule), Shows: cell(e.Shows)}
	switch {
	case len(res.Errors) > 0:
		r.Message = messageCell(kubectlLines(invalid.RouteMessage(res.Route.Name, res.Errors)), e.Elide)
	case len(res.Warnings) > 0:
		r.Message = messageCell(warningLines(res.Warnings), "")
	}
	if res.Old == nil {
		r.Router = routerVerdict(res.Route)
	}
	return r, nil
}

// kubectlLines are the lines kubectl prints for message (one of package
// invalid's), without their trailing spaces.
func kubectlLines(message string) []string {
	lines := strings.Split(strings.TrimSuffix(message, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// warningLines are the warnings as kubectl prints them.
func warningLines(warnings []string) []string {
	lines := make([]string, len(warnings))
	for i, w := range warnings {
		lines[i] = "Warning: " + w
	}
	return lines
}

// maxShown is the longest value printed whole; longer ones are shortened
// to their first characters and "…".
const maxShown = 100

// messageCell is lines as a table cell, each as inline code, with elide
// shortened when it is longer than maxShown.
func messageCell(lines []string, elide string) string {
	spans := make([]string, len(lines))
	for i, l := range lines {
		if len(elide) > maxShown {
			l = strings.ReplaceAll(l, elide, elide[:12]+"…")
		}
		spans[i] = codeSpan(l)
	}
	return strings.Join(spans, "<br>")
}

// codeSpan is s as Markdown inline code inside a table cell.
func codeSpan(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return fence + pad + cell(s) + pad + fence
}

// routerDomain is the ROUTER_DOMAIN the Router column assumes, besides
// the default settings and wildcard routes allowed: it completes
// spec.subdomain, so subdomain rows show the router's own verdict.
const routerDomain = "apps.example.com"

// routerVerdict is what routeshift's router writes for the Route if it
// reached the router without the webhook.
func routerVerdict(r *routecore.Route) string {
	cfg := settings.Defaults().Router.Admission
	cfg.RouterDomain = routerDomain
	cfg.AllowWildcardRoutes = true
	store := router.NewStore(cfg)
	stored := r.DeepCopy()
	stored.UID, stored.CreationTimestamp = "example-uid", metav1.Unix(0, 0)
	store.SetRoute(stored)
	d, ok := store.Build(true).Decisions.Get(router.Key(stored.Namespace, stored.Name))
	switch {
	case !ok:
		return "?"
	case d.Verdict == router.Rejected:
		return "`" + d.Reason + "`"
	}
	return d.Verdict.String()
}

// checkValidationPage fails when an example is missing from the page (its
// table is not in the template) or the page shows certificate material.
func checkValidationPage(page string) error {
	tables, err := examples.Tables()
	if err != nil {
		return err
	}
	for _, t := range tables {
		for _, e := range t.Examples {
			if !strings.Contains(page, "| "+cell(e.Rule)+" | "+cell(e.Shows)+" |") {
				return fmt.Errorf("validation.md lacks the %s example %q: add table %q to templates/validation.md.tmpl", t.Name, e.Rule, t.Name)
			}
		}
	}
	if strings.Contains(page, "BEGIN") || strings.Contains(page, "PRIVATE KEY-----") {
		return fmt.Errorf("validation.md shows PEM material")
	}
	return nil
}
