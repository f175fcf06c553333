package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
)

// TestShutdownDelay: the manager's context outlives the signal by the
// delay, with readiness failing from the signal on; a second signal or
// the end of the delay ends it, and the log says which, after saying that
// the delay started. Without a delay the signal ends it at once.
func TestShutdownDelay(t *testing.T) {
	for _, c := range []struct {
		name  string
		delay time.Duration
		// signal ends the signal context; again then sends a second signal;
		// release calls the returned stop function instead.
		signal, again, release bool
		wantLog                []string
		wantStopping           bool
	}{
		{name: "no delay: the signal ends it at once", delay: 0, signal: true},
		{name: "the delay passes", delay: time.Millisecond, signal: true,
			wantLog: []string{shutdownDelayStarted, shutdownDelayOver}, wantStopping: true},
		{name: "a second signal cuts it short", delay: time.Hour, signal: true, again: true,
			wantLog: []string{shutdownDelayStarted, shutdownDelayCut}, wantStopping: true},
		{name: "released during the delay", delay: time.Hour, signal: true, release: true,
			wantLog: []string{shutdownDelayStarted}, wantStopping: true},
		{name: "released before any signal", delay: time.Hour, release: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := &logLines{}
			subscribed := make(chan chan<- os.Signal, 1)
			unsubscribed := make(chan struct{})
			d := &shutdownDelay{delay: c.delay, log: funcr.NewJSON(log.add, funcr.Options{}),
				notify: func(ch chan<- os.Signal) func() {
					subscribed <- ch
					return func() { close(unsubscribed) }
				}}
			signalled, signal := context.WithCancel(context.Background())
			defer signal()
			run, stop := d.run(signalled)
			defer stop()
			if err := d.readyz(nil); err != nil {
				t.Errorf("readiness before the signal: %v, want none", err)
			}
			if c.signal {
				signal()
			}
			if c.signal && c.delay > 0 {
				// The signal context ended: readiness fails, the manager's
				// context lives on, a second signal is listened for.
				ch := <-subscribed
				if err := d.readyz(nil); err == nil {
					t.Error("readiness after the signal: ok, want it to fail")
				}
				if c.delay == time.Hour && run.Err() != nil {
					t.Fatal("the manager's context ended at the first signal, before the delay")
				}
				if c.again {
					ch <- syscall.SIGTERM
				}
			}
			if c.release {
				stop()
			}
			select {
			case <-run.Done():
			case <-time.After(time.Minute):
				t.Fatal("the manager's context did not end")
			}
			if c.signal && c.delay > 0 {
				<-unsubscribed
			}
			if got := d.stopping.Load(); got != c.wantStopping {
				t.Errorf("stopping = %v, want %v", got, c.wantStopping)
			}
			if got := log.messages(t); !slices.Equal(got, c.wantLog) {
				t.Errorf("logged %q, want %q", got, c.wantLog)
			}
		})
	}
}

// TestCloseWhenStopping: admission answers keep the connection open until
// the process is stopping, and ask the client to close it from then on,
// so that the API server's next call opens a new connection, which the
// Service sends to a ready replica.
func TestCloseWhenStopping(t *testing.T) {
	for _, c := range []struct {
		name      string
		stopping  bool
		wantClose bool
	}{
		{name: "serving", stopping: false, wantClose: false},
		{name: "stopping", stopping: true, wantClose: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &shutdownDelay{delay: time.Hour}
			d.stopping.Store(c.stopping)
			srv := httptest.NewServer(d.closeWhenStopping(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Write([]byte("answer"))
			})))
			defer srv.Close()
			resp, err := http.Post(srv.URL, "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status %d, want 200: the request is still served", resp.StatusCode)
			}
			if resp.Close != c.wantClose {
				t.Errorf("the server closes the connection after the answer: %v, want %v", resp.Close, c.wantClose)
			}
		})
	}
}

// logLines records the messages of JSON log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

func (l *logLines) messages(t *testing.T) []string {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var msgs []string
	for _, line := range l.lines {
		var entry struct {
			Msg string `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		msgs = append(msgs, entry.Msg)
	}
	return msgs
}

// TestShutdownDelayFlag: a negative --shutdown-delay stops `webhook` and
// `manager` before they start anything, saying what to give.
func TestShutdownDelayFlag(t *testing.T) {
	for _, command := range []string{"webhook", "manager"} {
		t.Run(command, func(t *testing.T) {
			_, stderr, code := run(t, "", command, "--kubeconfig", unreachableKubeconfig(t), "--shutdown-delay=-1s")
			if want := "error: --shutdown-delay -1s: use a duration of 0 or more, such as 15s"; code == 0 || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, stderr:\n%s\nwant %q", code, stderr, want)
			}
		})
	}
}
