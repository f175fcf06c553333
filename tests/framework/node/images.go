package node

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/routeshift/routeshift/tests/framework/image"
)

// BackendImage holds tests/images/backend: an HTTP server for pods that
// routes lead to; it answers with its pod's name, the Host and the path.
const BackendImage = "routeshift.test/backend:1"

// CertManagerVersion is the cert-manager release `make tools` builds.
const CertManagerVersion = "v1.21.2"

// CertManagerImage names the image of one of cert-manager's programs
// (controller, cainjector), built from bin/cert-manager-<program>.
func CertManagerImage(program string) string {
	return "routeshift.test/cert-manager-" + program + ":" + CertManagerVersion
}

// LoadImages builds every image routeshift's installs and tests run and
// imports it into the node's containerd: routeshift from the repository at
// root, by its Dockerfile's own recipe, under the name the manifests and
// the chart give it; the pause and backend images; cert-manager's
// controller and CA injector.
func (n *Node) LoadImages(ctx context.Context, root string) error {
	start := time.Now()
	dir, err := os.MkdirTemp("", "routeshift-images-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	name, err := ManifestsImage(root)
	if err != nil {
		return err
	}
	archives := []string{filepath.Join(dir, "routeshift.tar")}
	if err := n.WriteRouteshiftImage(ctx, root, name, archives[0]); err != nil {
		return err
	}
	for _, img := range []struct{ pkg, name string }{
		{"./tests/images/pause", PauseImage},
		{"./tests/images/backend", BackendImage},
	} {
		binary, err := image.GoBuildStatic(ctx, root, img.pkg, dir)
		if err != nil {
			return err
		}
		archives = append(archives, filepath.Join(dir, filepath.Base(img.pkg)+".tar"))
		if err := image.BinaryImage(binary, img.name, archives[len(archives)-1]); err != nil {
			return err
		}
	}
	for _, program := range []string{"controller", "cainjector"} {
		binary := filepath.Join(n.layout.Bin, "cert-manager-"+program)
		archives = append(archives, filepath.Join(dir, "cert-manager-"+program+".tar"))
		if err := image.BinaryImage(binary, CertManagerImage(program), archives[len(archives)-1]); err != nil {
			return err
		}
	}
	for _, a := range archives {
		if err := n.ImportImage(ctx, a); err != nil {
			return err
		}
	}
	fmt.Fprintf(n.log, "node: %d images built and imported in %.0fs\n", len(archives), time.Since(start).Seconds())
	return nil
}

// WriteRouteshiftImage writes, at out, the routeshift image of the tree at
// root by its Dockerfile, with VERSION and COMMIT as `make image` passes
// them. The root filesystem is cached in bin/image-cache.
func (n *Node) WriteRouteshiftImage(ctx context.Context, root, name, out string) error {
	recipe, err := image.ReadDockerfile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		return err
	}
	version, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		return err
	}
	commit := "unknown"
	if c, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(c))
	}
	if recipe, err = recipe.WithArgs(map[string]string{"VERSION": strings.TrimSpace(string(version)), "COMMIT": commit}); err != nil {
		return err
	}
	img := image.RouteshiftImage{Recipe: recipe, Name: name, CacheDir: filepath.Join(n.layout.Bin, "image-cache"), Progress: n.log}
	return img.Write(ctx, out)
}

// ManifestsImage is the image the manifests of the tree at root run: the
// base kustomization's image, renamed and tagged.
func ManifestsImage(root string) (string, error) {
	file := filepath.Join(root, "manifests", "base", "kustomization.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var k struct {
		Images []struct{ Name, NewName, NewTag string } `json:"images"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	if len(k.Images) != 1 || k.Images[0].NewName == "" || k.Images[0].NewTag == "" {
		return "", fmt.Errorf("%s: want one image with newName and newTag, found %+v", file, k.Images)
	}
	return k.Images[0].NewName + ":" + k.Images[0].NewTag, nil
}
