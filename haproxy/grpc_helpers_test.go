package haproxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"strconv"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"

	"github.com/routeshift/routeshift/certs"
)

// gRPC through the router: grpc-go servers behind routes, with the
// standard health service (unary Check, server-streaming Watch) and
// reflection service (bidirectional ServerReflectionInfo), and grpc-go
// clients that reach them through HAProxy.

// trailerKey is the trailer every call of a grpcBackend ends with, so that
// clients can see trailers pass through.
const trailerKey = "x-backend-trailer"

// grpcBackend is a grpc-go server on loopback.
type grpcBackend struct {
	name   string
	ip     string
	port   int32
	health *health.Server
}

// newGRPCBackend starts a gRPC server named name; kp non-nil serves TLS
// with that certificate (ALPN h2, as grpc-go requires).
func newGRPCBackend(t testing.TB, name string, kp *certs.KeyPair) *grpcBackend {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	setTrailer := func(ctx context.Context) { _ = grpc.SetTrailer(ctx, metadata.Pairs(trailerKey, name)) }
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			setTrailer(ctx)
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			ss.SetTrailer(metadata.Pairs(trailerKey, name))
			return h(srv, ss)
		}),
	}
	if kp != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(tlsServerConfig(t, kp))))
	}
	srv := grpc.NewServer(opts...)
	b := &grpcBackend{name: name, ip: "127.0.0.1", port: int32(l.Addr().(*net.TCPAddr).Port), health: health.NewServer()}
	healthpb.RegisterHealthServer(srv, b.health)
	reflection.Register(srv)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	return b
}

// grpcEndpoints makes the gRPC backends the ready endpoints of service
// ns/svc, their port named "grpc" with the given appProtocol ("" for
// none).
func (r *trafficRouter) grpcEndpoints(ns, svc, appProtocol string, bs ...*grpcBackend) {
	for _, b := range bs {
		es := endpointSlice(ns, svc, fmt.Sprintf("%s-%d", svc, b.port), b.ip, b.port)
		if appProtocol != "" {
			es.Ports[0].AppProtocol = &appProtocol
		}
		r.rv++
		es.ResourceVersion = strconv.Itoa(r.rv)
		r.store.SetEndpointSlice(es)
	}
}

// grpcClient connects to the router for host: in cleartext (HTTP/2 with
// prior knowledge) to its HTTP port when roots is nil, else over TLS to its
// HTTPS port with SNI host, verifying the server with roots.
func (r *trafficRouter) grpcClient(t testing.TB, host string, roots *x509.CertPool) *grpc.ClientConn {
	t.Helper()
	port := r.cfg.HTTPPort
	creds := insecure.NewCredentials()
	if roots != nil {
		port = r.cfg.HTTPSPort
		creds = credentials.NewTLS(&tls.Config{ServerName: host, RootCAs: roots})
	}
	cc, err := grpc.NewClient("passthrough:///"+net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		grpc.WithTransportCredentials(creds), grpc.WithAuthority(host))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// listServices asks the reflection service for the server's services on
// stream, once.
func listServices(stream reflectionpb.ServerReflection_ServerReflectionInfoClient) ([]string, error) {
	err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}})
	if err != nil {
		return nil, err
	}
	resp, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	return names, nil
}
