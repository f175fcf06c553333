// Package exporter turns HAProxy's statistics (the CSV of `show stat`) into
// Prometheus metrics, as OpenShift's router exports them. It owns the
// column catalogue and the scrape pacing; it gets the CSV from a function
// and must not import the router (router/) or the data plane (haproxy/,
// haproxy/runtime/).
package exporter

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// HAProxy `show stat` CSV columns the exporter relies on besides the
// exported ones (HAProxy only ever appends columns).
const (
	csvProxyName  = 0
	csvServerName = 1
	csvStatus     = 17
	csvType       = 32
)

// Values of the CSV type column.
const (
	rowFrontend = "0"
	rowBackend  = "1"
	rowServer   = "2"
	rowListener = "3"
)

// csvMetric is one exportable CSV column.
type csvMetric struct {
	name string
	// usage holds the row kinds the column is exported for: F frontend;
	// b backend when server rows are not exported (above the server
	// threshold); B backend when they are; S server.
	usage   string
	counter bool
	// code is the value of the "code" label (HTTP response classes).
	code string
	help string // %s is "frontend", "backend" or "server"
}

var csvMetrics = map[int]csvMetric{
	2:  {name: "current_queue", usage: "bBS", help: "Current number of queued requests not assigned to any server (%s)."},
	4:  {name: "current_sessions", usage: "FbS", help: "Current number of active sessions (%s)."},
	5:  {name: "max_sessions", usage: "FbS", help: "Maximum observed number of active sessions (%s)."},
	7:  {name: "connections_total", usage: "FbBS", counter: true, help: "Total number of connections (%s)."},
	8:  {name: "bytes_in_total", usage: "FbS", counter: true, help: "Current total of incoming bytes (%s)."},
	9:  {name: "bytes_out_total", usage: "FbS", counter: true, help: "Current total of outgoing bytes (%s)."},
	13: {name: "connection_errors_total", usage: "bS", counter: true, help: "Total of connection errors (%s)."},
	14: {name: "response_errors_total", usage: "bS", counter: true, help: "Total of response errors (%s)."},
	17: {name: "up", usage: "bBS", help: "Current health status of the %s (1 = UP, 0 = DOWN)."},
	21: {name: "check_failures_total", usage: "S", counter: true, help: "Total number of failed health checks (%s)."},
	24: {name: "downtime_seconds_total", usage: "S", counter: true, help: "Total downtime in seconds (%s)."},
	33: {name: "current_session_rate", usage: "FbS", help: "Current number of sessions per second over last elapsed second (%s)."},
	35: {name: "max_session_rate", usage: "FbS", help: "Maximum observed number of sessions per second (%s)."},
	40: {name: "http_responses_total", usage: "FbS", counter: true, code: "2xx", help: "Total of HTTP responses, by code class (%s)."},
	43: {name: "http_responses_total", usage: "FbS", counter: true, code: "5xx", help: "Total of HTTP responses, by code class (%s)."},
	60: {name: "http_average_response_latency_milliseconds", usage: "bS", help: "Average response latency of the last 1024 requests in milliseconds (%s)."},
}

// column is one exported CSV column for one row kind.
type column struct {
	index int
	desc  *prometheus.Desc
	vtype prometheus.ValueType
	code  string
}

// Exporter is a prometheus.Collector of HAProxy statistics: it turns the
// CSV of HAProxy's `show stat` into haproxy_frontend_*, haproxy_backend_*
// and haproxy_server_* series, plus haproxy_exporter_* series about the
// scrapes themselves.
//
// Collect scrapes at most once per scrape interval, (rows/1000 + 1) ×
// Options.ScrapeInterval where rows is the row count of the previous
// scrape; in between it re-emits the values of the last scrape. Server
// rows are exported while HAProxy has at most Options.ServerThreshold
// servers; above it backends are reported with their "b" columns instead
// of their "B" ones and no server series are exported.
type Exporter struct {
	stats     func(ctx context.Context) (string, error)
	base      time.Duration
	timeout   time.Duration
	threshold int
	now       func() time.Time

	frontend, server []column
	// backendAll and backendOnly are the backend columns exported with
	// and without server rows ("B" and "b" usage).
	backendAll, backendOnly []column
	descs                   []*prometheus.Desc

	up              prometheus.Gauge
	parseFailures   prometheus.Counter
	scrapeInterval  prometheus.Gauge
	serverThreshold *prometheus.GaugeVec
	totalScrapes    prometheus.Counter

	mu       sync.Mutex
	scraped  bool
	last     time.Time
	interval time.Duration
	cached   []prometheus.Metric
	failing  bool
}

// Options are what an Exporter exports and how often it scrapes.
type Options struct {
	// ServerThreshold is the most servers whose rows are exported.
	ServerThreshold int
	// ScrapeInterval is the least time between scrapes, per 1000 rows.
	ScrapeInterval time.Duration
	// Timeout bounds one scrape.
	Timeout time.Duration
	// Columns are the CSV columns to export; columns without a metric
	// (not in Columns()) are ignored. Nil exports every column that has
	// one.
	Columns []int
}

// Columns are the CSV columns that have a metric, in order.
func Columns() []int { return slices.Sorted(maps.Keys(csvMetrics)) }

// New returns an Exporter of the statistics returned by stats, the CSV
// text of `show stat`. Nothing is registered.
func New(opts Options, stats func(ctx context.Context) (string, error)) *Exporter {
	e := &Exporter{
		stats:     stats,
		base:      opts.ScrapeInterval,
		timeout:   opts.Timeout,
		threshold: opts.ServerThreshold,
		now:       time.Now,
		up: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "haproxy_exporter_up",
			Help: "Was the last scrape of haproxy successful.",
		}),
		parseFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "haproxy_exporter_csv_parse_failures",
			Help: "Number of errors while parsing CSV.",
		}),
		scrapeInterval: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "haproxy_exporter_scrape_interval",
			Help: "The time in seconds before another scrape is allowed, proportional to size of data.",
		}),
		serverThreshold: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "haproxy_exporter_server_threshold",
			Help: "Number of servers tracked and the current threshold value.",
		}, []string{"type"}),
		totalScrapes: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "haproxy_exporter_total_scrapes",
			Help: "Current total HAProxy scrapes.",
		}),
	}
	e.interval = e.base
	e.scrapeInterval.Set(e.base.Seconds())
	e.serverThreshold.WithLabelValues("current").Set(0)
	e.serverThreshold.WithLabelValues("limit").Set(float64(e.threshold))

	indexes := opts.Columns
	if indexes == nil {
		indexes = Columns()
	}
	indexes = slices.Clone(indexes)
	slices.Sort(indexes)
	indexes = slices.Compact(indexes)

	type descKey struct{ kind, name string }
	descs := map[descKey]*prometheus.Desc{}
	desc := func(kind string, m csvMetric, labels []string) *prometheus.Desc {
		k := descKey{kind, m.name}
		if d, ok := descs[k]; ok {
			return d
		}
		if m.code != "" {
			labels = append(slices.Clone(labels), "code")
		}
		d := prometheus.NewDesc("haproxy_"+kind+"_"+m.name, fmt.Sprintf(m.help, kind), labels, nil)
		descs[k] = d
		e.descs = append(e.descs, d)
		return d
	}
	for _, i := range indexes {
		m, ok := csvMetrics[i]
		if !ok {
			continue
		}
		vt := prometheus.GaugeValue
		if m.counter {
			vt = prometheus.CounterValue
		}
		col := func(kind string, labels ...string) column {
			return column{index: i, desc: desc(kind, m, labels), vtype: vt, code: m.code}
		}
		if strings.Contains(m.usage, "F") {
			e.frontend = append(e.frontend, col("frontend", "frontend"))
		}
		if strings.Contains(m.usage, "B") {
			e.backendAll = append(e.backendAll, col("backend", "backend"))
		}
		if strings.Contains(m.usage, "b") {
			e.backendOnly = append(e.backendOnly, col("backend", "backend"))
		}
		if strings.Contains(m.usage, "S") {
			e.server = append(e.server, col("server", "backend", "server"))
		}
	}
	return e
}

// Describe implements prometheus.Collector.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range e.descs {
		ch <- d
	}
	e.up.Describe(ch)
	e.parseFailures.Describe(ch)
	e.scrapeInterval.Describe(ch)
	e.serverThreshold.Describe(ch)
	e.totalScrapes.Describe(ch)
}

// Collect implements prometheus.Collector. It scrapes HAProxy when the
// scrape interval has passed since the last scrape (or on the first call)
// and emits the values of the last scrape.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	if !e.scraped || e.now().Sub(e.last) >= e.interval {
		e.scrape()
	}
	cached := e.cached
	e.mu.Unlock()

	for _, m := range cached {
		ch <- m
	}
	e.up.Collect(ch)
	e.parseFailures.Collect(ch)
	e.scrapeInterval.Collect(ch)
	e.serverThreshold.Collect(ch)
	e.totalScrapes.Collect(ch)
}

// scrape fetches and converts the statistics; e.mu is held.
func (e *Exporter) scrape() {
	e.totalScrapes.Inc()
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	text, err := e.stats(ctx)
	cancel()

	var rows, servers, failures int
	if err == nil {
		e.cached, rows, servers, failures, err = e.parse(text)
		e.parseFailures.Add(float64(failures))
		e.serverThreshold.WithLabelValues("current").Set(float64(servers))
	} else {
		e.cached = nil
	}

	e.scraped = true
	e.last = e.now()
	e.interval = time.Duration(rows/1000+1) * e.base
	e.scrapeInterval.Set(e.interval.Seconds())

	log := logf.Log.WithName("haproxy-exporter")
	if err != nil {
		e.up.Set(0)
		if !e.failing {
			log.Error(err, "HAProxy statistics scrape failed", "parseFailures", failures)
		}
		e.failing = true
		return
	}
	e.up.Set(1)
	if e.failing {
		log.Info("HAProxy statistics scrapes succeed again")
	}
	e.failing = false
}

// statsRow is one CSV row of a proxy the exporter reports on.
type statsRow struct {
	kind   string // rowFrontend, rowBackend or rowServer
	fields []string
}

// parse converts the CSV of `show stat` into constant metrics. It returns
// them, the number of data rows, the number of servers, the number of
// parse failures and, when there was any, the first of them. Rows and
// fields that fail to parse are left out; the other ones are returned.
func (e *Exporter) parse(text string) (metrics []prometheus.Metric, rows, servers, failures int, firstErr error) {
	fail := func(err error) {
		failures++
		if firstErr == nil {
			firstErr = err
		}
	}

	// The header: "# pxname,svname,...".
	body := strings.TrimLeft(text, "\r\n")
	header, rest, _ := strings.Cut(body, "\n")
	header = strings.TrimSuffix(header, "\r")
	if !strings.HasPrefix(header, "# ") {
		fail(fmt.Errorf("show stat: want a CSV header starting with %q, got %q", "# pxname,", abbreviate(header)))
		return nil, 0, 0, failures, firstErr
	}
	columns := strings.Split(strings.TrimPrefix(header, "# "), ",")
	for _, want := range []struct {
		index int
		name  string
	}{{csvProxyName, "pxname"}, {csvServerName, "svname"}, {csvStatus, "status"}, {csvType, "type"}} {
		if want.index >= len(columns) || columns[want.index] != want.name {
			fail(fmt.Errorf("show stat: CSV header lacks column %d %q: %q", want.index, want.name, abbreviate(header)))
			return nil, 0, 0, failures, firstErr
		}
	}

	r := csv.NewReader(strings.NewReader(rest))
	r.FieldsPerRecord = -1
	var selected []statsRow
	for {
		fields, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				rows++
				fail(fmt.Errorf("show stat: %w", err))
				continue
			}
			fail(fmt.Errorf("show stat: %w", err))
			break
		}
		rows++
		line, _ := r.FieldPos(0)
		if len(fields) != len(columns) {
			fail(fmt.Errorf("show stat: line %d has %d fields, the header %d", line+1, len(fields), len(columns)))
			continue
		}
		name, kind := fields[csvProxyName], fields[csvType]
		switch kind {
		case rowFrontend, rowBackend, rowServer:
		case rowListener:
			continue
		default:
			fail(fmt.Errorf("show stat: line %d: unknown row type %q", line+1, kind))
			continue
		}
		if internalProxy(name) {
			continue
		}
		if kind == rowServer {
			servers++
		}
		selected = append(selected, statsRow{kind: kind, fields: fields})
	}

	withServers := servers <= e.threshold
	backend := e.backendOnly
	if withServers {
		backend = e.backendAll
	}
	for _, row := range selected {
		var cols []column
		var labels []string
		switch row.kind {
		case rowFrontend:
			cols, labels = e.frontend, []string{row.fields[csvProxyName]}
		case rowBackend:
			cols, labels = backend, []string{row.fields[csvProxyName]}
		case rowServer:
			if !withServers {
				continue
			}
			cols, labels = e.server, []string{row.fields[csvProxyName], row.fields[csvServerName]}
		}
		for _, c := range cols {
			if c.index >= len(row.fields) || row.fields[c.index] == "" {
				continue // HAProxy leaves columns that do not apply empty
			}
			v, err := parseValue(c.index, row.fields[c.index])
			if err != nil {
				fail(fmt.Errorf("show stat: %s/%s column %d: %w", row.fields[csvProxyName], row.fields[csvServerName], c.index, err))
				continue
			}
			lv := labels
			if c.code != "" {
				lv = append(slices.Clone(labels), c.code)
			}
			metrics = append(metrics, prometheus.MustNewConstMetric(c.desc, c.vtype, v, lv...))
		}
	}
	return metrics, rows, servers, failures, firstErr
}

// internalProxy reports HAProxy's own proxies (GLOBAL, <HTTPCLIENT> and
// the other bracketed ones, which user proxy names cannot contain) and the
// statistics listener.
func internalProxy(name string) bool {
	return strings.HasPrefix(name, "GLOBAL") || strings.HasPrefix(name, "<") || strings.HasPrefix(name, "stats")
}

func parseValue(index int, s string) (float64, error) {
	if index == csvStatus {
		return parseStatus(s), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a number: %q", abbreviate(s))
	}
	return v, nil
}

// parseStatus maps the status column to 1 (UP, UP 1/3, UP (agent)…,
// OPEN, no check) or 0 (DOWN…, NOLB, MAINT…, DRAIN…, anything else).
func parseStatus(s string) float64 {
	switch {
	case strings.HasPrefix(s, "UP"), s == "OPEN", s == "no check":
		return 1
	}
	return 0
}

func abbreviate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
