package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func routeDoc(ns, name, host, extra string) string {
	return "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec: {host: " + host + ", to: {name: web}" + extra + "}\n---\n"
}

// renderCase runs `routeshift render` on one fixture of testdata/render
// (a worked example of how OpenShift's router decides host claims,
// namespace ownership, domain lists and shards) with the example's router
// settings, given as
// environment variables and flags, as a user would.
type renderCase struct {
	name, fixture string
	env           map[string]string
	flags         []string
	// want is stdout, one line per route: the example's expected
	// outcome.
	want []string
	// messages, when set, is stderr: the reference's message of each
	// rejection. Otherwise stderr holds one "NS/NAME: message" line per
	// rejected route and nothing else.
	messages []string
}

// TestRenderWorkedExamples: render reproduces every worked example of
// testdata/render, each named after its fixture: host claims (claim-*),
// namespace ownership with the check on and off (ownership-*), every
// hostname of the domain lists (domains-*) and every router of a sharded
// set (shards-*). Examples that change the cluster (a delete, a relabel)
// have a fixture before and after.
func TestRenderWorkedExamples(t *testing.T) {
	// The router of the ownership examples serves wildcard routes; "off"
	// disables the check by environment variable.
	on := map[string]string{"ROUTER_ALLOW_WILDCARD_ROUTES": "true"}
	off := map[string]string{"ROUTER_ALLOW_WILDCARD_ROUTES": "true", "ROUTER_DISABLE_NAMESPACE_OWNERSHIP_CHECK": "true"}
	tests := []renderCase{
		{name: "claim-other-namespace", fixture: "claim-other-namespace.yaml",
			want:     []string{"nsa/r1 admitted", "nsb/r2 rejected HostAlreadyClaimed"},
			messages: []string{"nsb/r2: a route in another namespace holds www.example.com and is older than r2"}},
		{name: "claim-same-namespace-path", fixture: "claim-same-namespace-path.yaml",
			want: []string{"nsa/a admitted", "nsa/b admitted"}},
		{name: "claim-same-path-oldest-wins", fixture: "claim-same-path-oldest-wins.yaml",
			want:     []string{"nsa/new rejected HostAlreadyClaimed", "nsa/old admitted"},
			messages: []string{"nsa/new: route old already exposes www.example.com and is older"}},
		{name: "claim-holder-deleted-before", fixture: "claim-holder-deleted-before.yaml",
			want: []string{"nsa/r1 admitted", "nsb/r2 rejected HostAlreadyClaimed", "nsa/r3 admitted"}},
		{name: "claim-holder-deleted-after", fixture: "claim-holder-deleted-after.yaml",
			want: []string{"nsb/r2 admitted", "nsa/r3 rejected HostAlreadyClaimed"}},
		{name: "claim-relabelled-into-shard-before", fixture: "claim-relabelled-into-shard-before.yaml", env: map[string]string{"ROUTE_LABELS": "shard=public"},
			want: []string{"nsx/route-x admitted", "nsy/route-y ignored"}},
		{name: "claim-relabelled-into-shard-after", fixture: "claim-relabelled-into-shard-after.yaml", env: map[string]string{"ROUTE_LABELS": "shard=public"},
			want: []string{"nsx/route-x rejected HostAlreadyClaimed", "nsy/route-y admitted"}},

		{name: "ownership-first-claim check on", fixture: "ownership-first-claim.yaml", env: on,
			want: []string{"ns1/r1 admitted"}},
		{name: "ownership-other-namespace-path check on", fixture: "ownership-other-namespace-path.yaml", env: on,
			want: []string{"ns1/r1 admitted", "ns2/r2 rejected HostAlreadyClaimed"}},
		{name: "ownership-owner-adds-path check on", fixture: "ownership-owner-adds-path.yaml", env: on,
			want: []string{"ns1/r1 admitted", "ns1/path1 admitted"}},
		{name: "ownership-host-under-wildcard check on", fixture: "ownership-host-under-wildcard.yaml", env: on,
			want: []string{"ns1/r1 admitted", "ns2/z rejected HostAlreadyClaimed"}},
		{name: "ownership-off-first-claim check off", fixture: "ownership-off-first-claim.yaml", env: off,
			want: []string{"ns1/r1 admitted"}},
		{name: "ownership-other-namespace-wildcard check off", fixture: "ownership-other-namespace-wildcard.yaml", env: off,
			want: []string{"ns1/r1 admitted", "ns2/wildcard admitted"}},
		{name: "ownership-hosts-under-wildcard check off", fixture: "ownership-hosts-under-wildcard.yaml", env: off,
			want: []string{"ns1/r1 admitted", "ns2/wildcard admitted", "ns3/foo admitted", "ns4/bar admitted", "ns5/baz admitted"}},
		{name: "ownership-off-other-namespace-path check off", fixture: "ownership-off-other-namespace-path.yaml", env: off,
			want: []string{"ns1/r1 admitted", "ns2/r2 admitted"}},
		{name: "ownership-third-namespace-wildcard check off", fixture: "ownership-third-namespace-wildcard.yaml", env: off,
			want: []string{"ns1/r1 admitted", "ns2/r2 admitted", "ns3/wildthing admitted"}},
		{name: "ownership-claimed-host-path check off, by flag", fixture: "ownership-claimed-host-path.yaml", env: on, flags: []string{"--disable-namespace-ownership-check=true"},
			want:     []string{"ns1/r1 admitted", "ns2/r2 admitted", "ns2/rx rejected HostAlreadyClaimed", "ns3/rx rejected HostAlreadyClaimed"},
			messages: []string{"ns2/rx: route r2 already exposes www.abc.xyz and is older", "ns3/rx: route r2 already exposes www.abc.xyz and is older"}},
		// The same setups in the other mode, where OpenShift's router's
		// outcome is known: with the check off any namespace may add a path
		// (ownership-off-other-namespace-path) or claim hosts under another's wildcard (ownership-hosts-under-wildcard);
		// with it on, ns1's r1 owns www.abc.xyz with all its paths
		// (ownership-other-namespace-path) and the subdomain abc.xyz for wildcard routes (ownership-first-claim).
		{name: "ownership-other-namespace-path check off", fixture: "ownership-other-namespace-path.yaml", env: off,
			want: []string{"ns1/r1 admitted", "ns2/r2 admitted"}},
		{name: "ownership-owner-adds-path check off", fixture: "ownership-owner-adds-path.yaml", env: off,
			want: []string{"ns1/r1 admitted", "ns1/path1 admitted"}},
		{name: "ownership-host-under-wildcard check off", fixture: "ownership-host-under-wildcard.yaml", env: off,
			want: []string{"ns1/r1 admitted", "ns2/z admitted"}},
		{name: "ownership-other-namespace-wildcard check on", fixture: "ownership-other-namespace-wildcard.yaml", env: on,
			want: []string{"ns1/r1 admitted", "ns2/wildcard rejected HostAlreadyClaimed"}},
		{name: "ownership-off-other-namespace-path check on", fixture: "ownership-off-other-namespace-path.yaml", env: on,
			want: []string{"ns1/r1 admitted", "ns2/r2 rejected HostAlreadyClaimed"}},
		{name: "ownership-third-namespace-wildcard check on", fixture: "ownership-third-namespace-wildcard.yaml", env: on,
			want: []string{"ns1/r1 admitted", "ns2/r2 rejected HostAlreadyClaimed", "ns3/wildthing rejected HostAlreadyClaimed"}},
		{name: "ownership-claimed-host-path check on", fixture: "ownership-claimed-host-path.yaml", env: on,
			want: []string{"ns1/r1 admitted", "ns2/r2 rejected HostAlreadyClaimed", "ns2/rx rejected HostAlreadyClaimed", "ns3/rx rejected HostAlreadyClaimed"}},

		{name: "domains-denied", fixture: "domains-denied.yaml",
			env: map[string]string{"ROUTER_SERVICE_NAME": "myrouter", "ROUTER_DENIED_DOMAINS": "open.header.test, openshift.org, block.it"},
			want: []string{
				"demo/foo-header-test admitted",
				"demo/www-allow-it admitted",
				"demo/www-openshift-test admitted",
				"demo/open-header-test rejected RouteNotAdmitted",
				"demo/www-open-header-test rejected RouteNotAdmitted",
				"demo/block-it rejected RouteNotAdmitted",
				"demo/franco-baresi-block-it rejected RouteNotAdmitted",
				"demo/openshift-org rejected RouteNotAdmitted",
				"demo/api-openshift-org rejected RouteNotAdmitted",
			},
			messages: []string{
				"demo/open-header-test: host in list of denied domains",
				"demo/www-open-header-test: host in list of denied domains",
				"demo/block-it: host in list of denied domains",
				"demo/franco-baresi-block-it: host in list of denied domains",
				"demo/openshift-org: host in list of denied domains",
				"demo/api-openshift-org: host in list of denied domains",
			}},
		{name: "domains-allowed", fixture: "domains-allowed.yaml",
			env: map[string]string{"ROUTER_SERVICE_NAME": "myrouter", "ROUTER_ALLOWED_DOMAINS": "stickshift.org, kates.net"},
			want: []string{
				"demo/stickshift-org admitted",
				"demo/www-stickshift-org admitted",
				"demo/kates-net admitted",
				"demo/api-kates-net admitted",
				"demo/erno-r-kube-kates-net admitted",
				"demo/www-open-header-test rejected RouteNotAdmitted",
				"demo/drive-ottomatic-org rejected RouteNotAdmitted",
				"demo/www-wayless-com rejected RouteNotAdmitted",
				"demo/www-deny-it rejected RouteNotAdmitted",
			},
			messages: []string{
				"demo/www-open-header-test: host not in the allowed list of domains",
				"demo/drive-ottomatic-org: host not in the allowed list of domains",
				"demo/www-wayless-com: host not in the allowed list of domains",
				"demo/www-deny-it: host not in the allowed list of domains",
			}},
		{name: "domains-allowed-and-denied", fixture: "domains-allowed-and-denied.yaml",
			env: map[string]string{"ROUTER_SERVICE_NAME": "adrouter",
				"ROUTER_ALLOWED_DOMAINS": "openshift.org, kates.net", "ROUTER_DENIED_DOMAINS": "ops.openshift.org, metrics.kates.net"},
			want: []string{
				"demo/www-open-header-test rejected RouteNotAdmitted",
				"demo/ops-openshift-org rejected RouteNotAdmitted",
				"demo/log-ops-openshift-org rejected RouteNotAdmitted",
				"demo/www-block-it rejected RouteNotAdmitted",
				"demo/metrics-kates-net rejected RouteNotAdmitted",
				"demo/int-metrics-kates-net rejected RouteNotAdmitted",
				"demo/openshift-org admitted",
				"demo/api-openshift-org admitted",
				"demo/m-api-openshift-org admitted",
				"demo/kates-net admitted",
				"demo/api-kates-net admitted",
			},
			messages: []string{
				"demo/www-open-header-test: host not in the allowed list of domains",
				"demo/ops-openshift-org: host in list of denied domains",
				"demo/log-ops-openshift-org: host in list of denied domains",
				"demo/www-block-it: host not in the allowed list of domains",
				"demo/metrics-kates-net: host in list of denied domains",
				"demo/int-metrics-kates-net: host in list of denied domains",
			}},

		{name: "shards-by-namespace-initial router-1 A-J", fixture: "shards-by-namespace-initial.yaml",
			env:  map[string]string{"ROUTER_SERVICE_NAME": "router-1", "NAMESPACE_LABELS": "initial in (a,b,c,d,e,f,g,h,i,j)"},
			want: shardWant("abcdefghij")},
		{name: "shards-by-namespace-initial router-2 K-T", fixture: "shards-by-namespace-initial.yaml",
			flags: []string{"--name", "router-2", "--namespace-labels", "initial in (k,l,m,n,o,p,q,r,s,t)"},
			want:  shardWant("klmnopqrst")},
		{name: "shards-by-namespace-initial router-3 Q-Z", fixture: "shards-by-namespace-initial.yaml",
			env:  map[string]string{"ROUTER_SERVICE_NAME": "router-3", "PROJECT_LABELS": "initial in (q,r,s,t,u,v,w,x,y,z)"},
			want: shardWant("qrstuvwxyz")},
		{name: "shards-by-namespace-initial router-2 changed to K-P", fixture: "shards-by-namespace-initial.yaml",
			env:  map[string]string{"ROUTER_SERVICE_NAME": "router-2", "NAMESPACE_LABELS": "initial in (k,l,m,n,o,p)"},
			want: shardWant("klmnop")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t) })
	}
}

// shardWant is render's output for shards-by-namespace-initial.yaml: one route "web" in
// each of the namespaces alpha … zulu, admitted when the namespace's
// initial is one of the router's letters, else ignored.
func shardWant(letters string) []string {
	var out []string
	for _, ns := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima",
		"mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu"} {
		verdict := "ignored"
		if strings.ContainsRune(letters, rune(ns[0])) {
			verdict = "admitted"
		}
		out = append(out, ns+"/web "+verdict)
	}
	return out
}

// summary is render's last line for the case's verdicts.
func (tt renderCase) summary() string {
	var s renderSummary
	for _, line := range tt.want {
		switch {
		case strings.HasSuffix(line, " admitted"):
			s.admitted++
		case strings.Contains(line, " rejected "):
			s.rejected++
		default:
			s.ignored++
		}
	}
	return s.String() + "\n"
}

func (tt renderCase) check(t *testing.T) {
	t.Helper()
	for k, v := range tt.env {
		t.Setenv(k, v)
	}
	stdout, stderr, code := run(t, "", append([]string{"render", "-f", filepath.Join("testdata", "render", tt.fixture)}, tt.flags...)...)
	if want := strings.Join(tt.want, "\n") + "\n"; code != 0 || stdout != want {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant stdout:\n%s", code, stdout, stderr, want)
	}
	stderr, found := strings.CutSuffix(stderr, tt.summary())
	if !found {
		t.Errorf("stderr does not end in %q:\n%s", tt.summary(), stderr)
	}
	got := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if stderr == "" {
		got = nil
	}
	if tt.messages != nil {
		if !slices.Equal(got, tt.messages) {
			t.Errorf("stderr:\n%s\nwant:\n%s", stderr, strings.Join(tt.messages, "\n"))
		}
		return
	}
	var rejected []string
	for _, line := range tt.want {
		if k, _, ok := strings.Cut(line, " rejected "); ok {
			rejected = append(rejected, k+": ")
		}
	}
	if len(got) != len(rejected) {
		t.Fatalf("stderr has %d lines, want one per rejected route (%d):\n%s", len(got), len(rejected), stderr)
	}
	for i, line := range got {
		if !strings.HasPrefix(line, rejected[i]) || len(line) == len(rejected[i]) {
			t.Errorf("stderr line %d %q, want the message of %s", i+1, line, strings.TrimSuffix(rejected[i], ": "))
		}
	}
}

func TestRenderYAML(t *testing.T) {
	stdout, _, code := run(t, routeDoc("ns1", "r1", "www.abc.xyz", "")+routeDoc("ns2", "r2", "www.abc.xyz", ""),
		"render", "-f", "-", "-o", "yaml", "--name", "edge", "--router-canonical-hostname", "router.apps.example.com")
	for _, want := range []string{
		"    host: www.abc.xyz\n    routerCanonicalHostname: router.apps.example.com\n    routerName: edge\n    wildcardPolicy: None\n",
		"      message: a route in another namespace holds www.abc.xyz and is older than r2\n      reason: HostAlreadyClaimed\n      status: \"False\"\n      type: Admitted\n",
		"      status: \"True\"\n      type: Admitted\n",
	} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, stdout)
		}
	}
	if strings.Contains(stdout, "render-input-") || strings.Contains(stdout, "1970") {
		t.Errorf("synthetic identity printed:\n%s", stdout)
	}
}

// TestRenderBadInput: a Route render cannot read is reported and makes
// the exit status 1; the others are still judged.
func TestRenderBadInput(t *testing.T) {
	stdout, stderr, code := run(t, "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: typed}\nspec: {to: {name: s, weight: heavy}}\n---\n"+
		routeDoc("ns", "ok", "www.example.com", "")+routeDoc("ns", "ok", "www.example.com", ""), "render", "-f", "-")
	want := "error: <stdin>, document 1 (line 1): json: cannot unmarshal string into Go struct field RouteTargetReference.spec.to.weight of type int32\n" +
		"error: <stdin>, document 3 (line 11): route ns/ok appears twice in the input\n" +
		"summary: 1 route judged: 1 admitted, 0 rejected, 0 ignored; 2 routes could not be read; 0 objects of other kinds skipped\n"
	if code != 1 || stdout != "ns/ok admitted\n" || stderr != want {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
	_, stderr, code = run(t, "", "render", "-f", "-", "--http-port", "eighty")
	if code != 1 || !strings.Contains(stderr, `ROUTER_SERVICE_HTTP_PORT (--http-port) "eighty": must be a port number from 1 to 65535`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestRenderBasicAuth: render judges basic authentication with the
// Secrets of its input, as the router does, and --dir --check writes a
// userlist HAProxy accepts.
func TestRenderBasicAuth(t *testing.T) {
	if _, err := exec.LookPath("haproxy"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("haproxy is required in CI: %v", err)
		}
		t.Skipf("haproxy not installed: %v", err)
	}
	in := `apiVersion: v1
kind: Secret
metadata: {name: users, namespace: shop}
stringData:
  auth: "alice:$6$routeshift$JOA6dNHseHf4WV8rlnj8fEn6/c0YhwKy8hj3W9d7GeaL4GTIEsaf/YTA1k3dLcLoCfMTe7j4ygU38731ZJL9G/"
---
apiVersion: v1
kind: Secret
metadata: {name: md5, namespace: shop}
stringData:
  auth: "alice:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/"
---
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: locked
  namespace: shop
  annotations: {routeshift.io/auth-basic-secret: users}
spec: {host: locked.example.com, to: {kind: Service, name: web}}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: old-hashes
  namespace: shop
  annotations: {routeshift.io/auth-basic-secret: md5}
spec: {host: old.example.com, to: {kind: Service, name: web}}
`
	dir := t.TempDir()
	stdout, stderr, code := run(t, in, "render", "-f", "-", "--dir", dir, "--check")
	if code != 0 || stdout != "shop/locked admitted\nshop/old-hashes rejected BasicAuthValidationFailed\n" ||
		!strings.Contains(stderr, `shop/old-hashes: metadata.annotations[routeshift.io/auth-basic-secret]: Invalid value: "md5": key "auth": line 1 (user "alice"): Apache MD5 ($apr1$) hashes cannot be checked by the router`) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	out, err := exec.Command("grep", "-rh", "-A1", "^userlist", dir).Output()
	if err != nil || string(out) != "userlist auth:shop:locked\n  user 'alice' password '$6$routeshift$JOA6dNHseHf4WV8rlnj8fEn6/c0YhwKy8hj3W9d7GeaL4GTIEsaf/YTA1k3dLcLoCfMTe7j4ygU38731ZJL9G/'\n" {
		t.Errorf("userlist in the configuration: %q, %v", out, err)
	}
}
