package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/internal/atomicfile"
)

// The server-state file carries what HAProxy learned about its servers
// across a reload: `show servers state` of the running worker, written just
// before the reload, is what the new worker starts from
// (load-server-state-from-file): an endpoint its health checks marked DOWN
// stays DOWN until they pass, and weights and maintenance states stay.
//
// HAProxy also restores a server's address from the file, so only the
// servers the new configuration keeps at the same address and port are
// written: a slot given another endpoint starts afresh. It carries state
// only from just before a reload until the next start of HAProxy, which
// starts from the configuration alone.
//
// HAProxy reads the file at every load and warns when it is missing, so
// the file always exists: when there is no state to carry it is empty
// (emptyServerState), which HAProxy reads without a word.

// emptyServerState is a server-state file without servers: the version
// line alone.
const emptyServerState = "1\n"

// stateColumns are the columns of `show servers state` the router reads.
var stateColumns = []string{"be_name", "srv_name", "srv_addr", "srv_port"}

// saveServerState writes the running worker's server state for the
// configuration about to be loaded, whose servers are slots
// ("backend/server" -> "address port"). On failure the file is emptied:
// the new worker then starts from the configuration alone.
func (p *Process) saveServerState(ctx context.Context, slots map[string]string) {
	if p.cfg.ServerStateFile == "" {
		return
	}
	err := p.writeServerState(slots)
	if err != nil {
		_ = p.forgetServerState()
		logf.FromContext(ctx).WithName("haproxy").Error(err, "saving the servers' state for the reload; the new worker starts without it")
	}
}

func (p *Process) writeServerState(slots map[string]string) error {
	state, err := p.master("@1 show servers state")
	if err != nil {
		return err
	}
	kept, err := keepServerState(state, slots)
	if err != nil {
		return err
	}
	return atomicfile.Write(p.path(p.cfg.ServerStateFile), []byte(kept), 0o600)
}

// keepServerState is state (`show servers state`: a version line, a
// header line naming the columns, one line per server) with only the
// servers slots has at the same address and port.
func keepServerState(state string, slots map[string]string) (string, error) {
	lines := strings.Split(strings.TrimRight(state, "\n"), "\n")
	if len(lines) < 2 || lines[0] != "1" || !strings.HasPrefix(lines[1], "# ") {
		return "", fmt.Errorf("unexpected show servers state output: %.200q", state)
	}
	header := strings.Fields(strings.TrimPrefix(lines[1], "# "))
	var idx []int
	for _, c := range stateColumns {
		i := slices.Index(header, c)
		if i < 0 {
			return "", fmt.Errorf("show servers state has no column %s: %q", c, lines[1])
		}
		idx = append(idx, i)
	}
	out := lines[:2]
	for _, line := range lines[2:] {
		f := strings.Fields(line)
		if len(f) != len(header) {
			continue
		}
		if addr, ok := slots[f[idx[0]]+"/"+f[idx[1]]]; ok && addr == f[idx[2]]+" "+f[idx[3]] {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n") + "\n", nil
}

// forgetServerState empties the server-state file before HAProxy starts:
// state saved for an earlier configuration must not reach a new process.
func (p *Process) forgetServerState() error {
	if p.cfg.ServerStateFile == "" {
		return nil
	}
	if err := atomicfile.Write(p.path(p.cfg.ServerStateFile), []byte(emptyServerState), 0o600); err != nil {
		return fmt.Errorf("emptying the old server state: %w", err)
	}
	return nil
}

// ensureServerState creates the server-state file at rel in dir, empty,
// unless it exists: HAProxy, checking or loading a configuration that
// names it, warns when it is missing.
func ensureServerState(dir, rel string) error {
	path := filepath.Join(dir, rel)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, []byte(emptyServerState), 0o600)
}
