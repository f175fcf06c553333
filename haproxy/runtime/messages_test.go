package runtime

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
)

// TestJudge: of what HAProxy 2.6 prints (these lines are its own), the
// notices and what it prints at every reload and stop are routine; other
// warnings and alerts are not, nor is a worker's exit by a signal unless
// the router is stopping HAProxy.
func TestJudge(t *testing.T) {
	tests := []struct {
		line     string
		stopping bool
		want     Level
	}{
		{"[NOTICE]   (7967) : haproxy version is 2.6.12-1+deb12u4", false, LevelDebug},
		{"[NOTICE]   (7967) : New worker (7970) forked", false, LevelDebug},
		{"[NOTICE]   (7967) : Loading success.", false, LevelDebug},
		{"[NOTICE]   (7967) : Reloading HAProxy", false, LevelDebug},
		{"[WARNING]  (7970) : Proxy public stopped (cumulated conns: FE: 12, BE: 0).", false, LevelDebug},
		{"[WARNING]  (7970) : Proxy be_edge_http:demo:edge stopped (cumulated conns: FE: 0, BE: 3).", false, LevelDebug},
		{"[WARNING]  (7970) : Proxy <HTTPCLIENT> stopped (cumulated conns: FE: 0, BE: 0).", false, LevelDebug},
		{"[WARNING]  (7091) : CLI : Proxy public_ssl stopped (cumulated conns: FE: 22, BE: 0).", false, LevelDebug},
		{"[WARNING]  (7967) : Former worker (7970) exited with code 0 (Exit)", false, LevelDebug},
		{"[WARNING]  (7967) : Current worker (8079) exited with code 0 (Exit)", false, LevelDebug},
		{"[WARNING]  (7967) : Exiting Master process...", false, LevelDebug},
		{"[WARNING]  (7967) : All workers exited. Exiting... (0)", false, LevelDebug},
		{"[WARNING]  (31696) : Server be_http:ns:good/s0 is going DOWN for maintenance. 0 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.", false, LevelDebug},
		{"[WARNING]  (31547) : Server be_http:ns:grpc/s1 is UP/READY (leaving forced maintenance).", false, LevelDebug},
		{"[WARNING]  (31696) : CLI : Server be_http:ns:good/s1 is UP/READY (leaving forced maintenance).", false, LevelDebug},
		{"[WARNING]  (30104) : config : Server be_http:ns:web/s1 is DOWN, changed from server-state after a reload. 1 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.", false, LevelWarning},
		{"[ALERT]    (7967) : Current worker (8079) exited with code 143 (Terminated)", true, LevelDebug},
		{"[ALERT]    (7967) : Current worker (8079) exited with code 143 (Terminated)", false, LevelAlert},
		{"[ALERT]    (7967) : Current worker (8079) exited with code 139 (Segmentation fault)", true, LevelAlert},
		{"[WARNING]  (7967) : Former worker (7970) exited with code 1 (Exit)", false, LevelWarning},
		{"[WARNING]  (7967) : All workers exited. Exiting... (1)", false, LevelWarning},
		{"[WARNING]  (7967) : config : config: Can't open global server state file '/w/run/server-state': No such file or directory", false, LevelWarning},
		{"[WARNING]  (7967) : [haproxy.main()] Cannot raise FD limit to 40083, limit is 20000.", false, LevelWarning},
		{"[ALERT]    (7967) : [haproxy.main()] FD limit (20000) too low for maxconn=20000/maxsock=40083. Please raise 'ulimit-n' to 40083 or more to avoid any trouble.", false, LevelAlert},
		{`[WARNING]  (7970) : Server be_secure:demo:reenc/s0 is DOWN, reason: Layer6 invalid response, info: "SSL handshake failure", check duration: 4ms. 1 active and 0 backup servers left. 0 sessions active, 0 requeued, 0 remaining in queue.`, false, LevelWarning},
		{"[ALERT]    (7970) : backend 'be_secure:demo:reenc' has no server available!", false, LevelAlert},
		{"[WARNING]  (7970) : Proxy public stopped (cumulated conns: FE: 12, BE: 0). And more.", false, LevelWarning},
		{"Configuration file is valid", false, LevelInfo},
	}
	for _, tt := range tests {
		if got := ParseMessage(tt.line).Judge(tt.stopping); got != tt.want {
			t.Errorf("%q (stopping %v): %d, want %d", tt.line, tt.stopping, got, tt.want)
		}
	}
	m := ParseMessage("[ALERT]    (7967) : backend 'x' has no server available!\n")
	if want := (Message{Severity: "ALERT", PID: 7967, Text: "backend 'x' has no server available!"}); m != want {
		t.Errorf("ParseMessage = %+v, want %+v", m, want)
	}
}

// TestHint: HAProxy's FD limit alert, which tells to raise its own
// ulimit-n, gets what to change in the router: the hard limit, or
// ROUTER_MAX_CONNECTIONS to what fits; a port below 1024 refused gets
// the capability it needs.
func TestHint(t *testing.T) {
	m := ParseMessage("[ALERT]    (7967) : [haproxy.main()] FD limit (20000) too low for maxconn=9488/maxsock=22049. Please raise 'ulimit-n' to 22049 or more to avoid any trouble.")
	hint := m.Hint()
	for _, want := range []string{"needs 22049 open files", "gets 20000", "hard open-file limit", "at least 22049", "lower ROUTER_MAX_CONNECTIONS to 8463"} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint %q lacks %q", hint, want)
		}
	}
	// 8463 connections fit: 2*8463 + (22049 - 2*9488) = 19999.
	if 2*8463+(22049-2*9488) > 20000 || 2*8464+(22049-2*9488) <= 20000 {
		t.Error("8463 is not the largest maxconn that fits")
	}
	m = ParseMessage("[ALERT]    (7967) : [haproxy.main()] FD limit (1024) too low for maxconn=10/maxsock=3100. Please raise 'ulimit-n' to 3100 or more to avoid any trouble.")
	if hint := m.Hint(); !strings.Contains(hint, "at least 3100") || strings.Contains(hint, "ROUTER_MAX_CONNECTIONS") {
		t.Errorf("no maxconn fits, hint %q", hint)
	}
	m = ParseMessage("[ALERT]    (31412) : Binding [/w/conf/haproxy.cfg:33] for frontend public: cannot bind socket (Permission denied) for [0.0.0.0:80]")
	if hint := m.Hint(); !strings.Contains(hint, "port 80 is below 1024") || !strings.Contains(hint, "allowPrivilegeEscalation: true") {
		t.Errorf("a privileged port refused, hint %q", hint)
	}
	for _, line := range []string{
		"[ALERT]    (1) : backend 'x' has no server available!",
		"[ALERT]    (1) : Binding [/w/conf/haproxy.cfg:33] for frontend public: cannot bind socket (Permission denied) for [0.0.0.0:8080]",
		"[ALERT]    (1) : Binding [/w/conf/haproxy.cfg:33] for frontend public: cannot bind socket (Address already in use) for [0.0.0.0:80]",
	} {
		if hint := ParseMessage(line).Hint(); hint != "" {
			t.Errorf("hint %q for %q", hint, line)
		}
	}
}

// TestRelay: HAProxy's lines reach the log one each, whatever the writes
// that carry them: routine ones at debug level (V(1)), warnings at info
// level and alerts as errors, with HAProxy's severity and pid; a line
// without the prefix as the message before it.
func TestRelay(t *testing.T) {
	var logged []string
	log := funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{Verbosity: 1})
	stopping := false
	r := &relay{log: log, stopping: func() bool { return stopping }}
	out := "[NOTICE]   (10) : New worker (11) forked\n" +
		"  | a line that continues a notice\n" +
		"[WARNING]  (11) : Proxy public stopped (cumulated conns: FE: 1, BE: 0).\n" +
		"[WARNING]  (11) : Server be_http:ns:a/s0 is DOWN, reason: Layer4 connection problem.\n" +
		"[ALERT]    (10) : [haproxy.main()] FD limit (20000) too low for maxconn=9488/maxsock=22049. Please raise 'ulimit-n' to 22049 or more to avoid any trouble.\n" +
		"  a line that continues it\n\n"
	// The ALERT about worker 11 comes when the router stops HAProxy.
	stop := "[ALERT]    (10) : Current worker (11) exited with code 143 (Terminated)\n"
	for _, text := range []string{out, stop} {
		for i := 0; i < len(text); i += 7 {
			if _, err := r.Write([]byte(text[i:min(i+7, len(text))])); err != nil {
				t.Fatal(err)
			}
		}
		stopping = true
	}
	want := []string{
		`"level"=1 "msg"="New worker (11) forked" "severity"="NOTICE" "pid"=10`,
		`"level"=1 "msg"="  | a line that continues a notice" "severity"="NOTICE" "pid"=10`,
		`"level"=1 "msg"="Proxy public stopped (cumulated conns: FE: 1, BE: 0)." "severity"="WARNING" "pid"=11`,
		`"level"=0 "msg"="Server be_http:ns:a/s0 is DOWN, reason: Layer4 connection problem." "severity"="WARNING" "pid"=11`,
		`"msg"="[haproxy.main()] FD limit (20000) too low for maxconn=9488/maxsock=22049. Please raise 'ulimit-n' to 22049 or more to avoid any trouble." "error"=null "severity"="ALERT" "pid"=10 "hint"=`,
		`"msg"="  a line that continues it" "error"=null "severity"="ALERT" "pid"=10`,
		`"level"=1 "msg"="Current worker (11) exited with code 143 (Terminated)" "severity"="ALERT" "pid"=10`,
	}
	if len(logged) != len(want) {
		t.Fatalf("logged\n  %s\nwant\n  %s", strings.Join(logged, "\n  "), strings.Join(want, "\n  "))
	}
	for i := range want {
		if !strings.HasPrefix(logged[i], want[i]) {
			t.Errorf("line %d:\n  %s\nwant\n  %s", i, logged[i], want[i])
		}
	}
}

// TestEmptyServerState: WriteFiles creates the server-state file a
// configuration names, empty, and keeps one that exists; HAProxy checks
// a configuration naming it without a warning (a missing one gets one).
// It runs the real HAProxy.
func TestEmptyServerState(t *testing.T) {
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("HAProxy not found; install it (apt-get install -y haproxy)")
		}
		t.Skip("HAProxy not found; install it (apt-get install -y haproxy)")
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf("global\n  server-state-file %s/run/state\ndefaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n  timeout connect 1s\n"+
		"  load-server-state-from-file global\nfrontend fe\n  bind 127.0.0.1:1\n  default_backend be\nbackend be\n  server s0 127.0.0.1:1\n", dir)
	out := &Output{Files: map[string]File{"haproxy.cfg": {Data: []byte(cfg), Mode: 0o644}}, Changed: []string{"haproxy.cfg"}, ConfigArgs: []string{"haproxy.cfg"}}
	check := func() string {
		t.Helper()
		words, err := exec.Command(haproxy, "-c", "-f", filepath.Join(dir, "haproxy.cfg")).CombinedOutput()
		if err != nil {
			t.Fatalf("haproxy -c: %v\n%s", err, words)
		}
		return string(words)
	}
	if err := WriteFiles(dir, out); err != nil {
		t.Fatal(err)
	}
	if words := check(); !strings.Contains(words, "[WARNING]") || !strings.Contains(words, "server state file") {
		t.Fatalf("without a server-state file HAProxy says\n%s\nwant its warning (or this test proves nothing)", words)
	}
	out.ServerStateFile = "run/state"
	if err := WriteFiles(dir, out); err != nil {
		t.Fatal(err)
	}
	if words := check(); strings.Contains(words, "[WARNING]") || strings.Contains(words, "[ALERT]") {
		t.Errorf("with an empty server-state file HAProxy says\n%s", words)
	}
	saved := "1\n# be_id be_name\n"
	if err := os.WriteFile(filepath.Join(dir, "run/state"), []byte(saved), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(dir, out); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "run/state")); string(got) != saved {
		t.Errorf("a saved state was replaced by %q", got)
	}
}
