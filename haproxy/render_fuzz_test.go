package haproxy

import (
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/routeshift/routeshift/certs"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/internal/fixtures"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// haproxyEvery is how often FuzzRender runs haproxy -c while fuzzing
// (every Nth route that renders); the quoting invariants are checked for
// every route, and the seed corpus always runs HAProxy.
const haproxyEvery = 20

var fuzzRuns atomic.Int64

// fuzzDefaultCertificate is generated once: a renderer per input need not
// make its own.
var fuzzDefaultCertificate = sync.OnceValues(func() (string, error) {
	kp, err := certs.Generate(certs.Options{CommonName: "fuzz"}, nil)
	if err != nil {
		return "", err
	}
	return string(kp.KeyPEM) + string(kp.CertPEM), nil
})

// fuzzInput is the fuzzed strings of a route.
type fuzzInput struct {
	host, path, hdrName, hdrValue, balance, timeout, number, allowlist, hsts, cookie, sameSite, pem, key, target string
	// kind picks the termination (bits 0-2), the insecure policy (bits
	// 3-4), rate limiting (bit 6) and the wildcard policy (bit 7).
	kind uint8
	// long makes the values big selects long, or numerous (see
	// growInput).
	long uint16
	big  uint8
}

// What fuzzInput.big makes long (up to fuzzInput.long bytes, by repeating
// the fuzzed value) or numerous (fuzzInput.long of them): the limits of
// routecore/limits.go and beyond.
const (
	bigPath          = 1 << iota // spec.path
	bigTarget                    // the rewrite target
	bigHeaderValue               // the header actions' value
	bigHeaderName                // the header actions' name
	bigCookie                    // the cookie name
	bigHSTS                      // the HSTS header, max-age=<digits>
	bigAllowlist                 // IP allowlist entries, besides the fuzzed ones
	bigHeaderActions             // header actions of each direction (at most 64)
)

// grow repeats s (or "a" for an empty s) to n bytes.
func grow(s string, n int) string {
	if s == "" {
		s = "a"
	}
	return strings.Repeat(s, n/len(s)+1)[:n]
}

// growInput applies in.big and in.long to the strings of in.
func growInput(in fuzzInput) fuzzInput {
	n := int(in.long)
	if in.big&bigPath != 0 {
		in.path = "/" + grow(strings.TrimPrefix(in.path, "/"), n)
	}
	if in.big&bigTarget != 0 {
		in.target = "/" + grow(strings.TrimPrefix(in.target, "/"), n)
	}
	if in.big&bigHeaderValue != 0 {
		in.hdrValue = grow(in.hdrValue, n)
	}
	if in.big&bigHeaderName != 0 {
		in.hdrName = grow(in.hdrName, n)
	}
	if in.big&bigCookie != 0 {
		in.cookie = grow(in.cookie, n)
	}
	if in.big&bigHSTS != 0 {
		in.hsts = "max-age=" + grow("1", n)
	}
	if in.big&bigAllowlist != 0 {
		entries := make([]string, 0, n+1)
		for i := range n {
			entries = append(entries, fmt.Sprintf("10.%d.%d.%d/32", i>>16&255, i>>8&255, i&255))
		}
		in.allowlist = strings.TrimSpace(in.allowlist + " " + strings.Join(entries, " "))
	}
	return in
}

// limitSeeds are FuzzRender's inputs with values at routecore's limits
// (valid: HAProxy must load them) and one past them (refused).
var limitSeeds = []struct {
	in    fuzzInput
	valid bool
}{
	{fuzzInput{host: "long.example.com", path: "/a.b(", target: "/%x'", big: bigPath | bigTarget, long: routecore.MaxPathLength - 1, kind: 1}, true},
	{fuzzInput{host: "long.example.com", path: "/p", target: "/t", big: bigPath, long: routecore.MaxPathLength}, false},
	{fuzzInput{host: "long.example.com", path: "/p", target: "/t", big: bigTarget, long: routecore.MaxRewriteTargetLength}, false},
	{fuzzInput{host: "long.example.com", hdrName: "X-Big", hdrValue: "v%%'\\", big: bigHeaderValue, long: routecore.MaxHeaderValueLength, kind: 1}, true},
	{fuzzInput{host: "long.example.com", hdrName: "X-n", hdrValue: "v", big: bigHeaderName, long: routecore.MaxHeaderNameLength}, true},
	{fuzzInput{host: "long.example.com", hdrName: "X-Many", hdrValue: strings.Repeat("v", routecore.MaxHeaderValuesTotal/routecore.MaxHeaderActions),
		big: bigHeaderActions, long: routecore.MaxHeaderActions, kind: 1}, true},
	{fuzzInput{host: "long.example.com", hdrName: "X-Many", hdrValue: "v", big: bigHeaderActions, long: routecore.MaxHeaderActions + 1}, false},
	{fuzzInput{host: "long.example.com", cookie: "c_-", big: bigCookie, long: routecore.MaxCookieNameLength, kind: 1}, true},
	{fuzzInput{host: "long.example.com", big: bigHSTS, long: uint16(routecore.MaxHSTSHeaderLength - len("max-age=")), kind: 1}, true},
	{fuzzInput{host: "long.example.com", allowlist: "::1", big: bigAllowlist, long: routecore.MaxAllowlistEntries - 1}, true},
	{fuzzInput{host: "long.example.com", allowlist: "::1", big: bigAllowlist, long: routecore.MaxAllowlistEntries}, false},
}

// TestFuzzRenderLimitSeeds: FuzzRender's seeds at the limits are valid
// Routes (so that the fuzz's HAProxy check covers them) and those past the
// limits are not.
func TestFuzzRenderLimitSeeds(t *testing.T) {
	for i, seed := range limitSeeds {
		r := fuzzRoute(seed.in)
		routecore.Default(r, nil, routecore.DefaultOptions{})
		errs := routecore.ValidateRoute(r, routecore.ValidateOptions{})
		if got := len(errs) == 0; got != seed.valid {
			t.Errorf("seed %d (big %#x, long %d): valid %v, want %v: %v", i, seed.in.big, seed.in.long, got, seed.valid, errs)
		}
	}
}

// fuzzRoute builds the route of a fuzz input.
func fuzzRoute(in fuzzInput) *routecore.Route {
	in = growInput(in)
	host, path, hdrName, hdrValue, pem, kind := in.host, in.path, in.hdrName, in.hdrValue, in.pem, in.kind
	r := &routecore.Route{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "r", UID: "uid", ResourceVersion: "1", CreationTimestamp: metav1.NewTime(renderEpoch),
			Annotations: map[string]string{}},
		Spec: routecore.RouteSpec{Host: host, Path: path, To: routecore.RouteTargetReference{Kind: "Service", Name: "svc"}},
	}
	for key, v := range map[string]string{
		routecore.AnnBalance: in.balance, routecore.AnnTimeout: in.timeout, routecore.AnnHealthCheckInterval: in.timeout,
		routecore.AnnIPAllowlist: in.allowlist, routecore.AnnHSTSHeader: in.hsts, routecore.AnnCookieName: in.cookie,
		routecore.AnnCookieSameSite: in.sameSite, routecore.AnnPodConcurrentConnections: in.number,
		routecore.AnnRateLimitConcurrentTCP: in.number, routecore.AnnRateLimitRateHTTP: in.number, routecore.AnnRateLimitRateTCP: in.number,
		routecore.AnnRewriteTarget: in.target, routecore.AnnTimeoutTunnel: in.timeout,
	} {
		if v != "" {
			r.Annotations[key] = v
		}
	}
	if kind&0x40 != 0 {
		r.Annotations[routecore.AnnRateLimit] = "true"
	}
	if kind&0x80 != 0 {
		r.Spec.WildcardPolicy = routecore.WildcardPolicySubdomain
	}
	policy := []routecore.InsecureEdgeTerminationPolicyType{"", "None", "Allow", "Redirect"}[kind>>3&3]
	switch kind & 7 % 5 {
	case 1:
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, InsecureEdgeTerminationPolicy: policy}
	case 2:
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationEdge, InsecureEdgeTerminationPolicy: policy, Certificate: pem, Key: in.key}
	case 3:
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationReencrypt, InsecureEdgeTerminationPolicy: policy, DestinationCACertificate: pem}
	case 4:
		r.Spec.TLS = &routecore.TLSConfig{Termination: routecore.TLSTerminationPassthrough, InsecureEdgeTerminationPolicy: policy}
	}
	if hdrName != "" && kind&7%5 != 4 {
		actions := 1
		if in.big&bigHeaderActions != 0 {
			// Past the limit of 20 any number is refused alike; more
			// than 64 only slow the fuzzer down.
			actions = min(int(in.long), 64)
		}
		h := &routecore.RouteHTTPHeaders{}
		for i := range actions {
			name := hdrName
			if i > 0 {
				name = fmt.Sprintf("%s-%d", hdrName, i)
			}
			h.Actions.Request = append(h.Actions.Request, routecore.RouteHTTPHeader{Name: name, Action: routecore.RouteHTTPHeaderActionUnion{
				Type: routecore.Set, Set: &routecore.RouteSetHTTPHeader{Value: hdrValue}}})
			h.Actions.Response = append(h.Actions.Response, routecore.RouteHTTPHeader{Name: name, Action: routecore.RouteHTTPHeaderActionUnion{Type: routecore.Delete}})
		}
		r.Spec.HTTPHeaders = h
	}
	return r
}

// FuzzRender: any route routecore admits, served through the router's Store,
// renders to a configuration whose every line keeps route data within its
// quoting, with maps of "key value" lines only, and which HAProxy accepts.
func FuzzRender(f *testing.F) {
	p, err := fixtures.Certificates()
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range []fuzzInput{
		{host: "www.example.com"},
		{host: "www.example.com", path: `/a'b"c`, hdrName: "X-It's", hdrValue: `it's "100%%" #1 \ %[req.hdr(Host),lower]`, balance: "roundrobin",
			timeout: "5s", number: "10", allowlist: "10.0.0.1 ::1", cookie: "my_cookie", target: "/v2/%25'x", kind: 0x40},
		{host: "www.example.com", path: `/a.b+(c)$\1`, target: "/caf%C3%A9/", kind: 1},
		{host: "edge.example.com", path: "/p", hdrName: "X-A", hdrValue: "%{+Q}[ssl_c_der,base64]", balance: "source", timeout: "2147483647",
			allowlist: "10.0.0.0/8", hsts: "max-age=1;preload", sameSite: "Lax", kind: 1 | 0x18},
		{host: "www.example.com", path: "/", hdrName: "X-B", hdrValue: "v", hsts: `max-age="31536000"; includeSubDomains`, pem: string(p.Leaf.CertPEM) + string(p.CA.CertPEM), key: string(p.Leaf.KeyPEM), kind: 2 | 0x10},
		{host: "re.example.com", path: "/x", balance: "leastconn", timeout: "90s", number: "1", pem: string(p.CA.CertPEM), kind: 3 | 0x08},
		{host: "wildcard.example.com", balance: "random", timeout: "10", allowlist: "192.168.0.1", kind: 4 | 0x18 | 0x80},
	} {
		f.Add(in.host, in.path, in.hdrName, in.hdrValue, in.balance, in.timeout, in.number, in.allowlist, in.hsts, in.cookie, in.sameSite, in.pem, in.key, in.target, in.kind, in.long, in.big)
	}
	for _, seed := range limitSeeds {
		in := seed.in
		f.Add(in.host, in.path, in.hdrName, in.hdrValue, in.balance, in.timeout, in.number, in.allowlist, in.hsts, in.cookie, in.sameSite, in.pem, in.key, in.target, in.kind, in.long, in.big)
	}
	defaultCert, err := fuzzDefaultCertificate()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, host, path, hdrName, hdrValue, balance, timeout, number, allowlist, hsts, cookie, sameSite, pem, key, target string,
		kind uint8, long uint16, big uint8) {
		route := fuzzRoute(fuzzInput{host, path, hdrName, hdrValue, balance, timeout, number, allowlist, hsts, cookie, sameSite, pem, key, target, kind, long, big})
		routecore.Default(route, nil, routecore.DefaultOptions{})
		if len(routecore.ValidateRoute(route, routecore.ValidateOptions{})) > 0 {
			return
		}
		store := router.NewStore(router.AdmissionConfig{ExtendedValidation: true, AllowWildcardRoutes: true})
		store.SetRoute(route)
		ready, port, tcp := true, int32(8080), corev1.ProtocolTCP
		store.SetEndpointSlice(&discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: "svc-1", Labels: map[string]string{discoveryv1.LabelServiceName: "svc"}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
				{Addresses: []string{"10.0.0.2"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
			Ports: []discoveryv1.EndpointPort{{Port: &port, Protocol: &tcp}},
		})
		snap := store.Build(true)
		served, ok := snap.Routes.Get("ns/r")
		if !ok {
			return
		}
		runHAProxy := !fuzzing() || fuzzRuns.Add(1)%haproxyEvery == 1
		dir := "/nonexistent/routeshift-fuzz"
		if runHAProxy {
			dir = renderWorkDir(t)
		}
		cfg := testDataPlane(dir)
		cfg.DefaultCertificate = defaultCert
		r, err := NewRenderer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		out := mustRender(t, r, snap)
		checkRenderedQuoting(t, out, served)
		if runHAProxy {
			haproxyCheck(t, r, out)
		}
	})
}

// fuzzing reports whether the test binary runs with -fuzz (rather than
// running the seed corpus, where every input is checked with HAProxy).
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// Keywords that start lines of the built-in backend template.
var backendKeywords = []string{"backend", "balance", "acl", "tcp-request", "stick-table", "timeout", "cookie",
	"http-request", "http-response", "default-server", "server"}

var (
	mapValue     = regexp.MustCompile(`^(be_(http|edge_http|secure|tcp):[a-z0-9.-]+:[a-z0-9.-]+|@redirect-https)$`)
	mapKeyPrefix = regexp.MustCompile(`^(\*\.)?[a-z0-9][a-z0-9.-]*(/|$)`)
)

// checkRenderedQuoting asserts that route data stays where it belongs:
// every configuration line splits into words with balanced quotes and
// starts with a keyword of its section, header actions decode back to
// exactly the route's names and values, and every map line is one key
// and one backend name.
func checkRenderedQuoting(t *testing.T, out *runtime.Output, rt *router.Route) {
	t.Helper()
	var actions, rewrites [][]string
	unserved := "" // why the route's backend is "# not served" (fail closed, no rules), if it is
	for path, f := range out.Files {
		switch {
		case path == configFile || strings.HasPrefix(path, backendsDir+"/"):
			for _, line := range strings.Split(strings.TrimSuffix(string(f.Data), "\n"), "\n") {
				words, ok := haproxyWords(line)
				if !ok {
					t.Fatalf("%s: unbalanced quotes in %q", path, line)
				}
				if path == configFile {
					continue
				}
				if why, ok := strings.CutPrefix(strings.TrimSpace(line), "# not served: "); ok {
					unserved = why
				}
				if len(words) == 0 {
					continue
				}
				if !slices.Contains(backendKeywords, words[0]) && !strings.HasPrefix(strings.TrimSpace(line), "# not served: ") {
					t.Fatalf("%s: line %q does not start with a backend keyword", path, line)
				}
				if (words[0] == "http-request" || words[0] == "http-response") && len(words) > 1 && strings.HasSuffix(words[1], "-header") {
					actions = append(actions, words)
				}
				if words[0] == "http-request" && len(words) > 1 && words[1] == "replace-path" {
					rewrites = append(rewrites, words)
				}
			}
		case strings.HasPrefix(path, mapsDir+"/"):
			for _, line := range strings.Split(strings.TrimSuffix(string(f.Data), "\n"), "\n") {
				fields := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' })
				if line != "" && (len(fields) != 2 || !mapKeyPrefix.MatchString(fields[0]) || !mapValue.MatchString(fields[1])) {
					t.Fatalf("%s: line %q is not one host key and one backend", path, line)
				}
			}
		case path == crtListFile:
			for _, line := range strings.Split(strings.TrimSuffix(string(f.Data), "\n"), "\n") {
				if fields := strings.Fields(line); line != "" && len(fields) != 2 {
					t.Fatalf("%s: line %q is not one file and one SNI name", path, line)
				}
			}
		}
	}
	// A route is unserved only for a reason its data gives.
	unquotable := hasControl(rt.Overrides.HSTSHeader)
	if h := rt.HTTPHeaders; h != nil {
		for _, a := range slices.Concat(h.Actions.Request, h.Actions.Response) {
			unquotable = unquotable || hasControl(a.Name) || a.Action.Set != nil && hasControl(a.Action.Set.Value)
		}
	}
	if ok := map[string]bool{
		"": true, "no valid address in the IP allowlist": true, "the destination CA certificate holds no certificate": true,
		"a header action or HSTS value cannot be quoted": unquotable,
		"the path or rewrite target cannot be quoted":    hasControl(rt.Path) || hasControl(rt.Overrides.RewriteTarget),
	}[unserved]; !ok {
		t.Fatalf("route not served (%q) for no reason its data gives", unserved)
	}
	var want [][]string
	term := rt.Termination()
	if hsts := rt.Overrides.HSTSHeader; hsts != "" && (term == routecore.TLSTerminationEdge || term == routecore.TLSTerminationReencrypt) && unserved == "" {
		want = append(want, []string{"http-response", "set-header", "Strict-Transport-Security", strings.ReplaceAll(hsts, "%", "%%"), "if", "{", "ssl_fc", "}"})
	}
	if h := rt.HTTPHeaders; h != nil && term != routecore.TLSTerminationPassthrough && unserved == "" {
		for dir, list := range map[string][]routecore.RouteHTTPHeader{"http-request": h.Actions.Request, "http-response": h.Actions.Response} {
			for _, a := range list {
				if a.Action.Type == routecore.Set {
					want = append(want, []string{dir, "set-header", a.Name, a.Action.Set.Value})
				} else {
					want = append(want, []string{dir, "del-header", a.Name})
				}
			}
		}
	}
	// The rewrite: the route's path, every character literal, then the
	// target with '%' doubled (nothing evaluated) and the rest of the path.
	if target := rt.Overrides.RewriteTarget; target != "" && term != routecore.TLSTerminationPassthrough && unserved == "" {
		re := "^" + regexp.QuoteMeta(strings.TrimSuffix(rt.Path, "/"))
		if strings.HasSuffix(target, "/") {
			re += "/?"
		}
		want := []string{"http-request", "replace-path", re + "(.*)$", strings.ReplaceAll(target, "%", "%%") + `\1`}
		if len(rewrites) != 1 || !slices.Equal(rewrites[0], want) {
			t.Fatalf("rewrite rules %q, want %q", rewrites, want)
		}
		if _, err := regexp.Compile(rewrites[0][2]); err != nil {
			t.Fatalf("rewrite regex %q: %v", rewrites[0][2], err)
		}
		if m := regexp.MustCompile(rewrites[0][2]).FindStringSubmatch(rt.Path + "/rest"); m == nil || !strings.HasSuffix(m[1], "rest") {
			t.Fatalf("rewrite regex %q does not match the route's own path %q", rewrites[0][2], rt.Path+"/rest")
		}
	} else if len(rewrites) != 0 {
		t.Fatalf("rewrite rules %q without a rewrite target", rewrites)
	}
	key := func(w []string) string { return strings.Join(w, "\x00") }
	got, wantKeys := make([]string, len(actions)), make([]string, len(want))
	for i, a := range actions {
		got[i] = key(a)
	}
	for i, w := range want {
		wantKeys[i] = key(w)
	}
	slices.Sort(got)
	slices.Sort(wantKeys)
	if !slices.Equal(got, wantKeys) {
		t.Fatalf("header actions decode to %q, want %q", actions, want)
	}
}

// haproxyWords splits a configuration line into words the way HAProxy's
// parser does: spaces and tabs separate words outside quotes; within
// single quotes everything is literal; within double quotes and outside
// quotes a backslash escapes the next character; an unquoted # starts a
// comment. It reports false when a quote is left open.
func haproxyWords(line string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
			continue
		case c == '#':
			if inWord {
				words = append(words, cur.String())
			}
			return words, true
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			j := i + 1
			for ; j < len(line) && line[j] != '"'; j++ {
				if line[j] == '\\' && j+1 < len(line) {
					j++
				}
				cur.WriteByte(line[j])
			}
			if j >= len(line) {
				return nil, false
			}
			i = j
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
		default:
			cur.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}

func TestHAProxyWords(t *testing.T) {
	for line, want := range map[string][]string{
		`  http-request set-header 'X-It'\''s' 'a b #c'`: {"http-request", "set-header", "X-It's", "a b #c"},
		`log-format "%ci \"x\"" # comment`:               {"log-format", `%ci "x"`},
		`server s0 10.0.0.1:80 weight 1`:                 {"server", "s0", "10.0.0.1:80", "weight", "1"},
	} {
		if got, ok := haproxyWords(line); !ok || !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", line, got, want)
		}
	}
	if _, ok := haproxyWords(`a 'b`); ok {
		t.Error("open quote not reported")
	}
}
