package image

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// bindCap is security.capability for cap_net_bind_service=ep (revision 2).
var bindCap = []byte{1, 0, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

func TestWriteArchiveWritesALayoutContainerdImports(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "haproxy")
	if err := os.WriteFile(file, []byte("#!/bin/true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := unix.Setxattr(file, capabilityXattr, bindCap, 0); err != nil {
		t.Skipf("setting a file capability needs root on a file system with security xattrs: %v", err)
	}
	capLayer := filepath.Join(dir, "cap.tar")
	if err := writeFileLayer(capLayer, file, "/usr/sbin/haproxy"); err != nil {
		t.Fatal(err)
	}
	plainLayer := filepath.Join(dir, "plain.tar")
	if err := writeFileLayer(plainLayer, filepath.Join(dir, "cap.tar"), "/etc/x"); err != nil {
		t.Fatal(err)
	}
	config := Config{User: "65532:65532", Entrypoint: []string{"/bin/x", "serve"}, Env: []string{DefaultPath}, WorkingDir: "/w", Labels: map[string]string{"a": "b"}}
	archive := filepath.Join(dir, "image.tar")
	if err := WriteArchive(archive, "ghcr.io/routeshift/routeshift:0.1.0", config, plainLayer, capLayer); err != nil {
		t.Fatal(err)
	}

	l := readLayout(t, archive)
	if got := l.index.Manifests[0].Annotations; !reflect.DeepEqual(got, map[string]string{annotationImageName: "ghcr.io/routeshift/routeshift:0.1.0", annotationRefName: "0.1.0"}) {
		t.Errorf("index annotations = %v", got)
	}
	if p := l.index.Manifests[0].Platform; p == nil || p.OS != "linux" || p.Architecture != runtime.GOARCH {
		t.Errorf("index platform = %+v, want linux/%s", p, runtime.GOARCH)
	}
	if !reflect.DeepEqual(l.config.Config, config) {
		t.Errorf("config = %+v, want %+v", l.config.Config, config)
	}
	for i, want := range []string{plainLayer, capLayer} {
		d, err := fileDescriptor(want, mediaTypeLayer)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(l.manifest.Layers[i], d) || l.config.RootFS.DiffIDs[i] != d.Digest {
			t.Errorf("layer %d: manifest %+v, diff_id %s; want %+v", i, l.manifest.Layers[i], l.config.RootFS.DiffIDs[i], d)
		}
	}
	hdrs := layerHeaders(t, archive, l.manifest.Layers[1].Digest)
	want := []string{"usr/", "usr/sbin/", "usr/sbin/haproxy"}
	if names := sortedKeys(hdrs); !reflect.DeepEqual(names, want) {
		t.Errorf("layer entries = %q, want %q", names, want)
	}
	h := hdrs["usr/sbin/haproxy"]
	if h.Mode != 0o755 || h.Uid != 0 || h.PAXRecords["SCHILY.xattr.security.capability"] != string(bindCap) {
		t.Errorf("haproxy: mode %o, uid %d, PAX %q; want 0755, root and its capability", h.Mode, h.Uid, h.PAXRecords)
	}
}

func TestImageTag(t *testing.T) {
	cases := []struct{ name, tag string }{
		{"ghcr.io/routeshift/routeshift:0.1.0", "0.1.0"},
		{"docker.io/library/pause:3.10", "3.10"},
		{"localhost/routeshift/backend:test", "test"},
		{"registry.local:5000/a/b:v1", "v1"},
		{"routeshift:0.1.0", ""},                // kubelet would ask for docker.io/library/routeshift:0.1.0
		{"ghcr.io/routeshift/routeshift", ""},   // no tag
		{"ghcr.io/routeshift/RouteShift:1", ""}, // upper case
		{"ghcr.io/routeshift/routeshift@sha256:0", ""},
	}
	for _, c := range cases {
		tag, err := imageTag(c.name)
		if tag != c.tag || (err != nil) != (c.tag == "") {
			t.Errorf("imageTag(%q) = %q, %v; want %q", c.name, tag, err, c.tag)
		}
	}
}

func TestBinaryImageHoldsOneStaticBinary(t *testing.T) {
	dir := t.TempDir()
	binary, err := GoBuildStatic(context.Background(), "../../..", "./tests/images/pause", dir)
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "pause.tar")
	if err := BinaryImage(binary, "localhost/routeshift/pause:test", archive); err != nil {
		t.Fatal(err)
	}
	l := readLayout(t, archive)
	want := Config{User: "65532:65532", Entrypoint: []string{"/pause"}, Env: []string{DefaultPath}}
	if !reflect.DeepEqual(l.config.Config, want) {
		t.Errorf("config = %+v, want %+v", l.config.Config, want)
	}
	hdrs := layerHeaders(t, archive, l.manifest.Layers[0].Digest)
	if h := hdrs["pause"]; len(hdrs) != 1 || h == nil || h.Mode != 0o755 {
		t.Errorf("layer entries = %v, want only pause, mode 0755", sortedKeys(hdrs))
	}
	if err := BinaryImage("/bin/ls", "localhost/x/y:1", filepath.Join(dir, "ls.tar")); err == nil || !strings.Contains(err.Error(), "dynamically linked") {
		t.Errorf("an image of /bin/ls: error = %v, want it refused as dynamically linked", err)
	}
}

// layout is an image layout read back from an archive.
type layout struct {
	index    index
	manifest manifest
	config   imageConfig
}

// readLayout reads an archive's index, manifest and config and checks
// that every blob's name, digest and size agree.
func readLayout(t *testing.T, archive string) layout {
	t.Helper()
	blobs := map[string][]byte{} // small blobs by digest
	var l layout
	walkArchive(t, archive, func(hdr *tar.Header, r io.Reader) {
		h := sha256.New()
		var small bytes.Buffer
		n, err := io.Copy(io.MultiWriter(h, &limitedBuffer{&small, 1 << 20}), r)
		if err != nil || n != hdr.Size {
			t.Fatalf("reading %s: %d bytes, %v", hdr.Name, n, err)
		}
		digest := "sha256:" + hex.EncodeToString(h.Sum(nil))
		switch {
		case hdr.Name == "index.json":
			mustUnmarshal(t, small.Bytes(), &l.index)
		case hdr.Name == "oci-layout":
			if !strings.Contains(small.String(), `"imageLayoutVersion":"1.0.0"`) {
				t.Errorf("oci-layout = %s", small.String())
			}
		case blobPath(digest) != hdr.Name:
			t.Errorf("blob %s has digest %s", hdr.Name, digest)
		default:
			blobs[digest] = small.Bytes()
		}
	})
	if len(l.index.Manifests) != 1 || l.index.MediaType != mediaTypeIndex {
		t.Fatalf("index = %+v, want one manifest", l.index)
	}
	mustUnmarshal(t, blobs[l.index.Manifests[0].Digest], &l.manifest)
	mustUnmarshal(t, blobs[l.manifest.Config.Digest], &l.config)
	if l.manifest.MediaType != mediaTypeManifest || len(l.manifest.Layers) != len(l.config.RootFS.DiffIDs) {
		t.Fatalf("manifest %+v does not match config %+v", l.manifest, l.config)
	}
	return l
}

// layerHeaders returns the headers of a layer's entries by name.
func layerHeaders(t *testing.T, archive, digest string) map[string]*tar.Header {
	t.Helper()
	hdrs := map[string]*tar.Header{}
	walkLayer(t, archive, digest, func(h *tar.Header, _ io.Reader) { hdrs[h.Name] = h })
	return hdrs
}

// walkLayer calls fn for each entry of the archive's layer blob digest.
func walkLayer(t *testing.T, archive, digest string, fn func(*tar.Header, io.Reader)) {
	t.Helper()
	found := false
	walkArchive(t, archive, func(hdr *tar.Header, r io.Reader) {
		if hdr.Name != blobPath(digest) {
			return
		}
		found = true
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatalf("reading layer %s: %v", digest, err)
			}
			fn(h, tr)
		}
	})
	if !found {
		t.Fatalf("no blob %s in %s", digest, archive)
	}
}

func walkArchive(t *testing.T, archive string, fn func(*tar.Header, io.Reader)) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("reading %s: %v", archive, err)
		}
		fn(hdr, tr)
	}
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// limitedBuffer keeps the first max bytes written to it and drops the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
