package certificates

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/tests/framework"
)

// BenchmarkRouteCertificates creates BENCH_ROUTES (default 1,000) Routes
// annotated with a CA Issuer at once (16 clients in parallel, through the
// webhook) and measures, from the start of the creation, when each host is served by the router with its own
// certificate (verified against the root CA): the total, and the median
// and 99th percentile per Route. It reports apart cert-manager's own work
// (when each Certificate was first seen Ready) and routeshift's (from
// Ready to the Route naming its Secret, and to the host being served).
// Run it with -benchtime 1x. cert-manager runs with --kube-api-qps=200 so
// that its client-side rate limit (20/s by default) is not what is
// measured.
func BenchmarkRouteCertificates(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("BENCH_ROUTES")); err == nil && v > 0 {
		n = v
	}
	cp := framework.Cluster(b)
	framework.StartCertManager(b, cp, framework.CertManagerOptions{ControllerArgs: []string{"--kube-api-qps=200", "--kube-api-burst=400"}})
	for range b.N {
		benchRouteCertificates(b, cp, n)
	}
}

func benchRouteCertificates(b *testing.B, cp *framework.ControlPlane, n int) {
	b.StopTimer()
	e := newEnv(b, cp, "certbench")
	backend(b, e.c, e.ns, "web", nil)
	hosts := make([]string, n)
	routes := make([]*routecore.Route, n)
	for i := range n {
		name := fmt.Sprintf("r%04d", i)
		hosts[i] = e.host(name)
		routes[i] = &routecore.Route{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: name,
			Labels: map[string]string{testLabel: e.ns}, Annotations: map[string]string{"cert-manager.io/issuer": "ca"}},
			Spec: routecore.RouteSpec{Host: hosts[i], To: routecore.RouteTargetReference{Kind: "Service", Name: "web"},
				TLS: &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge}}}
	}
	b.StartTimer()
	start := time.Now()
	createAll(b, e.c, routes)
	applied := time.Since(start)
	ready, referenced, served := observe(b, e, hosts, start)
	total := time.Since(start)
	b.StopTimer()

	b.ReportMetric(total.Seconds(), "s-total")
	b.ReportMetric(applied.Seconds(), "s-apply")
	b.ReportMetric(percentile(served, 50), "s-served-p50")
	b.ReportMetric(percentile(served, 99), "s-served-p99")
	b.ReportMetric(percentile(ready, 50), "s-cert-ready-p50")
	b.ReportMetric(percentile(ready, 99), "s-cert-ready-p99")
	after := make([]time.Duration, n)
	refAfter := make([]time.Duration, n)
	for i := range n {
		after[i], refAfter[i] = served[i]-ready[i], referenced[i]-ready[i]
	}
	b.ReportMetric(percentile(refAfter, 50), "s-ready-to-ref-p50")
	b.ReportMetric(percentile(refAfter, 99), "s-ready-to-ref-p99")
	b.ReportMetric(percentile(after, 50), "s-ready-to-served-p50")
	b.ReportMetric(percentile(after, 99), "s-ready-to-served-p99")
}

// createAll creates the Routes with 16 clients in parallel (one kubectl
// apply of 1,000 Routes takes minutes of round trips through the webhook).
func createAll(b *testing.B, c client.Client, routes []*routecore.Route) {
	work := make(chan *routecore.Route)
	errs := make(chan error, len(routes))
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for r := range work {
				if err := c.Create(context.Background(), r); err != nil {
					errs <- err
				}
			}
		})
	}
	for _, r := range routes {
		work <- r
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// observe polls, every half second, the Certificates (first seen Ready),
// the Routes (first seen naming their Secret) and, for Routes that name
// it, the router (a TLS handshake for the host whose certificate verifies
// for the host against the root CA), until every host is served; it
// returns each time since start, by host index.
func observe(b *testing.B, e *env, hosts []string, start time.Time) (ready, referenced, served []time.Duration) {
	n := len(hosts)
	ready, referenced, served = make([]time.Duration, n), make([]time.Duration, n), make([]time.Duration, n)
	index := map[string]int{}
	for i, h := range hosts {
		index[strings.SplitN(h, ".", 2)[0]] = i
	}
	left := n
	deadline := start.Add(time.Duration(n) * 2 * time.Second)
	for left > 0 {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d hosts not served with their certificate after %s", left, n, time.Since(start))
		}
		now := time.Since(start)
		var certs cmapi.CertificateList
		var routes routecore.RouteList
		ctx := context.Background()
		if err := e.c.List(ctx, &certs, client.InNamespace(e.ns)); err != nil {
			b.Fatal(err)
		}
		if err := e.c.List(ctx, &routes, client.InNamespace(e.ns)); err != nil {
			b.Fatal(err)
		}
		for _, c := range certs.Items {
			i, ok := index[strings.TrimSuffix(c.Name, "-route-tls")]
			if ok && ready[i] == 0 && certReady(&c) {
				ready[i] = now
			}
		}
		for _, r := range routes.Items {
			i, ok := index[r.Name]
			if ok && referenced[i] == 0 && r.Spec.TLS != nil && r.Spec.TLS.ExternalCertificate != nil {
				referenced[i] = now
			}
		}
		for i, h := range hosts {
			if served[i] == 0 && referenced[i] != 0 && handshake(e, h) == nil {
				served[i] = time.Since(start)
				left--
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	return ready, referenced, served
}

func certReady(c *cmapi.Certificate) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == cmapi.CertificateConditionReady && cond.Status == cmmeta.ConditionTrue {
			return true
		}
	}
	return false
}

// handshake checks that the router presents, for host, a certificate that
// verifies for host against the root CA.
func handshake(e *env, host string) error {
	d := &net.Dialer{Timeout: 5 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", fmt.Sprintf("127.0.0.1:%d", e.router.HTTPSPort), &tls.Config{ServerName: host, RootCAs: e.roots})
	if err != nil {
		return err
	}
	return conn.Close()
}

func percentile(d []time.Duration, p int) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100].Seconds()
}
