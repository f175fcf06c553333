package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// leavingNginxPage is the guide whose console examples
// TestLeavingIngressNginxExamples runs.
const leavingNginxPage = "../../docs/leaving-ingress-nginx.md"

// TestLeavingIngressNginxExamples runs every console example of the
// "Leaving ingress-nginx" guide in the directory of its fixtures
// (internal/fixtures/ingress-nginx) and compares what the command prints,
// standard output and standard error in order, with the page. With
// UPDATE_DOCS=1 it writes the outputs into the page instead.
func TestLeavingIngressNginxExamples(t *testing.T) {
	page, err := os.ReadFile(leavingNginxPage)
	if err != nil {
		t.Fatal(err)
	}
	fixtures, err := filepath.Abs("../fixtures/ingress-nginx")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(fixtures)
	var out strings.Builder
	rest := string(page)
	examples := 0
	for {
		before, block, found := strings.Cut(rest, "```console\n")
		out.WriteString(before)
		if !found {
			break
		}
		body, after, ok := strings.Cut(block, "```\n")
		if !ok {
			t.Fatal("a console block of the page does not end")
		}
		out.WriteString("```console\n")
		for _, step := range consoleStepsOf(body) {
			examples++
			args := strings.Fields(step.command)
			if len(args) == 0 || args[0] != "routeshift" {
				t.Fatalf("example %q does not run routeshift", step.command)
			}
			var got bytes.Buffer
			Execute(args[1:], strings.NewReader(""), &got, &got)
			if got.String() != step.output {
				t.Errorf("$ %s printed\n%s\nthe page shows\n%s", step.command, got.String(), step.output)
			}
			out.WriteString("$ " + step.command + "\n" + got.String())
		}
		out.WriteString("```\n")
		rest = after
	}
	if examples < 3 {
		t.Fatalf("the page has %d console examples, want the three worked examples at least", examples)
	}
	if os.Getenv("UPDATE_DOCS") == "1" {
		t.Chdir(filepath.Dir(fixtures))
		if err := os.WriteFile(filepath.Join(fixtures, "..", "..", "..", "docs", "leaving-ingress-nginx.md"), []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// docStep is a command of a console block ("$ " removed) and the output
// shown under it.
type docStep struct {
	command, output string
}

func consoleStepsOf(block string) []docStep {
	var steps []docStep
	for _, line := range strings.SplitAfter(block, "\n") {
		if line == "" {
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			steps = append(steps, docStep{command: strings.TrimSuffix(cmd, "\n")})
			continue
		}
		if len(steps) > 0 {
			steps[len(steps)-1].output += line
		}
	}
	return steps
}
