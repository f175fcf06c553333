// Package wstest is the WebSocket end of the traffic tests: an echo
// handler for backends and a client that upgrades a TLS connection through
// a router and expects its message back. It implements just enough of
// RFC 6455 for that (one short text frame each way), so that the tests
// need no WebSocket library.
//
// It imports nothing of routeshift's; only tests may import it.
package wstest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Echo answers a WebSocket upgrade and echoes one text frame.
func Echo(w http.ResponseWriter, req *http.Request) {
	if !strings.EqualFold(req.Header.Get("Upgrade"), "websocket") || req.Header.Get("Sec-WebSocket-Key") == "" {
		http.Error(w, "not a WebSocket upgrade", http.StatusBadRequest)
		return
	}
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(rw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
		accept(req.Header.Get("Sec-WebSocket-Key")))
	if rw.Flush() != nil {
		return
	}
	payload, err := readFrame(rw.Reader)
	if err != nil {
		return
	}
	_ = writeFrame(rw.Writer, payload, false)
	_ = rw.Flush()
}

// RoundTrip connects to addr over TLS with SNI host (not verifying the
// certificate: routers' default ones are self-signed), upgrades GET /chat
// to a WebSocket, sends message and returns an error unless it comes back.
func RoundTrip(addr, host, message string) error {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr,
		&tls.Config{ServerName: host, InsecureSkipVerify: true})
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	key := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef"))
	req, _ := http.NewRequest(http.MethodGet, "https://"+host+"/chat", nil)
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Key", key)
	req.Header.Set("Sec-WebSocket-Version", "13")
	if err := req.Write(conn); err != nil {
		return err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return fmt.Errorf("reading the upgrade response: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != accept(key) {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("upgrade answered %s (Accept %q): %q", resp.Status, resp.Header.Get("Sec-WebSocket-Accept"), body)
	}
	if err := writeFrame(conn, []byte(message), true); err != nil {
		return err
	}
	echo, err := readFrame(br)
	if err != nil {
		return fmt.Errorf("reading the echoed frame: %w", err)
	}
	if string(echo) != message {
		return fmt.Errorf("echo %q, want %q", echo, message)
	}
	return nil
}

func accept(key string) string {
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// writeFrame writes one final text frame, masked as clients must.
func writeFrame(w io.Writer, payload []byte, masked bool) error {
	if len(payload) > 125 {
		return errors.New("payload too long for this test")
	}
	head := []byte{0x81, byte(len(payload))}
	body := bytes.Clone(payload)
	if masked {
		head[1] |= 0x80
		var key [4]byte
		_, _ = rand.Read(key[:])
		head = append(head, key[:]...)
		for i := range body {
			body[i] ^= key[i%4]
		}
	}
	_, err := w.Write(append(head, body...))
	return err
}

// readFrame reads one text frame and returns its (unmasked) payload.
func readFrame(r *bufio.Reader) ([]byte, error) {
	var head [2]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	if head[0]&0x0f != 1 {
		return nil, fmt.Errorf("frame opcode %d, want 1 (text)", head[0]&0x0f)
	}
	n := uint64(head[1] & 0x7f)
	switch n {
	case 126:
		var ext [2]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return nil, err
		}
		n = uint64(binary.BigEndian.Uint16(ext[:]))
	case 127:
		return nil, errors.New("frame too long for this test")
	}
	var key [4]byte
	masked := head[1]&0x80 != 0
	if masked {
		if _, err := io.ReadFull(r, key[:]); err != nil {
			return nil, err
		}
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return nil, err
	}
	if masked {
		for i := range payload {
			payload[i] ^= key[i%4]
		}
	}
	return payload, nil
}
