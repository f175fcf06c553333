package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/tests/framework"
)

// consoleBlock returns the lines of the first ```console block of
// README.md after the line holding marker.
func consoleBlock(t *testing.T, readme, marker string) []string {
	t.Helper()
	_, after, ok := strings.Cut(readme, marker)
	if !ok {
		t.Fatalf("README.md has no %q", marker)
	}
	_, block, ok := strings.Cut(after, "```console\n")
	if !ok {
		t.Fatalf("README.md has no console block after %q", marker)
	}
	block, _, ok = strings.Cut(block, "```\n")
	if !ok {
		t.Fatalf("README.md's console block after %q does not end", marker)
	}
	return strings.Split(strings.TrimSuffix(block, "\n"), "\n")
}

// consoleStep is a command of a README console block ("$ " removed) and
// the output shown under it.
type consoleStep struct {
	Command string
	Output  string
}

func consoleSteps(lines []string) []consoleStep {
	var steps []consoleStep
	for _, line := range lines {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			steps = append(steps, consoleStep{Command: cmd})
			continue
		}
		if len(steps) > 0 {
			steps[len(steps)-1].Output += line + "\n"
		}
	}
	return steps
}

// TestReadmeMigration runs README.md's migration example as written, in a
// directory holding the fixture it links (internal/fixtures/
// shop-ingresses.yaml), with the routeshift of this repository first in
// PATH: every command succeeds and prints exactly what README.md shows
// (standard output and standard error, in order). The --from-cluster step
// reads the same objects from a control plane of its own, where they were
// applied (the fixture makes ingress-nginx's class the default, which must
// not reach other tests' Ingresses).
func TestReadmeMigration(t *testing.T) {
	cp := framework.NewCluster(t, framework.Options{})
	readme, err := os.ReadFile(filepath.Join(cp.RepoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps := consoleSteps(consoleBlock(t, string(readme), "([internal/fixtures/shop-ingresses.yaml](internal/fixtures/shop-ingresses.yaml)):"))
	if len(steps) < 2 || !strings.HasPrefix(steps[0].Command, "routeshift translate -f shop-ingresses.yaml") ||
		!strings.HasPrefix(steps[1].Command, "routeshift validate") {
		t.Fatalf("README.md's migration example is not translate then validate: %q", steps)
	}
	binary, err := framework.BuildRouteshift(t)
	if err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join(cp.RepoRoot, "internal", "fixtures", "shop-ingresses.yaml")
	if out, errOut, err := cp.Kubectl(t, "apply", "-f", fixture); err != nil {
		t.Fatalf("applying the fixture: %v\n%s%s", err, out, errOut)
	}
	dir := t.TempDir()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop-ingresses.yaml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+cp.Kubeconfig)
	for _, step := range steps {
		cmd := exec.Command("/bin/sh", "-c", step.Command)
		var out bytes.Buffer
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("$ %s: %v\n%s", step.Command, err, out.String())
			continue
		}
		if out.String() != step.Output {
			t.Errorf("$ %s printed\n%s\nREADME.md shows\n%s", step.Command, out.String(), step.Output)
		}
	}
}
