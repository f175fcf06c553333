package image

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// RouteshiftImage is the routeshift image as the Dockerfile makes it.
type RouteshiftImage struct {
	// Recipe is ReadDockerfile's, with WithArgs applied for VERSION and
	// COMMIT when the image should carry them.
	Recipe *Recipe
	// Binary is a routeshift binary built as the recipe's build stage
	// builds it; empty builds one with Recipe.BuildBinary.
	Binary string
	// Name is the full image name, e.g. ghcr.io/routeshift/routeshift:0.1.0.
	Name string
	// CacheDir holds BuildRootfs's cache, e.g. <repo>/bin/image-cache.
	CacheDir string
	// Progress receives progress lines; nil discards them.
	Progress io.Writer
}

// Write writes the image as an OCI image archive at out: the rootfs layer
// (BuildRootfs), a layer with the binary at the recipe's COPY destination,
// and the recipe's User, Entrypoint and Labels with Debian's PATH.
func (img RouteshiftImage) Write(ctx context.Context, out string) error {
	progress := img.Progress
	if progress == nil {
		progress = io.Discard
	}
	r := img.Recipe
	rootfs, err := BuildRootfs(ctx, r, img.CacheDir, progress)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), ".image-")
	if err != nil {
		return fmt.Errorf("writing the image: %w", err)
	}
	defer os.RemoveAll(tmp)
	binary := img.Binary
	if binary == "" {
		fmt.Fprintf(progress, "image: building %s as the Dockerfile's stage %s does\n", r.Binary.Source, r.Binary.Stage)
		if binary, err = r.BuildBinary(ctx, tmp); err != nil {
			return err
		}
	}
	layer, err := binaryLayer(tmp, binary, r.Binary.Dest)
	if err != nil {
		return err
	}
	config := Config{User: r.User, Entrypoint: r.Entrypoint, Env: []string{DefaultPath}, Labels: r.Labels}
	fmt.Fprintf(progress, "image: writing %s as %s\n", img.Name, out)
	return WriteArchive(out, img.Name, config, rootfs, layer)
}

// BinaryImage writes, at out, an OCI image archive named name that holds
// only the static binary, as /<its file name>, run as user 65532 with no
// arguments: enough for a pod's pause or test backend container, which
// need no libc, shell or files.
func BinaryImage(binary, name, out string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(out), ".image-")
	if err != nil {
		return fmt.Errorf("writing the image: %w", err)
	}
	defer os.RemoveAll(tmp)
	dest := "/" + filepath.Base(binary)
	layer, err := binaryLayer(tmp, binary, dest)
	if err != nil {
		return err
	}
	config := Config{User: "65532:65532", Entrypoint: []string{dest}, Env: []string{DefaultPath}}
	return WriteArchive(out, name, config, layer)
}

// binaryLayer writes, in dir, a layer holding the static binary as dest.
func binaryLayer(dir, binary, dest string) (string, error) {
	if err := checkStatic(binary); err != nil {
		return "", err
	}
	layer := filepath.Join(dir, "binary-layer.tar")
	return layer, writeFileLayer(layer, binary, dest)
}
