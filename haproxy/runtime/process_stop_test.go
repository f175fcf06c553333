package runtime

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// blockingEndpoint is an HTTP server whose requests wait until the test
// ends; arrived receives a value as each request arrives. It returns its
// port.
func blockingEndpoint(t *testing.T) (port int, arrived <-chan struct{}) {
	t.Helper()
	release, ch := make(chan struct{}), make(chan struct{}, 8)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ch <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, "late")
	}))
	t.Cleanup(func() { close(release); s.Close() })
	return s.Listener.Addr().(*net.TCPAddr).Port, ch
}

// TestProcessStop: Stop ends HAProxy at once when nothing is in progress;
// a connection left idle only by a relay does not keep it once no request
// has been in progress for a while; a request still in progress after
// StopTimeout has its connection closed. Each time HAProxy exits.
func TestProcessStop(t *testing.T) {
	t.Run("never started", func(t *testing.T) {
		h := newHarness(t)
		h.p.Stop(h.ctx)
		if !h.p.Stopping() || h.p.Exited() != nil {
			t.Errorf("Stopping() = %v, Exited() = %v", h.p.Stopping(), h.p.Exited())
		}
	})

	t.Run("idle", func(t *testing.T) {
		h := newHarness(t)
		a := endpoint(t, "a")
		h.apply(output(h.config("", "", backend("server s0 127.0.0.1:"+itoa(a))), Reason{Kind: "first configuration"}), true)
		h.serves("/", "a")
		if h.p.StopTimeout() != 5*time.Second {
			t.Errorf("StopTimeout() = %v", h.p.StopTimeout())
		}
		h.p.Stop(h.ctx)
		h.stopped("HAProxy stopped")
	})

	t.Run("relay", func(t *testing.T) {
		h := newHarness(t, func(c *Config) { c.RelayBackends = []string{"relay"} })
		a, relayPort := endpoint(t, "a"), freePort(t)
		relay := fmt.Sprintf("listen relay from common\n  mode tcp\n  bind 127.0.0.1:%d\n  server s0 127.0.0.1:%d\n", relayPort, a)
		h.apply(output(h.config("", "", backend("server s0 127.0.0.1:"+itoa(a))+relay), Reason{Kind: "first configuration"}), true)
		// A kept-alive connection through the relay, idle after its
		// request.
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", relayPort))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != "a" {
			t.Fatalf("through the relay: %q", body)
		}
		if stream, err := h.p.busy(); err != nil || stream != "" {
			t.Fatalf("busy() = %q, %v; want the relay's stream ignored", stream, err)
		}
		h.p.Stop(h.ctx)
		h.stopped("no request in progress any more")
	})

	t.Run("busy", func(t *testing.T) {
		h := newHarness(t, func(c *Config) { c.StopTimeout = 1500 * time.Millisecond })
		slow, arrived := blockingEndpoint(t)
		h.apply(output(h.config("", "", backend("server s0 127.0.0.1:"+itoa(slow))), Reason{Kind: "first configuration"}), true)
		failed := make(chan error, 1)
		go func() {
			status, _, err := h.get("/")
			if err == nil {
				err = fmt.Errorf("status %d", status)
			}
			failed <- err
		}()
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatal("the request did not reach the endpoint")
		}
		stream, err := h.p.busy()
		if err != nil || !strings.Contains(stream, " be=be ") {
			t.Fatalf("busy() = %q, %v; want the request's stream", stream, err)
		}
		h.p.Stop(h.ctx)
		h.stopped("still has requests in progress")
		if !h.logs.contains(`"stream"="0x`) {
			t.Errorf("the stream in progress is not logged:\n%s", h.logs)
		}
		select {
		case err := <-failed:
			if err == nil || strings.Contains(err.Error(), "status 200") {
				t.Errorf("the request cut short: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("the request in progress was not ended")
		}
	})
}

// stopped asserts that Stop left HAProxy exited, the Process not ready,
// and logged how the stop ended (how).
func (h *harness) stopped(how string) {
	h.t.Helper()
	if !closed(h.p.Exited()) {
		h.t.Error("HAProxy runs after Stop")
	}
	if h.p.Ready() || !h.p.Stopping() {
		h.t.Errorf("Ready() = %v, Stopping() = %v after Stop", h.p.Ready(), h.p.Stopping())
	}
	if !h.logs.contains(how) {
		h.t.Errorf("Stop did not log %q:\n%s", how, h.logs)
	}
	if _, _, err := h.get("/"); err == nil {
		h.t.Error("HAProxy answers after Stop")
	}
}
