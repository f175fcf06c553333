package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestDrainOnStop: once the signal context ends, /healthz/ready answers
// 503 while the router's own context lives on for the drain period;
// /healthz stays 200 (the kubelet must not restart a draining router).
func TestDrainOnStop(t *testing.T) {
	h := &routerHealth{ready: func() bool { return true }, registry: prometheus.NewRegistry()}
	srv := httptest.NewServer(h.mux())
	defer srv.Close()
	if code, body := get(t, srv.URL+"/healthz/ready"); code != http.StatusOK {
		t.Fatalf("/healthz/ready before the signal: %d %q, want 200", code, body)
	}
	signalled, signal := context.WithCancel(context.Background())
	run, stop := drainOnStop(signalled, time.Hour, &h.draining)
	defer stop()
	signal()
	waitFor503(t, srv.URL+"/healthz/ready")
	if code, body := get(t, srv.URL+"/healthz/ready"); !strings.Contains(body, "the router is stopping") {
		t.Errorf("/healthz/ready while draining: %d %q, want it to say the router is stopping", code, body)
	}
	if code, body := get(t, srv.URL+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz while draining: %d %q, want 200", code, body)
	}
	if run.Err() != nil {
		t.Fatal("the router's context ended as the signal came, before the drain period")
	}
	stop()
	<-run.Done()
}

// TestDrainOnStopWithoutPeriod: with ROUTER_DRAIN_SECONDS 0 the router's
// context ends with the signal context, readiness failed first.
func TestDrainOnStopWithoutPeriod(t *testing.T) {
	h := &routerHealth{ready: func() bool { return true }}
	signalled, signal := context.WithCancel(context.Background())
	run, stop := drainOnStop(signalled, 0, &h.draining)
	defer stop()
	signal()
	select {
	case <-run.Done():
	case <-time.After(time.Minute):
		t.Fatal("the router's context did not end after the signal")
	}
	if !h.draining.Load() {
		t.Error("the router's context ended before readiness failed")
	}
}

func waitFor503(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		code, body := get(t, url)
		if code == http.StatusServiceUnavailable {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d %q, want 503 after the signal", url, code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
