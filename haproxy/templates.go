package haproxy

import (
	"embed"
	"fmt"
	"os"
	"text/template"
	"text/template/parse"
)

// builtinTemplates are the built-in configuration: templates/haproxy.cfg.tmpl
// defines "haproxy.cfg" (with "http-routing" and "passthrough-routing"),
// templates/backend.tmpl defines "backend".
//
//go:embed templates/*.tmpl
var builtinTemplates embed.FS

// Names of the built-in templates.
const (
	configTemplate  = "haproxy.cfg"
	backendTemplate = "backend"
)

// loadTemplates parses the built-in templates and, when file is not empty,
// the file's on top of them. The file's templates keep its name, so that
// errors, at parse and execution time, name the file and the line.
func loadTemplates(file string) (*template.Template, error) {
	t, err := template.New("built-in").Option("missingkey=error").ParseFS(builtinTemplates, "templates/*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("built-in templates: %w", err)
	}
	if file == "" {
		return t, nil
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("TEMPLATE_FILE: %w", err)
	}
	// The file's {{define}}s replace the built-in templates of the same
	// names; its top-level text, unless only white space, replaces
	// "haproxy.cfg".
	top, err := t.New(file).Parse(string(text))
	if err != nil {
		return nil, fmt.Errorf("TEMPLATE_FILE: %w", err)
	}
	if !parse.IsEmptyTree(top.Tree.Root) {
		if _, err := t.AddParseTree(configTemplate, top.Tree); err != nil {
			return nil, fmt.Errorf("TEMPLATE_FILE: %w", err)
		}
	}
	return t, nil
}
