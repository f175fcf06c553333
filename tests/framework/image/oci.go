package image

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// Media types and annotations of the OCI image layout that WriteArchive
// writes and containerd reads.
const (
	mediaTypeIndex    = "application/vnd.oci.image.index.v1+json"
	mediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	mediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar"

	// annotationImageName is the name containerd's import gives the image
	// of a manifest in index.json, unchanged, whatever --base-name says.
	annotationImageName = "io.containerd.image.name"
	// annotationRefName is the OCI layout's tag of a manifest; containerd
	// reads it only when annotationImageName is absent, and then prefixes
	// it with --base-name or "import-DATE".
	annotationRefName = "org.opencontainers.image.ref.name"
)

// DefaultPath is the PATH Debian's images set and the image configs here
// carry, so that a container finds haproxy as it would in debian:12-slim.
const DefaultPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Config is the part of an OCI image config the images here set.
type Config struct {
	User       string            `json:"User,omitempty"`
	Entrypoint []string          `json:"Entrypoint,omitempty"`
	Cmd        []string          `json:"Cmd,omitempty"`
	Env        []string          `json:"Env,omitempty"`
	WorkingDir string            `json:"WorkingDir,omitempty"`
	Labels     map[string]string `json:"Labels,omitempty"`
}

// descriptor points at a blob of the image layout.
type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Platform    *platform         `json:"platform,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// platform is a manifest's platform in the index.
type platform struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
}

// imageConfig is the config blob.
type imageConfig struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Config       Config `json:"config"`
	RootFS       struct {
		Type    string   `json:"type"`
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

// manifest is the image manifest blob.
type manifest struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Config        descriptor   `json:"config"`
	Layers        []descriptor `json:"layers"`
}

// index is index.json.
type index struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Manifests     []descriptor `json:"manifests"`
}

// WriteArchive writes the image made of layers (paths of uncompressed tar
// files, lowest first) and config as an OCI image layout tar at out, for
// `ctr -n k8s.io images import` to store under name. The name must be the
// full reference kubelet resolves (e.g. docker.io/library/pause:3.10, not
// pause:3.10), since containerd keeps it as written. The image is for the
// machine's architecture, which the rootfs and Go builds are made for.
// Layers are streamed, never held in memory; out is written atomically.
func WriteArchive(out, name string, config Config, layers ...string) error {
	tag, err := imageTag(name)
	if err != nil {
		return err
	}
	descs := make([]descriptor, len(layers))
	cfg := imageConfig{Architecture: runtime.GOARCH, OS: "linux", Config: config}
	cfg.RootFS.Type = "layers"
	for i, l := range layers {
		if descs[i], err = fileDescriptor(l, mediaTypeLayer); err != nil {
			return err
		}
		// Uncompressed, a layer's digest is also its diff ID.
		cfg.RootFS.DiffIDs = append(cfg.RootFS.DiffIDs, descs[i].Digest)
	}
	return writeAtomically(out, func(f *os.File) error {
		w := &layoutWriter{tw: tar.NewWriter(f)}
		w.json("oci-layout", map[string]string{"imageLayoutVersion": "1.0.0"})
		configDesc := w.blob(mediaTypeConfig, cfg)
		for i, l := range layers {
			w.layer(l, descs[i])
		}
		m := w.blob(mediaTypeManifest, manifest{SchemaVersion: 2, MediaType: mediaTypeManifest, Config: configDesc, Layers: descs})
		m.Platform = &platform{Architecture: runtime.GOARCH, OS: "linux"}
		m.Annotations = map[string]string{annotationImageName: name, annotationRefName: tag}
		w.json("index.json", index{SchemaVersion: 2, MediaType: mediaTypeIndex, Manifests: []descriptor{m}})
		if w.err != nil {
			return w.err
		}
		return w.tw.Close()
	})
}

// imageName is a full reference with a tag: a registry host (with a dot or
// a port, or localhost), a lower-case path and a tag.
var imageName = regexp.MustCompile(`^(localhost|[a-z0-9.-]+\.[a-z0-9.-]+|[a-z0-9.-]+:[0-9]+)(/[a-z0-9]+([._-][a-z0-9]+)*)+:([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})$`)

// imageTag checks name and returns its tag.
func imageTag(name string) (string, error) {
	m := imageName.FindStringSubmatch(name)
	if m == nil {
		return "", fmt.Errorf("image name %q: want a full reference with a tag, REGISTRY/PATH:TAG (e.g. docker.io/library/pause:3.10), the form kubelet asks containerd for", name)
	}
	return m[len(m)-1], nil
}

// fileDescriptor hashes a file.
func fileDescriptor(path, mediaType string) (descriptor, error) {
	f, err := os.Open(path)
	if err != nil {
		return descriptor{}, fmt.Errorf("reading a layer: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return descriptor{}, fmt.Errorf("reading layer %s: %w", path, err)
	}
	return descriptor{MediaType: mediaType, Digest: "sha256:" + hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// layoutWriter writes the entries of an image layout tar; the first error
// stops it and stays in err.
type layoutWriter struct {
	tw  *tar.Writer
	err error
}

func (w *layoutWriter) header(name string, size int64) {
	if w.err == nil {
		w.err = w.tw.WriteHeader(&tar.Header{
			Name: name, Mode: 0o644, Size: size, Typeflag: tar.TypeReg,
			ModTime: time.Unix(0, 0), Format: tar.FormatPAX,
		})
	}
}

func (w *layoutWriter) json(name string, v any) {
	b, err := json.Marshal(v)
	if w.err == nil && err != nil {
		w.err = err
	}
	w.header(name, int64(len(b)))
	if w.err == nil {
		_, w.err = w.tw.Write(b)
	}
}

// blob writes v as JSON under blobs/sha256/ and describes it.
func (w *layoutWriter) blob(mediaType string, v any) descriptor {
	b, err := json.Marshal(v)
	if err != nil {
		w.err = err
		return descriptor{}
	}
	sum := sha256.Sum256(b)
	d := descriptor{MediaType: mediaType, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(b))}
	w.header(blobPath(d.Digest), d.Size)
	if w.err == nil {
		_, w.err = io.Copy(w.tw, bytes.NewReader(b))
	}
	return d
}

// layer copies a layer file into the archive, hashing it again on the way
// so that a file changed since fileDescriptor read it is an error, not a
// corrupt image.
func (w *layoutWriter) layer(path string, d descriptor) {
	if w.err != nil {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		w.err = err
		return
	}
	defer f.Close()
	w.header(blobPath(d.Digest), d.Size)
	h := sha256.New()
	if w.err == nil {
		_, w.err = io.Copy(io.MultiWriter(w.tw, h), io.LimitReader(f, d.Size))
	}
	if w.err == nil && "sha256:"+hex.EncodeToString(h.Sum(nil)) != d.Digest {
		w.err = fmt.Errorf("layer %s changed while the image was written; write it again", path)
	}
}

func blobPath(digest string) string {
	return "blobs/sha256/" + strings.TrimPrefix(digest, "sha256:")
}

// writeAtomically writes path through a temporary file beside it, so that
// a reader (or a cache check) never sees half a file.
func writeAtomically(path string, write func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
