package haproxy

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/routecore"
)

// Benchmarks of HTTP/2, gRPC and client certificates through a real
// HAProxy. Like BenchmarkThroughput, each measures its subjects side by
// side in alternating short rounds and reports medians, so that the
// machine's drift hits all subjects alike; b.N is not used.

const (
	protoRounds = 11
	protoRound  = 400 * time.Millisecond
	// protoClients is the number of concurrent callers.
	protoClients = 8
)

// roundsOf measures each subject rounds times, rotating the order, and
// returns the median rate of each and the median per-round ratio of the
// second to the first.
func roundsOf(b *testing.B, measure ...func() float64) (rates []float64, ratio float64) {
	all := make([][]float64, len(measure))
	var ratios []float64
	for round := range protoRounds {
		got := make([]float64, len(measure))
		for i := range measure {
			j := (round + i) % len(measure)
			got[j] = measure[j]()
		}
		for j := range measure {
			all[j] = append(all[j], got[j])
		}
		ratios = append(ratios, got[1]/got[0])
	}
	for _, xs := range all {
		rates = append(rates, median(xs))
	}
	b.Logf("per-round ratios: %.3f", ratios)
	return rates, median(ratios)
}

// callRate runs protoClients callers of call for protoRound and returns
// successful calls per second; any failure fails the benchmark.
func callRate(b *testing.B, call func(client int) error) float64 {
	var ok, failed atomic.Int64
	var firstErr atomic.Value
	stop := time.Now().Add(protoRound)
	var wg sync.WaitGroup
	for c := range protoClients {
		wg.Go(func() {
			for time.Now().Before(stop) {
				if err := call(c); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		b.Errorf("%d failed calls, the first: %v", failed.Load(), firstErr.Load())
	}
	return float64(ok.Load()) / protoRound.Seconds()
}

// grpcBenchRouter starts a router serving n edge routes (HTTP/2 offered to
// clients, their own certificate each) to gRPC backends speaking h2c, and
// returns how to reach them.
func grpcBenchRouter(b *testing.B, n int, backends []*grpcBackend, pki, leaf *certs.KeyPair) (*trafficRouter, []string) {
	r := newTrafficRouter(b, func(d *proxyconfig.Config) { d.DisableHTTP2 = false })
	hosts := make([]string, n)
	for i := range n {
		hosts[i] = fmt.Sprintf("r%d.bench.example.com", i)
		r.route(rt(fmt.Sprintf("ns%d", i%50), fmt.Sprintf("r%d", i), hosts[i], i, toService(fmt.Sprintf("grpc%d", i%len(backends))),
			terminated(routecore.TLSTerminationEdge, "", leaf, pki)))
	}
	for i := range 50 {
		for j, g := range backends {
			r.grpcEndpoints(fmt.Sprintf("ns%d", i), fmt.Sprintf("grpc%d", j), "kubernetes.io/h2c", g)
		}
	}
	r.start()
	return r, hosts
}

// BenchmarkGRPC measures unary gRPC calls per second (Health/Check)
// through edge routes, HTTP/2 both ways, with 10 routes and with 10,000:
// protoClients clients, each on one connection to a random route's host
// per round. The lookup per call is the same maps, so the ratio
// ("10000/10") must stay near 1.
func BenchmarkGRPC(b *testing.B) {
	pki := newCA(b, "bench CA")
	leaf := issue(b, pki, "*.bench.example.com")
	var backends []*grpcBackend
	for i := range 4 {
		backends = append(backends, newGRPCBackend(b, fmt.Sprint("grpc", i), nil))
	}
	var subjects []func() float64
	for _, n := range []int{10, 10000} {
		r, hosts := grpcBenchRouter(b, n, backends, pki, leaf)
		subjects = append(subjects, func() float64 {
			clients := make([]healthpb.HealthClient, protoClients)
			for c := range clients {
				conn := r.grpcClient(b, hosts[rand.IntN(len(hosts))], pool(pki))
				defer conn.Close()
				clients[c] = healthpb.NewHealthClient(conn)
			}
			return callRate(b, func(c int) error {
				_, err := clients[c].Check(context.Background(), &healthpb.HealthCheckRequest{})
				return err
			})
		})
	}
	rates, ratio := roundsOf(b, subjects...)
	b.ReportMetric(rates[0], "calls/s-10-routes")
	b.ReportMetric(rates[1], "calls/s-10000-routes")
	b.ReportMetric(ratio, "10000/10")
}

// BenchmarkHTTP2Multiplexing measures requests per second to one edge
// route from protoClients concurrent callers: over one HTTP/2 connection
// (multiplexed streams) and over HTTP/1.1 keep-alive connections (one per
// caller). "h2/h1" is their ratio.
func BenchmarkHTTP2Multiplexing(b *testing.B) {
	pki := newCA(b, "bench CA")
	r := newTrafficRouter(b, func(d *proxyconfig.Config) { d.DisableHTTP2 = false })
	r.endpoints("ns", "web", newBackend(b, "web", nil, nil))
	r.route(rt("ns", "web", "web.example.com", 1, toService("web"),
		terminated(routecore.TLSTerminationEdge, "", issue(b, pki, "web.example.com"), nil)))
	r.start()
	client := func(h2 bool) *http.Client {
		c := r.client(clientOptions{keepAlive: true, roots: pool(pki)})
		tr := c.Transport.(*http.Transport)
		tr.MaxIdleConnsPerHost = protoClients
		tr.Protocols = new(http.Protocols)
		tr.Protocols.SetHTTP1(!h2)
		tr.Protocols.SetHTTP2(h2)
		return c
	}
	get := func(c *http.Client, proto int) func(int) error {
		return func(int) error {
			resp, err := c.Get("https://web.example.com/")
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != http.StatusOK || resp.ProtoMajor != proto {
				return fmt.Errorf("%s %s", resp.Proto, resp.Status)
			}
			return nil
		}
	}
	h1, h2 := client(false), client(true)
	rates, ratio := roundsOf(b, func() float64 { return callRate(b, get(h1, 1)) }, func() float64 { return callRate(b, get(h2, 2)) })
	h1.CloseIdleConnections()
	h2.CloseIdleConnections()
	b.ReportMetric(rates[0], "req/s-http1-keepalive")
	b.ReportMetric(rates[1], "req/s-http2-multiplexed")
	b.ReportMetric(ratio, "h2/h1")
}

// BenchmarkMutualTLSHandshake measures new TLS connections per second (a
// full handshake and one request each) to an edge route: without client
// certificates, and with ROUTER_MUTUAL_TLS_AUTH=required and a client
// certificate checked against a CRL. "ms-per-handshake-*" are the inverse
// per caller; "mtls/plain" is the ratio of the rates.
func BenchmarkMutualTLSHandshake(b *testing.B) {
	pki := newCA(b, "bench CA")
	clients := newMTLSPKI(b, "")
	crl, err := clients.ca.RevocationList(1, time.Now().Add(time.Hour), clients.revoked.Cert)
	if err != nil {
		b.Fatal(err)
	}
	caFile, crlFile := writeTempFile(b, "ca.pem", string(clients.ca.CertPEM)), writeTempFile(b, "ca.crl", string(crl))
	serve := func(mods ...func(*proxyconfig.Config)) *trafficRouter {
		r := newTrafficRouter(b, mods...)
		r.endpoints("ns", "web", newBackend(b, "web", nil, nil))
		r.route(rt("ns", "web", "web.example.com", 1, toService("web"),
			terminated(routecore.TLSTerminationEdge, "", issue(b, pki, "web.example.com"), nil)))
		return r.start()
	}
	plain := serve()
	mutual := serve(func(d *proxyconfig.Config) {
		d.MutualTLSAuth, d.MutualTLSAuthCA, d.MutualTLSAuthCRL = "required", caFile, crlFile
	})
	rate := func(r *trafficRouter, kp *certs.KeyPair) func() float64 {
		c := r.client(clientOptions{roots: pool(pki)}) // no keep-alive: a handshake per request
		if kp != nil {
			pair, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
			if err != nil {
				b.Fatal(err)
			}
			c.Transport.(*http.Transport).TLSClientConfig.Certificates = []tls.Certificate{pair}
		}
		return func() float64 {
			return callRate(b, func(int) error {
				if x := fetch(c, "https://web.example.com/"); x.err != nil || x.code != http.StatusOK {
					return fmt.Errorf("%v", x)
				}
				return nil
			})
		}
	}
	rates, ratio := roundsOf(b, rate(plain, nil), rate(mutual, clients.good))
	b.ReportMetric(rates[0], "handshakes/s-plain")
	b.ReportMetric(rates[1], "handshakes/s-mtls")
	b.ReportMetric(1000*protoClients/rates[0], "ms-per-handshake-plain")
	b.ReportMetric(1000*protoClients/rates[1], "ms-per-handshake-mtls")
	b.ReportMetric(ratio, "mtls/plain")
}
