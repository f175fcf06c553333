package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/types"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/internal/atomicfile"
	"github.com/routeshift/routeshift/internal/freeport"
)

// BenchmarkAdmissionLatency sends AdmissionReviews through the real TLS
// webhook server at a fixed 500 requests/s from 16 concurrent clients, to
// the mutating and validating handlers and to a no-op handler on the same
// server in the same run, and reports p50 and p99 latency in milliseconds.
// The three take turns in one-second slices, so that drift on a noisy
// machine falls on all of them alike. The Route is hostless: defaulting
// generates its host, validation runs in full, and no SubjectAccessReview is
// needed.
func BenchmarkAdmissionLatency(b *testing.B) {
	const rate, clients, slice, rounds = 500, 16, time.Second, 5
	logf.SetLogger(logr.Discard())
	url, client := startBenchServer(b)
	body := reviewBody(b)
	results := map[string][]time.Duration{}
	for range rounds {
		for _, path := range []string{"/noop", MutatePath, ValidatePath} {
			results[path] = append(results[path], load(b, client, url+path, body, rate, clients, slice)...)
		}
	}
	noop := percentile(results["/noop"], 99)
	for path, name := range map[string]string{"/noop": "noop", MutatePath: "mutate", ValidatePath: "validate"} {
		lat := results[path]
		b.ReportMetric(ms(percentile(lat, 50)), name+"-p50-ms")
		b.ReportMetric(ms(percentile(lat, 99)), name+"-p99-ms")
		if path != "/noop" {
			b.ReportMetric(float64(percentile(lat, 99))/float64(noop), name+"-p99/noop")
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func startBenchServer(b testing.TB) (string, *http.Client) {
	dir := b.TempDir()
	ca, err := certs.NewCA("bench-ca")
	if err != nil {
		b.Fatal(err)
	}
	leaf, err := ca.Issue(certs.Options{CommonName: "127.0.0.1", IPs: []net.IP{net.ParseIP("127.0.0.1")}})
	if err != nil {
		b.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": leaf.CertPEM, "tls.key": leaf.KeyPEM} {
		if err := atomicfile.Write(filepath.Join(dir, name), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	port, err := freeport.Get()
	if err != nil {
		b.Fatal(err)
	}
	srv := ctrlwebhook.NewServer(ctrlwebhook.Options{Host: "127.0.0.1", Port: port, CertDir: dir})
	s := testServer(b, nil)
	s.Register(srv)
	srv.Register("/noop", &admission.Webhook{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Allowed("")
	})})
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	go func() { _ = srv.Start(ctx) }()
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: 64}}
	url := fmt.Sprintf("https://127.0.0.1:%d", port)
	for range 100 {
		if resp, err := client.Get(url + "/noop"); err == nil {
			resp.Body.Close()
			return url, client
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatal("webhook server did not start")
	return "", nil
}

func reviewBody(b *testing.B) []byte {
	req := request(admissionv1.Create, route(), nil)
	req.UID = types.UID("bench")
	review := admissionv1.AdmissionReview{Request: &req.AdmissionRequest}
	review.APIVersion, review.Kind = "admission.k8s.io/v1", "AdmissionReview"
	body, err := json.Marshal(review)
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// load sends requests at rate per second from the given number of clients
// for duration, and returns every request's latency (measured from its
// scheduled start, so queueing behind a slow server counts).
func load(b *testing.B, client *http.Client, url string, body []byte, rate, clients int, duration time.Duration) []time.Duration {
	n := int(duration.Seconds() * float64(rate))
	interval := time.Second / time.Duration(rate)
	ticks := make(chan time.Time, n)
	var mu sync.Mutex
	lat := make([]time.Duration, 0, n)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for scheduled := range ticks {
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				var review admissionv1.AdmissionReview
				err = json.NewDecoder(resp.Body).Decode(&review)
				resp.Body.Close()
				if err != nil || review.Response == nil || !review.Response.Allowed {
					b.Errorf("%s: unexpected answer %+v (%v)", url, review.Response, err)
					return
				}
				d := time.Since(scheduled)
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		})
	}
	start := time.Now()
	for i := range n {
		at := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(at))
		ticks <- at
	}
	close(ticks)
	wg.Wait()
	return lat
}

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

// BenchmarkMutateHandler is the mutating handler alone (decode, default,
// validate, patch), without HTTP or TLS.
func BenchmarkMutateHandler(b *testing.B) {
	s := testServer(b, nil)
	h := &routeHandler{name: "mutate", handle: s.mutate, metrics: s.metrics}
	req := request(admissionv1.Create, route(), nil)
	b.ReportAllocs()
	for b.Loop() {
		if resp := h.Handle(context.Background(), req); !resp.Allowed {
			b.Fatal(resp.Result)
		}
	}
}
