package cli

import (
	"strings"
	"testing"
)

func routeDoc(ns, name, host, extra string) string {
	return "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec: {host: " + host + ", to: {name: web}" + extra + "}\n---\n"
}

// TestRender: render judges as the router does, with the router's flags,
// one line per route in input order, messages on stderr.
func TestRender(t *testing.T) {
	own := routeDoc("ns1", "r1", "www.abc.xyz", "") + routeDoc("ns2", "r2", "www.abc.xyz", ", path: /p1/p2") +
		routeDoc("ns2", "rx", "www.abc.xyz", ", path: /p1/p2")
	domains := routeDoc("a", "r", "foo.header.test", "") + routeDoc("b", "r", "www.open.header.test", "") + routeDoc("c", "r", "api.openshift.org", "")
	shards := "apiVersion: v1\nkind: Namespace\nmetadata: {name: alpha, labels: {initial: a}}\n---\n" +
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: kilo, labels: {initial: k}}\n---\n" +
		routeDoc("alpha", "r", "alpha.example.com", "") + routeDoc("kilo", "r", "kilo.example.com", "")
	tests := []struct {
		name, input          string
		flags                []string
		wantOut, wantErrLine string
	}{
		{name: "T-OWN-2 and T-CLAIM-3 with the ownership check", input: own,
			wantOut:     "ns1/r1 admitted\nns2/r2 rejected HostAlreadyClaimed\nns2/rx rejected HostAlreadyClaimed\n",
			wantErrLine: "ns2/r2: a route in another namespace holds www.abc.xyz and is older than r2"},
		{name: "T-OWN-8 and T-OWN-10 without it", input: own, flags: []string{"--disable-namespace-ownership-check=true"},
			wantOut:     "ns1/r1 admitted\nns2/r2 admitted\nns2/rx rejected HostAlreadyClaimed\n",
			wantErrLine: "ns2/rx: route r2 already exposes www.abc.xyz and is older"},
		{name: "T-DOM-1", input: domains, flags: []string{"--denied-domains=open.header.test, openshift.org, block.it"},
			wantOut:     "a/r admitted\nb/r rejected RouteNotAdmitted\nc/r rejected RouteNotAdmitted\n",
			wantErrLine: "c/r: host in list of denied domains"},
		{name: "T-SHARD-1 router-1", input: shards, flags: []string{"--namespace-labels=initial in (a,b,c,d,e,f,g,h,i,j)"},
			wantOut: "alpha/r admitted\nkilo/r ignored\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := run(t, tt.input, append([]string{"render", "-f", "-"}, tt.flags...)...)
			if code != 0 || stdout != tt.wantOut || !strings.Contains(stderr, tt.wantErrLine) {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant stdout:\n%s\nwant on stderr: %s", code, stdout, stderr, tt.wantOut, tt.wantErrLine)
			}
		})
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

func TestRenderBadInput(t *testing.T) {
	_, stderr, code := run(t, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n", "render", "-f", "-")
	if code != 1 || stderr != "error: <stdin>, document 1 (line 1): apps/v1 Deployment is not read by render: give it Routes, Namespaces, EndpointSlices, Services and Secrets\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = run(t, "", "render", "-f", "-", "--http-port", "eighty")
	if code != 1 || !strings.Contains(stderr, `ROUTER_SERVICE_HTTP_PORT (--http-port) "eighty": must be a port number from 1 to 65535`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
