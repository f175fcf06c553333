package router

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the router's own metrics: what it decided, how long deciding
// took and the status it wrote. The zero value of *Metrics (nil) records
// nothing.
type Metrics struct {
	statusWrites       prometheus.Counter
	routesByVerdict    *prometheus.GaugeVec
	notServable        prometheus.Gauge
	modelUpdateSeconds prometheus.Histogram
}

// NewMetrics creates the router's metrics and registers them on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		statusWrites: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "routeshift_router_status_writes_total",
			Help: "Route status updates written by this router.",
		}),
		routesByVerdict: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "routeshift_router_routes",
			Help: "Routes this router knows, by verdict (admitted, rejected, ignored).",
		}, []string{"verdict"}),
		notServable: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "routeshift_router_routes_not_servable",
			Help: "Routes that won their host but that the data plane cannot serve (Admitted=False, reason RouteNotServable).",
		}),
		modelUpdateSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "routeshift_router_model_update_seconds",
			Help:    "Time to judge a batch of changes and publish the new model.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 4, 10),
		}),
	}
	for _, c := range []prometheus.Collector{m.statusWrites, m.routesByVerdict, m.notServable, m.modelUpdateSeconds} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Metrics) statusWritten() {
	if m != nil {
		m.statusWrites.Inc()
	}
}

// modelUpdated records a model update's duration, the routes per verdict and
// those not servable.
func (m *Metrics) modelUpdated(seconds float64, verdicts [3]int, notServable int) {
	if m == nil {
		return
	}
	m.modelUpdateSeconds.Observe(seconds)
	m.notServable.Set(float64(notServable))
	for v, n := range verdicts {
		m.routesByVerdict.WithLabelValues(Verdict(v).String()).Set(float64(n))
	}
}
