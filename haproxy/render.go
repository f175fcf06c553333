package haproxy

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/parallel"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// backendFiles is the number of files the backends are spread over, by a
// hash of the route key, so that one route's change rewrites about
// 1/backendFiles of them.
const backendFiles = 64

// Renderer turns Snapshots into HAProxy configuration, re-rendering only
// what changed. It is not safe for concurrent use.
type Renderer struct {
	cfg         proxyconfig.Config
	backend     backendDefaults
	tmpl        *template.Template
	defaultCert *defaultCertificate
	// standby are the standby backends (nil without them).
	standby *standbySet

	// refusedKeys are the routes the last Render rendered refused
	// (closed or left out), by key: the next looks at them again, in
	// case their refusal went.
	refusedKeys map[string]bool
	// unservable are the routes rendered unservable since the last call
	// of Unservable.
	unservable []Unservable
	// fresh are the routes whose value has been rendered since the last
	// call of Loaded: those a configuration HAProxy refuses may be
	// refused for.
	fresh map[string]*router.Route

	// State of the last successful Render.
	rendered  bool
	version   uint64
	defaultCA string
	routes    map[string]*routeRender
	byService map[string]map[string]bool // service key -> route keys
	backends  [backendFiles]backendFile
	keyed     [numMaps]keyedFile
	files     map[string]runtime.File
}

// routeRender is what the last Render made of one route.
type routeRender struct {
	route    *router.Route
	services []*router.ServiceEndpoints
	backend  *BackendData
	groups   []slotGroup
	fragment []byte
	entries  []mapEntry
	files    map[string]runtime.File
	// refused is HAProxy's words when the route was rendered refused.
	refused string
	// unservable says why nothing of the route is served (for its
	// status); empty when it is served.
	unservable string
}

// Unservable is a route the data plane cannot serve and why, for its
// status.
type Unservable struct {
	Route   *router.Route
	Message string
}

// backendFile is one conf/backends file: its routes' fragments in route
// key order.
type backendFile struct {
	keys      []string
	fragments map[string][]byte
}

// NewRenderer validates cfg (and parses TEMPLATE_FILE if set, trying it
// on sample data) and returns a renderer.
func NewRenderer(cfg proxyconfig.Config) (*Renderer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.AbsWorkingDir()
	var err error
	r := &Renderer{cfg: cfg, backend: newBackendDefaults(cfg), routes: map[string]*routeRender{}, byService: map[string]map[string]bool{},
		files: map[string]runtime.File{}, refusedKeys: map[string]bool{}, fresh: map[string]*router.Route{}}
	if r.tmpl, err = loadTemplates(cfg.TemplateFile); err != nil {
		return nil, err
	}
	if r.defaultCert, err = newDefaultCertificate(cfg); err != nil {
		return nil, err
	}
	if cfg.TemplateFile != "" {
		if err := r.tryTemplates(); err != nil {
			return nil, fmt.Errorf("TEMPLATE_FILE %s: %w", cfg.TemplateFile, err)
		}
	} else if r.standby, err = newStandbySet(&r.backend, cfg.StandbyBackends, r.tmpl); err != nil {
		return nil, err
	}
	for i := range r.backends {
		r.backends[i].fragments = map[string][]byte{}
	}
	return r, nil
}

// tryTemplates executes the templates on sample data with every optional
// part present, so that a custom template's mistakes show at start-up.
func (r *Renderer) tryTemplates() error {
	if err := r.tmpl.ExecuteTemplate(&bytes.Buffer{}, configTemplate, r.configData(true)); err != nil {
		return err
	}
	sample := &BackendData{Name: "be_secure:ns:name", Route: "ns/name", Services: []ServiceData{{Namespace: "ns", Name: "svc", Weight: 1}}, Defaults: httpRouteDefault, Balance: "roundrobin",
		H1AdjustCase: true,
		Cookie:       &CookieData{Name: "c", Secure: true, SameSite: "None"}, TimeoutServer: "1ms", TimeoutTunnel: "1ms",
		AllowList: &AllowListData{Inline: []string{"10.0.0.0/8"}}, RateLimit: &RateLimitData{Store: "conn_cur", ConcurrentTCP: 1, RateTCP: 1, RateHTTP: 1},
		HSTS: "'max-age=1'", RewritePath: &RewritePathData{Regex: "'^/a(.*)$'", Replacement: "'/b\\1'"}, RequestHeaders: []HeaderAction{{Verb: "set-header", Name: "'a'", Value: "'b'"}},
		ResponseHeaders: []HeaderAction{{Verb: "del-header", Name: "'a'"}},
		ServerDefaults:  &ServerDefaults{CheckInterval: "1ms", MaxConn: 1, SSL: &ServerSSL{Verify: "required", CAFile: "/ca.pem"}},
		Servers: []ServerData{{Name: "s0", Service: "ns/svc", Endpoint: "10.0.0.1:80", Address: "10.0.0.1", Port: 80, Weight: 1, Enabled: true,
			VerifyHost: "'svc.ns.svc'", Proto: "h2", ALPN: "h2,http/1.1"}}}
	return r.tmpl.ExecuteTemplate(&bytes.Buffer{}, backendTemplate, sample)
}

// Render returns the configuration for snap and in: the files' contents
// in.Files, and the routes HAProxy refused rendered closed or left out. It
// reads no file and fetches nothing. It re-renders the routes snap.Changed
// names, the routes of the services it names and the routes whose refusal
// came or went, keeping the other routes' output from earlier calls.
// Everything is re-rendered on the first call and when the default
// destination CA appears or goes; a changed CA changes the router's copy,
// which HAProxy reloads. When snap does not directly follow the last
// rendered snapshot (snap.Version is not the last one plus 1, as after a
// failed Render), every route is looked at and re-rendered if it or its
// services are not the very values rendered last time. Render does not
// modify snap. On error nothing of snap is kept: the next call starts from
// the last successful one.
func (r *Renderer) Render(snap router.Snapshot, in Inputs) (*runtime.Output, error) {
	refused := in.refused
	caPEM := in.Files.DestinationCA
	defaultCA := ""
	if caPEM != nil {
		defaultCA = r.abs(destCAFile)
	}
	force := !r.rendered || defaultCA != r.defaultCA
	dirty := r.dirtyRoutes(snap, force || snap.Version != r.version+1)
	refused.keys(func(k string) { dirty[k] = true })
	for k := range r.refusedKeys {
		dirty[k] = true
	}
	updates, removed, omitted, err := r.renderRoutes(snap, dirty, defaultCA, force, refused)
	if err != nil {
		return nil, err
	}
	var clientCA, clientCRLs []byte
	if r.clientAuthOn() {
		if clientCA, clientCRLs = in.Files.ClientCA, in.Files.ClientCRLs; clientCA == nil {
			return nil, fmt.Errorf("ROUTER_MUTUAL_TLS_AUTH_CA %s: not read (no FileLoader ran)", r.cfg.MutualTLSAuthCA)
		}
	}
	var cfgText bytes.Buffer
	if err := r.tmpl.ExecuteTemplate(&cfgText, configTemplate, r.configData(clientCRLs != nil)); err != nil {
		return nil, fmt.Errorf("template %q: %w", configTemplate, err)
	}
	defaultPEM, err := r.defaultCert.content(in.Files)
	if err != nil {
		return nil, err
	}

	// Everything that can fail has been done: make the rendered routes current.
	next := &fileEdit{files: maps.Clone(r.files), touched: map[string]bool{}}
	cfgMode := os.FileMode(0o644)
	if r.cfg.StatsPassword != "" {
		cfgMode = 0o600
	}
	next.set(configFile, runtime.File{Data: cfgText.Bytes(), Mode: cfgMode})
	if r.cfg.ErrorFile503 == "" {
		next.set(errorPage503File, runtime.File{Data: errorPage503(), Mode: 0o644})
	}
	if defaultPEM != nil {
		next.set(defaultCrtFile, runtime.File{Data: defaultPEM, Mode: 0o600})
	}
	if caPEM != nil {
		next.set(destCAFile, runtime.File{Data: caPEM, Mode: 0o600})
	} else if _, ok := next.files[destCAFile]; ok {
		next.delete(destCAFile)
	}
	setClientAuthFiles(next, clientCA, clientCRLs)
	if r.standby != nil {
		next.set(standbyFile, runtime.File{Data: r.standby.text, Mode: 0o644})
	}
	reasons, servers, certificates, standby := r.makeCurrent(updates, removed, omitted, next)
	r.rendered, r.version, r.defaultCA = true, snap.Version, defaultCA
	for k := range omitted {
		r.refusedKeys[k] = true
	}
	for k := range r.refusedKeys { // few: adopt adds the routes rendered closed
		if _, left := omitted[k]; !left && (r.routes[k] == nil || r.routes[k].refused == "") {
			delete(r.refusedKeys, k)
		}
	}
	out := r.output(next, reasons, servers)
	out.Certificates, out.Standby, out.StandbyBackends = certificates, standby, r.standby.backends()
	return out, nil
}

// Unservable returns the routes rendered unservable since its last call:
// refused ones, those that cannot be served safely (Unavailable) and those
// no request can reach. A route is returned again only when its value or
// the reason changes.
func (r *Renderer) Unservable() []Unservable {
	out := r.unservable
	r.unservable = nil
	return out
}

// Fresh returns the routes whose value has been rendered since the last
// call of Loaded, sorted by key: what a configuration HAProxy refuses may
// be refused for.
func (r *Renderer) Fresh() []*router.Route {
	out := slices.Collect(maps.Values(r.fresh))
	slices.SortFunc(out, func(a, b *router.Route) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// Loaded records that HAProxy loaded the latest rendering.
func (r *Renderer) Loaded() { clear(r.fresh) }

// Unrendered returns the routes of snap whose value the renderer has not
// rendered yet, sorted by key: what the next Render of snap would render
// anew.
func (r *Renderer) Unrendered(snap router.Snapshot) []*router.Route {
	var out []*router.Route
	for k := range r.dirtyRoutes(snap, snap.Version != r.version+1) {
		rt, ok := snap.Routes.Get(k)
		if prev := r.routes[k]; ok && (prev == nil || prev.route != rt) {
			out = append(out, rt)
		}
	}
	slices.SortFunc(out, func(a, b *router.Route) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// fileEdit is the next set of files, built from the current one, with the
// paths set or deleted on the way and the backend files and keyed files
// to print again.
type fileEdit struct {
	files    map[string]runtime.File
	touched  map[string]bool
	backends [backendFiles]bool
	keyed    [numMaps]bool
}

func (e *fileEdit) set(path string, f runtime.File) {
	e.files[path] = f
	e.touched[path] = true
}

func (e *fileEdit) delete(path string) {
	delete(e.files, path)
	e.touched[path] = true
}

// dirtyRoutes are the keys of routes to look at again.
func (r *Renderer) dirtyRoutes(snap router.Snapshot, full bool) map[string]bool {
	dirty := map[string]bool{}
	if full {
		for k := range snap.Routes.All() {
			dirty[k] = true
		}
		for k := range r.routes {
			dirty[k] = true
		}
		return dirty
	}
	for k := range snap.Changed.Routes {
		dirty[k] = true
	}
	for svc := range snap.Changed.Services {
		for k := range r.byService[svc] {
			dirty[k] = true
		}
	}
	return dirty
}

// renderRoutes renders the dirty routes that are served and lists those
// that are gone, and those of them left out as refused. force re-renders
// routes even when neither they, their services nor their refusal changed.
func (r *Renderer) renderRoutes(snap router.Snapshot, dirty map[string]bool, defaultCA string, force bool, refused *refusals) (
	map[string]*routeRender, []string, map[string]refusal, error) {
	var todo []backendInput
	var removed []string
	omitted := map[string]refusal{}
	for k := range dirty {
		rt, ok := snap.Routes.Get(k)
		prev := r.routes[k]
		var rf refusal
		if ok {
			rf, _ = refused.of(rt)
		}
		if rf.omit {
			omitted[k] = rf
			ok = false
		}
		if !ok {
			if prev != nil {
				removed = append(removed, k)
			}
			continue
		}
		in := backendInput{key: k, route: rt, services: make([]*router.ServiceEndpoints, len(rt.Backends)), defaultCA: defaultCA}
		for i, b := range rt.Backends {
			in.services[i], _ = snap.Services.Get(router.Key(b.Service.Namespace, b.Service.Name))
		}
		in.refused = rf.message
		if prev != nil {
			if !force && prev.route == rt && prev.refused == in.refused && slices.Equal(prev.services, in.services) {
				continue
			}
			in.prev = prev.groups
		}
		todo = append(todo, in)
	}
	slices.Sort(removed)
	slices.SortFunc(todo, func(a, b backendInput) int { return strings.Compare(a.key, b.key) })
	out := make([]*routeRender, len(todo))
	errs := make([]error, len(todo))
	work := func(lo, hi int) {
		var buf bytes.Buffer
		for i := lo; i < hi; i++ {
			out[i], errs[i] = r.renderRoute(todo[i], &buf)
		}
	}
	parallel.Range(len(todo), 256, work)
	if err := errors.Join(errs...); err != nil {
		return nil, nil, nil, err
	}
	updates := make(map[string]*routeRender, len(out))
	for i, rr := range out {
		updates[todo[i].key] = rr
	}
	return updates, removed, omitted, nil
}

// renderRoute builds one route's backend and executes the backend
// template on it.
func (r *Renderer) renderRoute(in backendInput, buf *bytes.Buffer) (*routeRender, error) {
	b := buildBackend(&r.backend, in)
	buf.Reset()
	if err := r.tmpl.ExecuteTemplate(buf, backendTemplate, b.data); err != nil {
		return nil, fmt.Errorf("route %s: template %q: %w", in.key, backendTemplate, err)
	}
	certFile := ""
	if _, ok := b.files[routeCertFile(in.route)]; ok {
		certFile = r.abs(routeCertFile(in.route))
		if !r.cfg.DisableHTTP2 {
			// The crt-list entry's own SSL options: HTTP/2 for clients
			// that reach this certificate, and only this one.
			certFile += " [alpn h2,http/1.1]"
		}
	}
	rr := &routeRender{route: in.route, services: in.services, backend: b.data, groups: b.groups, refused: in.refused,
		fragment: bytes.Clone(buf.Bytes()), entries: routeEntries(in.route, certFile, r.forwardedOverride(in.route)), files: b.files}
	switch {
	case in.refused != "":
		rr.unservable = in.refused
	case b.data.Unavailable != "":
		rr.unservable = "the router does not serve this route: " + b.data.Unavailable
	case len(rr.entries) == 0:
		rr.unservable = "no request can reach this route: the router has no lookup key for its host and path"
	}
	return rr, nil
}

// forwardedOverride is the route's forwarded-headers policy when its
// set-forwarded-headers annotation differs from ROUTER_SET_FORWARDED_HEADERS
// (passthrough routes carry no HTTP), else "".
func (r *Renderer) forwardedOverride(rt *router.Route) string {
	f := rt.Overrides.ForwardedHeaders
	if f == r.cfg.ForwardedHeaders || rt.Termination() == routecore.TLSTerminationPassthrough {
		return ""
	}
	return string(f)
}

// makeCurrent makes the rendered routes current, writing the files into next,
// and decides whether HAProxy must reload: it returns the reasons, or the
// server updates the runtime API applies instead, the certificate
// updates (applied through the runtime API, or loaded by the reload) and,
// with a reload, the new routes standby backends can serve until then.
// omitted are the removed routes left out as refused.
func (r *Renderer) makeCurrent(updates map[string]*routeRender, removed []string, omitted map[string]refusal, next *fileEdit) (
	[]runtime.Reason, []runtime.ServerUpdate, []runtime.CertificateUpdate, []runtime.StandbyRoute) {
	first := len(r.files) == 0
	crtKeys := r.crtListKeys(updates, removed)
	crtBefore := r.crtListValues(crtKeys)
	var backends []runtime.Reason
	var servers []runtime.ServerUpdate
	var added []string
	for _, k := range removed {
		if !first {
			backends = append(backends, runtime.Reason{Kind: ReasonBackendRemoved, Subject: "backend " + r.routes[k].backend.Name})
		}
		r.retire(k, next)
		delete(r.fresh, k)
		if rf, ok := omitted[k]; ok {
			r.unservable = append(r.unservable, Unservable{Route: rf.route, Message: rf.message})
		}
	}
	for k, rr := range updates {
		prev := r.routes[k]
		if !first {
			why, ups := r.change(prev, rr)
			backends, servers = append(backends, why...), append(servers, ups...)
		}
		if prev == nil || prev.route != rr.route {
			r.fresh[k] = rr.route
		}
		if prev == nil {
			added = append(added, k)
		}
		if rr.unservable != "" && (prev == nil || prev.route != rr.route || prev.unservable != rr.unservable) {
			r.unservable = append(r.unservable, Unservable{Route: rr.route, Message: rr.unservable})
		}
		if prev != nil {
			r.retire(k, next)
		}
		r.adopt(k, rr, next)
	}
	r.printTouched(next)
	if first {
		return []runtime.Reason{{Kind: ReasonFirstConfiguration}}, nil, nil, nil
	}
	certs := r.certificateUpdates(crtKeys, crtBefore, r.crtListValues(crtKeys), next)
	if reasons := r.reloadReasons(backends, next); len(reasons) > 0 {
		slices.Sort(added)
		return reasons, nil, certs, r.standbyRoutes(added)
	}
	slices.SortFunc(servers, func(a, b runtime.ServerUpdate) int {
		return cmp.Or(strings.Compare(a.Backend, b.Backend), compareSlot(a.Server, b.Server))
	})
	return nil, servers, certs, nil
}

// change is what it takes to go from a route's rendering prev (nil for a
// new route) to rr: the reasons for a reload, or the server updates.
func (r *Renderer) change(prev, rr *routeRender) ([]runtime.Reason, []runtime.ServerUpdate) {
	switch {
	case prev == nil:
		return []runtime.Reason{{Kind: ReasonBackendAdded, Subject: "backend " + rr.backend.Name}}, nil
	case prev.backend.Name != rr.backend.Name: // another termination
		return []runtime.Reason{{Kind: ReasonBackendRemoved, Subject: "backend " + prev.backend.Name},
			{Kind: ReasonBackendAdded, Subject: "backend " + rr.backend.Name}}, nil
	}
	if why := backendReasons(prev.backend, rr.backend, r.cfg.TemplateFile == ""); len(why) > 0 {
		return why, nil
	}
	return nil, serverChanges(prev.backend, rr.backend)
}

// adopt makes rr the rendering of route k: its map entries, files,
// service index entries and backend fragment.
func (r *Renderer) adopt(k string, rr *routeRender, next *fileEdit) {
	for i := range rr.entries {
		e := &rr.entries[i]
		r.keyed[e.m].add(e)
		next.keyed[e.m] = true
	}
	for path, f := range rr.files {
		next.set(path, f)
	}
	for _, b := range rr.route.Backends {
		svc := router.Key(b.Service.Namespace, b.Service.Name)
		if r.byService[svc] == nil {
			r.byService[svc] = map[string]bool{}
		}
		r.byService[svc][k] = true
	}
	i := backendFileOf(k)
	bf := &r.backends[i]
	if _, ok := bf.fragments[k]; !ok {
		bf.keys = insertSorted(bf.keys, k)
	}
	bf.fragments[k] = rr.fragment
	next.backends[i] = true
	r.routes[k] = rr
	if rr.refused != "" {
		r.refusedKeys[k] = true
	}
}

// retire takes route k's rendering out: the reverse of adopt.
func (r *Renderer) retire(k string, next *fileEdit) {
	rr := r.routes[k]
	for i := range rr.entries {
		e := &rr.entries[i]
		r.keyed[e.m].remove(e)
		next.keyed[e.m] = true
	}
	for path := range rr.files {
		next.delete(path)
	}
	for _, b := range rr.route.Backends {
		svc := router.Key(b.Service.Namespace, b.Service.Name)
		delete(r.byService[svc], k)
		if len(r.byService[svc]) == 0 {
			delete(r.byService, svc)
		}
	}
	i := backendFileOf(k)
	delete(r.backends[i].fragments, k)
	r.backends[i].keys = deleteSorted(r.backends[i].keys, k)
	next.backends[i] = true
	delete(r.routes, k)
}

// printTouched prints the backend files and keyed files that changed (and
// all of them the first time).
func (r *Renderer) printTouched(next *fileEdit) {
	for i := range r.backends {
		if p := backendFilePath(i); next.backends[i] || next.files[p].Data == nil {
			next.set(p, runtime.File{Data: r.backends[i].join(), Mode: 0o644})
		}
	}
	for m := range r.keyed {
		if p := mapFiles[m]; next.keyed[m] || next.files[p].Data == nil {
			r.keyed[m].print()
			next.set(p, runtime.File{Data: r.keyed[m].data, Mode: 0o644})
		}
	}
}

// differs reports whether path differs in next from the current files.
func (r *Renderer) differs(next *fileEdit, path string) bool {
	f, ok := next.files[path]
	old, wasThere := r.files[path]
	return ok != wasThere || old.Mode != f.Mode || !bytes.Equal(old.Data, f.Data)
}

// output lists what changed and makes next current.
func (r *Renderer) output(next *fileEdit, reasons []runtime.Reason, servers []runtime.ServerUpdate) *runtime.Output {
	out := &runtime.Output{Files: next.files, Reasons: reasons, Servers: servers, ConfigArgs: configArgs, ServerStateFile: serverStateFile,
		Unchecked: r.Unchecked, Slots: r.Slots}
	for path := range next.touched {
		if !r.differs(next, path) {
			continue
		}
		if _, ok := next.files[path]; ok {
			out.Changed = append(out.Changed, path)
		} else {
			out.Removed = append(out.Removed, path)
		}
	}
	slices.Sort(out.Changed)
	slices.Sort(out.Removed)
	r.files = next.files
	return out
}

// Slots maps every server slot of the latest rendering, "backend/server",
// to its "address port" (the placeholder's for disabled slots), as
// HAProxy's server-state file writes them.
func (r *Renderer) Slots() map[string]string {
	out := map[string]string{}
	for _, rr := range r.routes {
		for _, s := range rr.backend.Servers {
			out[rr.backend.Name+"/"+s.Name] = s.Address + " " + strconv.Itoa(int(s.Port))
		}
	}
	return out
}

// Unchecked lists the enabled slots ("backend/server") of the latest
// rendering that run without health checks (see ServerData.Checked), sorted:
// after HAProxy loads the configuration, the runtime API must turn their
// checks off.
func (r *Renderer) Unchecked() []string {
	var out []string
	for _, rr := range r.routes {
		for _, s := range rr.backend.Servers {
			if s.Enabled && !s.Checked {
				out = append(out, rr.backend.Name+"/"+s.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// backendFileOf is the index of the backend file of a route.
func backendFileOf(routeKey string) int { return int(fnv32a(routeKey) % backendFiles) }

func (s *backendFile) join() []byte {
	size := 0
	for _, k := range s.keys {
		size += len(s.fragments[k])
	}
	out := make([]byte, 0, size)
	for _, k := range s.keys {
		out = append(out, s.fragments[k]...)
	}
	return out
}

func insertSorted(list []string, k string) []string {
	i, found := slices.BinarySearch(list, k)
	if found {
		return list
	}
	return slices.Insert(list, i, k)
}

func deleteSorted(list []string, k string) []string {
	if i, found := slices.BinarySearch(list, k); found {
		return slices.Delete(list, i, i+1)
	}
	return list
}

// compareSlot orders slot names s0, s1, ..., s10 numerically.
func compareSlot(a, b string) int {
	return cmp.Or(len(a)-len(b), strings.Compare(a, b))
}
