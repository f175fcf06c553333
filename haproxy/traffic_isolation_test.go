package haproxy

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// Fault isolation with a real HAProxy: a Route HAProxy refuses (an edge
// Route whose certificate has a 1024-bit RSA key: Go and routecore accept
// it, HAProxy on OpenSSL 3 refuses to load it) does not keep the others
// from loading.

// weakEdge makes a route edge-terminated with a weak certificate.
func weakEdge(t testing.TB, host string) func(*routecore.Route) {
	cert, key := weakCertificate(t, host)
	return func(r *routecore.Route) {
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: cert, Key: key}
	}
}

// waitNotServable waits until the router's decision on ns/name is
// RouteNotServable with a message holding words, and returns it.
func (r *trafficRouter) waitNotServable(ns, name, words string) router.Decision {
	r.t.Helper()
	var d router.Decision
	eventually(r.t, 30*time.Second, ns+"/"+name+" reported not servable", func() error {
		d = r.decision(ns, name)
		if d.Verdict != router.Rejected || d.Reason != router.ReasonNotServable || !strings.Contains(d.Message, words) {
			return fmt.Errorf("decision %+v", d)
		}
		return nil
	})
	return d
}

// TestTrafficIsolatesARefusedRoute: the refused Route is found before it
// reaches the configuration HAProxy loads (no reload fails), reported not
// servable with HAProxy's words, and answered with 503; Routes created
// afterwards are served, endpoint changes apply without a reload, and the
// Route, once fixed, is served.
func TestTrafficIsolatesARefusedRoute(t *testing.T) {
	r := newTrafficRouter(t)
	web, web2 := newBackend(t, "web", nil, nil), newBackend(t, "web-2", nil, nil)
	for _, ns := range []string{"ns", "tenant", "other"} {
		r.endpoints(ns, "web", web)
	}
	r.route(rt("ns", "good", "good.example.com", 1, toService("web")))
	r.start()
	wantServed(t, "good.example.com", r.get("good.example.com", "/"), "web")
	failures := r.counterValue(t, "routeshift_router_reload_failures_total")

	r.route(rt("tenant", "weak", "weak.example.com", 2, toService("web"), weakEdge(t, "weak.example.com")))
	r.publish()
	d := r.waitNotServable("tenant", "weak", "unable to load SSL certificate")
	t.Logf("status message: %s", d.Message)
	if d.Host != "weak.example.com" {
		t.Errorf("decision host %q", d.Host)
	}

	r.route(rt("other", "later", "later.example.com", 3, toService("web")))
	r.publish()
	r.servedBy("later.example.com", "/", "web")
	r.waitOwnBackends() // a standby backend may serve it before the reload
	if x := fetch(r.client(clientOptions{}), "https://weak.example.com/"); x.err != nil || x.code != 503 {
		t.Errorf("https://weak.example.com/: %v, want 503 (the refused route keeps its host, closed)", x)
	}
	if got := r.counterValue(t, "routeshift_router_reload_failures_total"); got != failures {
		t.Errorf("%v configurations failed to load; the refused route should never reach one", got-failures)
	}

	reloads := r.reloads()
	r.scaleTo(t, "good.example.com", "web", web2)
	r.endpoints("tenant", "web", web2)
	if n := r.reloads(); n != reloads {
		t.Errorf("an endpoint change reloaded HAProxy %d times, want 0", n-reloads)
	}

	ca := newCA(t, "tenant CA")
	r.route(rt("tenant", "weak", "weak.example.com", 2, toService("web"), terminated(routecore.TLSTerminationEdge, "", issue(t, ca, "weak.example.com"), ca)))
	r.publish()
	eventually(t, 30*time.Second, "the fixed route is admitted and served", func() error {
		if d := r.decision("tenant", "weak"); d.Verdict != router.Admitted {
			return fmt.Errorf("decision %+v", d)
		}
		x := fetch(r.client(clientOptions{roots: pool(ca)}), "https://weak.example.com/")
		if !x.served("web-2") {
			return errors.New(x.String())
		}
		return nil
	})
}

// TestTrafficIsolatesARefusedRouteAtStart: in the first configuration,
// which is checked whole, HAProxy's refusal names the Route; the others
// load without it and the router becomes ready.
func TestTrafficIsolatesARefusedRouteAtStart(t *testing.T) {
	r := newTrafficRouter(t)
	web := newBackend(t, "web", nil, nil)
	r.endpoints("ns", "web", web)
	r.route(rt("ns", "good", "good.example.com", 1, toService("web")))
	r.route(rt("tenant", "weak", "weak.example.com", 2, toService("web"), weakEdge(t, "weak.example.com")))
	r.start()
	wantServed(t, "good.example.com", r.get("good.example.com", "/"), "web")
	r.waitNotServable("tenant", "weak", "unable to load SSL certificate")
	if got := r.counterValue(t, "routeshift_router_reload_failures_total"); got < 1 {
		t.Errorf("the first configuration was not refused (%v failures): the test does not test the start", got)
	}
}
