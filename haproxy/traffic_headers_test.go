package haproxy

import (
	"bufio"
	"bytes"
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

// Headers between clients and endpoints: the per-route forwarded-headers
// policy, header-name case for HTTP/1 peers that expect one, the router's
// one "not available" page.

// TestTrafficForwardedHeadersPerRoute: a route's set-forwarded-headers
// annotation replaces ROUTER_SET_FORWARDED_HEADERS (replace here) for that
// route only, over HTTP and TLS; X-SSL* headers from clients never reach
// the endpoints, whatever the policy.
func TestTrafficForwardedHeadersPerRoute(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.ForwardedHeaders = "replace" })
	r.endpoints("ns", "web", newBackend(t, "web", func(w http.ResponseWriter, req *http.Request) {
		for _, h := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Port", "X-Forwarded-Proto"} {
			fmt.Fprintf(w, "%s: %s\n", h, strings.Join(req.Header.Values(h), ", "))
		}
		for h := range req.Header {
			if strings.HasPrefix(strings.ToLower(h), "x-ssl") {
				fmt.Fprintf(w, "forged %s reached the endpoint\n", h)
			}
		}
	}, nil))
	edge := terminated(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyAllow, nil, nil)
	for i, policy := range []string{"", "append", "replace", "if-none", "never"} {
		name := "default"
		if policy != "" {
			name = policy
		}
		r.route(rt("ns", name, name+".example.com", i+1, toService("web"), edge, annotated(routecore.AnnSetForwardedHeaders, policy)))
	}
	r.start()

	spoofed := []string{"X-Forwarded-For", "192.0.2.7", "X-Forwarded-Host", "evil.example.com", "X-Forwarded-Port", "1234", "X-Forwarded-Proto", "gopher",
		"X-SSL-Client-DN", "/CN=admin", "x-ssl-client-verify", "0", "X-Ssl", "1"}
	for _, c := range []struct {
		host                  string
		xff, xfh, port, proto string // with the client's spoofed headers
		fresh                 bool   // without them, the router adds all four
	}{
		{"default.example.com", "127.0.0.1", "default.example.com", "PORT", "PROTO", true},
		{"append.example.com", "192.0.2.7, 127.0.0.1", "append.example.com", "PORT", "PROTO", true},
		{"replace.example.com", "127.0.0.1", "replace.example.com", "PORT", "PROTO", true},
		{"if-none.example.com", "192.0.2.7", "evil.example.com", "1234", "gopher", true},
		{"never.example.com", "192.0.2.7", "evil.example.com", "1234", "gopher", false},
	} {
		for _, scheme := range []string{"http", "https"} {
			port := strconv.Itoa(r.cfg.HTTPPort)
			if scheme == "https" {
				port = strconv.Itoa(r.cfg.HTTPSPort)
			}
			fill := strings.NewReplacer("PORT", port, "PROTO", scheme).Replace
			url := scheme + "://" + c.host + "/"
			x := fetch(r.client(clientOptions{}), url, spoofed...)
			want := fill(fmt.Sprintf("X-Forwarded-For: %s\nX-Forwarded-Host: %s\nX-Forwarded-Port: %s\nX-Forwarded-Proto: %s\n", c.xff, c.xfh, c.port, c.proto))
			if x.err != nil || x.body != want {
				t.Errorf("%s with spoofed headers: %v\nbackend saw:\n%s\nwant:\n%s", url, x, x.body, want)
			}
			want = fill(fmt.Sprintf("X-Forwarded-For: 127.0.0.1\nX-Forwarded-Host: %s\nX-Forwarded-Port: PORT\nX-Forwarded-Proto: PROTO\n", c.host))
			if !c.fresh {
				want = "X-Forwarded-For: \nX-Forwarded-Host: \nX-Forwarded-Port: \nX-Forwarded-Proto: \n"
			}
			if x = fetch(r.client(clientOptions{}), url); x.err != nil || x.body != want {
				t.Errorf("%s without client headers: %v\nbackend saw:\n%s\nwant:\n%s", url, x, x.body, want)
			}
		}
	}
}

// rawBackend is a TCP server that records the head of each HTTP/1 request
// exactly as it arrives, and answers with reply.
type rawBackend struct {
	ip    string
	port  int32
	heads chan string
}

func newRawBackend(t *testing.T, reply string) *rawBackend {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	b := &rawBackend{ip: "127.0.0.1", port: int32(l.Addr().(*net.TCPAddr).Port), heads: make(chan string, 16)}
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go b.serve(conn, reply)
		}
	}()
	return b
}

func (b *rawBackend) serve(conn net.Conn, reply string) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	var head bytes.Buffer
	rd := bufio.NewReader(conn)
	for {
		line, err := rd.ReadString('\n')
		head.WriteString(line)
		if err != nil {
			return // a health check, or a client gone
		}
		if line == "\r\n" {
			break
		}
	}
	b.heads <- head.String()
	_, _ = io.WriteString(conn, reply)
}

// rawRequest sends a request head to the router's HTTP port and returns
// the response as received.
func (r *trafficRouter) rawRequest(t *testing.T, head string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPPort)), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	resp, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	return string(resp)
}

// TestTrafficH1AdjustCase: HAProxy writes HTTP/1 header names in lower
// case; with ROUTER_H1_CASE_ADJUST the names listed there reach the
// endpoints of routes annotated h1-adjust-case in the case given, and
// clients of every route get them so in responses. Routes without the
// annotation send lower-case names.
func TestTrafficH1AdjustCase(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.H1CaseAdjust = []string{"X-Custom-Header", "X-Reply"} })
	reply := "HTTP/1.1 200 OK\r\nx-reply: yes\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok"
	adjusted, plain := newRawBackend(t, reply), newRawBackend(t, reply)
	r.store.SetEndpointSlice(endpointSlice("ns", "adjusted", "adjusted-1", adjusted.ip, adjusted.port))
	r.store.SetEndpointSlice(endpointSlice("ns", "plain", "plain-1", plain.ip, plain.port))
	r.route(rt("ns", "adjusted", "adjusted.example.com", 1, toService("adjusted"), annotated(routecore.AnnH1AdjustCase, "true")))
	r.route(rt("ns", "plain", "plain.example.com", 2, toService("plain")))
	r.start()

	for _, c := range []struct {
		host      string
		backend   *rawBackend
		wantLine  string
		wrongLine string
	}{
		{"adjusted.example.com", adjusted, "X-Custom-Header: value\r\n", "x-custom-header: value\r\n"},
		{"plain.example.com", plain, "x-custom-header: value\r\n", "X-Custom-Header: value\r\n"},
	} {
		resp := r.rawRequest(t, "GET / HTTP/1.1\r\nHost: "+c.host+"\r\nx-CUSTOM-header: value\r\nConnection: close\r\n\r\n")
		if !strings.HasPrefix(resp, "HTTP/1.1 200") || !strings.Contains(resp, "\r\nX-Reply: yes\r\n") {
			t.Errorf("%s: the client got\n%s\nwant 200 with the header name X-Reply", c.host, resp)
		}
		select {
		case head := <-c.backend.heads:
			if !strings.Contains(head, c.wantLine) || strings.Contains(head, c.wrongLine) {
				t.Errorf("%s: the endpoint got\n%s\nwant the line %q", c.host, head, c.wantLine)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the endpoint got no request", c.host)
		}
	}
}

// TestTrafficNotAvailable: a route without ready endpoints and a request no
// route matches answer with the same page, the router's own 503, over
// HTTP/1.1 and HTTP/2.
func TestTrafficNotAvailable(t *testing.T) {
	r := newTrafficRouter(t)
	r.route(rt("ns", "empty", "empty.example.com", 1, toService("nothing")))
	r.start()
	page := string(errorPage503())
	wantBody := page[strings.Index(page, "\r\n\r\n")+4:]
	h2c := r.client(clientOptions{})
	h2c.Transport.(*http.Transport).Protocols = new(http.Protocols)
	h2c.Transport.(*http.Transport).Protocols.SetUnencryptedHTTP2(true)
	for _, c := range []struct{ what, host string }{{"a route without endpoints", "empty.example.com"}, {"a host no route serves", "unknown.example.com"}} {
		for _, client := range []*http.Client{r.client(clientOptions{}), h2c} {
			x := fetch(client, "http://"+c.host+"/")
			if x.err != nil || x.code != http.StatusServiceUnavailable || x.body != wantBody || x.header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("%s: %v (Content-Type %q), want the router's 503 page", c.what, x, x.header.Get("Content-Type"))
			}
		}
	}
}
