package haproxy

import (
	"slices"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/haproxy/proxyconfig"
	"github.com/routeshift/routeshift/haproxy/runtime"
	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// goldenRoutes is one route of each kind, each with its own service.
func goldenRoutes(t *testing.T) ([]*router.Route, []*router.ServiceEndpoints) {
	routes := []*router.Route{
		served("ns", "plain", "www.example.com"),
		served("ns", "path", "www.example.com", atPath("/test")),
		served("ns", "exact", "www.example.com", atExactPath("/exact")),
		served("ns", "edge", "edge.example.com", tlsRoute(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyRedirect)),
		served("ns", "edge-cert", "secure.example.com", tlsRoute(routecore.TLSTerminationEdge, routecore.InsecureEdgeTerminationPolicyAllow), ownCert(t)),
		served("ns", "reencrypt", "re.example.com", tlsRoute(routecore.TLSTerminationReencrypt, ""), destCA(t)),
		served("ns", "pass", "pass.example.com", tlsRoute(routecore.TLSTerminationPassthrough, routecore.InsecureEdgeTerminationPolicyRedirect)),
		served("ns", "wild", "wildcard.apps.example.com", wildcardRoute),
	}
	services := []*router.ServiceEndpoints{
		eps("ns", "plain", "10.0.0.1", "10.0.0.2"), eps("ns", "path", "10.0.1.1"), eps("ns", "exact", "10.0.7.1"),
		eps("ns", "edge", "10.0.2.1"), eps("ns", "edge-cert", "10.0.3.1"), eps("ns", "reencrypt", "10.0.4.1"),
		eps("ns", "pass", "10.0.5.1", "10.0.5.2"), eps("ns", "wild", "10.0.6.1"),
	}
	return routes, services
}

func TestRenderGoldenBackends(t *testing.T) {
	routes, services := goldenRoutes(t)
	r := newTestRenderer(t)
	out := mustRender(t, r, snapshotOf(routes, services...))
	want := map[string]string{
		"be_http:ns:plain": `backend be_http:ns:plain from http_route
  cookie de6c6eab1b68c86181ae1ea2b63cc7ed insert indirect nocache httponly dynamic
  default-server check inter 5000ms
  server s0 10.0.0.1:8080 weight 1
  server s1 10.0.0.2:8080 weight 1
`,
		"be_http:ns:path": `backend be_http:ns:path from http_route
  cookie c5bd9af04818f27fc980fdba81caff7c insert indirect nocache httponly dynamic
  default-server check inter 5000ms
  server s0 10.0.1.1:8080 weight 1
`,
		"be_http:ns:exact": `backend be_http:ns:exact from http_route
  cookie 5fae9cee7f2526572bcc8b146be70b61 insert indirect nocache httponly dynamic
  default-server check inter 5000ms
  server s0 10.0.7.1:8080 weight 1
`,
		"be_edge_http:ns:edge": `backend be_edge_http:ns:edge from http_route
  cookie bcaab7071892749ea60dffd04ad282d1 insert indirect nocache httponly dynamic secure attr SameSite=None
  default-server check inter 5000ms
  server s0 10.0.2.1:8080 weight 1
`,
		// insecureEdgeTerminationPolicy Allow: the cookie must work over HTTP too.
		"be_edge_http:ns:edge-cert": `backend be_edge_http:ns:edge-cert from http_route
  cookie 7399b40261c7a766f6e7ce9ac775d6ee insert indirect nocache httponly dynamic
  default-server check inter 5000ms
  server s0 10.0.3.1:8080 weight 1
`,
		"be_secure:ns:reencrypt": `backend be_secure:ns:reencrypt from http_route
  cookie 719d5158e919e5369086ea38f965512b insert indirect nocache httponly dynamic secure attr SameSite=None
  default-server check inter 5000ms ssl verify required ca-file WORKDIR/cacerts/ns_reencrypt.pem
  server s0 10.0.4.1:8080 weight 1
`,
		"be_tcp:ns:pass": `backend be_tcp:ns:pass from tcp_route
  default-server check inter 5000ms
  server s0 10.0.5.1:8080 weight 1
  server s1 10.0.5.2:8080 weight 1
`,
		"be_http:ns:wild": `backend be_http:ns:wild from http_route
  cookie c02b92bed43367a26a4ebf2ff05f9f10 insert indirect nocache httponly dynamic
  default-server check inter 5000ms
  server s0 10.0.6.1:8080 weight 1
`,
	}
	for _, rt := range routes {
		name := backendName(rt)
		got := strings.ReplaceAll(backendText(t, out, name), r.cfg.WorkingDir, "WORKDIR")
		if got != want[name] {
			t.Errorf("%s:\n%s\nwant:\n%s", name, got, want[name])
		}
	}
}

func TestRenderGoldenMaps(t *testing.T) {
	routes, services := goldenRoutes(t)
	r := newTestRenderer(t)
	out := mustRender(t, r, snapshotOf(routes, services...))
	want := map[string][]string{
		"conf/maps/http_exact.map": {
			"www.example.com/exact be_http:ns:exact",
			"www.example.com/test be_http:ns:path",
		},
		"conf/maps/http_prefix.map": {
			"*.apps.example.com/ be_http:ns:wild",
			"edge.example.com/ @redirect-https",
			"pass.example.com/ @redirect-https",
			"secure.example.com/ be_edge_http:ns:edge-cert",
			"www.example.com/ be_http:ns:plain",
			"www.example.com/test/ be_http:ns:path",
		},
		"conf/maps/https_exact.map": nil,
		"conf/maps/https_prefix.map": {
			"edge.example.com/ be_edge_http:ns:edge",
			"re.example.com/ be_secure:ns:reencrypt",
			"secure.example.com/ be_edge_http:ns:edge-cert",
		},
		"conf/maps/sni_passthrough.map": {
			"pass.example.com be_tcp:ns:pass",
		},
		"conf/crt-list": {
			"WORKDIR/certs/ns_edge-cert.pem secure.example.com",
		},
	}
	for file, lines := range want {
		if got := fileLines(out, file, r.cfg.WorkingDir); !slices.Equal(got, lines) {
			t.Errorf("%s:\n%s\nwant:\n%s", file, strings.Join(got, "\n"), strings.Join(lines, "\n"))
		}
	}
}

// fileLines are the sorted lines of a rendered file, with the working
// directory written WORKDIR.
func fileLines(out *runtime.Output, file, workDir string) []string {
	text := strings.ReplaceAll(string(out.Files[file].Data), workDir, "WORKDIR")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	slices.Sort(lines)
	return lines
}

// routingBlock is the expected lookup part of an HTTP frontend.
func routingBlock(exact, prefix, proto string) string {
	block := `  http-request del-header Proxy
  http-request del-header X-SSL -m beg
  http-request set-var(txn.host) req.hdr(host),field(1,:),lower,regsub(\.$,)
  http-request set-var-fmt(txn.key) "%[var(txn.host)]%[path]"
  http-request set-var(txn.wkey) var(txn.key),regsub(^[^./]*,*)
  http-request set-var(txn.be) var(txn.key),map_str(WORKDIR/conf/maps/EXACT)
  http-request set-var(txn.be) var(txn.key),map_beg(WORKDIR/conf/maps/PREFIX) if !{ var(txn.be) -m found }
  http-request set-var(txn.be) var(txn.wkey),map_str(WORKDIR/conf/maps/EXACT) if !{ var(txn.be) -m found }
  http-request set-var(txn.be) var(txn.wkey),map_beg(WORKDIR/conf/maps/PREFIX) if !{ var(txn.be) -m found }
`
	if proto == "http" {
		block += "  http-request redirect location https://%[var(txn.host)]%[pathq] code 302 if { var(txn.be) -m str @redirect-https }\n"
	}
	block += `  http-request set-var(txn.fwd) var(txn.be),map_str(WORKDIR/conf/maps/forwarded.map,append)
  http-request set-header X-Forwarded-For %[src] if { var(txn.fwd) -m str replace }
  http-request add-header X-Forwarded-For %[src] if { var(txn.fwd) -m str append }
  http-request add-header X-Forwarded-For %[src] if { var(txn.fwd) -m str if-none } !{ req.hdr(X-Forwarded-For) -m found }
  http-request set-header X-Forwarded-Host %[req.hdr(host)] if { var(txn.fwd) -m str append replace }
  http-request set-header X-Forwarded-Port %[dst_port] if { var(txn.fwd) -m str append replace }
  http-request set-header X-Forwarded-Proto PROTO if { var(txn.fwd) -m str append replace }
  http-request set-header X-Forwarded-Host %[req.hdr(host)] if { var(txn.fwd) -m str if-none } !{ req.hdr(X-Forwarded-Host) -m found }
  http-request set-header X-Forwarded-Port %[dst_port] if { var(txn.fwd) -m str if-none } !{ req.hdr(X-Forwarded-Port) -m found }
  http-request set-header X-Forwarded-Proto PROTO if { var(txn.fwd) -m str if-none } !{ req.hdr(X-Forwarded-Proto) -m found }
  use_backend %[var(txn.be)] if { var(txn.be) -m found }
`
	return strings.NewReplacer("EXACT", exact, "PREFIX", prefix, "PROTO", proto).Replace(block)
}

func TestRenderGoldenConfig(t *testing.T) {
	r := newTestRenderer(t)
	out := mustRender(t, r, snapshotOf(nil))
	want := `# Generated by routeshift. Do not edit: the router rewrites it.
global
  maxconn 20000
  no strict-limits
  tune.bufsize 32768
  tune.maxrewrite 8192
  tune.pattern.cache-size 0
  stats socket WORKDIR/run/haproxy.sock mode 600 level admin expose-fd listeners
  server-state-file WORKDIR/run/server-state
  spread-checks 5
  max-spread-checks 5000ms
  ssl-default-bind-options ssl-min-ver TLSv1.2
  ssl-default-bind-ciphers ` + proxyconfig.CipherList("intermediate") + `
  ssl-default-bind-ciphersuites TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256
  tune.ssl.default-dh-param 2048

defaults common
  mode http
  maxconn 20000
  load-server-state-from-file global
  timeout connect 5000ms
  timeout client 30000ms
  timeout client-fin 1000ms
  timeout server 30000ms
  timeout server-fin 1000ms
  timeout http-request 10000ms
  timeout http-keep-alive 300000ms
  timeout tunnel 3600000ms
  option idle-close-on-response
  errorfile 503 'WORKDIR/conf/error-page-503.http'

frontend public from common
  bind :18080
` + routingBlock("http_exact.map", "http_prefix.map", "http") + `  default_backend openshift_default

frontend public_ssl from common
  mode tcp
  no option idle-close-on-response
  bind :18443
  tcp-request inspect-delay 5000ms
  tcp-request content set-var(txn.sni) req_ssl_sni,lower,regsub(\.$,)
  tcp-request content set-var(txn.be) var(txn.sni),map_str(WORKDIR/conf/maps/sni_passthrough.map)
  tcp-request content set-var(txn.be) var(txn.sni),regsub(^[^.]*,*),map_str(WORKDIR/conf/maps/sni_passthrough.map) if !{ var(txn.be) -m found }
  tcp-request content accept if { req_ssl_hello_type 1 }
  use_backend %[var(txn.be)] if { var(txn.be) -m found }
  use_backend be_sni if { req_ssl_sni -m found }
  default_backend be_no_sni

backend be_sni from common
  mode tcp
  server fe_sni 127.0.0.1:20444 send-proxy-v2

frontend fe_sni from common
  bind 127.0.0.1:20444 ssl crt WORKDIR/certs/default.pem crt-list WORKDIR/conf/crt-list accept-proxy
` + routingBlock("https_exact.map", "https_prefix.map", "https") + `  default_backend openshift_default

backend be_no_sni from common
  mode tcp
  server fe_no_sni 127.0.0.1:20443 send-proxy-v2

frontend fe_no_sni from common
  bind 127.0.0.1:20443 ssl crt WORKDIR/certs/default.pem accept-proxy
` + routingBlock("https_exact.map", "https_prefix.map", "https") + `  default_backend openshift_default

backend openshift_default from common
  http-request deny deny_status 503

defaults http_route from common
  option redispatch
  balance leastconn
  hash-type consistent
  timeout check 5000ms
  dynamic-cookie-key routeshift

defaults tcp_route from common
  mode tcp
  balance source
  hash-type consistent
  timeout check 5000ms
`
	if got := strings.ReplaceAll(string(out.Files[configFile].Data), r.cfg.WorkingDir, "WORKDIR"); got != want {
		t.Errorf("haproxy.cfg:\n%s\nwant:\n%s", numbered(got), numbered(want))
	}
	if !slices.Equal(out.ConfigArgs, []string{"conf/haproxy.cfg", "conf/backends"}) {
		t.Errorf("ConfigArgs %v", out.ConfigArgs)
	}
}
