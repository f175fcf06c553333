package haproxy

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
)

// Real traffic for the global settings that change what clients see:
// error pages, TLS versions, and how long replaced configurations serve.

// TestTrafficErrorFiles: ROUTER_ERRORFILE_404 answers requests no route
// matches; ROUTER_ERRORFILE_503 answers for a route without endpoints.
func TestTrafficErrorFiles(t *testing.T) {
	page503 := writeTempFile(t, "503.http", "HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/html\r\nCache-Control: no-cache\r\n\r\n<h1>we are down</h1>\n")
	page404 := writeTempFile(t, "404.http", "HTTP/1.0 404 Not Found\r\nContent-Type: text/html\r\nCache-Control: no-cache\r\n\r\n<h1>no such site</h1>\n")
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.ErrorFile503, d.ErrorFile404 = page503, page404 })
	r.endpoints("ns", "web", newBackend(t, "web", nil, nil))
	r.route(rt("ns", "web", "web.example.com", 1, toService("web")))
	r.route(rt("ns", "empty", "empty.example.com", 2, toService("nothing")))
	r.start()

	wantServed(t, "a route with an endpoint", r.get("web.example.com", "/"), "web")
	for _, c := range []struct {
		host, what string
		code       int
		body       string
	}{
		{"unknown.example.com", "a host no route claims", http.StatusNotFound, "<h1>no such site</h1>"},
		{"empty.example.com", "a route without endpoints", http.StatusServiceUnavailable, "<h1>we are down</h1>"},
	} {
		if x := r.get(c.host, "/"); x.err != nil || x.code != c.code || !strings.Contains(x.body, c.body) {
			t.Errorf("%s: %v, want %d with %q", c.what, x, c.code, c.body)
		}
	}
}

// TestTrafficTLSVersions: SSL_MIN_VERSION refuses older clients.
func TestTrafficTLSVersions(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.SSLMinVersion = "TLSv1.3" })
	r.endpoints("ns", "web", newBackend(t, "web", nil, nil))
	r.route(rt("ns", "edge", "secure.example.com", 1, toService("web"), terminated("edge", "", nil, nil)))
	r.start()
	dial := func(maxVersion uint16) (uint16, error) {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPSPort)),
			&tls.Config{ServerName: "secure.example.com", InsecureSkipVerify: true, MaxVersion: maxVersion}) //nolint:gosec // the default certificate is self-signed
		if err != nil {
			return 0, err
		}
		defer conn.Close()
		return conn.ConnectionState().Version, nil
	}
	if v, err := dial(tls.VersionTLS12); err == nil {
		t.Errorf("a TLS 1.2 client connected (version %x) under SSL_MIN_VERSION=TLSv1.3", v)
	}
	if v, err := dial(0); err != nil || v != tls.VersionTLS13 {
		t.Errorf("a TLS 1.3 client: version %x, %v; want TLS 1.3", v, err)
	}
}

// TestTrafficHardStopAfter: a reload with ROUTER_HARD_STOP_AFTER set cuts
// a transfer the previous worker still serves: the client's connection
// ends, and the backend sees its client go before it has sent everything.
func TestTrafficHardStopAfter(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.HardStopAfter = time.Second })
	// The backend streams a line every 100ms for 30s, and says whether it
	// got to the end.
	finished := make(chan bool, 1)
	r.endpoints("ns", "stream", newBackend(t, "stream", func(w http.ResponseWriter, req *http.Request) {
		f := w.(http.Flusher)
		for i := range 300 {
			if _, err := fmt.Fprintf(w, "line %d\n", i); err != nil {
				finished <- false
				return
			}
			f.Flush()
			select {
			case <-req.Context().Done():
				finished <- false
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
		finished <- true
	}, nil))
	r.route(rt("ns", "stream", "stream.example.com", 1, toService("stream")))
	r.start()

	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPPort)), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The deadline only bounds the test: the transfer would run for 30s.
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: stream.example.com\r\n\r\n")
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(conn)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	// Wait for the transfer to run before the reload.
	running := false
	for l := range lines {
		if running = strings.HasPrefix(l, "line 1"); running {
			break
		}
	}
	if !running {
		t.Fatal("the transfer ended before the reload")
	}

	before := r.reloads()
	r.route(rt("ns", "other", "other.example.com", 2, toService("stream")))
	r.publish()
	r.waitReloads(before + 1)
	for range lines { // until the connection ends
	}
	select {
	case done := <-finished:
		if done {
			t.Error("the backend sent its whole stream: the old worker was not stopped")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the backend still streams after its client's connection ended")
	}
}

// TestTrafficForwardedHeaders: what the backend sees of the X-Forwarded-*
// headers a client sends, under each ROUTER_SET_FORWARDED_HEADERS policy.
func TestTrafficForwardedHeaders(t *testing.T) {
	spoofed := []string{"X-Forwarded-For", "192.0.2.7", "X-Forwarded-Host", "evil.example.com", "X-Forwarded-Proto", "https"}
	cases := []struct {
		policy          string
		xff, xfh, proto string // as the backend sees them, several values joined by ", "
	}{
		{"append", "192.0.2.7, 127.0.0.1", "web.example.com", "http"},
		{"replace", "127.0.0.1", "web.example.com", "http"},
		{"if-none", "192.0.2.7", "evil.example.com", "https"},
		{"never", "192.0.2.7", "evil.example.com", "https"},
	}
	for _, c := range cases {
		t.Run(c.policy, func(t *testing.T) {
			r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.ForwardedHeaders = routecore.ForwardedHeadersPolicy(c.policy) })
			r.endpoints("ns", "web", newBackend(t, "web", func(w http.ResponseWriter, req *http.Request) {
				for _, h := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
					fmt.Fprintf(w, "%s: %s\n", h, strings.Join(req.Header.Values(h), ", "))
				}
			}, nil))
			r.route(rt("ns", "web", "web.example.com", 1, toService("web")))
			r.start()
			x := fetch(r.client(clientOptions{}), "http://web.example.com/", spoofed...)
			want := fmt.Sprintf("X-Forwarded-For: %s\nX-Forwarded-Host: %s\nX-Forwarded-Proto: %s\n", c.xff, c.xfh, c.proto)
			if x.err != nil || x.code != http.StatusOK || x.body != want {
				t.Errorf("with a client's spoofed headers: %v\nbackend saw:\n%s\nwant:\n%s", x, x.body, want)
			}
			// Without headers from the client, every policy but never adds them.
			x = r.get("web.example.com", "/")
			wantFresh := "X-Forwarded-For: 127.0.0.1\nX-Forwarded-Host: web.example.com\nX-Forwarded-Proto: http\n"
			if c.policy == "never" {
				wantFresh = "X-Forwarded-For: \nX-Forwarded-Host: \nX-Forwarded-Proto: \n"
			}
			if x.err != nil || x.body != wantFresh {
				t.Errorf("without client headers: %v\nbackend saw:\n%s\nwant:\n%s", x, x.body, wantFresh)
			}
		})
	}
}
