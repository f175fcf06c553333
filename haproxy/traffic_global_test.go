package haproxy

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
)

// Real traffic for router-wide settings on the listeners: the PROXY
// protocol, the statistics listener and compression.

// rawGet sends one GET for host on conn and reads the answer.
func rawGet(conn net.Conn, host string, header ...string) reply {
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	var req strings.Builder
	fmt.Fprintf(&req, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", host)
	for i := 0; i < len(header); i += 2 {
		fmt.Fprintf(&req, "%s: %s\r\n", header[i], header[i+1])
	}
	req.WriteString("\r\n")
	if _, err := io.WriteString(conn, req.String()); err != nil {
		return reply{err: err}
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return reply{code: resp.StatusCode, body: string(body), header: resp.Header, err: err}
}

// TestTrafficProxyProtocol: with ROUTER_USE_PROXY_PROTOCOL a connection that
// starts with a PROXY v1 header is served on the HTTP and the HTTPS port,
// and the endpoint sees the header's source address in X-Forwarded-For;
// a connection without the header is not served.
func TestTrafficProxyProtocol(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.UseProxyProtocol = true })
	b := newBackend(t, "web", func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprint(w, req.Header.Get("X-Forwarded-For"))
	}, nil)
	r.endpoints("ns", "web", b)
	r.route(rt("ns", "web", "web.example.com", 1, toService("web")))
	r.route(rt("ns", "edge", "edge.example.com", 2, toService("web"), terminated(routecore.TLSTerminationEdge, "", nil, nil)))
	r.start()

	dial := func(port int, proxyHeader string) net.Conn {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		if proxyHeader != "" {
			if _, err := io.WriteString(conn, proxyHeader); err != nil {
				t.Fatal(err)
			}
		}
		return conn
	}
	proxyLine := func(source string, port int) string {
		return fmt.Sprintf("PROXY TCP4 %s 127.0.0.1 40123 %d\r\n", source, port)
	}

	t.Run("HTTP_with_PROXY_header", func(t *testing.T) {
		x := rawGet(dial(r.cfg.HTTPPort, proxyLine("192.0.2.55", r.cfg.HTTPPort)), "web.example.com")
		if !x.served("web") || x.body != "192.0.2.55" {
			t.Errorf("%v, want served with X-Forwarded-For 192.0.2.55", x)
		}
	})
	t.Run("HTTPS_with_PROXY_header", func(t *testing.T) {
		conn := tls.Client(dial(r.cfg.HTTPSPort, proxyLine("198.51.100.7", r.cfg.HTTPSPort)),
			&tls.Config{ServerName: "edge.example.com", InsecureSkipVerify: true}) //nolint:gosec // the default certificate is self-signed
		x := rawGet(conn, "edge.example.com")
		if !x.served("web") || x.body != "198.51.100.7" {
			t.Errorf("%v, want served with X-Forwarded-For 198.51.100.7", x)
		}
	})
	t.Run("without_PROXY_header_not_served", func(t *testing.T) {
		before := b.hits.Load()
		if x := rawGet(dial(r.cfg.HTTPPort, ""), "web.example.com"); x.err == nil && x.code < 400 {
			t.Errorf("HTTP without a PROXY header: %v, want the connection refused", x)
		}
		conn := tls.Client(dial(r.cfg.HTTPSPort, ""), &tls.Config{ServerName: "edge.example.com", InsecureSkipVerify: true}) //nolint:gosec // as above
		if x := rawGet(conn, "edge.example.com"); x.err == nil {
			t.Errorf("HTTPS without a PROXY header: %v, want the connection refused", x)
		}
		if b.hits.Load() != before {
			t.Error("a connection without a PROXY header reached the endpoint")
		}
	})
}

// TestTrafficStatsListener: STATS_PORT serves HAProxy's statistics to
// STATS_USERNAME/STATS_PASSWORD only (401 without or with wrong
// credentials), and /healthz there to anyone.
func TestTrafficStatsListener(t *testing.T) {
	const user, password = "admin", "p@ss w'rd:1"
	r := newTrafficRouter(t, func(d *proxyconfig.Config) {
		d.StatsPort, d.StatsUsername, d.StatsPassword = freePorts(t, 1)[0], user, password
	})
	r.endpoints("ns", "web", newBackend(t, "web", nil, nil))
	r.route(rt("ns", "web", "web.example.com", 1, toService("web")))
	r.start()

	get := func(path string, auth ...string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", r.cfg.StatsPort, path), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(auth) == 2 {
			req.SetBasicAuth(auth[0], auth[1])
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, c := range []struct {
		what string
		auth []string
	}{{"without credentials", nil}, {"with a wrong password", []string{user, "p@ss w'rd"}}, {"with a wrong user", []string{"root", password}}} {
		if code, _ := get("/", c.auth...); code != http.StatusUnauthorized {
			t.Errorf("statistics %s: %d, want 401", c.what, code)
		}
	}
	if code, body := get("/", user, password); code != http.StatusOK || !strings.Contains(body, "Statistics Report") {
		t.Errorf("statistics with the credentials: %d, want 200 with the report:\n%.300s", code, body)
	}
	if code, body := get("/;csv", user, password); code != http.StatusOK || !strings.Contains(body, "\nbe_http:ns:web,BACKEND,") {
		t.Errorf("CSV statistics with the credentials: %d, want 200 with the route's backend:\n%.300s", code, body)
	}
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz on the statistics port: %d, want 200 without credentials", code)
	}
}

// TestTrafficCompression: ROUTER_ENABLE_COMPRESSION with
// ROUTER_COMPRESSION_MIME text/plain gzips text/plain responses for
// clients that accept gzip, and leaves other types and other clients
// alone.
func TestTrafficCompression(t *testing.T) {
	text := strings.Repeat("routeshift compresses text/plain responses. ", 200)
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.EnableCompression, d.CompressionMIME = true, "text/plain" })
	r.endpoints("ns", "web", newBackend(t, "web", func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/text":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		fmt.Fprint(w, text)
	}, nil))
	r.route(rt("ns", "web", "web.example.com", 1, toService("web")))
	r.start()

	client := r.client(clientOptions{})
	for _, c := range []struct {
		path, acceptEncoding string
		gzipped              bool
	}{
		{"/text", "gzip", true},
		{"/text", "gzip, deflate, br", true},
		{"/text", "identity", false},
		{"/html", "gzip", false},
	} {
		// Setting Accept-Encoding turns off the transport's own gzip
		// handling: the body is what the router sent.
		x := fetch(client, "http://web.example.com"+c.path, "Accept-Encoding", c.acceptEncoding)
		what := fmt.Sprintf("%s with Accept-Encoding %q", c.path, c.acceptEncoding)
		if !x.served("web") {
			t.Errorf("%s: %v", what, x)
			continue
		}
		body := x.body
		if enc := x.header.Get("Content-Encoding"); (enc == "gzip") != c.gzipped {
			t.Errorf("%s: Content-Encoding %q, want gzip %v", what, enc, c.gzipped)
			continue
		}
		if c.gzipped {
			zr, err := gzip.NewReader(bytes.NewReader([]byte(x.body)))
			if err != nil {
				t.Errorf("%s: not gzip: %v", what, err)
				continue
			}
			b, err := io.ReadAll(zr)
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
			body = string(b)
			if len(x.body) >= len(text) {
				t.Errorf("%s: %d bytes compressed for %d", what, len(x.body), len(text))
			}
		}
		if body != text {
			t.Errorf("%s: the body differs from the endpoint's (%d bytes, want %d)", what, len(body), len(text))
		}
	}
}
