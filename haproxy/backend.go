package haproxy

import (
	"cmp"
	"crypto/md5"
	"encoding/hex"
	"math/rand/v2"
	"net"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// Server slots and their placeholders.
const (
	// minSlots is the smallest number of server slots per service of a
	// backend. There are no spare slots: each costs HAProxy about 6 KiB
	// and, health-checked, a timer, and the runtime API adds servers when
	// a service grows. One slot stays even without endpoints, so that a
	// reencrypt backend's CA file is loaded (servers added at runtime can
	// only use files HAProxy loaded at start-up).
	minSlots = 1
	// placeholderAddress is the address of slots without an endpoint
	// (TEST-NET-1, never routed; the slot is disabled anyway).
	placeholderAddress = "192.0.2.1"
	placeholderPort    = 1
)

// unavailableRefused is the Unavailable reason of a route HAProxy refused.
const unavailableRefused = "HAProxy refused this route's configuration"

// maxInlineAllowList is the longest IP allowlist written on the acl line;
// longer lists go to a file (HAProxy allows 64 words per line).
const maxInlineAllowList = 60

// Backend name prefixes by termination, as OpenShift names them.
var backendPrefix = map[routecore.TLSTerminationType]string{
	"":                                  "be_http",
	routecore.TLSTerminationEdge:        "be_edge_http",
	routecore.TLSTerminationReencrypt:   "be_secure",
	routecore.TLSTerminationPassthrough: "be_tcp",
}

// backendName is the route's backend, e.g. be_edge_http:ns:name.
func backendName(rt *router.Route) string {
	return backendPrefix[rt.Termination()] + ":" + rt.Namespace + ":" + rt.Name
}

// slotGroup is the server slots of one service of a backend: slot count
// and the endpoint (or none) in each slot, which the next render keeps in
// place so that endpoint changes touch only the slots that changed.
type slotGroup struct {
	service string
	slots   []ServerData
}

// backendDefaults are the router's settings a route's backend depends on.
type backendDefaults struct {
	// workingDir is where the route's files are (absolute).
	workingDir string
	// httpBalance and tcpBalance are the balance algorithms of the
	// defaults sections http_route and tcp_route.
	httpBalance, tcpBalance string
	cookieName              string
	checkInterval           time.Duration
	// h1CaseAdjust is whether ROUTER_H1_CASE_ADJUST names any header.
	h1CaseAdjust bool
	// shuffle gives new endpoints free slots in random order.
	shuffle bool
	// maxBodySize is ROUTER_MAX_BODY_SIZE (0: no limit), and bodyBuffer
	// how much of a request body HAProxy can hold to measure it.
	maxBodySize, bodyBuffer int64
	// httpsRedirectPort is ":PORT" of ROUTER_HTTPS_REDIRECT_PORT, or "".
	httpsRedirectPort string
}

func newBackendDefaults(cfg proxyconfig.Config) backendDefaults {
	return backendDefaults{workingDir: cfg.WorkingDir, httpBalance: string(cfg.LoadBalanceAlgorithm), tcpBalance: tcpBalance(cfg),
		cookieName: cfg.CookieName, checkInterval: cfg.BackendCheckInterval, shuffle: cfg.BackendProcessEndpoints == proxyconfig.EndpointOrderShuffle,
		h1CaseAdjust: len(cfg.H1CaseAdjust) > 0, maxBodySize: cfg.MaxBodySize, bodyBuffer: int64(cfg.BufSize - cfg.MaxRewriteSize),
		httpsRedirectPort: redirectPort(cfg)}
}

// abs joins a path relative to the working directory.
func (def *backendDefaults) abs(rel string) string { return def.workingDir + "/" + rel }

// backendInput is what a route's backend is built from.
type backendInput struct {
	key      string // the route's key
	route    *router.Route
	services []*router.ServiceEndpoints // one per route.Backends entry, nil when unknown
	// prev is the route's previous slot layout (nil the first time).
	prev []slotGroup
	// defaultCA is DEFAULT_DESTINATION_CA_PATH when that file exists.
	defaultCA string
	// refused is why HAProxy refused the route (see refusals), or
	// empty.
	refused string
}

// backendOutput is a route's backend model and the files it needs.
type backendOutput struct {
	data   *BackendData
	groups []slotGroup
	files  map[string]runtime.File
}

// buildBackend decides everything about a route's backend.
// It is a pure function of its arguments, but for the order of new
// endpoints when def.shuffle is set.
func buildBackend(def *backendDefaults, in backendInput) backendOutput {
	rt := in.route
	tcp := rt.Termination() == routecore.TLSTerminationPassthrough
	if in.refused != "" {
		// Fail closed, as below, and with nothing of what HAProxy refused.
		d := &BackendData{Name: backendName(rt), Route: rt.Key(), Defaults: httpRouteDefault, Unavailable: unavailableRefused}
		if tcp {
			d.Defaults = tcpRouteDefault
		}
		return backendOutput{data: d}
	}
	weights, active := serviceWeights(rt, in.services, tcp)
	out := backendOutput{data: backendSettings(def, rt, active, tcp)}
	d := out.data
	unavailable := routeCertificate(rt, &out)
	if rt.Overrides.IPAllowlist != nil && !allowList(def, rt, d, &out) {
		unavailable = "no valid address in the IP allowlist"
	}
	if !tcp {
		if why := requestRules(def, rt, d, &out); why != "" {
			unavailable = why
		}
	}
	if !tcp && !addHeaderActions(rt, d) {
		unavailable = "a header action or HSTS value cannot be quoted"
	}
	if !tcp && !rewritePath(rt, d) {
		unavailable = "the path or rewrite target cannot be quoted"
	}
	ssl, verifyHost, ok := serverSSL(def, rt, in.defaultCA, &out)
	if !ok {
		unavailable = "the destination CA certificate holds no certificate"
	}
	if unavailable != "" {
		// Fail closed: nothing of the route and no servers, so HAProxy
		// answers 503 (HTTP) or closes the connection.
		return backendOutput{data: &BackendData{Name: d.Name, Route: d.Route, Defaults: d.Defaults, Unavailable: unavailable}}
	}
	out.groups = assignSlots(def, rt, in, weights, verifyHost)
	enabled := 0
	for _, g := range out.groups {
		for _, s := range g.slots {
			s.Name = "s" + strconv.Itoa(len(d.Servers))
			d.Servers = append(d.Servers, s)
			if s.Enabled {
				enabled++
			}
		}
	}
	canaryServers(rt, d, out.groups)
	defaults := ServerDefaults{SSL: ssl, MaxConn: max(rt.Overrides.PodConcurrentConnections, 0)}
	for i := range d.Servers {
		d.Servers[i].Checked = d.Servers[i].Enabled && enabled > 1
	}
	if len(d.Servers) > 0 {
		defaults.CheckInterval = haproxyTime(cmp.Or(rt.Overrides.HealthCheckInterval, def.checkInterval))
	}
	if defaults != (ServerDefaults{}) {
		d.ServerDefaults = &defaults
	}
	return out
}

// backendSettings are the route's name, balance algorithm, timeouts,
// cookie and rate limits.
func backendSettings(def *backendDefaults, rt *router.Route, activeServices int, tcp bool) *BackendData {
	d := &BackendData{Name: backendName(rt), Route: rt.Key(), Defaults: httpRouteDefault}
	for _, b := range rt.Backends {
		if serviceNameValid(b.Service.Name) {
			d.Services = append(d.Services, ServiceData{Namespace: b.Service.Namespace, Name: b.Service.Name, Weight: b.Weight})
		}
	}
	defaultBalance := def.httpBalance
	if tcp {
		d.Defaults, defaultBalance = tcpRouteDefault, def.tcpBalance
	}
	switch b := rt.Overrides.Balance; {
	case routecore.BalanceAlgorithm(b).Validate() == nil:
		d.Balance = b
	case activeServices > 1:
		d.Balance = string(routecore.BalanceRoundRobin)
	}
	if d.Balance == defaultBalance {
		d.Balance = ""
	}
	if rt.Overrides.Timeout > 0 {
		d.TimeoutServer = haproxyTime(rt.Overrides.Timeout)
		if tcp {
			d.TimeoutTunnel = d.TimeoutServer
		}
	}
	if rt.Overrides.TimeoutTunnel > 0 {
		d.TimeoutTunnel = haproxyTime(rt.Overrides.TimeoutTunnel)
	}
	d.H1AdjustCase = !tcp && rt.Overrides.H1AdjustCase && def.h1CaseAdjust
	if !tcp && !rt.Overrides.DisableCookies {
		d.Cookie = cookie(def, rt)
	}
	if o := rt.Overrides; o.RateLimit {
		d.RateLimit = &RateLimitData{Store: "conn_cur,conn_rate(3s),http_req_rate(10s)",
			ConcurrentTCP: max(o.ConcurrentTCP, 0), RateTCP: max(o.RateTCP, 0), RateHTTP: max(o.RateHTTP, 0)}
		if tcp {
			d.RateLimit.Store, d.RateLimit.RateHTTP = "conn_cur,conn_rate(3s)", 0
		}
	}
	return d
}

// cookie is the sticky-session cookie of an HTTP-mode backend.
func cookie(def *backendDefaults, rt *router.Route) *CookieData {
	c := &CookieData{Name: rt.Overrides.CookieName}
	if routecore.ValidateCookieName(c.Name) != nil {
		c.Name = def.cookieName
	}
	if c.Name == "" {
		// OpenShift's name: the MD5 of " NS:NAME" (its routing key, with
		// a leading space), so that cookies keep their names on migration.
		sum := md5.Sum([]byte(" " + rt.Namespace + ":" + rt.Name))
		c.Name = hex.EncodeToString(sum[:])
	}
	if term := rt.Termination(); term != "" && rt.TLS.InsecureEdgeTerminationPolicy != routecore.InsecureEdgeTerminationPolicyAllow {
		c.Secure, c.SameSite = true, "None"
		if s := rt.Overrides.CookieSameSite; s == "Lax" || s == "Strict" {
			c.SameSite = s
		}
	}
	return c
}

// allowList fills in the IP allowlist, in canonical form, inline or as a
// file. It reports false when no entry is valid: the route is then not
// served at all rather than served to everyone.
func allowList(def *backendDefaults, rt *router.Route, d *BackendData, out *backendOutput) bool {
	list, _ := canonicalIPs(rt.Overrides.IPAllowlist)
	if len(list) == 0 {
		return false
	}
	d.AllowList = ipListData(def, list, allowListFile(rt), out)
	return true
}

// canonicalIPs returns the valid addresses and CIDRs of list in canonical
// form, and how many entries were not valid.
func canonicalIPs(list []string) (valid []string, invalid int) {
	for _, s := range list {
		if p, err := netip.ParsePrefix(s); err == nil && p.Addr().Zone() == "" {
			valid = append(valid, p.String())
		} else if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
			valid = append(valid, a.String())
		} else {
			invalid++
		}
	}
	return valid, invalid
}

// ipListData writes a list of addresses and CIDRs on the acl line, or
// into the file rel when it is too long for one.
func ipListData(def *backendDefaults, list []string, rel string, out *backendOutput) *AllowListData {
	if len(list) <= maxInlineAllowList {
		return &AllowListData{Inline: list}
	}
	var data []byte
	for _, s := range list {
		data = append(append(data, s...), '\n')
	}
	out.addFile(rel, runtime.File{Data: data, Mode: 0o644})
	return &AllowListData{File: def.abs(rel)}
}

// rewritePath fills in the rewrite-target rule: the route's path at the
// start of a request path becomes the target, the rest of the path and the
// query string are kept. A trailing '/' of the path is not part of the
// match, and a target ending in '/' absorbs the '/' that follows the path,
// so that /api, /api/ and targets / and /v2/ give no doubled or missing
// slashes. It reports false when the path cannot be quoted.
func rewritePath(rt *router.Route, d *BackendData) bool {
	target := rt.Overrides.RewriteTarget
	if target == "" {
		return true
	}
	re := "^" + regexp.QuoteMeta(strings.TrimSuffix(rt.Path, "/"))
	if strings.HasSuffix(target, "/") {
		re += "/?"
	}
	regex, ok := quote(re + "(.*)$")
	if !ok {
		return false
	}
	replacement, ok := quote(strings.ReplaceAll(target, "%", "%%") + `\1`)
	d.RewritePath = &RewritePathData{Regex: regex, Replacement: replacement}
	return ok
}

// addHeaderActions fills in HSTS and spec.httpHeaders, quoted. It reports
// false when a value cannot be quoted (a control character).
func addHeaderActions(rt *router.Route, d *BackendData) bool {
	ok := true
	if term := rt.Termination(); (term == routecore.TLSTerminationEdge || term == routecore.TLSTerminationReencrypt) && rt.Overrides.HSTSHeader != "" {
		d.HSTS, ok = quoteLiteral(rt.Overrides.HSTSHeader)
	}
	if rt.HTTPHeaders == nil {
		return ok
	}
	convert := func(list []routecore.RouteHTTPHeader) []HeaderAction {
		var out []HeaderAction
		for _, h := range list {
			name, nameOK := quote(h.Name)
			a := HeaderAction{Verb: "del-header", Name: name}
			ok = ok && nameOK && h.Name != ""
			switch {
			case h.Action.Type == routecore.Set && h.Action.Set != nil:
				var valueOK bool
				a.Verb = "set-header"
				a.Value, valueOK = quote(h.Action.Set.Value)
				ok = ok && valueOK && h.Action.Set.Value != ""
			case h.Action.Type != routecore.Delete:
				ok = false
			}
			out = append(out, a)
		}
		return out
	}
	d.RequestHeaders = convert(rt.HTTPHeaders.Actions.Request)
	d.ResponseHeaders = convert(rt.HTTPHeaders.Actions.Response)
	return ok
}

// serverSSL decides how reencrypt routes talk to their endpoints: verified
// with the route's destination CA (written to cacerts/), else with
// DEFAULT_DESTINATION_CA_PATH and the service's name, else unverified.
// It reports false when the route names a destination CA without any
// certificate in it, which must not become "verify none".
func serverSSL(def *backendDefaults, rt *router.Route, defaultCA string, out *backendOutput) (ssl *ServerSSL, verifyHost bool, ok bool) {
	if rt.Termination() != routecore.TLSTerminationReencrypt {
		return nil, false, true
	}
	if ca := rt.TLS.DestinationCACertificate; ca != "" {
		blocks := pemBlocks(ca, "CERTIFICATE")
		if len(blocks) == 0 {
			return nil, false, false
		}
		rel := routeCAFile(rt)
		out.addFile(rel, runtime.File{Data: slices.Concat(blocks...), Mode: 0o644})
		return &ServerSSL{Verify: "required", CAFile: def.abs(rel)}, false, true
	}
	if defaultCA != "" {
		return &ServerSSL{Verify: "required", CAFile: defaultCA}, true, true
	}
	return &ServerSSL{Verify: "none"}, false, true
}

// routeCertificate writes the certificate an edge or reencrypt route
// serves, if it has its own: key, certificate and CA certificate, 0600. It
// returns why the route cannot be served when it names a certificate that
// holds no key or no certificate (only without EXTENDED_VALIDATION): it
// must not be served with the default certificate instead.
func routeCertificate(rt *router.Route, out *backendOutput) string {
	switch rt.Termination() {
	case routecore.TLSTerminationEdge, routecore.TLSTerminationReencrypt:
		if pemData := certificateFile(rt.TLS.Key, rt.TLS.Certificate, rt.TLS.CACertificate); pemData != nil {
			out.addFile(routeCertFile(rt), runtime.File{Data: pemData, Mode: 0o600})
			return ""
		}
		switch {
		case rt.TLS.ExternalCertificate != nil && rt.TLS.ExternalCertificate.Name != "":
			return "its external certificate Secret is missing or holds no PEM certificate and key"
		case rt.TLS.Certificate != "" || rt.TLS.Key != "":
			return "its certificate or key holds no PEM certificate or private key"
		}
	}
	return ""
}

func (o *backendOutput) addFile(rel string, f runtime.File) {
	if o.files == nil {
		o.files = map[string]runtime.File{}
	}
	o.files[rel] = f
}

// serviceWeights is the weight of each endpoint of each service of the
// route (OpenShift's algorithm), -1 for services that get no servers
// (weight 0 in passthrough backends), and the number of active services:
// those with endpoints and a weight above 0. With one active service every
// endpoint weighs 1 (0 for services of weight 0); with several, each
// service's weight is spread over its endpoints and scaled so that the
// largest endpoint weight is 256, never rounding a positive weight to 0.
func serviceWeights(rt *router.Route, services []*router.ServiceEndpoints, tcp bool) ([]int32, int) {
	out := make([]int32, len(rt.Backends))
	counts := make([]int, len(rt.Backends))
	active, maxShare := 0, 0.0
	for i, b := range rt.Backends {
		counts[i] = len(services[i].Select(rt.TargetPort))
		if counts[i] > 0 && b.Weight > 0 {
			active++
			maxShare = max(maxShare, float64(b.Weight)/float64(counts[i]))
		}
	}
	for i, b := range rt.Backends {
		switch {
		case b.Weight <= 0 && tcp:
			out[i] = -1
		case b.Weight <= 0 || active == 0:
			out[i] = 0
		case active == 1:
			out[i] = 1
		case counts[i] > 0:
			out[i] = max(int32(float64(b.Weight)/float64(counts[i])*256/maxShare), 1)
		}
	}
	return out, active
}

// assignSlots places each service's endpoints in server slots, keeping
// endpoints that were already in a slot where they were and filling free
// slots from the lowest, so that endpoint changes become runtime API
// updates (and additions, when a service grows). The slot count of a
// service is its number of endpoints, at least minSlots, and never shrinks
// while the route lives: a removed endpoint leaves a disabled slot.
func assignSlots(def *backendDefaults, rt *router.Route, in backendInput, weights []int32, verifyHost bool) []slotGroup {
	var groups []slotGroup
	for i, b := range rt.Backends {
		if weights[i] < 0 {
			continue
		}
		svc := router.Key(b.Service.Namespace, b.Service.Name)
		printable := ""
		if serviceNameValid(b.Service.Name) {
			printable = svc
		}
		var prev []ServerData
		for _, g := range in.prev {
			if g.service == svc {
				prev = g.slots
				break
			}
		}
		slots := placeEndpoints(prev, in.services[i].Select(rt.TargetPort), weights[i], def.shuffle, rt.Termination())
		var host string
		if verifyHost {
			host, _ = quote(b.Service.Name + "." + b.Service.Namespace + ".svc")
		}
		for j := range slots {
			slots[j].VerifyHost, slots[j].Service = host, printable
		}
		groups = append(groups, slotGroup{service: svc, slots: slots})
	}
	return groups
}

// placeEndpoints puts one service's endpoints into its slots: those that
// held them in prev keep their places, the others take free slots from the
// lowest (in random order with shuffle). A slot whose endpoint leaves in
// this change is not given another endpoint in the same change: HAProxy
// returns a connection that was busy when a server's address changed to
// the server's idle connections and reuses it, so requests would keep
// reaching the endpoint that left. Disabled for at least one change, the
// slot gets no requests while its requests in progress finish; new
// endpoints take slots that were free already, or new slots at the end.
// Slots left free are disabled, and keep the protocol of the service's
// endpoints (or the one they had), so that a service scaling to zero and
// back needs no reload.
func placeEndpoints(prev []ServerData, eps []router.Endpoint, weight int32, shuffle bool, term routecore.TLSTerminationType) []ServerData {
	size := max(minSlots, len(prev))
	slots := make([]ServerData, size)
	filled := make([]bool, size)
	where := make(map[netip.AddrPort]int, len(prev))
	for j, s := range prev {
		if a, err := netip.ParseAddr(s.Address); err == nil && s.Enabled {
			where[netip.AddrPortFrom(a, uint16(s.Port))] = j
		}
	}
	// Endpoints are printed in canonical form; addresses that do not
	// parse, or have a zone, are never printed.
	var rest []ServerData
	groupProto, groupALPN, known := "", "", false
	for _, e := range eps {
		a, err := netip.ParseAddr(e.IP)
		if err != nil || a.Zone() != "" || e.Port <= 0 || e.Port > 65535 {
			continue
		}
		s := newServer(a.String(), e.Port, weight, true)
		s.Proto, s.ALPN = endpointProtocol(term, e.AppProtocol)
		if !known {
			groupProto, groupALPN, known = s.Proto, s.ALPN, true
		}
		if j, ok := where[netip.AddrPortFrom(a, uint16(e.Port))]; ok && !filled[j] {
			slots[j], filled[j] = s, true
		} else {
			rest = append(rest, s)
		}
	}
	if shuffle {
		rand.Shuffle(len(rest), func(a, b int) { rest[a], rest[b] = rest[b], rest[a] })
	}
	// A slot enabled in prev is kept (filled) or its endpoint leaves now:
	// either way it takes no newcomer.
	taken := func(j int) bool { return filled[j] || j < len(prev) && prev[j].Enabled }
	next := 0
	for _, s := range rest {
		for next < len(slots) && taken(next) {
			next++
		}
		if next == len(slots) {
			slots, filled = append(slots, ServerData{}), append(filled, false)
		}
		slots[next], filled[next] = s, true
	}
	for j := range slots {
		if filled[j] {
			continue
		}
		slots[j] = newServer(placeholderAddress, placeholderPort, 1, false)
		switch {
		case known:
			slots[j].Proto, slots[j].ALPN = groupProto, groupALPN
		case j < len(prev):
			slots[j].Proto, slots[j].ALPN = prev[j].Proto, prev[j].ALPN
		}
	}
	return slots
}

// Application protocols (appProtocol of a Service or EndpointSlice port)
// that make the router speak HTTP/2 to endpoints: cleartext HTTP/2 with
// prior knowledge (Kubernetes' standard name and OpenShift's), and HTTP/2
// over TLS (the protocol's ALPN name).
var (
	cleartextHTTP2 = []string{"kubernetes.io/h2c", "h2c"}
	tlsHTTP2       = []string{"h2"}
)

// endpointProtocol is how a route of termination term speaks to an
// endpoint of application protocol appProtocol: proto "h2" for cleartext
// HTTP/2 from HTTP and edge routes; alpn "h2,http/1.1" for reencrypt
// routes, whose endpoints then choose HTTP/2 or HTTP/1.1 in the TLS
// handshake. Everything else is HTTP/1.1 (passthrough routes do not speak
// HTTP at all).
func endpointProtocol(term routecore.TLSTerminationType, appProtocol string) (proto, alpn string) {
	switch term {
	case "", routecore.TLSTerminationEdge:
		if slices.Contains(cleartextHTTP2, appProtocol) {
			return "h2", ""
		}
	case routecore.TLSTerminationReencrypt:
		if slices.Contains(tlsHTTP2, appProtocol) {
			return "", "h2,http/1.1"
		}
	}
	return "", ""
}

// serviceNameValid reports whether a service name may be printed into
// the configuration unquoted: every Service's name is a DNS-1123 label.
func serviceNameValid(name string) bool { return len(validation.IsDNS1123Label(name)) == 0 }

// newServer is a server slot.
func newServer(ip string, port, weight int32, enabled bool) ServerData {
	return ServerData{Endpoint: net.JoinHostPort(ip, strconv.Itoa(int(port))), Address: ip, Port: port, Weight: weight, Enabled: enabled}
}
