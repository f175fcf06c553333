package haproxy

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/router"
)

// Fault isolation: a route HAProxy refuses must not keep the others from
// loading. Before routes that changed reach the configuration HAProxy
// loads, the isolator renders them alone, with the router's global
// configuration, into a scratch working directory and runs haproxy -c on
// that (a probe), so that the cost follows the change, not the number of
// routes. When HAProxy refuses a probe, the routes its words name (by a
// file, a line of a backend file or a backend name) are refused; the
// others are halved until each refused route is found alone. A route
// HAProxy refuses is then refused (see refusals): rendered closed and
// reported not servable.

// probeDir is the isolator's scratch working directory, inside the
// router's.
const probeDir = "probe"

// isolator finds the routes HAProxy refuses among a set of routes.
type isolator struct {
	haproxy string
	cfg     proxyconfig.Config
	// renderer renders the probes; nil before the first one and after a
	// probe's files could not be written.
	renderer *Renderer
	version  uint64
	// files are the configuration's files, whose contents probes use as
	// last read (nil: none).
	files *FileLoader
	// probes counts the probes run.
	probes int
}

// newIsolator returns an isolator that probes with the settings of cfg in
// cfg.WorkingDir/probe, the default certificate defaultPEM (when the
// configuration holds one) and the contents files last read (nil: none).
func newIsolator(cfg proxyconfig.Config, haproxy string, defaultPEM []byte, files *FileLoader) *isolator {
	cfg.WorkingDir = filepath.Join(cfg.WorkingDir, probeDir)
	if defaultPEM != nil && cfg.DefaultCertificateDir == "" && cfg.DefaultCertificatePath == "" {
		cfg.DefaultCertificate = string(defaultPEM)
	}
	return &isolator{haproxy: haproxy, cfg: cfg, files: files}
}

// probeSet is a set of routes to probe, rendered as the configuration
// renders them: the routes known refused closed.
type probeSet struct {
	services router.PMap[*router.ServiceEndpoints]
	known    *refusals
}

// find returns the routes among suspects that HAProxy refuses, each with
// HAProxy's words about it; none when it accepts them all. Routes known
// refuses are probed closed, as the configuration renders them. The error
// says why it could not tell (a probe could not run, HAProxy refuses the
// global configuration alone, or only routes together); routes found
// before it are returned with it.
func (iso *isolator) find(suspects []*router.Route, services router.PMap[*router.ServiceEndpoints], known *refusals) ([]refusal, error) {
	ps := probeSet{services: services, known: known}
	refused, err := iso.probe(suspects, ps)
	if err != nil || refused == nil {
		return nil, err
	}
	base, err := iso.probe(nil, ps)
	switch {
	case err != nil:
		return nil, err
	case base != nil:
		return nil, fmt.Errorf("HAProxy refuses the configuration without any route: %s", strings.Join(base.Alerts(), "; "))
	}
	return iso.narrow(suspects, refused, ps)
}

// narrow finds the routes HAProxy refuses in set, whose probe it refused
// with refused.
func (iso *isolator) narrow(set []*router.Route, refused *runtime.RefusedError, ps probeSet) ([]refusal, error) {
	alerts := refused.Alerts()
	if len(set) == 1 {
		return []refusal{{route: set[0], message: refusalMessage(alerts, iso.cfg.WorkingDir)}}, nil
	}
	named := iso.renderer.named(alerts)
	var out []refusal
	var rest []*router.Route
	for _, rt := range set {
		if lines, ok := named[rt.Key()]; ok {
			out = append(out, refusal{route: rt, message: refusalMessage(lines, iso.cfg.WorkingDir)})
		} else {
			rest = append(rest, rt)
		}
	}
	if len(out) > 0 {
		more, err := iso.findIn(rest, ps)
		return append(out, more...), err
	}
	half := len(set) / 2
	for _, part := range [][]*router.Route{set[:half], set[half:]} {
		more, err := iso.findIn(part, ps)
		if out = append(out, more...); err != nil {
			return out, err
		}
	}
	if len(out) == 0 {
		return nil, errors.New("HAProxy refuses these routes together, but none of them alone: " + strings.Join(alerts, "; "))
	}
	return out, nil
}

// findIn returns the routes HAProxy refuses in set, probing it first.
func (iso *isolator) findIn(set []*router.Route, ps probeSet) ([]refusal, error) {
	if len(set) == 0 {
		return nil, nil
	}
	refused, err := iso.probe(set, ps)
	if err != nil || refused == nil {
		return nil, err
	}
	return iso.narrow(set, refused, ps)
}

// probe renders routes alone into the scratch directory and runs haproxy
// -c on them: it returns HAProxy's refusal, nil when HAProxy accepts them,
// or the error that kept the probe from running.
func (iso *isolator) probe(routes []*router.Route, ps probeSet) (*runtime.RefusedError, error) {
	if iso.renderer == nil {
		if err := os.RemoveAll(iso.cfg.WorkingDir); err != nil {
			return nil, err
		}
		r, err := NewRenderer(iso.cfg)
		if err != nil {
			return nil, err
		}
		iso.renderer = r
	}
	var set router.PMap[*router.Route]
	edit := set.Edit()
	closed := newRefusals(nil, "")
	for _, rt := range routes {
		edit.Set(rt.Key(), rt)
		if rf, ok := ps.known.of(rt); ok {
			closed.record(rf)
		}
	}
	iso.version += 2 // never the next version: the renderer compares every route
	var files FileContents
	if iso.files != nil {
		files = iso.files.last
	}
	out, err := iso.renderer.Render(router.Snapshot{Routes: edit.Freeze(), Services: ps.services, Version: iso.version, Synced: true},
		Inputs{Files: files, refused: closed})
	if err == nil {
		err = runtime.WriteFiles(iso.cfg.WorkingDir, out)
	}
	if err != nil {
		iso.renderer = nil
		return nil, fmt.Errorf("probing routes with HAProxy: %w", err)
	}
	iso.probes++
	err = runtime.Check(iso.haproxy, iso.cfg.WorkingDir, out.ConfigArgs)
	var refused *runtime.RefusedError
	if errors.As(err, &refused) {
		return refused, nil
	}
	return nil, err
}

// Where HAProxy's words name a route: one of its files, a backend name, or
// a line of a backend file.
var (
	routeFileWord  = regexp.MustCompile(`(?:` + routeCertsDir + `|` + routeCAsDir + `|` + allowListsDir + `)/([a-z0-9-]+)_([a-z0-9.-]+)\.(?:pem|txt)`)
	backendWord    = regexp.MustCompile(`be_(?:http|edge_http|secure|tcp):([a-z0-9-]+):([a-z0-9.-]+)`)
	backendLineRef = regexp.MustCompile(regexp.QuoteMeta(backendsDir) + `/(\d+)\.cfg:(\d+)\]`)
)

// named returns the routes of the latest rendering that HAProxy's alerts
// name, by key, with the alerts that name each.
func (r *Renderer) named(alerts []string) map[string][]string {
	out := map[string][]string{}
	for _, line := range alerts {
		keys := map[string]bool{}
		for _, m := range routeFileWord.FindAllStringSubmatch(line, -1) {
			keys[m[1]+"/"+m[2]] = true
		}
		for _, m := range backendWord.FindAllStringSubmatch(line, -1) {
			keys[m[1]+"/"+m[2]] = true
		}
		for _, m := range backendLineRef.FindAllStringSubmatch(line, -1) {
			file, _ := strconv.Atoi(m[1])
			n, _ := strconv.Atoi(m[2])
			keys[r.routeAtLine(file, n)] = true
		}
		for k := range keys {
			if _, ok := r.routes[k]; ok {
				out[k] = append(out[k], line)
			}
		}
	}
	return out
}

// routeAtLine is the key of the route whose backend holds line n (from 1)
// of backend file i, or "".
func (r *Renderer) routeAtLine(i, n int) string {
	if i < 0 || i >= backendFiles {
		return ""
	}
	lines := 0
	for _, k := range r.backends[i].keys {
		lines += bytes.Count(r.backends[i].fragments[k], []byte("\n"))
		if n <= lines {
			return k
		}
	}
	return ""
}
