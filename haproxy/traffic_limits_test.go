package haproxy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/settings"
)

// TestTrafficMaxConnFitsTheFileLimit: with the default
// ROUTER_MAX_CONNECTIONS, HAProxy gets a maxconn that fits in the
// process's open-file limit (raised to its hard limit), and neither starts
// nor reloads with a warning about it.
func TestTrafficMaxConnFitsTheFileLimit(t *testing.T) {
	def := settings.Defaults().DataPlane.MaxConnections
	r := newTrafficRouter(t, func(d *proxyconfig.Config) { d.MaxConnections = def })
	web := newBackend(t, "web", nil, nil)
	r.endpoints("ns", "web", web)
	r.route(rt("ns", "web", "web.example.com", 1, toService("web")))
	r.start()
	r.route(rt("ns", "web", "web.example.com", 1, toService("web"), withPath("/v2")))
	before := r.reloads()
	r.publish()
	r.waitReloads(before + 1)

	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	if l.Cur != l.Max && l.Cur < 1<<20 {
		t.Errorf("open-file limit %d of %d: not raised", l.Cur, l.Max)
	}
	want := runtime.FittingMaxConn(def, l.Cur)
	if got := r.p.cfg.MaxConnections; got != want {
		t.Errorf("maxconn %d with an open-file limit of %d, want %d", got, l.Cur, want)
	}
	data, err := os.ReadFile(filepath.Join(r.cfg.WorkingDir, configFile))
	if err != nil {
		t.Fatal(err)
	}
	if cfg := string(data); !strings.Contains(cfg, fmt.Sprintf("\n  maxconn %d\n", want)) {
		t.Errorf("haproxy.cfg does not set maxconn %d:\n%s", want, cfg)
	}
	if want < def && !strings.Contains(r.logged(), "HAProxy runs with maxconn") {
		t.Errorf("lowering ROUTER_MAX_CONNECTIONS was not logged:\n%s", r.logged())
	}
	for _, line := range strings.Split(r.haproxyOutput(), "\n") {
		if strings.Contains(line, "FD limit") {
			t.Errorf("HAProxy: %s", line)
		}
	}
}
