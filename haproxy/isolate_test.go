package haproxy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// weakCertificate is fixtures.WeakCertificate: a certificate routecore
// accepts and HAProxy refuses to load.
func weakCertificate(t testing.TB, host string) (certPEM, keyPEM string) {
	t.Helper()
	certPEM, keyPEM, err := fixtures.WeakCertificate(host)
	if err != nil {
		t.Fatal(err)
	}
	return certPEM, keyPEM
}

// withWeakCertificate makes an edge route serve a weak certificate.
func withWeakCertificate(t testing.TB) func(*router.Route) {
	cert, key := weakCertificate(t, "weak.example.com")
	return func(r *router.Route) {
		r.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: cert, Key: key}
	}
}

// TestWeakCertificatePassesRoutecore: the weak certificate is a Route a
// tenant can create through the webhook (every check of routecore,
// certificates included, accepts it): HAProxy's refusal of it is the
// router's to isolate.
func TestWeakCertificatePassesRoutecore(t *testing.T) {
	cert, key := weakCertificate(t, "weak.example.com")
	r := rt("ns", "weak", "weak.example.com", 1, func(r *routecore.Route) {
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, Certificate: cert, Key: key}
	})
	routecore.Default(r, nil, routecore.DefaultOptions{})
	if errs := routecore.ValidateRoute(r, routecore.ValidateOptions{}); len(errs) > 0 {
		t.Fatalf("routecore refuses the weak certificate (update the isolation tests' example): %v", errs)
	}
}

// longPathRewrite is a route stored before routecore limited paths (or
// that bypassed every check): a 32,800-byte path with a rewrite target,
// whose rewrite rule HAProxy refuses ("regular expression is too large").
func longPathRewrite(r *router.Route) {
	r.Path = "/" + strings.Repeat("a.", 16400)
	r.Overrides.RewriteTarget = "/"
}

// TestIsolatorFinds: among good routes, the isolator finds exactly those
// HAProxy refuses, with HAProxy's words, in few probes; good routes alone
// take one probe and are all accepted. It runs the real HAProxy.
func TestIsolatorFinds(t *testing.T) {
	requireHAProxy(t)
	var routes []*router.Route
	for i := range 30 {
		routes = append(routes, served("ns", fmt.Sprintf("good%02d", i), "good.example.com", atPath(fmt.Sprintf("/%02d", i))))
	}
	weak := served("ns", "weak", "weak.example.com", withWeakCertificate(t))
	long := served("other", "long", "long.example.com", longPathRewrite)
	all := slices.Concat(routes[:10], []*router.Route{weak}, routes[10:20], []*router.Route{long}, routes[20:])
	iso := newIsolator(testDataPlane(renderWorkDir(t)), "haproxy", nil, nil)
	services := snapshotOf(nil).Services

	found, err := iso.find(routes, services, nil)
	if err != nil || len(found) != 0 || iso.probes != 1 {
		t.Fatalf("good routes: found %v, error %v, in %d probes; want none in 1 probe", found, err, iso.probes)
	}
	iso.probes = 0
	found, err = iso.find(all, services, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, rf := range found {
		got[rf.route.Key()] = rf.message
	}
	want := map[string]string{"ns/weak": "unable to load SSL certificate", "other/long": "regular expression is too large"}
	if len(got) != len(want) {
		t.Fatalf("found %v, want %v", got, want)
	}
	for k, words := range want {
		if msg, ok := got[k]; !ok || !strings.HasPrefix(msg, "HAProxy refuses this route's configuration: ") || !strings.Contains(msg, words) {
			t.Errorf("%s: message %q, want HAProxy's words %q", k, msg, words)
		}
		if msg := got[k]; len(msg) > maxMessage || strings.Contains(msg, iso.cfg.WorkingDir) {
			t.Errorf("%s: message of %d bytes naming the working directory: %q", k, len(msg), msg)
		}
	}
	// Every probe halves the routes at least, or names the culprit.
	if limit := 2 + 2*2*6; iso.probes > limit {
		t.Errorf("%d probes for 2 refused routes among %d, want at most %d", iso.probes, len(all), limit)
	}
	t.Logf("%d probes: %q", iso.probes, got)
}
