package haproxy

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
)

// gRPC traffic: unary, server-streaming and bidirectional calls through
// HTTP (cleartext HTTP/2 both ways), edge (HTTP/2 over TLS from the
// client, cleartext HTTP/2 to the endpoint), reencrypt (HTTP/2 over TLS
// both ways) and passthrough routes; streams that outlive the route's
// server timeout while data moves; UNAVAILABLE for routes without
// endpoints and for hosts no route serves.

// grpcCase is a route gRPC clients reach, and how.
type grpcCase struct {
	name, host string
	// roots verify the router (or, for passthrough, the backend); nil
	// speaks cleartext to the HTTP port.
	roots *x509.CertPool
	// backend serves the route.
	backend *grpcBackend
}

// grpcRoutes starts a router (HTTP/2 offered to TLS clients) serving one
// route of each termination to gRPC backends, and returns how to reach
// each.
func grpcRoutes(t *testing.T, mods ...func(*routecore.Route)) (*trafficRouter, []grpcCase) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.DisableHTTP2 = false })
	pki := newCA(t, "gRPC test CA")
	roots := pool(pki)
	plain, secure := newGRPCBackend(t, "plain", nil), newGRPCBackend(t, "secure", issue(t, pki, "127.0.0.1"))
	pass := newGRPCBackend(t, "pass", issue(t, pki, "passthrough.example.com"))
	r.grpcEndpoints("ns", "plain", "kubernetes.io/h2c", plain)
	r.grpcEndpoints("ns", "secure", "h2", secure)
	r.grpcEndpoints("ns", "pass", "", pass)
	edge, reencrypt := routecore.TLSTerminationEdge, routecore.TLSTerminationReencrypt
	withMods := func(more ...func(*routecore.Route)) []func(*routecore.Route) { return append(more, mods...) }
	r.route(rt("ns", "http", "http.example.com", 1, withMods(toService("plain"))...))
	r.route(rt("ns", "edge", "edge.example.com", 2, withMods(toService("plain"),
		terminated(edge, "", issue(t, pki, "edge.example.com"), nil))...))
	r.route(rt("ns", "reencrypt", "reencrypt.example.com", 3, withMods(toService("secure"),
		terminated(reencrypt, "", issue(t, pki, "reencrypt.example.com"), nil), destinationCA(pki))...))
	r.route(rt("ns", "passthrough", "passthrough.example.com", 4, withMods(toService("pass"),
		terminated(routecore.TLSTerminationPassthrough, "", nil, nil))...))
	r.start()
	return r, []grpcCase{{"http", "http.example.com", nil, plain}, {"edge", "edge.example.com", roots, plain},
		{"reencrypt", "reencrypt.example.com", roots, secure}, {"passthrough", "passthrough.example.com", roots, pass}}
}

// waitServing polls Check until the route answers SERVING.
func waitServing(t *testing.T, hc healthpb.HealthClient, what string) {
	t.Helper()
	eventually(t, 30*time.Second, what+" answers Check", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			return err
		}
		if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			return fmt.Errorf("status %v", resp.GetStatus())
		}
		return nil
	})
}

// TestTrafficGRPC: unary calls with their status and trailers, a
// server-streaming and a bidirectional call, through each kind of route.
func TestTrafficGRPC(t *testing.T) {
	r, cases := grpcRoutes(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cc := r.grpcClient(t, c.host, c.roots)
			hc := healthpb.NewHealthClient(cc)
			waitServing(t, hc, c.host)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			var trailer metadata.MD
			if _, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Trailer(&trailer)); err != nil {
				t.Fatal(err)
			}
			if got := trailer.Get(trailerKey); len(got) != 1 {
				t.Errorf("trailer %s = %v, want the backend's name", trailerKey, got)
			}
			_, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: "no.such.Service"})
			if s := status.Convert(err); s.Code() != codes.NotFound || s.Message() != "unknown service" {
				t.Errorf("Check of an unknown service: %v, want NotFound \"unknown service\" (grpc-status and grpc-message)", err)
			}

			checkWatch(t, ctx, hc, c.backend, 5, 0)
			checkReflection(t, ctx, cc, 3, 0)
		})
	}
}

// checkWatch opens a Watch stream of a service of its own on b and sets its
// status n times, pause apart, expecting each status on the stream.
func checkWatch(t *testing.T, ctx context.Context, hc healthpb.HealthClient, b *grpcBackend, n int, pause time.Duration) {
	t.Helper()
	service := fmt.Sprintf("watched.%d", time.Now().UnixNano())
	stream, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		t.Fatal(err)
	}
	recv := func(want healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		m, err := stream.Recv()
		if err != nil {
			t.Fatalf("Watch after %d updates: %v", n, err)
		}
		if m.GetStatus() != want {
			t.Fatalf("Watch: status %v, want %v", m.GetStatus(), want)
		}
	}
	recv(healthpb.HealthCheckResponse_SERVICE_UNKNOWN)
	for i := range n {
		time.Sleep(pause)
		next := healthpb.HealthCheckResponse_SERVING
		if i%2 == 1 {
			next = healthpb.HealthCheckResponse_NOT_SERVING
		}
		b.health.SetServingStatus(service, next)
		recv(next)
	}
}

// checkReflection asks for the server's services n times, pause apart, on
// one bidirectional stream.
func checkReflection(t *testing.T, ctx context.Context, cc *grpc.ClientConn, n int, pause time.Duration) {
	t.Helper()
	stream, err := reflectionpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		time.Sleep(pause)
		names, err := listServices(stream)
		if err != nil {
			t.Fatalf("reflection, exchange %d of %d: %v", i+1, n, err)
		}
		if !slices.Contains(names, "grpc.health.v1.Health") {
			t.Fatalf("reflection lists %v, want grpc.health.v1.Health among them", names)
		}
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatal(err)
	}
}

// TestTrafficGRPCLongStreams: HTTP/2 streams are requests to HAProxy, not
// tunnels: a server-streaming and a bidirectional call outlive the route's
// server timeout (haproxy.router.openshift.io/timeout) as long as data
// moves, and a stream on which nothing moves for that long is ended, even
// with a long timeout-tunnel, which HTTP/2 streams do not use.
func TestTrafficGRPCLongStreams(t *testing.T) {
	// 45 exchanges 100 ms apart: 3 server timeouts.
	const timeout, pause, exchanges = 1500 * time.Millisecond, 100 * time.Millisecond, 45
	r, cases := grpcRoutes(t, annotated(routecore.AnnTimeout, "1500ms", routecore.AnnTimeoutTunnel, "1h"))
	for _, c := range cases[:3] { // passthrough routes carry TCP: timeout-tunnel applies
		t.Run(c.name, func(t *testing.T) {
			cc := r.grpcClient(t, c.host, c.roots)
			hc := healthpb.NewHealthClient(cc)
			waitServing(t, hc, c.host)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			checkWatch(t, ctx, hc, c.backend, exchanges, pause)
			checkReflection(t, ctx, cc, exchanges, pause)

			idle, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{Service: "idle"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := idle.Recv(); err != nil {
				t.Fatalf("idle stream: first message: %v", err)
			}
			_, err = idle.Recv() // nothing more comes: HAProxy ends the stream
			if err == nil || ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("idle stream: %v (context: %v), want it ended by the router after %v", err, ctx.Err(), timeout)
			}
			t.Logf("idle stream ended: %v", err)
		})
	}
}

// TestTrafficGRPCUnavailable: a route without ready endpoints (in
// cleartext and over TLS) and a host no route serves (cleartext: TLS
// clients of such hosts get the default certificate, without HTTP/2) answer
// 503 in HTTP/2, which gRPC clients report as UNAVAILABLE, not as a
// protocol error.
func TestTrafficGRPCUnavailable(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.DisableHTTP2 = false })
	pki := newCA(t, "gRPC test CA")
	r.route(rt("ns", "http", "empty.example.com", 1, toService("none")))
	r.route(rt("ns", "edge", "empty-edge.example.com", 2, toService("none"),
		terminated(routecore.TLSTerminationEdge, "", issue(t, pki, "empty-edge.example.com"), nil)))
	r.start()
	for _, c := range []grpcCase{{"no endpoints, HTTP", "empty.example.com", nil, nil}, {"no endpoints, edge", "empty-edge.example.com", pool(pki), nil},
		{"no route, HTTP", "unknown.example.com", nil, nil}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := healthpb.NewHealthClient(r.grpcClient(t, c.host, c.roots)).Check(ctx, &healthpb.HealthCheckRequest{})
			if s := status.Convert(err); s.Code() != codes.Unavailable {
				t.Errorf("Check: %v, want Unavailable", err)
			}
		})
	}
}

// TestTrafficGRPCScale: an h2c service that grows gets a server added
// through the runtime API with the same protocol (no reload), and both
// endpoints answer gRPC calls.
func TestTrafficGRPCScale(t *testing.T) {
	r := newTrafficRouter(t)
	first, second := newGRPCBackend(t, "first", nil), newGRPCBackend(t, "second", nil)
	r.grpcEndpoints("ns", "grpc", "kubernetes.io/h2c", first)
	r.route(rt("ns", "grpc", "grpc.example.com", 1, toService("grpc"), annotated(routecore.AnnBalance, "roundrobin")))
	r.start()
	hc := healthpb.NewHealthClient(r.grpcClient(t, "grpc.example.com", nil))
	waitServing(t, hc, "grpc.example.com")
	reloads := r.reloads()

	r.grpcEndpoints("ns", "grpc", "kubernetes.io/h2c", second)
	r.publish()
	seen := map[string]bool{}
	eventually(t, 30*time.Second, "both endpoints answer", func() error {
		var trailer metadata.MD
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := hc.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Trailer(&trailer)); err != nil {
			return err
		}
		for _, name := range trailer.Get(trailerKey) {
			seen[name] = true
		}
		if !seen["first"] || !seen["second"] {
			return fmt.Errorf("answered by %v", seen)
		}
		return nil
	})
	if n := r.reloads(); n != reloads {
		t.Errorf("adding an h2c endpoint reloaded HAProxy %d times, want 0", n-reloads)
	}
}

// TestTrafficGRPCAppProtocol: a route speaks HTTP/1.1 to endpoints without
// an HTTP/2 appProtocol, which a gRPC server refuses; h2c added to the
// endpoints' port reloads HAProxy with the reason "server protocol
// (appProtocol)", and gRPC works; removed, it reloads again and gRPC stops.
func TestTrafficGRPCAppProtocol(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.ReloadInterval = time.Minute })
	clock := r.withFakeClock()
	b := newGRPCBackend(t, "grpc", nil)
	r.grpcEndpoints("ns", "grpc", "", b)
	r.route(rt("ns", "grpc", "grpc.example.com", 1, toService("grpc")))
	r.start()
	hc := healthpb.NewHealthClient(r.grpcClient(t, "grpc.example.com", nil))
	check := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
		return err
	}
	if err := check(); err == nil {
		t.Fatal("a gRPC call went through to an endpoint spoken to in HTTP/1.1")
	}
	reason := runtime.Reason{Kind: ReasonServerProtocol, Subject: "backend be_http:ns:grpc"}
	r.reloadFor(t, clock, reason, func() { r.grpcEndpoints("ns", "grpc", "kubernetes.io/h2c", b) })
	if err := check(); err != nil {
		t.Fatalf("with appProtocol h2c: %v", err)
	}
	r.reloadFor(t, clock, reason, func() { r.grpcEndpoints("ns", "grpc", "", b) })
	if err := check(); err == nil {
		t.Error("appProtocol removed, and the call still went through")
	}
}
