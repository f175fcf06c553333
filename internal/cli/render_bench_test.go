package cli

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// manyRoutes is n Routes in 50 namespaces, every fifth one edge, each
// with its own host, as `kubectl get routes -A -o yaml` would print them.
func manyRoutes(n int) string {
	var b strings.Builder
	for i := range n {
		tls := ""
		if i%5 == 0 {
			tls = ", tls: {termination: edge}"
		}
		fmt.Fprintf(&b, "---\napiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: r%d, namespace: ns%d}\nspec: {host: r%d.apps.example.com, to: {name: web}%s}\n",
			i, i%50, i, tls)
	}
	return b.String()
}

// BenchmarkRenderCommand is `routeshift render -f -` on 10,000, 20,000 and
// 40,000 Routes: reading, defaulting and judging them and printing one
// line each. Time per 10,000 Routes must not grow with the number of
// Routes (render is linear); s/10k-routes reports it.
func BenchmarkRenderCommand(b *testing.B) {
	for _, n := range []int{10000, 20000, 40000} {
		in := manyRoutes(n)
		b.Run(fmt.Sprintf("routes-%d", n), func(b *testing.B) {
			for b.Loop() {
				if code := Execute([]string{"render", "-f", "-"}, strings.NewReader(in), io.Discard, io.Discard); code != 0 {
					b.Fatalf("render exited %d", code)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/float64(n)*10000, "s/10k-routes")
		})
	}
}
