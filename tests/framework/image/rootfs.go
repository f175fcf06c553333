package image

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// rootfsFormat changes whenever BuildRootfs would build a different tree
// from the same recipe and sources, so that old cache entries are not used.
const rootfsFormat = "rootfs v2: mmdebstrap minbase, hooks setcap, apt-get clean, rm lists; no device nodes"

// aptSourceFiles are where the machine's apt sources may be; BuildRootfs
// builds from those that exist, so the image gets the packages (and the
// versions) the machine's own apt would install.
var aptSourceFiles = []string{"/etc/apt/sources.list", "/etc/apt/sources.list.d/*.sources", "/etc/apt/sources.list.d/*.list"}

// BuildRootfs returns the path of a tar of the root file system the
// recipe's final stage builds, made by mmdebstrap (variant minbase) from
// the machine's apt sources: the recipe's packages installed, its setcap
// steps run in the new tree, apt's lists removed, device nodes left out
// (the runtime mounts /dev). The tar is usable as an image layer and keeps
// each file's capabilities as a PAX record; BuildRootfs checks that every
// setcap path carries its capability before it caches the tar. Variant
// minbase stands in for debian:12-slim: the same essential and required
// packages, with documentation kept where slim drops it.
//
// The tar is cached in cacheDir under a hash of the suite, packages, setcap
// steps and apt sources, written atomically, so that only the first call
// costs (one to three minutes on 2 cores and 180 MB, as root with network
// access to the sources). Progress lines go to progress.
func BuildRootfs(ctx context.Context, r *Recipe, cacheDir string, progress io.Writer) (string, error) {
	sources, key, err := rootfsKey(r)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("creating the image cache: %w", err)
	}
	out := filepath.Join(cacheDir, "rootfs-"+r.Suite+"-"+key[:16]+".tar")
	unlock, err := lockFile(filepath.Join(cacheDir, "rootfs.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if _, err := os.Stat(out); err == nil {
		fmt.Fprintf(progress, "rootfs: using %s\n", out)
		return out, nil
	}
	if _, err := exec.LookPath("mmdebstrap"); err != nil {
		return "", fmt.Errorf("building the image's root file system needs mmdebstrap: apt-get install -y mmdebstrap")
	}
	start := time.Now()
	fmt.Fprintf(progress, "rootfs: building %s %s with mmdebstrap (one to three minutes)\n", r.Suite, strings.Join(r.Packages, " "))
	if err := writeAtomically(out, func(f *os.File) error { return mmdebstrap(ctx, r, sources, f, progress) }); err != nil {
		return "", err
	}
	fmt.Fprintf(progress, "rootfs: %s in %s\n", out, time.Since(start).Round(time.Second))
	pruneRootfs(cacheDir, out, progress)
	return out, nil
}

// pruneRootfs removes the trees built for earlier recipes or sources, which
// no call asks for any more, so the cache holds one tree (about 180 MB).
func pruneRootfs(cacheDir, keep string, progress io.Writer) {
	old, _ := filepath.Glob(filepath.Join(cacheDir, "rootfs-*.tar"))
	for _, o := range old {
		if o != keep && os.Remove(o) == nil {
			fmt.Fprintf(progress, "rootfs: removed %s, built for another recipe\n", o)
		}
	}
}

// rootfsKey returns the apt source files that exist and the cache key of
// the tree built from them.
func rootfsKey(r *Recipe) ([]string, string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\nsuite %s\npackages %q\n", rootfsFormat, r.Suite, r.Packages)
	for _, s := range r.Setcap {
		fmt.Fprintf(h, "setcap %q %q\n", s.Capabilities, s.Path)
	}
	var sources []string
	for _, pattern := range aptSourceFiles {
		matches, _ := filepath.Glob(pattern)
		sort.Strings(matches)
		for _, m := range matches {
			text, err := os.ReadFile(m)
			if err != nil {
				return nil, "", fmt.Errorf("reading the machine's apt sources: %w", err)
			}
			if !hasEntries(string(text)) {
				continue
			}
			fmt.Fprintf(h, "source %s %d\n%s\n", m, len(text), text)
			sources = append(sources, m)
		}
	}
	if len(sources) == 0 {
		return nil, "", fmt.Errorf("no apt sources in %s: the root file system is built from the machine's own", strings.Join(aptSourceFiles, ", "))
	}
	return sources, hex.EncodeToString(h.Sum(nil)), nil
}

// hasEntries tells a sources file with entries from one of only comments,
// as Debian's images leave /etc/apt/sources.list.
func hasEntries(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return true
		}
	}
	return false
}

// lockFile holds an exclusive lock on path until the returned function is
// called, so that two test packages do not build the same tree at once.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking the image cache: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking the image cache: %w", err)
	}
	return func() { f.Close() }, nil
}

// mmdebstrapArgs are the arguments that build the recipe's tree as a tar
// on standard output. mmdebstrap's own apt cleanup is skipped: it runs
// apt-get update and apt-get clean after the hooks, which leave a lock and
// partial/ in apt's lists, where the Dockerfile's rm leaves the directory
// empty. The hooks clean apt's cache (as debian:12-slim's apt
// configuration does after each install) and then remove the lists.
func mmdebstrapArgs(r *Recipe, sources []string) []string {
	args := []string{
		"--variant=minbase", "--format=tar", "--skip=cleanup/apt",
		"--include=" + strings.Join(r.Packages, ","),
	}
	for _, s := range r.Setcap {
		args = append(args, "--customize-hook=chroot \"$1\" setcap "+shellQuote(s.Capabilities)+" "+shellQuote(s.Path))
	}
	args = append(args, `--customize-hook=chroot "$1" apt-get clean`, `--customize-hook=rm -rf "$1"/var/lib/apt/lists/*`, r.Suite, "-")
	return append(args, sources...)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// mmdebstrap runs mmdebstrap and copies its tar into out, leaving device
// nodes out and checking the setcap paths' capabilities on the way.
func mmdebstrap(ctx context.Context, r *Recipe, sources []string, out io.Writer, progress io.Writer) error {
	cmd := exec.CommandContext(ctx, "mmdebstrap", mmdebstrapArgs(r, sources)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting mmdebstrap: %w", err)
	}
	logged := make(chan []string, 1)
	go func() { logged <- relayLines(stderr, progress, "mmdebstrap: ") }()
	copyErr := copyRootfs(out, stdout, r.Setcap)
	if copyErr != nil {
		_, _ = io.Copy(io.Discard, stdout) // let mmdebstrap finish rather than die on a closed pipe
	}
	tail := <-logged
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("mmdebstrap %s failed: %v; its last lines:\n%s", strings.Join(cmd.Args[1:], " "), err, strings.Join(tail, "\n"))
	}
	return copyErr
}

// relayLines copies r's lines to w with a prefix and returns the last 30.
func relayLines(r io.Reader, w io.Writer, prefix string) []string {
	var tail []string
	s := bufio.NewScanner(r)
	for s.Scan() {
		fmt.Fprintf(w, "%s%s\n", prefix, s.Text())
		if tail = append(tail, s.Text()); len(tail) > 30 {
			tail = tail[1:]
		}
	}
	return tail
}

// copyRootfs rewrites mmdebstrap's tar as a layer: names without "./",
// no root entry, no device nodes, no PAX records but extended attributes.
// It fails when a setcap path lacks the capability its step gives it.
func copyRootfs(dst io.Writer, src io.Reader, setcaps []Setcap) error {
	want := map[string]fileCaps{}
	for _, s := range setcaps {
		c, err := parseCapText(s.Capabilities)
		if err != nil {
			return err
		}
		want[strings.TrimPrefix(s.Path, "/")] = c
	}
	tr, tw := tar.NewReader(src), tar.NewWriter(dst)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading mmdebstrap's tar: %w", err)
		}
		out, keep := layerHeader(hdr)
		if !keep {
			continue
		}
		if err := checkCaps(out, want); err != nil {
			return err
		}
		if err := tw.WriteHeader(out); err != nil {
			return err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return fmt.Errorf("reading mmdebstrap's tar: %w", err)
		}
	}
	if len(want) > 0 {
		missing := sortedKeys(want)
		return fmt.Errorf("mmdebstrap's tar has no /%s, which the Dockerfile runs setcap on", strings.Join(missing, ", /"))
	}
	return tw.Close()
}

// layerHeader returns the header an entry has in the layer, or false for
// an entry the layer leaves out.
func layerHeader(hdr *tar.Header) (*tar.Header, bool) {
	name := strings.TrimPrefix(hdr.Name, "./")
	if name == "" || hdr.Typeflag == tar.TypeChar || hdr.Typeflag == tar.TypeBlock {
		return nil, false
	}
	out := &tar.Header{
		Typeflag: hdr.Typeflag, Name: name, Linkname: hdr.Linkname, Size: hdr.Size,
		Mode: hdr.Mode, Uid: hdr.Uid, Gid: hdr.Gid, Uname: hdr.Uname, Gname: hdr.Gname,
		ModTime: hdr.ModTime, Format: tar.FormatPAX,
	}
	if hdr.Typeflag == tar.TypeLink {
		out.Linkname = strings.TrimPrefix(hdr.Linkname, "./")
	}
	for k, v := range hdr.PAXRecords {
		if strings.HasPrefix(k, paxXattr) {
			if out.PAXRecords == nil {
				out.PAXRecords = map[string]string{}
			}
			out.PAXRecords[k] = v
		}
	}
	return out, true
}

// checkCaps compares the capabilities of a setcap path with its step's,
// and forgets the path once seen.
func checkCaps(hdr *tar.Header, want map[string]fileCaps) error {
	w, ok := want[hdr.Name]
	if !ok {
		return nil
	}
	delete(want, hdr.Name)
	v, ok := hdr.PAXRecords[paxXattr+capabilityXattr]
	if !ok {
		return fmt.Errorf("mmdebstrap's tar lost the capabilities of /%s (want %v): the image would not work; check that mmdebstrap writes SCHILY.xattr records", hdr.Name, w)
	}
	got, err := decodeCapXattr([]byte(v))
	if err != nil {
		return fmt.Errorf("/%s: %w", hdr.Name, err)
	}
	if got != w {
		return fmt.Errorf("/%s has capabilities %v in mmdebstrap's tar, want %v", hdr.Name, got, w)
	}
	return nil
}
