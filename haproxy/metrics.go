package haproxy

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Registry holds the router's metrics, served on ROUTER_LISTEN_ADDR.
var Registry = prometheus.NewRegistry()

var (
	statusWrites = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "routeshift_router_status_writes_total",
		Help: "Route status updates written by this router.",
	})
	routesByVerdict = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "routeshift_router_routes",
		Help: "Routes this router knows, by verdict (admitted, rejected, ignored).",
	}, []string{"verdict"})
	commitSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "routeshift_router_model_update_seconds",
		Help:    "Time to judge a batch of changes and publish the new model.",
		Buckets: prometheus.ExponentialBuckets(0.00005, 4, 10),
	})
)

func init() {
	Registry.MustRegister(statusWrites, routesByVerdict, commitSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}
