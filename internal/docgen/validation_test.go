package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/routecore"
)

// TestValidationSections checks that every table row carries what its
// table promises: a message for each refusal and warning, none for what is
// accepted, a router verdict where the table has that column.
func TestValidationSections(t *testing.T) {
	sections, err := validationSections()
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, s := range sections {
		for _, r := range s.rows {
			rows++
			name := s.title + ": " + r.rule
			switch {
			case !s.messages && len(r.messages) > 0:
				t.Errorf("%s: accepted, but has messages %q", name, r.messages)
			case s.messages && len(r.messages) == 0:
				t.Errorf("%s: no message", name)
			}
			for _, m := range r.messages {
				if !strings.HasPrefix(m, `The Route "`) && !strings.HasPrefix(m, "* ") && !strings.HasPrefix(m, "Warning: ") {
					t.Errorf("%s: message %q is not kubectl's", name, m)
				}
				if strings.Contains(m, "BEGIN") || strings.Contains(m, "PRIVATE KEY-----") {
					t.Errorf("%s: message shows PEM material: %q", name, m)
				}
			}
			if s.router && r.old == nil && (r.router == "" || r.router == "?") {
				t.Errorf("%s: no router verdict", name)
			}
			if r.rule == "" || r.shows == "" {
				t.Errorf("%s: rule or example not described", name)
			}
		}
	}
	if rows < 80 {
		t.Errorf("%d rows; the page has lost some", rows)
	}
}

// TestEveryAnnotationHasARow checks that each catalogue annotation has its
// own refused example.
func TestEveryAnnotationHasARow(t *testing.T) {
	sections, err := validationSections()
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, s := range sections {
		for _, r := range s.rows {
			for _, m := range r.messages {
				for _, a := range routecore.AnnotationCatalogue {
					if strings.Contains(m, "metadata.annotations["+a.Key+"]: ") {
						found[a.Key] = true
					}
				}
			}
		}
	}
	for _, a := range routecore.AnnotationCatalogue {
		if !found[a.Key] {
			t.Errorf("no row refuses a value of %s", a.Key)
		}
	}
}

// TestExamplesMustDoWhatTheySay checks that docgen fails, rather than
// dropping or mislabelling a row, when an example stops matching its rule.
func TestExamplesMustDoWhatTheySay(t *testing.T) {
	valid := example{rule: "valid", shows: "nothing", route: func(*routecore.Route) {}, field: "spec.host"}
	if _, err := refusedRow(valid); err == nil {
		t.Error("refusedRow accepted an example that is not refused")
	}
	wrongField := example{rule: "weight", shows: "300", route: func(r *routecore.Route) { r.Spec.To.Weight = weight(300) }, field: "spec.host"}
	if _, err := refusedRow(wrongField); err == nil {
		t.Error("refusedRow accepted an example refused on another field")
	}
	invalid := example{rule: "weight", shows: "300", route: func(r *routecore.Route) { r.Spec.To.Weight = weight(300) }}
	if _, err := acceptedRow(invalid); err == nil {
		t.Error("acceptedRow accepted an example that is refused")
	}
	if _, err := warningRow(valid); err == nil {
		t.Error("warningRow accepted an example without warnings")
	}
	unreadable := webhookExample{example: valid, allowed: allowUser}
	if _, err := webhookRefusedRow(unreadable); err == nil {
		t.Error("webhookRefusedRow accepted an example the webhook allows")
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
