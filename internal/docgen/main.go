// Command docgen writes the reference pages that are generated from the
// code (`make generate` runs it; CI fails when they are out of date): the
// router's settings from internal/settings.Table, the route annotations
// from routecore.AnnotationCatalogue, the validation rules with the
// messages that routecore, the router and the webhook give for the
// examples of routecore/examples, and the conversion of ingress-nginx's
// annotations and ConfigMap keys from ingress/nginx. The pages' prose is
// in templates/, which only print. It imports the packages whose settings, annotations and
// messages it documents, and runs their code rather than restating it;
// nothing imports it.
package main

import (
	"embed"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/routecore/examples"
)

//go:embed templates/*.md.tmpl
var templateFiles embed.FS

var pageTemplates = template.Must(template.New("").Option("missingkey=error").
	Funcs(template.FuncMap{"cell": cell}).ParseFS(templateFiles, "templates/*.md.tmpl"))

func main() {
	dir := "docs/reference"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	pages, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(pages[name]), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// generate returns every generated page by file name. Nothing is written
// unless every page could be made.
func generate() (map[string]string, error) {
	pages := map[string]string{}
	for name, data := range map[string]func() (any, error){
		"router-settings.md": settingsData, "annotations.md": annotationsData, "validation.md": validationData,
		"ingress-nginx.md": ingressNginxData,
	} {
		d, err := data()
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		if err := pageTemplates.ExecuteTemplate(&b, name+".tmpl", d); err != nil {
			return nil, err
		}
		pages[name] = b.String()
	}
	return pages, checkValidationPage(pages["validation.md"])
}

// cell is s in a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// superseded is a variable of OpenShift's router that routeshift ignores.
type superseded struct{ Env, Why string }

func settingsData() (any, error) {
	for _, s := range settings.Table {
		if s.Example == "" {
			return nil, fmt.Errorf("router setting %s has no example: add one to its entry in internal/settings", s.Env)
		}
	}
	var ignored []superseded
	for _, env := range slices.Sorted(maps.Keys(settings.Superseded)) {
		ignored = append(ignored, superseded{env, settings.Superseded[env]})
	}
	return map[string]any{"Settings": settings.Table, "Superseded": ignored}, nil
}

// annotation is a row of annotations.md.
type annotation struct {
	routecore.Annotation
	Example, OnlyFor, OpenShift string
}

func annotationsData() (any, error) {
	var rows []annotation
	for _, a := range routecore.AnnotationCatalogue {
		example, err := examples.AnnotationExample(a.Key)
		if err != nil {
			return nil, err
		}
		rows = append(rows, annotation{Annotation: a, Example: example, OnlyFor: onlyFor(a), OpenShift: openShift(a)})
	}
	return rows, nil
}

// openShift says whether OpenShift's router reads an annotation.
func openShift(a routecore.Annotation) string {
	switch {
	case routecore.IsRouteshiftAnnotation(a.Key):
		return "ignores it"
	case a.OpenShiftKey != "":
		return "reads `" + a.OpenShiftKey + "` instead"
	case routecore.IsCertManagerAnnotation(a.Key):
		return "ignores it (cert-manager's openshift-routes add-on reads it)"
	}
	return "reads it"
}

// onlyFor names the Routes an annotation has an effect on.
func onlyFor(a routecore.Annotation) string {
	only := "all routes"
	if len(a.OnlyFor) > 0 {
		var names []string
		for _, t := range a.OnlyFor {
			if t == "" {
				names = append(names, "plain HTTP")
			} else {
				names = append(names, string(t))
			}
		}
		only = strings.Join(names, ", ")
	}
	if a.Requires != "" {
		only += " (needs `" + a.Requires + ": \"true\"`)"
	}
	if a.RefusedOutside {
		only += "; refused on others"
	}
	return only
}
