package haproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
)

// Stopping with real traffic: when the data plane's context ends, HAProxy
// closes its listeners, finishes the requests in progress, and stops;
// requests that outlast ROUTER_HARD_STOP_AFTER are cut.

// serveStoppable starts the data plane as launch does, under a context
// the returned stop ends; done is closed when Serve returns, and *err is
// then what it returned.
func (r *trafficRouter) serveStoppable() (stop func(), done <-chan struct{}, err *error) {
	r.t.Helper()
	p, nerr := NewDataPlane(r.cfg, DataPlaneOptions{Metrics: r.metrics})
	if nerr != nil {
		r.t.Fatal(nerr)
	}
	r.p = p
	ctx, cancel := context.WithCancel(logf.IntoContext(context.Background(), testr.NewWithInterface(r.t, testr.Options{})))
	served, serveErr := make(chan struct{}), new(error)
	sub := r.feed.Subscribe()
	go func() {
		*serveErr = p.Serve(ctx, sub, r)
		close(served)
	}()
	r.t.Cleanup(func() {
		cancel()
		select {
		case <-served:
		case <-time.After(time.Minute):
			r.t.Error("DataPlane.Serve did not return within a minute of the end of its context")
		}
	})
	r.publish()
	eventually(r.t, 30*time.Second, "the process is ready", func() error {
		if !p.Ready() {
			return errors.New("not ready")
		}
		return nil
	})
	return cancel, served, serveErr
}

// heldBackend sends the start of its response ("held") at once and ends
// it ("held, released") once release is closed; started receives one
// value per request it holds.
func heldBackend(t *testing.T) (b *goBackend, started <-chan struct{}, release chan struct{}) {
	s := make(chan struct{}, 16)
	release = make(chan struct{})
	b = newBackend(t, "held", func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprint(w, "held")
		w.(http.Flusher).Flush()
		s <- struct{}{}
		select {
		case <-release:
			fmt.Fprint(w, ", released")
		case <-req.Context().Done():
		}
	}, nil)
	return b, s, release
}

// refusesConnections reports whether the HTTP port refuses new
// connections.
func (r *trafficRouter) refusesConnections() error {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(r.cfg.HTTPPort)), 5*time.Second)
	if err != nil {
		return nil
	}
	c.Close()
	return errors.New("the HTTP port still accepts connections")
}

// TestTrafficStopFinishesRequests: once stopped, HAProxy refuses new
// connections but serves the request in progress to its end, and then
// exits at once, though its client keeps the connection open for more
// requests (ROUTER_HARD_STOP_AFTER is far away).
func TestTrafficStopFinishesRequests(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.HardStopAfter = 10 * time.Minute })
	b, started, release := heldBackend(t)
	r.route(rt("shop", "held", "held.example.test", 1))
	r.endpoints("shop", "svc", b)
	stop, done, serveErr := r.serveStoppable()
	keepAlive := r.client(clientOptions{keepAlive: true, timeout: time.Minute})
	held := make(chan reply, 1)
	go func() { held <- fetch(keepAlive, "http://held.example.test/") }()
	<-started

	stop()
	eventually(t, 30*time.Second, "HAProxy closes its listeners", r.refusesConnections)
	select {
	case <-done:
		t.Fatalf("Serve returned (%v) while a request was in progress", *serveErr)
	case x := <-held:
		t.Fatalf("the request in progress ended (%v) before its backend answered", x)
	default:
	}
	close(release)
	if x := <-held; !x.served("held") || x.body != "held, released" {
		t.Errorf("the request in progress when HAProxy stopped got %v, want 200 \"held, released\"", x)
	}
	select {
	case <-done:
		if *serveErr != nil {
			t.Errorf("Serve: %v", *serveErr)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Serve did not return once the last request was served: HAProxy waits for the idle kept-alive connection")
	}
}

// TestTrafficStopIsBounded: a request still in progress when
// ROUTER_HARD_STOP_AFTER has passed is cut, and HAProxy stops.
func TestTrafficStopIsBounded(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.HardStopAfter = time.Second })
	b, started, _ := heldBackend(t)
	r.route(rt("shop", "held", "held.example.test", 1))
	r.endpoints("shop", "svc", b)
	stop, done, serveErr := r.serveStoppable()
	held := make(chan reply, 1)
	go func() { held <- r.get("held.example.test", "/") }()
	<-started

	stop()
	select {
	case <-done:
		if *serveErr != nil {
			t.Errorf("Serve: %v", *serveErr)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return while a request its backend never answers was in progress")
	}
	if x := <-held; x.err == nil {
		t.Errorf("the request that outlasted ROUTER_HARD_STOP_AFTER got %v, want its connection cut", x)
	}
}

// TestTrafficStopWithAnIdleTLSConnection: a client's kept-alive TLS
// connection, idle, does not hold HAProxy until ROUTER_HARD_STOP_AFTER:
// the relay from the TCP frontend to the frontend that terminates TLS
// carries no request of its own (idle kept-alive connections stay open on
// a soft stop, as they do on a reload, so that none fails a request).
func TestTrafficStopWithAnIdleTLSConnection(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) {
		// The TCP frontend's inactivity timeout would end the relay, and
		// the stop, after a while too.
		d.HardStopAfter, d.ClientTimeout = 10*time.Minute, 10*time.Minute
	})
	web := newBackend(t, "web", nil, nil)
	r.route(rt("shop", "web", "web.example.test", 1, toService("web"), terminated(routecore.TLSTerminationEdge, "", nil, nil)))
	r.endpoints("shop", "web", web)
	stop, done, serveErr := r.serveStoppable()
	keepAlive := r.client(clientOptions{keepAlive: true, timeout: time.Minute})
	wantServed(t, "https://web.example.test/", fetch(keepAlive, "https://web.example.test/"), "web")

	stop()
	select {
	case <-done:
		if *serveErr != nil {
			t.Errorf("Serve: %v", *serveErr)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Serve did not return: HAProxy waits for the idle kept-alive TLS connection")
	}
}
