package haproxy

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/routeshift/routeshift/routecore"
)

// TestTrafficRewriteTarget: the rewrite-target annotation changes the path
// the endpoint sees; the query string stays.
func TestTrafficRewriteTarget(t *testing.T) {
	r := newTrafficRouter(t)
	r.endpoints("ns", "echo", newBackend(t, "echo", func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprint(w, req.URL.RequestURI())
	}, nil))
	for i, c := range []struct{ name, host, path, target string }{
		{"to-root", "root.example.com", "/api", "/"},
		{"to-v2", "v2.example.com", "/api/", "/v2"},
		{"encoded", "enc.example.com", "/api", "/caf%C3%A9/"},
		{"whole-host", "host.example.com", "", "/app"},
	} {
		r.route(rt("ns", c.name, c.host, i+1, toService("echo"), withPath(c.path), annotated(routecore.AnnRewriteTarget, c.target)))
	}
	r.route(rt("ns", "plain", "plain.example.com", 10, toService("echo"), withPath("/api")))
	r.start()
	for _, c := range []struct{ host, path, want string }{
		{"root.example.com", "/api/users?id=1", "/users?id=1"},
		{"root.example.com", "/api", "/"},
		{"v2.example.com", "/api/users?id=1", "/v2/users?id=1"},
		{"v2.example.com", "/api/", "/v2/"},
		{"enc.example.com", "/api/x", "/caf%C3%A9/x"},
		{"host.example.com", "/index.html", "/app/index.html"},
		{"plain.example.com", "/api/users", "/api/users"},
	} {
		if x := r.get(c.host, c.path); x.err != nil || x.code != http.StatusOK || x.body != c.want {
			t.Errorf("http://%s%s: %v, want the endpoint to see %q", c.host, c.path, x, c.want)
		}
	}
}

// TestTrafficTunnelTimeout: the timeout-tunnel annotation closes an idle
// WebSocket: neither end closes it (both wait far longer than the default
// tunnel timeout of an hour allows the test to), yet both see it closed.
func TestTrafficTunnelTimeout(t *testing.T) {
	// The backend upgrades, then waits for a frame that never comes and
	// reports how the wait ended.
	backendEnd := make(chan error, 1)
	r := newTrafficRouter(t)
	r.endpoints("ns", "ws", newBackend(t, "ws", func(w http.ResponseWriter, req *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			backendEnd <- err
			return
		}
		defer conn.Close()
		sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
			base64.StdEncoding.EncodeToString(sum[:]))
		_ = rw.Flush()
		_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second)) // bounds the test only
		_, err = rw.ReadByte()
		backendEnd <- err
	}, nil))
	r.route(rt("ns", "ws", "ws.example.com", 1, toService("ws"), annotated(routecore.AnnTimeoutTunnel, "1s")))
	r.start()

	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPPort)), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET / HTTP/1.1\r\nHost: ws.example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %v, %v", resp, err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second)) // bounds the test only
	_, err = br.ReadByte()
	for side, err := range map[string]error{"client": err, "backend": <-backendEnd} {
		// Closed by the router: an end of file or a reset, not the
		// deadline.
		if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("idle WebSocket, %s side: read ended with %v, want the router to close it", side, err)
		}
	}
}
