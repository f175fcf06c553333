package runtime

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessRuntimeAPI: server changes alone go through the runtime API
// without a reload; an update HAProxy refuses makes the written files
// load at once instead; slots without health checks have theirs turned
// off after each load.
func TestProcessRuntimeAPI(t *testing.T) {
	h := newHarness(t)
	a, b := endpoint(t, "a"), endpoint(t, "b")
	cfg := h.config("", "", backend("server s0 127.0.0.1:"+itoa(a)+" check inter 60s",
		"server s1 127.0.0.1:1 disabled check inter 60s"))
	first := output(cfg, Reason{Kind: "first configuration"})
	first.Unchecked = func() []string { return []string{"be/s0"} }
	h.apply(first, true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
	h.serves("/", "a")
	if st, _ := h.p.master("@1 show servers state be"); !strings.Contains(st, " s0 ") {
		t.Fatalf("show servers state:\n%s", st)
	}
	if !h.checkDisabled("be", "s0") {
		t.Error("the health checks of unchecked slot be/s0 are on after the load")
	}

	// s0 to maintenance, s1 to b: served by b without a reload.
	moved := output(cfg) // no reasons: the same file, servers moved
	moved.Changed = nil
	moved.Servers = []ServerUpdate{
		{Backend: "be", Server: "s0"},
		{Backend: "be", Server: "s1", Address: "127.0.0.1", Port: int32(b), Weight: 1, Enabled: true},
	}
	h.apply(moved, true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
	h.serves("/", "b")
	if n, _, _ := h.p.Reloads(); n != 0 {
		t.Errorf("%d reloads for server changes alone", n)
	}
	if got := counter(h.metrics.runtimeUpdates); got != 2 {
		t.Errorf("runtime updates %v, want 2", got)
	}
	if !h.p.unchecked["be/s1"] || h.p.unchecked["be/s0"] {
		t.Errorf("unchecked slots %v, want be/s1 alone", h.p.unchecked)
	}
	if !h.checkDisabled("be", "s1") {
		t.Error("the health checks of be/s1, enabled without checks, are on")
	}

	// A slot HAProxy does not have: refused; the files are loaded at once.
	h.clock.Advance(1) // within the interval: a refusal does not wait for it
	refused := output(cfg)
	refused.Changed = nil
	refused.Servers = []ServerUpdate{{Backend: "be", Server: "s9", Address: "127.0.0.1", Port: int32(a), Weight: 1, Enabled: true}}
	err := h.p.Apply(h.ctx, refused, true)
	if err == nil || !strings.Contains(err.Error(), "runtime API (reloaded instead)") || !strings.Contains(err.Error(), "be/s9") {
		t.Fatalf("Apply of an update to a missing slot: %v", err)
	}
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded, Failures: 1})
	if got := counter(h.metrics.runtimeFailures); got != 1 {
		t.Errorf("runtime update failures %v, want 1", got)
	}
	if got := counter(h.metrics.reloads.WithLabelValues(ReasonRuntimeAPIRefused)); got != 1 {
		t.Errorf("reloads{reason=%q} = %v, want 1", ReasonRuntimeAPIRefused, got)
	}
	// The reload loaded the files: s0 at a with its health checks, s1
	// disabled.
	h.serves("/", "a")
	if h.checkDisabled("be", "s0") {
		t.Error("the health checks of be/s0 are off after a reload of a configuration where it has them")
	}

	// The next success clears the failures.
	ok := output(cfg)
	ok.Changed = nil
	ok.Servers = []ServerUpdate{{Backend: "be", Server: "s1"}}
	h.apply(ok, true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
}

// checkDisabled reports whether the health checks of backend/server are
// off in the running worker: the enabled flag of its check state in
// show servers state is clear.
func (h *harness) checkDisabled(backend, server string) bool {
	h.t.Helper()
	out, err := h.p.master("@1 show servers state " + backend)
	if err != nil {
		h.t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2 {
		h.t.Fatalf("show servers state %s:\n%s", backend, out)
	}
	header := strings.Fields(strings.TrimPrefix(lines[1], "# "))
	name, state := -1, -1
	for i, c := range header {
		switch c {
		case "srv_name":
			name = i
		case "srv_check_state":
			state = i
		}
	}
	for _, line := range lines[2:] {
		f := strings.Fields(line)
		if len(f) == len(header) && f[name] == server {
			// srv_check_state holds CHK_ST_* flags; CHK_ST_ENABLED is 0x4.
			var flags int
			for _, c := range f[state] {
				flags = flags*10 + int(c-'0')
			}
			return flags&0x4 == 0
		}
	}
	h.t.Fatalf("no server %s in show servers state %s:\n%s", server, backend, out)
	return false
}

// TestProcessStandby: while a reload is held, a new route is served from
// a free standby backend through the runtime API; once the pool is used
// up, further routes wait for the reload.
func TestProcessStandby(t *testing.T) {
	h := newHarness(t)
	a, n := endpoint(t, "a"), endpoint(t, "new")
	mapFile := filepath.Join(h.dir, "maps/routes.map")
	route := "  use_backend %[path,map_beg(" + mapFile + ")] if { path,map_beg(" + mapFile + ") -m found }"
	standby := "backend sb_http_0 from common\n  server s0 127.0.0.1:1 disabled\n"
	files := func(body string) *Output {
		out := output(h.config("", route, body+standby), backendAdded)
		out.Files["maps/routes.map"] = File{Data: []byte("/old be\n"), Mode: 0o644}
		out.Changed = append(out.Changed, "maps/routes.map")
		out.StandbyBackends = map[string][]string{"http": {"sb_http_0"}}
		return out
	}
	h.apply(files(backend("server s0 127.0.0.1:"+itoa(a))), true)
	h.serves("/old", "a")
	h.answers("/new", 200, "a") // the default backend

	next := files(backend("server s0 127.0.0.1:"+itoa(a)) + "backend be_new from common\n  server s0 127.0.0.1:" + itoa(n) + "\n")
	newRoute := func(name string) StandbyRoute {
		return StandbyRoute{Route: "ns/" + name, Kind: "http", Backend: "be_" + name,
			Maps:    []MapEntry{{Map: mapFile, Key: "/" + name, Value: "be_" + name}},
			Servers: []ServerUpdate{{Server: "s0", Address: "127.0.0.1", Port: int32(n), Weight: 1, Enabled: true}}}
	}
	next.Standby = []StandbyRoute{newRoute("new"), newRoute("other")}
	h.apply(next, true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskHeld, HeldComplete: true})
	h.serves("/new", "new")
	if got := counter(h.metrics.standbyRoutes); got != 1 {
		t.Errorf("standby routes %v, want 1 (one free standby backend)", got)
	}
	if !h.logs.contains(`"waitingForTheReload"=1`) {
		t.Errorf("the route left waiting is not logged:\n%s", h.logs)
	}
	if _, free := h.p.standby.take("http"); free {
		t.Error("the standby backend in use is still free")
	}
}

// TestProcessWriteFailed: files that cannot be written leave the running
// configuration serving; the next configuration is written in full and
// loaded.
func TestProcessWriteFailed(t *testing.T) {
	h := newHarness(t)
	a, b := endpoint(t, "a"), endpoint(t, "b")
	h.apply(output(h.config("", "", backend("server s0 127.0.0.1:"+itoa(a))), Reason{Kind: "first configuration"}), true)
	h.serves("/", "a")

	// A directory that is a file: the map under it cannot be written.
	if err := os.WriteFile(filepath.Join(h.dir, "blocked"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(testInterval)
	out := output(h.config("", "", backend("server s0 127.0.0.1:"+itoa(b))), backendAdded)
	out.Files["blocked/routes.map"] = File{Data: []byte("/x be\n"), Mode: 0o644}
	out.Changed = append(out.Changed, "blocked/routes.map")
	if err := h.p.Apply(h.ctx, out, true); err == nil {
		t.Fatal("Apply wrote a file under a regular file")
	}
	h.wantState(State{Started: true, Ready: true, Disk: DiskUnknown, Failures: 1})
	h.answers("/", 200, "a")

	if err := os.Remove(filepath.Join(h.dir, "blocked")); err != nil {
		t.Fatal(err)
	}
	out.Changed = []string{"blocked/routes.map"} // haproxy.cfg did change, and was written
	out.Reasons = nil
	h.apply(out, true)
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
	h.serves("/", "b")
	if got := h.file("blocked/routes.map"); got != "/x be\n" {
		t.Errorf("blocked/routes.map = %q", got)
	}
}

// TestProcessRestart: HAProxy dying is noticed (Exited), and Restart
// starts it again with the files on disk.
func TestProcessRestart(t *testing.T) {
	h := newHarness(t)
	a := endpoint(t, "a")
	first := output(h.config("", "", backend("server s0 127.0.0.1:"+itoa(a)+" check inter 60s")), Reason{Kind: "first configuration"})
	first.Unchecked = func() []string { return []string{"be/s0"} }
	first.StandbyBackends = map[string][]string{"http": {"sb"}}
	h.apply(first, true)
	h.serves("/", "a")
	before := h.p.PID()
	if _, free := h.p.standby.take("http"); !free {
		t.Fatal("no free standby backend after the load")
	}

	h.kill()
	if _, _, err := h.get("/"); err == nil {
		t.Fatal("HAProxy answers after it was killed")
	}
	if err := h.p.Restart(h.ctx); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	h.wantState(State{Started: true, Ready: true, Disk: DiskLoaded})
	h.serves("/", "a")
	if pid := h.p.PID(); pid == before || pid == 0 {
		t.Errorf("PID %d after the restart, was %d", pid, before)
	}
	if got := counter(h.metrics.restarts); got != 1 {
		t.Errorf("restarts %v, want 1", got)
	}
	if !h.checkDisabled("be", "s0") {
		t.Error("the health checks of unchecked be/s0 are on after the restart")
	}
	if _, free := h.p.standby.take("http"); !free {
		t.Error("the standby backends are not free again after the restart")
	}
}

// TestProcessLoadFailed: a configuration haproxy -c accepts but HAProxy
// cannot load (its port is taken) fails to start, or fails a reload while
// the previous workers keep serving; either is a failure to retry.
func TestProcessLoadFailed(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	busy := taken.Addr().String()

	t.Run("start", func(t *testing.T) {
		h := newHarness(t)
		err := h.p.Apply(h.ctx, output(h.config(busy, "", backend("server s0 127.0.0.1:1")), Reason{Kind: "first configuration"}), true)
		if err == nil || !strings.Contains(err.Error(), "exited while loading") {
			t.Fatalf("Apply binding a taken port: %v", err)
		}
		h.wantState(State{Started: true, Disk: DiskUnknown, Failures: 1})
		if got := counter(h.metrics.reloadFailures); got != 1 {
			t.Errorf("reload failures %v, want 1", got)
		}
		// HAProxy exited: Restart fails the same way.
		if err := h.p.Restart(h.ctx); err == nil {
			t.Error("Restart binding a taken port succeeded")
		}
		if h.p.Ready() {
			t.Error("ready without HAProxy")
		}
	})

	t.Run("reload", func(t *testing.T) {
		h := newHarness(t)
		a := endpoint(t, "a")
		h.apply(output(h.config("", "", backend("server s0 127.0.0.1:"+itoa(a))), Reason{Kind: "first configuration"}), true)
		h.serves("/", "a")
		h.clock.Advance(testInterval)
		cfg := h.config("", "", backend("server s0 127.0.0.1:"+itoa(a))) + "frontend other from common\n  bind " + busy + "\n"
		err := h.p.Apply(h.ctx, output(cfg, Reason{Kind: "services changed"}), true)
		if !errors.Is(err, errLoadingFailed) {
			t.Fatalf("Apply of a reload binding a taken port: %v", err)
		}
		h.wantState(State{Started: true, Ready: true, Disk: DiskUnknown, Failures: 1})
		h.answers("/", 200, "a")
		if d, ok := h.p.RetryIn(); !ok || d != testInterval {
			t.Errorf("RetryIn = %v, %v", d, ok)
		}
	})
}
