package haproxy

import (
	"fmt"
	"testing"

	"golang.org/x/crypto/bcrypt"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// serveAnnotatedRoutes is serveBenchRoutes with every Route annotated,
// and the Secrets given to the store.
func serveAnnotatedRoutes(b *testing.B, n int, backends []router.Endpoint, annotations map[string]string, secrets ...*corev1.Secret) *benchRoutes {
	s := router.NewStore(router.AdmissionConfig{AllowLoopbackEndpoints: true})
	for _, sec := range secrets {
		s.SetSecret(sec)
	}
	hosts := make([]string, n)
	for i := range n {
		ns := fmt.Sprintf("ns%d", i%50)
		hosts[i] = fmt.Sprintf("r%d.bench.example.com", i)
		r := rt(ns, fmt.Sprintf("r%d", i), hosts[i], i)
		r.Spec.To.Name = r.Name
		r.Annotations = annotations
		s.SetRoute(r)
		e := backends[i%len(backends)]
		s.SetEndpointSlice(sliceFor(ns, r.Name, e.IP, e.Port))
	}
	d, _, _ := serveBenchStore(b, s)
	return &benchRoutes{port: d.HTTPPort, hosts: hosts, workDir: d.WorkingDir}
}

// BenchmarkThroughputRequestRules: requests per second through Routes
// with a body limit and a deny list (which every request is checked
// against) against plain Routes, at 100 and at 10,000 Routes, measured as
// BenchmarkThroughput measures: side by side in short rounds.
func BenchmarkThroughputRequestRules(b *testing.B) {
	var backends []router.Endpoint
	for i := range 4 {
		ip, port := benchBackend(b, fmt.Sprint("backend", i), true)
		backends = append(backends, router.Endpoint{IP: ip, Port: port})
	}
	rules := map[string]string{routecore.AnnMaxBodySize: "1m", routecore.AnnIPDenylist: "203.0.113.0/24 198.51.100.7 2001:db8::/32"}
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			plain := serveAnnotatedRoutes(b, n, backends, nil)
			ruled := serveAnnotatedRoutes(b, n, backends, rules)
			var plainRates, ruledRates, ratios []float64
			for round := range throughputRounds {
				subjects := []*benchRoutes{plain, ruled}
				rates := map[*benchRoutes]float64{}
				for i := range subjects {
					sub := subjects[(round+i)%2]
					rates[sub] = sub.throughput(b, throughputRound)
				}
				plainRates, ruledRates = append(plainRates, rates[plain]), append(ruledRates, rates[ruled])
				ratios = append(ratios, rates[ruled]/rates[plain])
			}
			b.ReportMetric(median(plainRates), "req/s-plain")
			b.ReportMetric(median(ruledRates), "req/s-rules")
			b.ReportMetric(median(ratios), "rules/plain")
		})
	}
}

// BenchmarkThroughputBasicAuth: requests per second, each with a user's
// credentials, through a Route whose user has a SHA-512 crypt hash and one
// whose user has a bcrypt hash of cost 10, against a plain Route: HAProxy
// hashes the password of every request.
func BenchmarkThroughputBasicAuth(b *testing.B) {
	ip, port := benchBackend(b, "web", true)
	backends := []router.Endpoint{{IP: ip, Port: port}}
	bc, err := bcrypt.GenerateFromPassword([]byte("s3cret"), 10)
	if err != nil {
		b.Fatal(err)
	}
	secret := func(ns, name, hash string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Data: map[string][]byte{routecore.BasicAuthKey: []byte("alice:" + hash + "\n")}}
	}
	var secrets []*corev1.Secret
	for i := range 50 {
		ns := fmt.Sprintf("ns%d", i)
		secrets = append(secrets, secret(ns, "sha512", sha512Crypt), secret(ns, "bcrypt", string(bc)))
	}
	plain := serveAnnotatedRoutes(b, 10, backends, nil)
	sha := serveAnnotatedRoutes(b, 10, backends, map[string]string{routecore.AnnAuthBasicSecret: "sha512"}, secrets...)
	bcr := serveAnnotatedRoutes(b, 10, backends, map[string]string{routecore.AnnAuthBasicSecret: "bcrypt"}, secrets...)
	subjects := []*benchRoutes{plain, sha, bcr}
	for _, sub := range subjects {
		sub.user, sub.password = "alice", "s3cret"
	}
	var rates [3][]float64
	for round := range throughputRounds {
		for i := range subjects {
			j := (round + i) % len(subjects)
			rates[j] = append(rates[j], subjects[j].throughput(b, throughputRound))
		}
	}
	b.ReportMetric(median(rates[0]), "req/s-plain")
	b.ReportMetric(median(rates[1]), "req/s-sha512crypt")
	b.ReportMetric(median(rates[2]), "req/s-bcrypt10")
}
