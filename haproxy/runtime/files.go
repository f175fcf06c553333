package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/routeshift/routeshift/internal/atomicfile"
)

// diffFiles returns the paths whose content in next differs from have.
func diffFiles(have, next map[string]File) []string {
	var out []string
	for path, f := range next {
		if old, ok := have[path]; !ok || old.Mode != f.Mode || !bytes.Equal(old.Data, f.Data) {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

func removedFiles(have, next map[string]File) []string {
	var out []string
	for path := range have {
		if _, ok := next[path]; !ok {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

func mergeSorted(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

func (p *Process) writeFiles(out *Output) error { return WriteFiles(p.cfg.WorkingDir, out) }

// WriteFiles writes the changed files of out into dir atomically and
// removes the removed ones. Keys and anything holding them get their mode
// from the renderer (0600). It creates out's server-state file, empty,
// when it is missing.
func WriteFiles(dir string, out *Output) error {
	for _, rel := range out.Changed {
		f := out.Files[rel]
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := atomicfile.Write(path, f.Data, f.Mode); err != nil {
			return fmt.Errorf("writing %s: %w", rel, err)
		}
	}
	for _, rel := range out.Removed {
		if err := os.Remove(filepath.Join(dir, rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if out.ServerStateFile != "" {
		if err := ensureServerState(dir, out.ServerStateFile); err != nil {
			return fmt.Errorf("writing an empty %s: %w", out.ServerStateFile, err)
		}
	}
	return nil
}

// restore puts the last good files back after a refused configuration, so
// that a restart of HAProxy loads what it ran.
func (p *Process) restore(out *Output) {
	for _, rel := range append(slices.Clone(out.Changed), out.Removed...) {
		if f, ok := p.lastGood[rel]; ok {
			_ = atomicfile.Write(p.path(rel), f.Data, f.Mode)
		} else {
			_ = os.Remove(p.path(rel))
		}
	}
}

// recordLoaded records the files of the configuration HAProxy runs from now on.
func (p *Process) recordLoaded(files map[string]File) { p.lastGood = files }

// loadedUnchecked records the slots without health checks of the
// configuration HAProxy has just loaded; runtime updates keep the record
// up to date between loads.
func (p *Process) loadedUnchecked(slots []string) {
	p.unchecked = make(map[string]bool, len(slots))
	for _, s := range slots {
		p.unchecked[s] = true
	}
}
