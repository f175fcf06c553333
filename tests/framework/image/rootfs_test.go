package image

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMmdebstrapArgs(t *testing.T) {
	r := &Recipe{Suite: "bookworm", Packages: []string{"haproxy", "libcap2-bin"}, Setcap: []Setcap{{"cap_net_bind_service=+ep", "/usr/sbin/haproxy"}}}
	got := mmdebstrapArgs(r, []string{"/etc/apt/sources.list.d/debian.sources"})
	want := []string{
		"--variant=minbase", "--format=tar", "--skip=cleanup/apt", "--include=haproxy,libcap2-bin",
		`--customize-hook=chroot "$1" setcap 'cap_net_bind_service=+ep' '/usr/sbin/haproxy'`,
		`--customize-hook=chroot "$1" apt-get clean`,
		`--customize-hook=rm -rf "$1"/var/lib/apt/lists/*`,
		"bookworm", "-", "/etc/apt/sources.list.d/debian.sources",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mmdebstrap arguments:\n got %q\nwant %q", got, want)
	}
}

// entry is one entry of a tar that copyRootfs reads.
type entry struct {
	name, link string
	typ        byte
	pax        map[string]string
}

func TestCopyRootfs(t *testing.T) {
	haproxy := entry{name: "./usr/sbin/haproxy", typ: tar.TypeReg, pax: map[string]string{"SCHILY.xattr.security.capability": string(bindCap)}}
	tree := []entry{
		{name: "./", typ: tar.TypeDir},
		{name: "./dev/", typ: tar.TypeDir},
		{name: "./dev/null", typ: tar.TypeChar},
		{name: "./usr/sbin/", typ: tar.TypeDir},
		haproxy,
		{name: "./usr/bin/perl5", link: "./usr/bin/perl", typ: tar.TypeLink},
	}
	setcap := []Setcap{{"cap_net_bind_service=+ep", "/usr/sbin/haproxy"}}
	cases := []struct {
		name    string
		tree    []entry
		setcap  []Setcap
		want    []string // names and links out
		wantErr string
	}{
		{"a tree", tree, setcap, []string{"dev/", "usr/sbin/", "usr/sbin/haproxy", "usr/bin/perl5 -> usr/bin/perl"}, ""},
		{"capability lost", replace(tree, 4, entry{name: haproxy.name, typ: tar.TypeReg}), setcap, nil, "lost the capabilities of /usr/sbin/haproxy"},
		{"another capability", tree, []Setcap{{"cap_net_raw=+ep", "/usr/sbin/haproxy"}}, nil, "has capabilities permitted [cap_net_bind_service], inheritable [], effective true in mmdebstrap's tar, want permitted [cap_net_raw]"},
		{"setcap path missing", tree, []Setcap{{"cap_net_raw=+ep", "/usr/sbin/other"}}, nil, "has no /usr/sbin/other"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := copyRootfs(&out, bytes.NewReader(tarOf(t, c.tree)), c.setcap)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			tr := tar.NewReader(&out)
			for h, err := tr.Next(); err == nil; h, err = tr.Next() {
				if h.Linkname != "" {
					got = append(got, h.Name+" -> "+h.Linkname)
				} else {
					got = append(got, h.Name)
				}
				if h.Name == "usr/sbin/haproxy" && h.PAXRecords["SCHILY.xattr.security.capability"] != string(bindCap) {
					t.Errorf("haproxy's PAX records = %q, want its capability", h.PAXRecords)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("entries = %q, want %q", got, c.want)
			}
		})
	}
}

func replace(es []entry, i int, e entry) []entry {
	out := append([]entry{}, es...)
	out[i] = e
	return out
}

func tarOf(t *testing.T, es []entry) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range es {
		h := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: e.typ, Mode: 0o755, PAXRecords: e.pax, AccessTime: time.Unix(1, 0), Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestTheImageHoldsWhatTheDockerfileInstalls builds the routeshift image
// from the repository's Dockerfile as the cluster tests do (about 90 s the
// first time; the root file system is cached in bin/image-cache) and
// compares what the Dockerfile installs with what the image holds.
func TestTheImageHoldsWhatTheDockerfileInstalls(t *testing.T) {
	if _, err := exec.LookPath("mmdebstrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("mmdebstrap is missing (CI=true): apt-get install mmdebstrap")
		}
		t.Skip("mmdebstrap is missing: apt-get install mmdebstrap")
	}
	if testing.Short() {
		t.Skip("-short: building the image takes about 90 s the first time")
	}
	r, err := ReadDockerfile(repoDockerfile)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = r.WithArgs(map[string]string{"VERSION": "0.0.0-test", "COMMIT": "test"}); err != nil {
		t.Fatal(err)
	}
	cache, err := filepath.Abs("../../../bin/image-cache")
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "routeshift.tar")
	img := RouteshiftImage{Recipe: r, Name: "ghcr.io/routeshift/routeshift:0.0.0-test", CacheDir: cache, Progress: testLog{t}}
	if err := img.Write(context.Background(), archive); err != nil {
		t.Fatal(err)
	}
	l := readLayout(t, archive)
	if l.config.Config.User != r.User || !reflect.DeepEqual(l.config.Config.Entrypoint, r.Entrypoint) || !reflect.DeepEqual(l.config.Config.Labels, r.Labels) {
		t.Errorf("config %+v, want the Dockerfile's user %s, entrypoint %q, labels %v", l.config.Config, r.User, r.Entrypoint, r.Labels)
	}
	if len(l.manifest.Layers) != 2 {
		t.Fatalf("%d layers, want the rootfs and the binary", len(l.manifest.Layers))
	}
	t.Run("packages", func(t *testing.T) { checkPackages(t, archive, l, r) })
	t.Run("setcap", func(t *testing.T) { checkSetcap(t, archive, l, r) })
	t.Run("binary", func(t *testing.T) { checkBinary(t, archive, l, r) })
}

// checkPackages compares the Dockerfile's apt-get install with dpkg's
// status in the rootfs, and checks apt's lists are gone as its rm says.
func checkPackages(t *testing.T, archive string, l layout, r *Recipe) {
	var status []byte
	var lists, devices []string
	walkLayer(t, archive, l.manifest.Layers[0].Digest, func(h *tar.Header, rd io.Reader) {
		switch {
		case h.Name == "var/lib/dpkg/status":
			status, _ = io.ReadAll(rd)
		case strings.HasPrefix(h.Name, "var/lib/apt/lists/") && h.Name != "var/lib/apt/lists/":
			lists = append(lists, h.Name)
		case h.Typeflag == tar.TypeChar || h.Typeflag == tar.TypeBlock:
			devices = append(devices, h.Name)
		}
	})
	installed := installedPackages(status)
	for _, p := range r.Packages {
		if !installed[p] {
			t.Errorf("the Dockerfile installs %s; dpkg's status in the rootfs does not have it installed", p)
		}
	}
	if len(lists) > 0 || len(devices) > 0 {
		t.Errorf("apt lists %q and device nodes %q in the rootfs, want none", lists, devices)
	}
	t.Logf("%d packages installed, %d of them the Dockerfile's", len(installed), len(r.Packages))
}

// installedPackages reads dpkg's status file.
func installedPackages(status []byte) map[string]bool {
	installed := map[string]bool{}
	for _, stanza := range strings.Split(string(status), "\n\n") {
		var name string
		s := bufio.NewScanner(strings.NewReader(stanza))
		for s.Scan() {
			if v, ok := strings.CutPrefix(s.Text(), "Package: "); ok {
				name = v
			}
			if s.Text() == "Status: install ok installed" && name != "" {
				installed[name] = true
			}
		}
	}
	return installed
}

// checkSetcap compares each setcap line with the capabilities the rootfs
// layer records for its file.
func checkSetcap(t *testing.T, archive string, l layout, r *Recipe) {
	hdrs := layerHeaders(t, archive, l.manifest.Layers[0].Digest)
	for _, s := range r.Setcap {
		want, err := parseCapText(s.Capabilities)
		if err != nil {
			t.Fatal(err)
		}
		h := hdrs[strings.TrimPrefix(s.Path, "/")]
		if h == nil {
			t.Errorf("the Dockerfile runs setcap on %s, which the rootfs lacks", s.Path)
			continue
		}
		got, err := decodeCapXattr([]byte(h.PAXRecords["SCHILY.xattr.security.capability"]))
		if err != nil || got != want {
			t.Errorf("%s: capabilities %v (%v), want the Dockerfile's %s: %v", s.Path, got, err, s.Capabilities, want)
		}
	}
}

// checkBinary finds the routeshift binary at the Dockerfile's COPY
// destination, executable and owned by root.
func checkBinary(t *testing.T, archive string, l layout, r *Recipe) {
	hdrs := layerHeaders(t, archive, l.manifest.Layers[1].Digest)
	h := hdrs[strings.TrimPrefix(r.Binary.Dest, "/")]
	if h == nil || h.Mode != 0o755 || h.Uid != 0 || h.Size == 0 {
		t.Errorf("binary layer %v: want %s, mode 0755, owned by root", sortedKeys(hdrs), r.Binary.Dest)
	}
}

// testLog writes progress lines to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
