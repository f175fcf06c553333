package image

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
)

// BuildBinary runs the build stage's go build (its environment, flags and
// -ldflags with the recipe's ARGs) with the local Go in the build context,
// the Dockerfile's directory, and writes the binary into outDir under the
// name the stage gives it. It returns the binary's path.
func (r *Recipe) BuildBinary(ctx context.Context, outDir string) (string, error) {
	out, err := filepath.Abs(filepath.Join(outDir, path.Base(r.Build.Output)))
	if err != nil {
		return "", err
	}
	args := append(append([]string{}, r.Build.Args[:1]...), "-o", out)
	args = append(args, r.Build.Args[1:]...)
	return out, goBuild(ctx, filepath.Dir(r.Path), r.Build.Env, args)
}

// GoBuildStatic builds the main package pkg (a path relative to
// moduleDir, e.g. ./tests/images/pause) with CGO_ENABLED=0 go build
// -trimpath into outDir, so that it runs in an image without libc, and
// returns the binary's path. Go's build cache makes a second call cheap.
func GoBuildStatic(ctx context.Context, moduleDir, pkg, outDir string) (string, error) {
	out, err := filepath.Abs(filepath.Join(outDir, path.Base(pkg)))
	if err != nil {
		return "", err
	}
	return out, goBuild(ctx, moduleDir, []string{"CGO_ENABLED=0"}, []string{"build", "-trimpath", "-o", out, pkg})
}

func goBuild(ctx context.Context, dir string, env, args []string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %v in %s: %v\n%s", args, dir, err, out)
	}
	return nil
}
