package runtime

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the metrics of running HAProxy: loads, their reasons, their
// failures, the updates made without a reload and how certificates were
// loaded.
type Metrics struct {
	reloadSeconds      prometheus.Summary
	writeConfigSeconds prometheus.Summary
	reloadFailures     prometheus.Counter
	reloads            *prometheus.CounterVec
	runtimeUpdates     prometheus.Counter
	runtimeFailures    prometheus.Counter
	restarts           prometheus.Counter
	certificateUpdates *prometheus.CounterVec
	standbyRoutes      prometheus.Counter
}

// The ways a certificate update reaches HAProxy: the method label of
// routeshift_router_certificate_updates_total.
const (
	CertificateUpdateRuntime = "runtime"
	CertificateUpdateReload  = "reload"
)

// NewMetrics creates the metrics and registers them on reg (nil: not
// registered).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		reloadSeconds: prometheus.NewSummary(prometheus.SummaryOpts{
			Name: "template_router_reload_seconds",
			Help: "Measures the time spent reloading the router in seconds.",
		}),
		writeConfigSeconds: prometheus.NewSummary(prometheus.SummaryOpts{
			Name: "template_router_write_config_seconds",
			Help: "Measures the time spent writing out the router configuration to disk in seconds.",
		}),
		reloadFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "routeshift_router_reload_failures_total",
			Help: "Configurations that could not be rendered or loaded, retries included (the previous one kept serving).",
		}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "routeshift_router_reloads_total",
			Help: "HAProxy reloads, by the kind of their first reason.",
		}, []string{"reason"}),
		runtimeUpdates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "routeshift_router_runtime_updates_total",
			Help: "Server changes applied through HAProxy's runtime API, without a reload.",
		}),
		runtimeFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "routeshift_router_runtime_update_failures_total",
			Help: "Runtime API updates HAProxy refused; the router reloaded instead.",
		}),
		restarts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "routeshift_router_haproxy_restarts_total",
			Help: "Times HAProxy died and was started again.",
		}),
		certificateUpdates: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "routeshift_router_certificate_updates_total",
			Help: "Certificates HAProxy loaded while it ran (renewed, rotated, added): through the runtime API, or by a reload that was due anyway or replaced a refused runtime update.",
		}, []string{"method"}),
		standbyRoutes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "routeshift_router_standby_routes_total",
			Help: "New routes HAProxy served from a standby backend until the reload that loaded their own.",
		}),
	}
	for _, method := range []string{CertificateUpdateRuntime, CertificateUpdateReload} {
		m.certificateUpdates.WithLabelValues(method)
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.reloadSeconds, m.writeConfigSeconds, m.reloadFailures, m.reloads,
		m.runtimeUpdates, m.runtimeFailures, m.restarts, m.certificateUpdates, m.standbyRoutes} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
