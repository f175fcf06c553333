package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/routecore/examples"
)

// TestValidationTables: every row carries what its table promises: a
// kubectl refusal in the refusal tables, a warning in the warnings table,
// nothing for what is accepted, and the router's verdict where the table
// has that column.
func TestValidationTables(t *testing.T) {
	data, err := validationData()
	if err != nil {
		t.Fatal(err)
	}
	tables := data.(map[string][]row)
	for name, rows := range tables {
		for _, r := range rows {
			what := name + ": " + r.Rule
			refusal, warning := "`The Route \"", "`Warning: "
			switch name {
			case "ratchets", "accepted":
				refusal, warning = "", ""
			case "warnings":
				refusal = ""
			default:
				warning = ""
			}
			switch {
			case refusal != "" && !strings.HasPrefix(r.Message, refusal):
				t.Errorf("%s: message %q is no kubectl refusal", what, r.Message)
			case warning != "" && !strings.HasPrefix(r.Message, warning):
				t.Errorf("%s: message %q is no warning", what, r.Message)
			case refusal == "" && warning == "" && r.Message != "":
				t.Errorf("%s: accepted, but has message %q", what, r.Message)
			}
			shown := name != "updates" && name != "ratchets" && name != "permissions" && name != "warnings"
			if shown && (r.Router == "" || r.Router == "?") {
				t.Errorf("%s: no router verdict", what)
			}
		}
	}
	if len(tables["permissions"]) == 0 || !strings.HasPrefix(tables["warnings"][len(tables["warnings"])-1].Rule, "The host is held") {
		t.Error("the webhook's rows are missing")
	}
}

// TestEveryAnnotationHasARow: each catalogue annotation has a row that
// refuses a value of it.
func TestEveryAnnotationHasARow(t *testing.T) {
	pages, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range routecore.AnnotationCatalogue {
		if !strings.Contains(pages["validation.md"], "invalid: metadata.annotations["+a.Key+"]: ") {
			t.Errorf("no row refuses a value of %s", a.Key)
		}
	}
}

// TestExamplesMustDoWhatTheySay: docgen fails, rather than printing a
// wrong row, when an example's errors are not those its entry names, when
// the webhook allows what it should refuse, and when a table is missing
// from the template.
func TestExamplesMustDoWhatTheySay(t *testing.T) {
	heavy := func(r *routecore.Route) { w := int32(300); r.Spec.To.Weight = &w }
	for name, e := range map[string]examples.Example{
		"refused, said accepted":     {Rule: "r", Change: heavy},
		"accepted, said refused":     {Rule: "r", Change: examples.Unchanged, Errors: []string{"spec.to.weight: Invalid value: 300"}},
		"refused with another error": {Rule: "r", Change: heavy, Errors: []string{"spec.to.weight: Required value"}},
		"warned, said silent":        {Rule: "r", Change: func(r *routecore.Route) { r.Spec.Subdomain = "shop" }},
	} {
		if _, err := exampleRow(e); err == nil {
			t.Errorf("%s: exampleRow printed the row", name)
		}
	}
	allowed := webhookExample{Example: examples.Example{Rule: "r", Change: examples.Unchanged}, allowed: anyone}
	if resp, err := allowed.admit(); err != nil || !resp.Allowed {
		t.Fatalf("admit = %+v, %v; want allowed", resp, err)
	}
	if err := checkValidationPage("# Route validation\n"); err == nil || !strings.Contains(err.Error(), "add table") {
		t.Errorf("checkValidationPage of a page without tables = %v", err)
	}
}

// TestBaseRouteOnThePage: the Route the page says every example starts
// from is examples.Base.
func TestBaseRouteOnThePage(t *testing.T) {
	pages, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(pages["validation.md"], "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	var onPage routecore.Route
	if err := yaml.UnmarshalStrict([]byte(block), &onPage); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&onPage, examples.Base()) {
		t.Errorf("the page's Route\n%+v\nis not examples.Base\n%+v", onPage, examples.Base())
	}
}

// TestGeneratedPagesAreCurrent fails when docs/reference differs from what
// docgen makes now: run `make generate` (or `go run ./internal/docgen
// docs/reference`) and commit the result.
func TestGeneratedPagesAreCurrent(t *testing.T) {
	pages, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range pages {
		got, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference", name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(got) != want {
			t.Errorf("docs/reference/%s is out of date: run `go run ./internal/docgen docs/reference`", name)
		}
	}
}
