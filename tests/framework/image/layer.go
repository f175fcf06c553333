package image

import (
	"archive/tar"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// capabilityXattr is the one extended attribute a container runtime
// honours from an image: the file capabilities setcap writes.
const capabilityXattr = "security.capability"

// paxXattr is how a PAX tar header carries an extended attribute; GNU tar,
// mmdebstrap and containerd's unpacking all read this form.
const paxXattr = "SCHILY.xattr."

// writeFileLayer writes a layer tar at out holding the file src as the
// absolute path dest: mode 0755, owned by root, with its parent
// directories and the file's capabilities, if it has any.
func writeFileLayer(out, src, dest string) error {
	if !path.IsAbs(dest) || path.Clean(dest) != dest {
		return fmt.Errorf("layer destination %q: want a clean absolute path", dest)
	}
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("reading a layer's file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	xattrs, err := fileXattrs(src)
	if err != nil {
		return err
	}
	return writeAtomically(out, func(o *os.File) error {
		tw := tar.NewWriter(o)
		epoch := time.Unix(0, 0)
		parts := strings.Split(strings.TrimPrefix(dest, "/"), "/")
		for i := 1; i < len(parts); i++ {
			dir := &tar.Header{Name: strings.Join(parts[:i], "/") + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX}
			if err := tw.WriteHeader(dir); err != nil {
				return err
			}
		}
		hdr := &tar.Header{Name: dest[1:], Typeflag: tar.TypeReg, Mode: 0o755, Size: st.Size(), ModTime: epoch, PAXRecords: xattrs, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := io.Copy(tw, io.LimitReader(f, st.Size())); err != nil {
			return err
		}
		return tw.Close()
	})
}

// fileXattrs returns a file's capabilities as PAX records, nil when it has
// none.
func fileXattrs(name string) (map[string]string, error) {
	buf := make([]byte, 64)
	n, err := unix.Lgetxattr(name, capabilityXattr, buf)
	switch {
	case errors.Is(err, unix.ENODATA) || errors.Is(err, unix.ENOTSUP):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading the capabilities of %s: %w", name, err)
	}
	return map[string]string{paxXattr + capabilityXattr: string(buf[:n])}, nil
}

// checkStatic refuses a dynamically linked binary: the small images have
// no libc, and the Dockerfile builds routeshift with CGO_ENABLED=0.
func checkStatic(binary string) error {
	f, err := elf.Open(binary)
	if err != nil {
		return fmt.Errorf("%s is not an ELF binary: %w", binary, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked; build it with CGO_ENABLED=0 (GoBuildStatic does)", binary)
		}
	}
	return nil
}
