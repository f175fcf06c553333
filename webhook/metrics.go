package webhook

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// metrics holds the admission latency histogram.
type metrics struct {
	latency *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "routeshift_admission_duration_seconds",
		Help:    "Time to answer a Route admission request, by webhook (mutate, validate), operation and decision (allowed, denied, error).",
		Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5},
	}, []string{"webhook", "operation", "decision"})}
	if err := reg.Register(m.latency); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *metrics) observe(webhook string, op admissionv1.Operation, resp admission.Response, d time.Duration) {
	decision := "allowed"
	switch {
	case resp.Allowed:
	case resp.Result != nil && resp.Result.Code >= 500:
		decision = "error"
	default:
		decision = "denied"
	}
	m.latency.WithLabelValues(webhook, string(op), decision).Observe(d.Seconds())
}
