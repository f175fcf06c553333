package cli

import (
	"strings"
	"testing"
)

// TestBindAlerts: HAProxy's output passes through whole, and its first
// alert about a socket it cannot listen on is kept, even when a line
// arrives in pieces.
func TestBindAlerts(t *testing.T) {
	output := "[NOTICE]   (29560) : haproxy version is 2.6.12-1+deb12u4\n" +
		"[WARNING]  (29560) : config : a warning that says cannot bind socket\n" +
		"[ALERT]    (29560) : Binding [haproxy.cfg:9] for frontend fe_http: cannot bind socket (Address already in use) for [127.0.0.1:18080]\n" +
		"[ALERT]    (29560) : Binding [haproxy.cfg:12] for frontend fe_https: cannot bind socket (Address already in use) for [127.0.0.1:18443]\n" +
		"[ALERT]    (29560) : [haproxy.main()] Some protocols failed to start their listeners! Exiting.\n"
	for _, size := range []int{1, 7, len(output)} {
		var log strings.Builder
		b := &bindAlerts{out: &log}
		if got := b.first(); got != "" {
			t.Fatalf("an alert before any output: %q", got)
		}
		for rest := output; rest != ""; {
			n := min(size, len(rest))
			if _, err := b.Write([]byte(rest[:n])); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if log.String() != output {
			t.Errorf("written in pieces of %d: the log holds %q", size, log.String())
		}
		want := "Binding [haproxy.cfg:9] for frontend fe_http: cannot bind socket (Address already in use) for [127.0.0.1:18080]"
		if got := b.first(); got != want {
			t.Errorf("written in pieces of %d: alert %q, want %q", size, got, want)
		}
	}
}

func TestBindError(t *testing.T) {
	o := &localOptions{bind: "127.0.0.1", httpPort: 18080, httpsPort: 18443}
	cases := []struct{ alert, want string }{
		{"Binding [haproxy.cfg:9] for frontend fe_http: cannot bind socket (Address already in use) for [127.0.0.1:18080]",
			"HAProxy cannot listen on port 18080 (--http-port): Binding [haproxy.cfg:9] for frontend fe_http: cannot bind socket (Address already in use) for [127.0.0.1:18080]: another program took the port after routeshift local checked it; stop it, or choose another port with --http-port"},
		{"Binding [haproxy.cfg:12] for frontend fe_https: cannot bind socket (Permission denied) for [127.0.0.1:18443]",
			"HAProxy cannot listen on port 18443 (--https-port): Binding [haproxy.cfg:12] for frontend fe_https: cannot bind socket (Permission denied) for [127.0.0.1:18443]: choose another port with --https-port"},
		// An internal port of the router (not a flag's).
		{"Binding [haproxy.cfg:20] for frontend fe_sni: cannot bind socket (Address already in use) for [127.0.0.1:180801]",
			"HAProxy cannot listen: Binding [haproxy.cfg:20] for frontend fe_sni: cannot bind socket (Address already in use) for [127.0.0.1:180801]"},
	}
	for _, c := range cases {
		if got := o.bindError(c.alert).Error(); got != c.want {
			t.Errorf("bindError(%q):\n%s\nwant\n%s", c.alert, got, c.want)
		}
	}
}
