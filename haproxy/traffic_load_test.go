package haproxy

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A load generator for the reload tests: clients that send requests
// through the router without pause and count every request that does not
// get its backend's 200 as failed. They speak HTTP/1.1 on their own
// connections and never retry (Go's http.Transport retries idempotent
// requests on a reused connection the server closed, which would hide
// exactly the failures these tests look for); requests are POSTs, which no
// client may replay.

// loadClient is one client's way of connecting.
type loadClient int

const (
	// keepAlive sends request after request on one connection, as long
	// as the router keeps it open.
	keepAlive loadClient = iota
	// connectionClose sends each request on a new connection with
	// Connection: close.
	connectionClose
	// tlsKeepAlive is keepAlive over TLS (SNI the target's host), to an
	// edge route.
	tlsKeepAlive
)

func (c loadClient) String() string {
	return [...]string{"keep-alive", "Connection: close", "TLS keep-alive"}[c]
}

// loadTarget is what one client of a load generator asks for: host,
// answered by backend want.
type loadTarget struct {
	client     loadClient
	host, want string
}

// loadGenerator runs one client per target until finish.
type loadGenerator struct {
	mu     sync.Mutex
	counts map[loadClient]*[2]int64 // ok, failed
	errors []string
	stop   atomic.Bool
	wg     sync.WaitGroup
}

// loadCounts are a load generator's requests, by client.
type loadCounts map[loadClient][2]int64

// failed is the number of failed requests of every client.
func (c loadCounts) failed() (n int64) {
	for _, v := range c {
		n += v[1]
	}
	return n
}

// served is the number of requests served, of every client.
func (c loadCounts) served() (n int64) {
	for _, v := range c {
		n += v[0]
	}
	return n
}

func (c loadCounts) String() string {
	var parts []string
	for k := keepAlive; k <= tlsKeepAlive; k++ {
		if v, ok := c[k]; ok {
			parts = append(parts, fmt.Sprintf("%s: %d served, %d failed", k, v[0], v[1]))
		}
	}
	return strings.Join(parts, "; ")
}

func startLoad(r *trafficRouter, targets ...loadTarget) *loadGenerator {
	g := &loadGenerator{counts: map[loadClient]*[2]int64{}}
	for _, tg := range targets {
		if g.counts[tg.client] == nil {
			g.counts[tg.client] = &[2]int64{}
		}
		g.wg.Go(func() { g.run(r, tg) })
	}
	return g
}

// run sends requests for tg until the generator stops.
func (g *loadGenerator) run(r *trafficRouter, tg loadTarget) {
	var conn net.Conn
	var br *bufio.Reader
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	for !g.stop.Load() {
		if conn == nil {
			var err error
			if conn, err = r.dialLoad(tg); err != nil {
				g.count(tg, fmt.Errorf("connecting: %w", err))
				continue
			}
			br = bufio.NewReader(conn)
		}
		closed, err := loadRequest(conn, br, tg)
		g.count(tg, err)
		if err != nil || closed {
			conn.Close()
			conn = nil
		}
	}
}

// dialLoad connects a client to the router: the HTTP port, or the HTTPS
// port with TLS.
func (r *trafficRouter) dialLoad(tg loadTarget) (net.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if tg.client == tlsKeepAlive {
		return tls.DialWithDialer(d, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPSPort)),
			&tls.Config{ServerName: tg.host, InsecureSkipVerify: true})
	}
	return d.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPPort)))
}

// loadRequest sends one request on conn and reads the answer; closed says
// the connection is not to be used again.
func loadRequest(conn net.Conn, br *bufio.Reader, tg loadTarget) (closed bool, err error) {
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	header := "POST / HTTP/1.1\r\nHost: " + tg.host + "\r\nContent-Length: 4\r\n"
	if tg.client == connectionClose {
		header += "Connection: close\r\n"
	}
	if _, err := io.WriteString(conn, header+"\r\nping"); err != nil {
		return true, fmt.Errorf("sending: %w", err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return true, fmt.Errorf("reading the response: %w", err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch {
	case err != nil:
		return true, fmt.Errorf("reading the body: %w", err)
	case resp.StatusCode != http.StatusOK || resp.Header.Get("X-Backend") != tg.want:
		return resp.Close, fmt.Errorf("%s from %q", resp.Status, resp.Header.Get("X-Backend"))
	}
	return resp.Close || tg.client == connectionClose, nil
}

// count records a request's outcome (err nil: served).
func (g *loadGenerator) count(tg loadTarget, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err == nil {
		g.counts[tg.client][0]++
		return
	}
	g.counts[tg.client][1]++
	if len(g.errors) < 10 {
		g.errors = append(g.errors, fmt.Sprintf("%s %s %s: %v", time.Now().Format("15:04:05.000"), tg.client, tg.host, err))
	}
}

// finish stops the clients and returns their counts and the first errors.
func (g *loadGenerator) finish() (loadCounts, []string) {
	g.stop.Store(true)
	g.wg.Wait()
	out := loadCounts{}
	for k, v := range g.counts {
		out[k] = *v
	}
	return out, g.errors
}
