package router

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/routeshift/routeshift/tests/framework"
)

// grpcServer is a grpc-go server with the standard health service on the
// machine's own address.
func grpcServer(t *testing.T) (ip string, port int32) {
	t.Helper()
	l, ip, port := hostListener(t)
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)
	return ip, port
}

// TestServiceAppProtocol: the appProtocol of a live Service's port decides
// what the router speaks to its endpoints: HTTP/1.1 without it, which a
// gRPC server refuses; cleartext HTTP/2 once kubernetes.io/h2c is added,
// and gRPC calls through an HTTP route work (HAProxy reloads, and says
// why); HTTP/1.1 again once it is removed.
func TestServiceAppProtocol(t *testing.T) {
	cp := framework.Cluster(t)
	ctx := context.Background()
	ns := isolatedNamespace(t, cp, "h2c", nil)
	ip, port := grpcServer(t)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: corev1.ServiceSpec{
		Ports: []corev1.ServicePort{{Name: "grpc", Port: 9090, TargetPort: intstr.FromString("grpc")}}}}
	ready, portName := true, "grpc"
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1",
		Labels: map[string]string{discoveryv1.LabelServiceName: "web"}}, AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:     []discoveryv1.EndpointPort{{Name: &portName, Port: &port}}}
	host := "grpc." + ns + ".example.com"
	create(t, cp, svc, es, route(ns, "grpc", host, nil))
	r := cp.StartRouter(t, "h2c", "--namespace-labels", only(ns))
	waitStatus(t, cp, ns, "grpc", "h2c: True")

	cc, err := grpc.NewClient("passthrough:///"+net.JoinHostPort("127.0.0.1", strconv.Itoa(r.HTTPPort)),
		grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithAuthority(host))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	hc := healthpb.NewHealthClient(cc)
	call := func() error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
		return err
	}
	setAppProtocol := func(p *string) {
		t.Helper()
		s := &corev1.Service{}
		if err := cp.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "web"}, s); err != nil {
			t.Fatal(err)
		}
		s.Spec.Ports[0].AppProtocol = p
		if err := cp.Client.Update(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	const reason = `routeshift_router_reloads_total{reason="server protocol (appProtocol)"}`

	framework.Eventually(t, "the route answers the gRPC client in HTTP/1.1 (an error)", func() error {
		if err := call(); err == nil {
			return errors.New("a gRPC call went through to an endpoint spoken to in HTTP/1.1")
		}
		return nil
	})
	h2c := "kubernetes.io/h2c"
	setAppProtocol(&h2c)
	framework.Eventually(t, "gRPC through the route once the Service says h2c", call)
	reloadsCounted(t, r, reason, 1)

	setAppProtocol(nil)
	framework.Eventually(t, "HTTP/1.1 again once the Service no longer says h2c", func() error {
		if err := call(); err == nil {
			return fmt.Errorf("the gRPC call still goes through")
		}
		return nil
	})
	reloadsCounted(t, r, reason, 2)
}

// reloadsCounted waits until the router's /metrics has series at n: the
// router counts a reload once HAProxy reports its new worker, which may
// already serve.
func reloadsCounted(t *testing.T, r *framework.Router, series string, n float64) {
	t.Helper()
	framework.Eventually(t, fmt.Sprintf("%s at %v", series, n), func() error {
		got, err := scrape(r)
		if err != nil {
			return err
		}
		if got[series] != n {
			return fmt.Errorf("%s = %v", series, got[series])
		}
		return nil
	})
}
