package haproxy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
)

// reloadFor makes a change, publishes it after RELOAD_INTERVAL has passed
// and checks that HAProxy reloads once, that the reload is counted under
// the kind of want (its first reason) and logged with want.
func (r *trafficRouter) reloadFor(t *testing.T, clock *fakeClock, want runtime.Reason, change func()) {
	t.Helper()
	reloads := r.reloads()
	counts := r.counterValues(t, "routeshift_router_reloads_total")
	logAt := len(r.logged())
	change()
	clock.advance(r.cfg.ReloadInterval)
	r.publish()
	r.waitReloads(reloads + 1)
	eventually(t, 10*time.Second, fmt.Sprintf("the reload is counted as %q and logged with %q", want.Kind, want), func() error {
		if got := r.counterValues(t, "routeshift_router_reloads_total"); got[want.Kind] != counts[want.Kind]+1 {
			return fmt.Errorf("counted %v, before %v", got, counts)
		}
		logged := r.logged()[logAt:]
		if !strings.Contains(logged, `"msg"="HAProxy reloaded"`) || !strings.Contains(logged, fmt.Sprintf("%q", want.String())) {
			return fmt.Errorf("log:\n%s", logged)
		}
		return nil
	})
	if n := r.reloads(); n != reloads+1 {
		t.Errorf("%d reloads, want 1", n-reloads)
	}
}

// wantReloadLogged waits until a reload is logged with reason want among
// its reasons.
func (r *trafficRouter) wantReloadLogged(t *testing.T, want runtime.Reason) {
	t.Helper()
	eventually(t, 10*time.Second, fmt.Sprintf("a reload logged with %q", want), func() error {
		for line := range strings.SplitSeq(r.logged(), "\n") {
			if strings.Contains(line, `"msg"="HAProxy reloaded"`) && strings.Contains(line, fmt.Sprintf("%q", want.String())) {
				return nil
			}
		}
		return fmt.Errorf("log:\n%s", r.logged())
	})
}

// TestTrafficReloadReasons: each kind of route change that needs a reload
// reloads HAProxy once, counted in routeshift_router_reloads_total under
// its reason and logged with it; endpoint churn reloads nothing.
func TestTrafficReloadReasons(t *testing.T) {
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.ReloadInterval = time.Minute })
	clock := r.withFakeClock()
	ca := newCA(t, "reasons CA")
	first := issue(t, ca, "tls.example.com")
	web, web2, alt := newBackend(t, "web", nil, nil), newBackend(t, "web-2", nil, nil), newBackend(t, "alt", nil, nil)
	r.endpoints("ns", "web", web)
	r.endpoints("ns", "alt", alt)
	r.route(rt("ns", "a", "a.example.com", 1, toService("web")))
	r.route(rt("ns", "tls", "tls.example.com", 2, toService("web"),
		terminated(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect, first, nil)))
	r.start()

	t.Run("endpoint_churn_reloads_nothing", func(t *testing.T) {
		reloads := r.reloads()
		r.scaleTo(t, "a.example.com", "web", web, web2)
		r.scaleTo(t, "a.example.com", "web", web2)
		r.scaleTo(t, "a.example.com", "web", web)
		if n := r.reloads() - reloads; n != 0 {
			t.Errorf("endpoint churn reloaded HAProxy %d times, want 0", n)
		}
	})
	steps := []struct {
		name   string
		want   runtime.Reason
		change func()
	}{
		{"route_added", runtime.Reason{Kind: ReasonBackendAdded, Subject: "backend be_http:ns:b"},
			func() { r.route(rt("ns", "b", "b.example.com", 3, toService("web"))) }},
		{"host_changed", runtime.Reason{Kind: ReasonMaps, Subject: "conf/maps/http_prefix.map"},
			func() { r.route(rt("ns", "b", "b2.example.com", 3, toService("web"))) }},
		{"balance_annotation", runtime.Reason{Kind: ReasonBackendSettings, Subject: "backend be_http:ns:a", Detail: "Balance"},
			func() {
				r.route(rt("ns", "a", "a.example.com", 1, toService("web"), annotated(routecore.AnnBalance, "random")))
			}},
		{"health_check_interval_annotation", runtime.Reason{Kind: ReasonServerOption, Subject: "backend be_http:ns:a"},
			func() {
				r.route(rt("ns", "a", "a.example.com", 1, toService("web"), annotated(routecore.AnnBalance, "random"),
					annotated(routecore.AnnHealthCheckInterval, "3s")))
			}},
		{"alternate_backend_added", runtime.Reason{Kind: ReasonServices, Subject: "backend be_http:ns:a"},
			func() {
				r.route(rt("ns", "a", "a.example.com", 1, toService("web"), annotated(routecore.AnnBalance, "random"),
					annotated(routecore.AnnHealthCheckInterval, "3s"), weighted(100, "alt", 100)))
			}},
		{"alternate_backend_removed", runtime.Reason{Kind: ReasonSlotsRemoved, Subject: "backend be_http:ns:a"},
			func() {
				r.route(rt("ns", "a", "a.example.com", 1, toService("web"), annotated(routecore.AnnBalance, "random"),
					annotated(routecore.AnnHealthCheckInterval, "3s")))
			}},
		{"route_removed", runtime.Reason{Kind: ReasonBackendRemoved, Subject: "backend be_http:ns:b"},
			func() { r.deleteRoute("ns", "b") }},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) { r.reloadFor(t, clock, s.want, s.change) })
	}
	r.servedBy("a.example.com", "/", "web")
	wantNotServed(t, "b2.example.com (deleted)", r.get("b2.example.com", "/"))
}
