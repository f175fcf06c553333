package exporter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/routeshift/routeshift/internal/freeport"
)

// recordedStats is HAProxy 2.6's `show stat` for a frontend "public" (with
// `option socket-stats`, hence the listener row "sock-1"), a backend
// be_http:ns:web with servers pod:a (UP) and pod:b (DOWN), a backend
// be_edge:ns:api with server pod:c (no check), the `listen stats` proxy
// and the internal <HTTPCLIENT> backend. The exported columns of the
// reported rows hold row×100+column so that a wrong column shows.
const recordedStats = `# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,tracked,type,rate,rate_lim,rate_max,check_status,check_code,check_duration,hrsp_1xx,hrsp_2xx,hrsp_3xx,hrsp_4xx,hrsp_5xx,hrsp_other,hanafail,req_rate,req_rate_max,req_tot,cli_abrt,srv_abrt,comp_in,comp_out,comp_byp,comp_rsp,lastsess,last_chk,last_agt,qtime,ctime,rtime,ttime,agent_status,agent_code,agent_duration,check_desc,agent_desc,check_rise,check_fall,check_health,agent_rise,agent_fall,agent_health,addr,cookie,mode,algo,conn_rate,conn_rate_max,conn_tot,intercepted,dcon,dses,wrew,connect,reuse,cache_lookups,cache_hits,srv_icur,src_ilim,qtime_max,ctime_max,rtime_max,ttime_max,eint,idle_conn_cur,safe_conn_cur,used_conn_cur,need_conn_est,uweight,agg_server_status,agg_server_check_status,agg_check_status,-,ssl_sess,ssl_reused_sess,ssl_failed_handshake,h2_headers_rcvd,h2_data_rcvd,h2_settings_rcvd,h2_rst_stream_rcvd,h2_goaway_rcvd,h2_detected_conn_protocol_errors,h2_detected_strm_protocol_errors,h2_rst_stream_resp,h2_goaway_resp,h2_open_connections,h2_backend_open_streams,h2_total_connections,h2_backend_total_streams,h1_open_connections,h1_open_streams,h1_total_connections,h1_total_streams,h1_bytes_in,h1_bytes_out,h1_spliced_bytes_in,h1_spliced_bytes_out,
public,FRONTEND,,,104,105,9984,107,108,109,0,0,0,,,,,OPEN,,,,,,,,,1,2,0,,,,0,133,0,135,,,,0,140,0,0,143,0,,3,3,3,,,0,0,0,0,,,,,,,,,,,,,,,,,,,,,http,,3,3,3,0,0,0,0,,,0,0,,,,,,,0,,,,,,,,,-,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,3,237,86241,0,0,
public,sock-1,,,0,1,0,3,246,86190,0,0,0,,,,,OPEN,,,,,,,,,1,2,1,,,,3,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,127.0.0.1:18080,,http,,,,,,0,0,0,,,,,,,,,,,0,,,,,,,,,-,0,0,0,,,,,,,,,,,,,,,,,,,,,,
be_http:ns:web,pod:a,202,0,204,205,,207,208,209,,0,,213,214,0,0,UP,1,1,0,221,0,2,224,,1,3,1,,3,,2,233,,235,L4OK,,0,0,240,0,0,243,0,,,,3,0,0,,,,,0,,,0,0,260,0,,,,Layer4 check passed,,2,3,4,,,,127.0.0.1:18083,,http,,,,,,,,0,3,0,,,2,,0,0,0,0,0,2,0,0,1,1,,,,-,0,0,0,,,,,,,,,,,,,,,,,,,,,,
be_http:ns:web,pod:b,302,0,304,305,,307,308,309,,0,,313,314,0,0,DOWN,1,1,0,321,1,1,324,,1,3,2,,0,,2,333,,335,L4CON,,0,0,340,0,0,343,0,,,,0,0,0,,,,,-1,Connection refused,,0,0,360,0,,,,Layer4 connection problem,,2,3,0,,,,127.0.0.1:18082,,http,,,,,,,,0,0,0,,,0,,0,0,0,0,0,0,0,0,1,1,,,,-,0,0,0,,,,,,,,,,,,,,,,,,,,,,
be_http:ns:web,BACKEND,402,0,404,405,999,407,408,409,0,0,,413,414,0,0,UP,1,1,0,,0,2,424,,1,3,0,,3,,1,433,,435,,,,0,440,0,0,443,0,,,,3,0,0,0,0,0,0,0,,,0,0,460,0,,,,,,,,,,,,,,http,roundrobin,,,,,,,0,3,0,0,0,,,0,0,0,0,0,,,,,1,0,0,0,-,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,0,3,3,86262,237,0,0,
be_edge:ns:api,pod:c,502,0,504,505,,507,508,509,,0,,513,514,0,0,no check,1,1,0,,,2,,,1,4,1,,0,,2,533,,535,,,,0,540,0,0,543,0,,,,0,0,0,,,,,-1,,,0,0,560,0,,,,,,,,,,,,127.0.0.1:18083,,http,,,,,,,,0,0,0,,,0,,0,0,0,0,0,0,0,0,0,1,,,,-,0,0,0,,,,,,,,,,,,,,,,,,,,,,
be_edge:ns:api,BACKEND,602,0,604,605,1,607,608,609,0,0,,613,614,0,0,UP,1,1,0,,0,2,624,,1,4,0,,0,,1,633,,635,,,,0,640,0,0,643,0,,,,0,0,0,0,0,0,0,-1,,,0,0,660,0,,,,,,,,,,,,,,http,roundrobin,,,,,,,0,0,0,0,0,,,0,0,0,0,0,,,,,1,0,0,0,-,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
stats,FRONTEND,,,2,3,9984,3,246,86187,0,0,0,,,,,OPEN,,,,,,,,,1,5,0,,,,0,3,0,3,,,,0,3,0,0,0,0,,3,3,3,,,0,0,0,0,,,,,,,,,,,,,,,,,,,,,http,,3,3,3,3,0,0,0,,,0,0,,,,,,,0,,,,,,,,,-,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2,0,3,3,237,86262,0,0,
stats,BACKEND,0,0,0,0,999,0,246,86187,0,0,,0,0,0,0,UP,0,0,0,,0,2,,,1,5,0,,0,,1,0,,0,,,,0,0,0,0,0,0,,,,0,0,0,0,0,0,0,0,,,0,0,0,0,,,,,,,,,,,,,,http,roundrobin,,,,,,,0,0,0,0,0,,,0,0,0,0,0,,,,,0,0,0,0,-,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
<HTTPCLIENT>,BACKEND,0,0,0,0,999,0,246,86187,0,0,,0,0,0,0,UP,0,0,0,,0,2,,,1,5,0,,0,,1,0,,0,,,,0,0,0,0,0,0,,,,0,0,0,0,0,0,0,0,,,0,0,0,0,,,,,,,,,,,,,,http,roundrobin,,,,,,,0,0,0,0,0,,,0,0,0,0,0,,,,,0,0,0,0,-,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
`

// exporterConfig is the router's default options (ROUTER_METRICS_HAPROXY_*)
// with the server threshold given.
func exporterConfig(threshold int) Options {
	return Options{ServerThreshold: threshold, ScrapeInterval: 5 * time.Second, Timeout: 5 * time.Second}
}

func fixedStats(text string, calls *atomic.Int32) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		if calls != nil {
			calls.Add(1)
		}
		return text, nil
	}
}

// fakeClock is an Exporter clock that the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

const exporterHelp = `
# HELP haproxy_exporter_csv_parse_failures Number of errors while parsing CSV.
# TYPE haproxy_exporter_csv_parse_failures counter
# HELP haproxy_exporter_scrape_interval The time in seconds before another scrape is allowed, proportional to size of data.
# TYPE haproxy_exporter_scrape_interval gauge
# HELP haproxy_exporter_server_threshold Number of servers tracked and the current threshold value.
# TYPE haproxy_exporter_server_threshold gauge
# HELP haproxy_exporter_total_scrapes Current total HAProxy scrapes.
# TYPE haproxy_exporter_total_scrapes counter
# HELP haproxy_exporter_up Was the last scrape of haproxy successful.
# TYPE haproxy_exporter_up gauge
`

const frontendExposition = `
# HELP haproxy_frontend_bytes_in_total Current total of incoming bytes (frontend).
# TYPE haproxy_frontend_bytes_in_total counter
haproxy_frontend_bytes_in_total{frontend="public"} 108
# HELP haproxy_frontend_bytes_out_total Current total of outgoing bytes (frontend).
# TYPE haproxy_frontend_bytes_out_total counter
haproxy_frontend_bytes_out_total{frontend="public"} 109
# HELP haproxy_frontend_connections_total Total number of connections (frontend).
# TYPE haproxy_frontend_connections_total counter
haproxy_frontend_connections_total{frontend="public"} 107
# HELP haproxy_frontend_current_session_rate Current number of sessions per second over last elapsed second (frontend).
# TYPE haproxy_frontend_current_session_rate gauge
haproxy_frontend_current_session_rate{frontend="public"} 133
# HELP haproxy_frontend_current_sessions Current number of active sessions (frontend).
# TYPE haproxy_frontend_current_sessions gauge
haproxy_frontend_current_sessions{frontend="public"} 104
# HELP haproxy_frontend_http_responses_total Total of HTTP responses, by code class (frontend).
# TYPE haproxy_frontend_http_responses_total counter
haproxy_frontend_http_responses_total{code="2xx",frontend="public"} 140
haproxy_frontend_http_responses_total{code="5xx",frontend="public"} 143
# HELP haproxy_frontend_max_session_rate Maximum observed number of sessions per second (frontend).
# TYPE haproxy_frontend_max_session_rate gauge
haproxy_frontend_max_session_rate{frontend="public"} 135
# HELP haproxy_frontend_max_sessions Maximum observed number of active sessions (frontend).
# TYPE haproxy_frontend_max_sessions gauge
haproxy_frontend_max_sessions{frontend="public"} 105
`

// TestExporterWithServers: 3 servers, threshold 500: F + B + S rows.
func TestExporterWithServers(t *testing.T) {
	e := New(exporterConfig(500), fixedStats(recordedStats, nil))
	want := exporterHelp + frontendExposition + `
haproxy_exporter_csv_parse_failures 0
haproxy_exporter_scrape_interval 5
haproxy_exporter_server_threshold{type="current"} 3
haproxy_exporter_server_threshold{type="limit"} 500
haproxy_exporter_total_scrapes 1
haproxy_exporter_up 1
# HELP haproxy_backend_connections_total Total number of connections (backend).
# TYPE haproxy_backend_connections_total counter
haproxy_backend_connections_total{backend="be_edge:ns:api"} 607
haproxy_backend_connections_total{backend="be_http:ns:web"} 407
# HELP haproxy_backend_current_queue Current number of queued requests not assigned to any server (backend).
# TYPE haproxy_backend_current_queue gauge
haproxy_backend_current_queue{backend="be_edge:ns:api"} 602
haproxy_backend_current_queue{backend="be_http:ns:web"} 402
# HELP haproxy_backend_up Current health status of the backend (1 = UP, 0 = DOWN).
# TYPE haproxy_backend_up gauge
haproxy_backend_up{backend="be_edge:ns:api"} 1
haproxy_backend_up{backend="be_http:ns:web"} 1
# HELP haproxy_server_bytes_in_total Current total of incoming bytes (server).
# TYPE haproxy_server_bytes_in_total counter
haproxy_server_bytes_in_total{backend="be_edge:ns:api",server="pod:c"} 508
haproxy_server_bytes_in_total{backend="be_http:ns:web",server="pod:a"} 208
haproxy_server_bytes_in_total{backend="be_http:ns:web",server="pod:b"} 308
# HELP haproxy_server_bytes_out_total Current total of outgoing bytes (server).
# TYPE haproxy_server_bytes_out_total counter
haproxy_server_bytes_out_total{backend="be_edge:ns:api",server="pod:c"} 509
haproxy_server_bytes_out_total{backend="be_http:ns:web",server="pod:a"} 209
haproxy_server_bytes_out_total{backend="be_http:ns:web",server="pod:b"} 309
# HELP haproxy_server_check_failures_total Total number of failed health checks (server).
# TYPE haproxy_server_check_failures_total counter
haproxy_server_check_failures_total{backend="be_http:ns:web",server="pod:a"} 221
haproxy_server_check_failures_total{backend="be_http:ns:web",server="pod:b"} 321
# HELP haproxy_server_connection_errors_total Total of connection errors (server).
# TYPE haproxy_server_connection_errors_total counter
haproxy_server_connection_errors_total{backend="be_edge:ns:api",server="pod:c"} 513
haproxy_server_connection_errors_total{backend="be_http:ns:web",server="pod:a"} 213
haproxy_server_connection_errors_total{backend="be_http:ns:web",server="pod:b"} 313
# HELP haproxy_server_connections_total Total number of connections (server).
# TYPE haproxy_server_connections_total counter
haproxy_server_connections_total{backend="be_edge:ns:api",server="pod:c"} 507
haproxy_server_connections_total{backend="be_http:ns:web",server="pod:a"} 207
haproxy_server_connections_total{backend="be_http:ns:web",server="pod:b"} 307
# HELP haproxy_server_current_queue Current number of queued requests not assigned to any server (server).
# TYPE haproxy_server_current_queue gauge
haproxy_server_current_queue{backend="be_edge:ns:api",server="pod:c"} 502
haproxy_server_current_queue{backend="be_http:ns:web",server="pod:a"} 202
haproxy_server_current_queue{backend="be_http:ns:web",server="pod:b"} 302
# HELP haproxy_server_current_session_rate Current number of sessions per second over last elapsed second (server).
# TYPE haproxy_server_current_session_rate gauge
haproxy_server_current_session_rate{backend="be_edge:ns:api",server="pod:c"} 533
haproxy_server_current_session_rate{backend="be_http:ns:web",server="pod:a"} 233
haproxy_server_current_session_rate{backend="be_http:ns:web",server="pod:b"} 333
# HELP haproxy_server_current_sessions Current number of active sessions (server).
# TYPE haproxy_server_current_sessions gauge
haproxy_server_current_sessions{backend="be_edge:ns:api",server="pod:c"} 504
haproxy_server_current_sessions{backend="be_http:ns:web",server="pod:a"} 204
haproxy_server_current_sessions{backend="be_http:ns:web",server="pod:b"} 304
# HELP haproxy_server_downtime_seconds_total Total downtime in seconds (server).
# TYPE haproxy_server_downtime_seconds_total counter
haproxy_server_downtime_seconds_total{backend="be_http:ns:web",server="pod:a"} 224
haproxy_server_downtime_seconds_total{backend="be_http:ns:web",server="pod:b"} 324
# HELP haproxy_server_http_average_response_latency_milliseconds Average response latency of the last 1024 requests in milliseconds (server).
# TYPE haproxy_server_http_average_response_latency_milliseconds gauge
haproxy_server_http_average_response_latency_milliseconds{backend="be_edge:ns:api",server="pod:c"} 560
haproxy_server_http_average_response_latency_milliseconds{backend="be_http:ns:web",server="pod:a"} 260
haproxy_server_http_average_response_latency_milliseconds{backend="be_http:ns:web",server="pod:b"} 360
# HELP haproxy_server_http_responses_total Total of HTTP responses, by code class (server).
# TYPE haproxy_server_http_responses_total counter
haproxy_server_http_responses_total{backend="be_edge:ns:api",code="2xx",server="pod:c"} 540
haproxy_server_http_responses_total{backend="be_edge:ns:api",code="5xx",server="pod:c"} 543
haproxy_server_http_responses_total{backend="be_http:ns:web",code="2xx",server="pod:a"} 240
haproxy_server_http_responses_total{backend="be_http:ns:web",code="2xx",server="pod:b"} 340
haproxy_server_http_responses_total{backend="be_http:ns:web",code="5xx",server="pod:a"} 243
haproxy_server_http_responses_total{backend="be_http:ns:web",code="5xx",server="pod:b"} 343
# HELP haproxy_server_max_session_rate Maximum observed number of sessions per second (server).
# TYPE haproxy_server_max_session_rate gauge
haproxy_server_max_session_rate{backend="be_edge:ns:api",server="pod:c"} 535
haproxy_server_max_session_rate{backend="be_http:ns:web",server="pod:a"} 235
haproxy_server_max_session_rate{backend="be_http:ns:web",server="pod:b"} 335
# HELP haproxy_server_max_sessions Maximum observed number of active sessions (server).
# TYPE haproxy_server_max_sessions gauge
haproxy_server_max_sessions{backend="be_edge:ns:api",server="pod:c"} 505
haproxy_server_max_sessions{backend="be_http:ns:web",server="pod:a"} 205
haproxy_server_max_sessions{backend="be_http:ns:web",server="pod:b"} 305
# HELP haproxy_server_response_errors_total Total of response errors (server).
# TYPE haproxy_server_response_errors_total counter
haproxy_server_response_errors_total{backend="be_edge:ns:api",server="pod:c"} 514
haproxy_server_response_errors_total{backend="be_http:ns:web",server="pod:a"} 214
haproxy_server_response_errors_total{backend="be_http:ns:web",server="pod:b"} 314
# HELP haproxy_server_up Current health status of the server (1 = UP, 0 = DOWN).
# TYPE haproxy_server_up gauge
haproxy_server_up{backend="be_edge:ns:api",server="pod:c"} 1
haproxy_server_up{backend="be_http:ns:web",server="pod:a"} 1
haproxy_server_up{backend="be_http:ns:web",server="pod:b"} 0
`
	if err := collectAndCompare(e, want); err != nil {
		t.Fatal(err)
	}
}

// TestExporterAboveThreshold: 3 servers, threshold 2: F + b rows, no
// server rows.
func TestExporterAboveThreshold(t *testing.T) {
	e := New(exporterConfig(2), fixedStats(recordedStats, nil))
	want := exporterHelp + frontendExposition + `
haproxy_exporter_csv_parse_failures 0
haproxy_exporter_scrape_interval 5
haproxy_exporter_server_threshold{type="current"} 3
haproxy_exporter_server_threshold{type="limit"} 2
haproxy_exporter_total_scrapes 1
haproxy_exporter_up 1
# HELP haproxy_backend_bytes_in_total Current total of incoming bytes (backend).
# TYPE haproxy_backend_bytes_in_total counter
haproxy_backend_bytes_in_total{backend="be_edge:ns:api"} 608
haproxy_backend_bytes_in_total{backend="be_http:ns:web"} 408
# HELP haproxy_backend_bytes_out_total Current total of outgoing bytes (backend).
# TYPE haproxy_backend_bytes_out_total counter
haproxy_backend_bytes_out_total{backend="be_edge:ns:api"} 609
haproxy_backend_bytes_out_total{backend="be_http:ns:web"} 409
# HELP haproxy_backend_connection_errors_total Total of connection errors (backend).
# TYPE haproxy_backend_connection_errors_total counter
haproxy_backend_connection_errors_total{backend="be_edge:ns:api"} 613
haproxy_backend_connection_errors_total{backend="be_http:ns:web"} 413
# HELP haproxy_backend_connections_total Total number of connections (backend).
# TYPE haproxy_backend_connections_total counter
haproxy_backend_connections_total{backend="be_edge:ns:api"} 607
haproxy_backend_connections_total{backend="be_http:ns:web"} 407
# HELP haproxy_backend_current_queue Current number of queued requests not assigned to any server (backend).
# TYPE haproxy_backend_current_queue gauge
haproxy_backend_current_queue{backend="be_edge:ns:api"} 602
haproxy_backend_current_queue{backend="be_http:ns:web"} 402
# HELP haproxy_backend_current_session_rate Current number of sessions per second over last elapsed second (backend).
# TYPE haproxy_backend_current_session_rate gauge
haproxy_backend_current_session_rate{backend="be_edge:ns:api"} 633
haproxy_backend_current_session_rate{backend="be_http:ns:web"} 433
# HELP haproxy_backend_current_sessions Current number of active sessions (backend).
# TYPE haproxy_backend_current_sessions gauge
haproxy_backend_current_sessions{backend="be_edge:ns:api"} 604
haproxy_backend_current_sessions{backend="be_http:ns:web"} 404
# HELP haproxy_backend_http_average_response_latency_milliseconds Average response latency of the last 1024 requests in milliseconds (backend).
# TYPE haproxy_backend_http_average_response_latency_milliseconds gauge
haproxy_backend_http_average_response_latency_milliseconds{backend="be_edge:ns:api"} 660
haproxy_backend_http_average_response_latency_milliseconds{backend="be_http:ns:web"} 460
# HELP haproxy_backend_http_responses_total Total of HTTP responses, by code class (backend).
# TYPE haproxy_backend_http_responses_total counter
haproxy_backend_http_responses_total{backend="be_edge:ns:api",code="2xx"} 640
haproxy_backend_http_responses_total{backend="be_edge:ns:api",code="5xx"} 643
haproxy_backend_http_responses_total{backend="be_http:ns:web",code="2xx"} 440
haproxy_backend_http_responses_total{backend="be_http:ns:web",code="5xx"} 443
# HELP haproxy_backend_max_session_rate Maximum observed number of sessions per second (backend).
# TYPE haproxy_backend_max_session_rate gauge
haproxy_backend_max_session_rate{backend="be_edge:ns:api"} 635
haproxy_backend_max_session_rate{backend="be_http:ns:web"} 435
# HELP haproxy_backend_max_sessions Maximum observed number of active sessions (backend).
# TYPE haproxy_backend_max_sessions gauge
haproxy_backend_max_sessions{backend="be_edge:ns:api"} 605
haproxy_backend_max_sessions{backend="be_http:ns:web"} 405
# HELP haproxy_backend_response_errors_total Total of response errors (backend).
# TYPE haproxy_backend_response_errors_total counter
haproxy_backend_response_errors_total{backend="be_edge:ns:api"} 614
haproxy_backend_response_errors_total{backend="be_http:ns:web"} 414
# HELP haproxy_backend_up Current health status of the backend (1 = UP, 0 = DOWN).
# TYPE haproxy_backend_up gauge
haproxy_backend_up{backend="be_edge:ns:api"} 1
haproxy_backend_up{backend="be_http:ns:web"} 1
`
	if err := collectAndCompare(e, want); err != nil {
		t.Fatal(err)
	}
}

// TestExporterThresholdBoundary: the threshold itself still exports
// server rows ("more than 500 servers" switches).
func TestExporterThresholdBoundary(t *testing.T) {
	for _, tc := range []struct {
		threshold int
		servers   bool
	}{{2, false}, {3, true}, {4, true}} {
		e := New(exporterConfig(tc.threshold), fixedStats(recordedStats, nil))
		got := gather(t, e)
		_, hasServer := got[`haproxy_server_up{backend="be_http:ns:web",server="pod:a"}`]
		_, hasBackendB := got[`haproxy_backend_current_sessions{backend="be_http:ns:web"}`]
		if hasServer != tc.servers || hasBackendB == tc.servers {
			t.Errorf("threshold %d with 3 servers: server rows %v, backend b rows %v; want server rows %v", tc.threshold, hasServer, hasBackendB, tc.servers)
		}
	}
}

func TestExporterSelectedIndexes(t *testing.T) {
	cfg := exporterConfig(500)
	cfg.Columns = []int{17, 7, 99, 7} // 99 is not in the table
	e := New(cfg, fixedStats(recordedStats, nil))
	var names []string
	for k := range gather(t, e) {
		name, _, _ := strings.Cut(k, "{")
		if strings.HasPrefix(name, "haproxy_exporter_") {
			continue
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	want := []string{"haproxy_backend_connections_total", "haproxy_backend_up", "haproxy_frontend_connections_total", "haproxy_server_connections_total", "haproxy_server_up"}
	if !slices.Equal(names, want) {
		t.Errorf("metrics %v, want %v", names, want)
	}
}

func TestExporterMalformed(t *testing.T) {
	header, _, _ := strings.Cut(recordedStats, "\n")
	var failing atomic.Bool
	text := "Unknown command: 'show stat'\n"
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	e := New(exporterConfig(500), func(context.Context) (string, error) {
		if failing.Load() {
			return "", errors.New("connection refused")
		}
		return text, nil
	})
	e.now = clock.now
	step := func(name string, wantUp, wantFailures, wantScrapes float64) map[string]float64 {
		t.Helper()
		clock.advance(time.Minute)
		got := gather(t, e)
		if got["haproxy_exporter_up"] != wantUp || got["haproxy_exporter_csv_parse_failures"] != wantFailures || got["haproxy_exporter_total_scrapes"] != wantScrapes {
			t.Errorf("%s: up %v, parse failures %v, scrapes %v; want %v, %v, %v", name,
				got["haproxy_exporter_up"], got["haproxy_exporter_csv_parse_failures"], got["haproxy_exporter_total_scrapes"], wantUp, wantFailures, wantScrapes)
		}
		return got
	}
	haproxySeries := func(got map[string]float64) (n int) {
		for k := range got {
			if !strings.HasPrefix(k, "haproxy_exporter_") {
				n++
			}
		}
		return n
	}

	if got := step("not CSV", 0, 1, 1); haproxySeries(got) != 0 {
		t.Errorf("not CSV: HAProxy series exported: %v", got)
	}

	text = header + "\npublic,FRONTEND,1,2\n"
	if got := step("short row", 0, 2, 2); haproxySeries(got) != 0 {
		t.Errorf("short row: HAProxy series exported: %v", got)
	}

	// Bad rows and fields are counted and left out; the good ones stay.
	cfg := exporterConfig(500)
	cfg.Columns = []int{4}
	e2 := New(cfg, fixedStats(header+"\n"+strings.Join([]string{
		frontendRow("public", 4, "12"),
		frontendRow("fe_sni", 4, "twelve"),
		frontendRow("fe_other", 4, `1"2`),
		frontendRow("fe_no_sni", 4, "3"),
	}, "\n")+"\n", nil))
	got := gather(t, e2)
	if got["haproxy_exporter_up"] != 0 || got["haproxy_exporter_csv_parse_failures"] != 2 ||
		got[`haproxy_frontend_current_sessions{frontend="public"}`] != 12 ||
		got[`haproxy_frontend_current_sessions{frontend="fe_no_sni"}`] != 3 || haproxySeries(got) != 2 {
		t.Errorf("a bad value and a bad quote: want up 0, 2 parse failures and the two good rows, got %v", got)
	}

	failing.Store(true)
	if got := step("stats error", 0, 2, 3); haproxySeries(got) != 0 {
		t.Errorf("stats error: HAProxy series exported: %v", got)
	}

	failing.Store(false)
	text = header + "\n" + frontendRow("public", 4, "7") + "\n"
	if got := step("recovered", 1, 2, 4); haproxySeries(got) != 9 || got[`haproxy_frontend_current_sessions{frontend="public"}`] != 7 {
		t.Errorf("recovered: want the 9 frontend series, current_sessions 7; got %v", got)
	}
}

// frontendRow is a frontend row of the recorded CSV with column index set
// to value.
func frontendRow(name string, index int, value string) string {
	for line := range strings.SplitSeq(recordedStats, "\n") {
		if strings.HasPrefix(line, "public,FRONTEND,") {
			f := strings.Split(line, ",")
			f[0] = name
			f[index] = value
			return strings.Join(f, ",")
		}
	}
	panic("no frontend row")
}

func TestExporterScrapeSpacing(t *testing.T) {
	var calls atomic.Int32
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	cfg := exporterConfig(500)
	cfg.ScrapeInterval = 5 * time.Second
	text := recordedStats
	e := New(cfg, func(context.Context) (string, error) {
		calls.Add(1)
		return text, nil
	})
	e.now = clock.now

	collect := func(step string, wantCalls int32, wantInterval float64) map[string]float64 {
		t.Helper()
		got := gather(t, e)
		if calls.Load() != wantCalls || got["haproxy_exporter_total_scrapes"] != float64(wantCalls) || got["haproxy_exporter_scrape_interval"] != wantInterval {
			t.Errorf("%s: %d scrapes (metric %v), interval %vs; want %d, %vs", step, calls.Load(), got["haproxy_exporter_total_scrapes"], got["haproxy_exporter_scrape_interval"], wantCalls, wantInterval)
		}
		return got
	}
	const fe = `haproxy_frontend_current_sessions{frontend="public"}`
	collect("first collect", 1, 5)
	clock.advance(4 * time.Second)
	text = strings.Replace(recordedStats, "public,FRONTEND,,,104,", "public,FRONTEND,,,1,", 1)
	if got := collect("within the interval", 1, 5); got[fe] != 104 {
		t.Errorf("within the interval: %s = %v, want the cached 104", fe, got[fe])
	}
	clock.advance(time.Second)
	if got := collect("after the interval", 2, 5); got[fe] != 1 {
		t.Errorf("after the interval: %s = %v, want the new 1", fe, got[fe])
	}

	// 1001 rows: the next scrape waits (1001/1000 + 1) × 5s.
	header, rest, _ := strings.Cut(recordedStats, "\n")
	var b strings.Builder
	b.WriteString(header + "\n" + rest)
	server := strings.Split(recordedStats, "\n")[3] // be_http:ns:web,pod:a
	for i := range 1001 - 10 {
		b.WriteString(strings.Replace(server, "pod:a", fmt.Sprintf("pod:%d", i), 1) + "\n")
	}
	text = b.String()
	clock.advance(5 * time.Second)
	got := collect("1001 rows", 3, 10)
	if got[`haproxy_exporter_server_threshold{type="current"}`] != 3+991 {
		t.Errorf("server threshold current = %v, want %d", got[`haproxy_exporter_server_threshold{type="current"}`], 3+991)
	}
	clock.advance(9 * time.Second)
	collect("9s after 1001 rows", 3, 10)
	clock.advance(time.Second)
	collect("10s after 1001 rows", 4, 10)
}

// TestExporterTimeout: a scrape gets a context that ends within the
// timeout, and a scrape that runs into it counts as down.
func TestExporterTimeout(t *testing.T) {
	cfg := exporterConfig(500)
	cfg.Timeout = 50 * time.Millisecond
	var deadline time.Time
	var scrapeErr error
	e := New(cfg, func(ctx context.Context) (string, error) {
		d, ok := ctx.Deadline()
		if !ok {
			return "", errors.New("no deadline")
		}
		deadline = d
		<-ctx.Done()
		scrapeErr = ctx.Err()
		return "", ctx.Err()
	})
	before := time.Now()
	got := gather(t, e)
	after := time.Now()
	// The scrape started between before and after; its deadline is the
	// timeout after that.
	if deadline.Before(before.Add(cfg.Timeout)) || deadline.After(after.Add(cfg.Timeout)) {
		t.Errorf("scrape deadline %v, want the timeout (%v) after the scrape started, between %v and %v", deadline, cfg.Timeout, before, after)
	}
	if !errors.Is(scrapeErr, context.DeadlineExceeded) {
		t.Errorf("the scrape's context ended with %v, want its deadline", scrapeErr)
	}
	if got["haproxy_exporter_up"] != 0 {
		t.Errorf("up = %v after a timed out scrape, want 0", got["haproxy_exporter_up"])
	}
}

func TestParseStatus(t *testing.T) {
	for s, want := range map[string]float64{
		"UP": 1, "UP 1/3": 1, "UP 2/3": 1, "OPEN": 1, "no check": 1,
		"DOWN": 0, "DOWN 1/2": 0, "NOLB": 0, "NOLB 1/2": 0, "MAINT": 0, "MAINT (via be/s)": 0,
		"MAINT (resolution)": 0, "DRAIN": 0, "DRAIN (agent)": 0, "FULL": 0, "STOP": 0,
	} {
		if got := parseStatus(s); got != want {
			t.Errorf("parseStatus(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestInternalProxies(t *testing.T) {
	for name, want := range map[string]bool{
		"GLOBAL": true, "<HTTPCLIENT>": true, "<OCSP-UPDATE>": true, "stats": true,
		"public": false, "be_http:ns:web": false, "fe_sni": false,
	} {
		if got := internalProxy(name); got != want {
			t.Errorf("internalProxy(%q) = %v, want %v", name, got, want)
		}
	}
}

// collectAndCompare is testutil.CollectAndCompare without its dependency
// github.com/kylelemons/godebug, which go.mod does not list: it collects
// c through a pedantic registry and compares the exposition text with
// want (any order of families, series and labels).
func collectAndCompare(c prometheus.Collector, want string) error {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		return err
	}
	got, err := reg.Gather()
	if err != nil {
		return err
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	wantFamilies, err := parser.TextToMetricFamilies(strings.NewReader(want))
	if err != nil {
		return fmt.Errorf("expected text: %w", err)
	}
	var wantList []*dto.MetricFamily
	for _, mf := range wantFamilies {
		wantList = append(wantList, mf)
	}
	gotLines, err := expositionLines(got)
	if err != nil {
		return err
	}
	wantLines, err := expositionLines(wantList)
	if err != nil {
		return err
	}
	if slices.Equal(gotLines, wantLines) {
		return nil
	}
	var missing, extra []string
	for _, l := range wantLines {
		if !slices.Contains(gotLines, l) {
			missing = append(missing, l)
		}
	}
	for _, l := range gotLines {
		if !slices.Contains(wantLines, l) {
			extra = append(extra, l)
		}
	}
	return fmt.Errorf("exposition differs\nmissing:\n  %s\nunexpected:\n  %s",
		strings.Join(missing, "\n  "), strings.Join(extra, "\n  "))
}

// expositionLines is the sorted lines of the text exposition of mfs, the
// labels of every series sorted by name.
func expositionLines(mfs []*dto.MetricFamily) ([]string, error) {
	var b strings.Builder
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			slices.SortFunc(m.Label, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
		}
		if err := enc.Encode(mf); err != nil {
			return nil, err
		}
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	sort.Strings(lines)
	return lines, nil
}

// gather collects e through a pedantic registry (which checks the
// metrics against Describe) and returns every series as
// name{label="value",...} → value, labels sorted by name.
func gather(t *testing.T, e *Exporter) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(e); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			key := mf.GetName()
			if len(labels) > 0 {
				key += "{" + strings.Join(labels, ",") + "}"
			}
			var v float64
			switch {
			case m.GetCounter() != nil:
				v = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				v = m.GetGauge().GetValue()
			default:
				t.Fatalf("%s: neither counter nor gauge", key)
			}
			if _, dup := out[key]; dup {
				t.Fatalf("duplicate series %s", key)
			}
			out[key] = v
		}
	}
	return out
}

// socketStats runs "show stat" on HAProxy's stats socket.
func socketStats(path string) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", path)
		if err != nil {
			return "", err
		}
		defer c.Close()
		if dl, ok := ctx.Deadline(); ok {
			if err := c.SetDeadline(dl); err != nil {
				return "", err
			}
		}
		if _, err := io.WriteString(c, "show stat\n"); err != nil {
			return "", err
		}
		b, err := io.ReadAll(c)
		return string(b), err
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	p, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func haproxyBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
		return "/usr/sbin/haproxy"
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("haproxy is not installed")
	}
	t.Skip("haproxy is not installed")
	return ""
}

// TestExporterRealHAProxy scrapes a real HAProxy through its stats socket.
func TestExporterRealHAProxy(t *testing.T) {
	bin := haproxyBinary(t)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello\n")
	}))
	defer app.Close()
	appAddr := app.Listener.Addr().String()

	dir := t.TempDir()
	sock := filepath.Join(dir, "admin.sock")
	port := freePort(t)
	cfgText := fmt.Sprintf(`global
  stats socket %s level admin
defaults
  mode http
  timeout connect 5s
  timeout client 5s
  timeout server 5s
frontend public
  bind 127.0.0.1:%d
  default_backend be_http:ns:web
backend be_http:ns:web
  balance roundrobin
  server pod:a %s check inter 100ms
  server pod:b %s check inter 100ms
`, sock, port, appAddr, appAddr)
	cfgPath := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	var output strings.Builder
	cmd := exec.Command(bin, "-db", "-f", cfgPath)
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()

	cfg := exporterConfig(500)
	cfg.ScrapeInterval = time.Nanosecond // scrape on every collect
	cfg.Timeout = 2 * time.Second
	e := New(cfg, socketStats(sock))

	// Wait for HAProxy to answer and both servers to pass their checks.
	upA := `haproxy_server_up{backend="be_http:ns:web",server="pod:a"}`
	upB := `haproxy_server_up{backend="be_http:ns:web",server="pod:b"}`
	var got map[string]float64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("haproxy exited: %v\n%s", err, output.String())
		default:
		}
		got = gather(t, e)
		if got["haproxy_exporter_up"] == 1 && got[upA] == 1 && got[upB] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("HAProxy not ready: %v\n%s", got, output.String())
		}
	}

	const requests = 10
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	for range requests {
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}

	okA := `haproxy_server_http_responses_total{backend="be_http:ns:web",code="2xx",server="pod:a"}`
	okB := `haproxy_server_http_responses_total{backend="be_http:ns:web",code="2xx",server="pod:b"}`
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got = gather(t, e)
		if got[okA]+got[okB] == requests || time.Now().After(deadline) {
			break
		}
	}
	if got[okA]+got[okB] != requests {
		t.Errorf("server 2xx responses %v + %v, want %d in all", got[okA], got[okB], requests)
	}
	if got[okA] == 0 || got[okB] == 0 {
		t.Errorf("roundrobin: server 2xx responses %v and %v, want both > 0", got[okA], got[okB])
	}
	if c := got[`haproxy_frontend_connections_total{frontend="public"}`]; c < requests {
		t.Errorf("frontend connections %v, want ≥ %d", c, requests)
	}
	if got[upA] != 1 || got[upB] != 1 {
		t.Errorf("server up %v, %v; want 1, 1", got[upA], got[upB])
	}
	if got[`haproxy_backend_up{backend="be_http:ns:web"}`] != 1 || got[`haproxy_backend_connections_total{backend="be_http:ns:web"}`] != requests {
		t.Errorf("backend: up %v, connections %v; want 1, %d", got[`haproxy_backend_up{backend="be_http:ns:web"}`], got[`haproxy_backend_connections_total{backend="be_http:ns:web"}`], requests)
	}
	if got["haproxy_exporter_up"] != 1 || got["haproxy_exporter_csv_parse_failures"] != 0 || got[`haproxy_exporter_server_threshold{type="current"}`] != 2 {
		t.Errorf("exporter: %v", got)
	}
	for k := range got {
		if strings.Contains(k, `"stats"`) || strings.Contains(k, "GLOBAL") || strings.Contains(k, "<") {
			t.Errorf("internal proxy exported: %s", k)
		}
	}
}
