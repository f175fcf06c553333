package haproxy

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/settings"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// HAProxy's own words about the configuration the router renders: with
// the default settings, HAProxy says nothing the router passes on as a
// warning or an alert (runtime.Message.Judge) when it starts without
// routes, reloads after routes change, and stops. What it prints at every
// reload and stop anyway ("Proxy NAME stopped", workers exiting) the
// router logs at debug level.

// warningTemplate is the built-in haproxy.cfg template without the line
// that turns option idle-close-on-response off in the TCP frontend:
// HAProxy warns at every load that it ignores the option there.
func warningTemplate(t *testing.T) string {
	t.Helper()
	text, err := builtinTemplates.ReadFile("templates/haproxy.cfg.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	const off = "  no option idle-close-on-response\n"
	if !strings.Contains(string(text), off) {
		t.Fatalf("the built-in template has no line %q to remove", off)
	}
	return writeTempFile(t, "haproxy.cfg.tmpl", strings.Replace(string(text), off, "", 1))
}

// warnedIdleClose is HAProxy's warning about warningTemplate.
const warnedIdleClose = "'option idle-close-on-response' ignored for frontend 'public_ssl' as it requires HTTP mode."

// relayedComplaints are the lines the data plane logged from HAProxy's
// output (relayed) as warnings or alerts: with HAProxy's severity, not at
// debug level.
func relayedComplaints(logs string) []string {
	var out []string
	for line := range strings.Lines(logs) {
		if strings.HasPrefix(line, "haproxy ") && strings.Contains(line, `"severity"=`) && !strings.Contains(line, `"level"=1 `) {
			out = append(out, strings.TrimRight(line, "\n"))
		}
	}
	return out
}

// TestTrafficNoHAProxyWarnings: HAProxy, run by the data plane with the
// default settings (ROUTER_MAX_CONNECTIONS fitted to the open-file limit,
// as the router does), prints no warning or alert the router passes on
// as one: started without routes, reloaded for a mix of routes (plain
// HTTP, edge with the default certificate and with its own, reencrypt,
// passthrough, each with endpoints), reloaded again after routes and
// endpoints changed, then stopped. HAProxy's output is checked as it
// prints it, and as the router logs it; a template HAProxy warns about
// shows the check catches a warning at start and at each reload.
func TestTrafficNoHAProxyWarnings(t *testing.T) {
	cases := []struct {
		name     string
		relayed  bool
		template bool
		// want is a complaint expected at every load, "" for none.
		want string
	}{
		{name: "default settings, HAProxy's output as it prints it"},
		{name: "default settings, HAProxy's output as the router logs it", relayed: true},
		{name: "a template HAProxy warns about, as the router logs it", relayed: true, template: true, want: warnedIdleClose},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newTrafficRouter(t, func(d *proxyconfig.Config) {
				d.MaxConnections = settings.Defaults().DataPlane.MaxConnections
				if c.template {
					d.TemplateFile = warningTemplate(t)
				}
			})
			r.relayed = c.relayed
			beforeStop := -1
			// Registered first, this runs last: after the data plane
			// has stopped HAProxy.
			t.Cleanup(func() { checkHAProxyWords(t, r, beforeStop, c.want) })

			r.start()
			t.Cleanup(func() { beforeStop = len(r.haproxyOutput()) })
			loads := 1
			routesChange(t, r)
			loads += r.reloads()
			// Each reload's previous worker has stopped: its words are in.
			eventually(t, 30*time.Second, "the previous workers exit", func() error {
				out := r.haproxyOutput() + r.logged()
				if n := strings.Count(out, "Former worker ("); n < loads-1 {
					return fmt.Errorf("%d of %d previous workers exited", n, loads-1)
				}
				return nil
			})
			if c.want != "" {
				if got := strings.Count(strings.Join(relayedComplaints(r.logged()), "\n"), c.want); got < loads {
					t.Errorf("%q logged %d times, want once for each of %d loads", c.want, got, loads)
				}
			}
		})
	}
}

// routesChange takes r, started without routes, through two reloads: a
// mix of routes with endpoints, then a route replaced and endpoints
// changed. It waits until each configuration serves.
func routesChange(t *testing.T, r *trafficRouter) {
	t.Helper()
	web, web2 := newBackend(t, "web", nil, nil), newBackend(t, "web2", nil, nil)
	backendCA := newCA(t, "backend CA")
	secure := newBackend(t, "secure", nil, tlsServerConfig(t, issue(t, backendCA, "127.0.0.1", "secure.ns.svc")))
	podCA := newCA(t, "pod CA")
	pod := newBackend(t, "pod", nil, tlsServerConfig(t, issue(t, podCA, "pass.example.com")))
	routeCA := newCA(t, "route CA")
	own := issue(t, routeCA, "own.example.com")
	edge := routecore.TLSTerminationEdge

	r.endpoints("ns", "web", web)
	r.endpoints("ns", "secure", secure)
	r.endpoints("ns", "pod", pod)
	r.route(rt("ns", "plain", "plain.example.com", 1, toService("web")))
	r.route(rt("ns", "edge", "edge.example.com", 2, toService("web"), terminated(edge, routecore.InsecureEdgeTerminationPolicyRedirect, nil, nil)))
	r.route(rt("ns", "own", "own.example.com", 3, toService("web"), terminated(edge, "", own, routeCA)))
	r.route(rt("ns", "reencrypt", "reencrypt.example.com", 4, toService("secure"), terminated(routecore.TLSTerminationReencrypt, "", nil, nil), destinationCA(backendCA)))
	r.route(rt("ns", "pass", "pass.example.com", 5, toService("pod"), terminated(routecore.TLSTerminationPassthrough, "", nil, nil)))
	r.publish()
	before := r.reloads()
	https := r.client(clientOptions{})
	served := func(url, backend string) {
		t.Helper()
		eventually(t, 30*time.Second, url+" served by "+backend, func() error {
			if x := fetch(https, url); !x.served(backend) {
				return errors.New(x.String())
			}
			return nil
		})
	}
	served("http://plain.example.com/", "web")
	served("https://edge.example.com/", "web")
	served("https://own.example.com/", "web")
	served("https://reencrypt.example.com/", "secure")
	served("https://pass.example.com/", "pod")
	if r.reloads() == before {
		t.Fatal("the routes were served without a reload")
	}

	before = r.reloads()
	r.deleteRoute("ns", "plain")
	r.route(rt("ns", "plain2", "plain2.example.com", 6, toService("web2")))
	r.endpoints("ns", "web", web2)
	r.endpoints("ns", "web2", web, web2)
	r.publish()
	served("https://edge.example.com/", "web2")
	eventually(t, 30*time.Second, "http://plain2.example.com/ served", func() error {
		if x := r.get("plain2.example.com", "/"); x.code != 200 {
			return errors.New(x.String())
		}
		return nil
	})
	if x := r.get("plain.example.com", "/"); x.code != 503 {
		t.Errorf("the deleted route: %v, want 503", x)
	}
	if r.reloads() == before {
		t.Fatal("the changed routes were served without a reload")
	}
}

// checkHAProxyWords checks what HAProxy said over the data plane's life:
// no complaint, or want among them. HAProxy's output as printed is judged
// as the router judges it, up to beforeStop (bytes) as from a HAProxy the
// router is not stopping.
func checkHAProxyWords(t *testing.T, r *trafficRouter, beforeStop int, want string) {
	t.Helper()
	var complaints []string
	words := r.haproxyOutput()
	if r.relayed {
		words = r.logged()
		complaints = relayedComplaints(words)
	} else {
		at := 0
		for line := range strings.Lines(words) {
			stopping := beforeStop >= 0 && at >= beforeStop
			at += len(line)
			if runtime.ParseMessage(line).Judge(stopping) >= runtime.LevelWarning {
				complaints = append(complaints, strings.TrimRight(line, "\n"))
			}
		}
	}
	// The words are HAProxy's: a previous worker said this at its stop.
	if !strings.Contains(words, "Proxy public stopped (cumulated conns: FE: ") {
		t.Errorf("no word of HAProxy's about a previous worker stopping reached the test:\n%s", words)
	}
	if want == "" {
		if len(complaints) > 0 {
			t.Errorf("HAProxy warned:\n%s", strings.Join(complaints, "\n"))
		}
		return
	}
	for _, line := range complaints {
		if !strings.Contains(line, want) {
			t.Errorf("HAProxy warned about more than %q:\n%s", want, line)
		}
	}
	if len(complaints) == 0 {
		t.Errorf("HAProxy's warning %q was not caught", want)
	}
}

// TestHAProxyConfigWarnings: haproxy -c says nothing the router passes on
// as a warning about the configuration of the default settings, also on
// ports 80 and 443 of every address as with the host-network overlay (the
// traffic tests listen on free loopback ports); it does about a template
// HAProxy warns about.
func TestHAProxyConfigWarnings(t *testing.T) {
	cases := []struct {
		name string
		cfg  func(*proxyconfig.Config)
		want string
	}{
		{name: "default settings", cfg: func(*proxyconfig.Config) {}},
		{name: "ports 80 and 443", cfg: func(d *proxyconfig.Config) { d.HTTPPort, d.HTTPSPort = 80, 443 }},
		{name: "a template HAProxy warns about", cfg: func(d *proxyconfig.Config) { d.TemplateFile = warningTemplate(t) }, want: warnedIdleClose},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := settings.Defaults().DataPlane
			d.WorkingDir = renderWorkDir(t)
			c.cfg(&d)
			r, err := NewRenderer(d)
			if err != nil {
				t.Fatal(err)
			}
			snap := snapshotOf([]*router.Route{
				served("ns", "plain", "plain.example.com"),
				served("ns", "edge", "edge.example.com", edgeRedirect),
				served("ns", "own", "own.example.com", tlsRoute(routecore.TLSTerminationEdge, ""), ownCert(t)),
				served("ns", "reencrypt", "reencrypt.example.com", reencrypt, destCA(t)),
				served("ns", "pass", "pass.example.com", passthrough),
			}, eps("ns", "plain", "10.0.0.1"), eps("ns", "edge", "10.0.0.2", "10.0.0.3"), eps("ns", "own", "10.0.0.4"),
				eps("ns", "reencrypt", "10.0.0.5"), eps("ns", "pass", "10.0.0.6"))
			out := mustRender(t, r, snap)
			if c.want == "" {
				cfg := string(out.Files[configFile].Data)
				for _, bind := range []string{fmt.Sprintf("bind :%d\n", d.HTTPPort), fmt.Sprintf("bind :%d\n", d.HTTPSPort)} {
					if !strings.Contains(cfg, bind) {
						t.Errorf("haproxy.cfg has no line %q", strings.TrimSpace(bind))
					}
				}
				haproxyCheck(t, r, out)
				return
			}
			got := complaints(haproxyCheckWords(t, r, out))
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Errorf("haproxy -c warns\n%s\nwant %q", strings.Join(got, "\n"), c.want)
			}
		})
	}
}
