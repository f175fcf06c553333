package webhook

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSlowBodyIsCutOff: a client that sends its headers and then only part
// of the body, through TLS to the webhook server as New registers it, gets
// a 400 once BodyReadTimeout has passed, over HTTP/1.1 and over HTTP/2 (the
// API server's protocol), instead of holding the connection while it
// keeps it open. The client never sends the rest, so without a deadline
// the server would wait forever (until the test's own timeout).
func TestSlowBodyIsCutOff(t *testing.T) {
	url, client := startBenchServer(t)
	t.Run("HTTP/1.1", func(t *testing.T) {
		conn, err := tls.Dial("tcp", strings.TrimPrefix(url, "https://"), client.Transport.(*http.Transport).TLSClientConfig)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// A deadline to wait, not a margin: the answer is due after BodyReadTimeout.
		_ = conn.SetDeadline(time.Now().Add(2 * time.Minute))
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: webhook\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"kind\":", MutatePath)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer to a request whose body stopped: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"code":400`) || !strings.Contains(string(body), "timeout") {
			t.Errorf("answer %d %s; want an AdmissionReview refusing the request with 400 for the read timeout", resp.StatusCode, body)
		}
	})
	t.Run("HTTP/2", func(t *testing.T) {
		pool := client.Transport.(*http.Transport).TLSClientConfig.RootCAs
		h2 := &http.Client{Transport: &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{RootCAs: pool}}}
		body, stalled := io.Pipe()
		defer stalled.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+MutatePath, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		go func() { _, _ = stalled.Write([]byte(`{"kind":`)) }()
		resp, err := h2.Do(req)
		if err != nil {
			t.Fatalf("no answer to a request whose body stopped: %v", err)
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		if resp.ProtoMajor != 2 || !strings.Contains(string(answer), `"code":400`) || !strings.Contains(string(answer), "timeout") {
			t.Errorf("answer over HTTP/%d: %d %s; want an AdmissionReview refusing the request with 400 for the read timeout", resp.ProtoMajor, resp.StatusCode, answer)
		}
	})
}
