package ingress

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/routeshift/routeshift/ingress/nginx"
	"github.com/routeshift/routeshift/routecore"
)

// nginxOptions adopt class "nginx" with ingress-nginx's documented defaults.
func nginxOptions() Options {
	return Options{ControllerName: DefaultControllerName, AdoptClasses: []string{"nginx"}, Nginx: nginx.DefaultGlobals()}
}

// nginxAnnotation sets an ingress-nginx annotation.
func nginxAnnotation(key, value string) func(*networkingv1.Ingress) {
	return annotation(nginx.Prefix+key, value)
}

// defaultClass marks an IngressClass as the cluster's default.
func defaultClass(ic *networkingv1.IngressClass) *networkingv1.IngressClass {
	ic.Annotations = map[string]string{DefaultClassAnnotation: "true"}
	return ic
}

func TestClassify(t *testing.T) {
	nginxClass := ingressClass("nginx", NginxControllerName)
	ours := ingressClass("openshift-default", DefaultControllerName)
	cases := []struct {
		name             string
		ingress          *networkingv1.Ingress
		objects          []any
		opts             Options
		managed, adopted bool
		missing          string
	}{
		{name: "nginx class, not adopted", ingress: ingress(className("nginx")), objects: []any{nginxClass},
			opts: Options{ControllerName: DefaultControllerName}},
		{name: "nginx class adopted by name", ingress: ingress(className("nginx")), objects: []any{nginxClass},
			opts: nginxOptions(), managed: true, adopted: true},
		{name: "legacy annotation adopted without an IngressClass", ingress: ingress(annotation(ClassAnnotation, "nginx")),
			opts: nginxOptions(), managed: true, adopted: true},
		{name: "legacy annotation wins over spec", ingress: ingress(annotation(ClassAnnotation, "traefik"), className("nginx")),
			objects: []any{nginxClass}, opts: nginxOptions(), missing: "traefik"},
		{name: "ingress-nginx controller adopted by kind", ingress: ingress(className("internal")),
			objects: []any{ingressClass("internal", NginxControllerName)},
			opts:    Options{ControllerName: DefaultControllerName, AdoptNginxClasses: true}, managed: true, adopted: true},
		{name: "ingress-nginx controller not adopted by name only", ingress: ingress(className("internal")),
			objects: []any{ingressClass("internal", NginxControllerName)}, opts: nginxOptions()},
		{name: "our own class stays ours, not converted", ingress: ingress(className("openshift-default")),
			objects: []any{ours}, opts: nginxOptions(), managed: true},
		{name: "no class: managed, not converted", ingress: ingress(), opts: nginxOptions(), managed: true},
		{name: "no class where the adopted class is the default: converted", ingress: ingress(),
			objects: []any{defaultClass(ingressClass("nginx", NginxControllerName))}, opts: nginxOptions(), managed: true, adopted: true},
		{name: "no class, default class not adopted", ingress: ingress(),
			objects: []any{defaultClass(ingressClass("nginx", NginxControllerName))},
			opts:    Options{ControllerName: DefaultControllerName}, managed: true},
		{name: "no class with AdoptUnclassed", ingress: ingress(),
			opts: Options{ControllerName: DefaultControllerName, AdoptUnclassed: true}, managed: true, adopted: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			managed, adopted, missing := classify(tc.ingress, objects(tc.objects...), tc.opts)
			if managed != tc.managed || adopted != tc.adopted || missing != tc.missing {
				t.Errorf("classify = managed %v, adopted %v, missing %q; want %v, %v, %q",
					managed, adopted, missing, tc.managed, tc.adopted, tc.missing)
			}
		})
	}
}

// translateAdopted translates an Ingress of class nginx, adopted, with the
// Services web, api and cart.
func translateAdopted(t *testing.T, ing *networkingv1.Ingress, more ...any) Result {
	t.Helper()
	res := translateAdoptedWeighted(t, ing, more...)
	checkEmitted(t, res)
	return res
}

// translateAdoptedWeighted is translateAdopted for Routes whose weights
// are not the default (canaries): each must still be defaulted and valid.
func translateAdoptedWeighted(t *testing.T, ing *networkingv1.Ingress, more ...any) Result {
	t.Helper()
	objs := append([]any{web(), api(), cart(), service("web-canary", servicePort("http", 80)), ing}, more...)
	res := TranslateWith(ing, objects(objs...), nginxOptions())
	if !res.Managed || !res.Adopted || res.Conversion == nil {
		t.Fatalf("Ingress not adopted: %+v", res)
	}
	for _, r := range res.Routes {
		defaulted := r.DeepCopy()
		routecore.Default(defaulted, nil, routecore.DefaultOptions{})
		if !reflect.DeepEqual(defaulted, r) {
			t.Errorf("route %s is not defaulted", r.Name)
		}
		if errs := routecore.ValidateRoute(r, routecore.ValidateOptions{}); len(errs) > 0 {
			t.Errorf("route %s would be rejected: %v", r.Name, errs.ToAggregate())
		}
	}
	return res
}

func TestAdoptedRoutes(t *testing.T) {
	pki := certificates(t)
	nginxClass := className("nginx")
	http := portName("http")
	cases := []struct {
		name    string
		ingress *networkingv1.Ingress
		objects []any
		check   func(t *testing.T, res Result)
	}{{
		name:    "defaults of ingress-nginx made explicit: not sticky, 60 s timeout",
		ingress: ingress(nginxClass, rule("www.example.com", path("/", "web", http))),
		check: func(t *testing.T, res Result) {
			wantRouteAnnotations(t, res, 1, map[string]string{routecore.AnnDisableCookies: "true", routecore.AnnTimeout: "60s"})
		},
	}, {
		name: "an annotation the Ingress sets itself wins over the conversion",
		ingress: ingress(nginxClass, annotation(routecore.AnnTimeout, "5s"), nginxAnnotation("proxy-read-timeout", "120"),
			rule("www.example.com", path("/", "web", http))),
		check: func(t *testing.T, res Result) {
			wantRouteAnnotations(t, res, 1, map[string]string{routecore.AnnTimeout: "5s"})
		},
	}, {
		name: "sticky with affinity cookie",
		ingress: ingress(nginxClass, nginxAnnotation("affinity", "cookie"), nginxAnnotation("session-cookie-name", "SESSION"),
			rule("www.example.com", path("/", "web", http))),
		check: func(t *testing.T, res Result) {
			wantRouteAnnotations(t, res, 1, map[string]string{routecore.AnnDisableCookies: "", routecore.AnnCookieName: "SESSION"})
		},
	}, {
		name: "regular-expression path with a capture rewrite becomes a prefix and a rewrite target",
		ingress: ingress(nginxClass, nginxAnnotation("use-regex", "true"), nginxAnnotation("rewrite-target", "/$2"),
			rule("www.example.com", path("/api(/|$)(.*)", "api", http))),
		check: func(t *testing.T, res Result) {
			wantRouteAnnotations(t, res, 1, map[string]string{routecore.AnnRewriteTarget: "/"})
			if got := res.Routes[0].Spec.Path; got != "/api" {
				t.Errorf("path = %q, want /api", got)
			}
		},
	}, {
		name: "a regular expression that is no prefix produces no Route and says why",
		ingress: ingress(nginxClass, nginxAnnotation("use-regex", "true"),
			rule("www.example.com", path("/api/v[0-9]+/users", "api", http), path("/", "web", http))),
		check: func(t *testing.T, res Result) {
			if len(res.Routes) != 1 || res.Routes[0].Spec.Path != "/" {
				t.Errorf("want only the Route of /, got %d Routes", len(res.Routes))
			}
			if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], `"/api/v[0-9]+/users"`) {
				t.Errorf("problems = %q, want one naming the path", res.Problems)
			}
		},
	}, {
		name: "ssl-passthrough passes the host's TLS through, whatever the path",
		ingress: ingress(nginxClass, nginxAnnotation("ssl-passthrough", "true"),
			rule("www.example.com", path("/", "web", http))),
		check: func(t *testing.T, res Result) {
			wantRouteAnnotations(t, res, 1, nil)
			r := res.Routes[0]
			if r.Spec.TLS == nil || r.Spec.TLS.Termination != routecore.TLSTerminationPassthrough || r.Spec.Path != "" {
				t.Errorf("tls = %+v, path %q; want passthrough without a path", r.Spec.TLS, r.Spec.Path)
			}
		},
	}, {
		name: "server-alias serves the same paths on one more host",
		ingress: ingress(nginxClass, nginxAnnotation("server-alias", "shop.example.com"),
			rule("www.example.com", path("/", "web", http), path("/api", "api", http))),
		check: func(t *testing.T, res Result) {
			var hosts []string
			for _, r := range res.Routes {
				hosts = append(hosts, r.Spec.Host+r.Spec.Path)
			}
			want := []string{"www.example.com/", "shop.example.com/", "www.example.com/api", "shop.example.com/api"}
			if !slices.Equal(hosts, want) {
				t.Errorf("routes = %q, want %q", hosts, want)
			}
		},
	}, {
		name: "backend-protocol HTTPS reencrypts and verifies with proxy-ssl-secret's ca.crt",
		ingress: ingress(nginxClass, nginxAnnotation("backend-protocol", "HTTPS"), nginxAnnotation("proxy-ssl-secret", "shop/backend-ca"),
			nginxAnnotation("proxy-ssl-verify", "on"),
			tls("www-tls", "www.example.com"), rule("www.example.com", path("/", "web", http))),
		objects: []any{tlsSecret("www-tls", pki.crt, pki.key), secret("backend-ca", "Opaque", "ca.crt", pki.ca)},
		check: func(t *testing.T, res Result) {
			wantRouteAnnotations(t, res, 1, nil)
			tls := res.Routes[0].Spec.TLS
			if tls == nil || tls.Termination != routecore.TLSTerminationReencrypt || tls.DestinationCACertificate != pki.ca {
				t.Errorf("tls = %+v; want reencrypt with the CA of backend-ca", tls)
			}
		},
	}, {
		name: "ssl-redirect false allows plain HTTP on a TLS host",
		ingress: ingress(nginxClass, nginxAnnotation("ssl-redirect", "false"),
			tls("www-tls", "www.example.com"), rule("www.example.com", path("/", "web", http))),
		objects: []any{tlsSecret("www-tls", pki.crt, pki.key)},
		check: func(t *testing.T, res Result) {
			wantRouteAnnotations(t, res, 1, nil)
			if tls := res.Routes[0].Spec.TLS; tls == nil || tls.InsecureEdgeTerminationPolicy != routecore.InsecureEdgeTerminationPolicyAllow {
				t.Errorf("tls = %+v; want edge allowing plain HTTP", tls)
			}
		},
	}, {
		name: "upstream-vhost sets the Host header the backend sees",
		ingress: ingress(nginxClass, nginxAnnotation("upstream-vhost", "internal.example.com"),
			rule("www.example.com", path("/", "web", http))),
		check: func(t *testing.T, res Result) {
			wantRouteAnnotations(t, res, 1, nil)
			h := res.Routes[0].Spec.HTTPHeaders
			if h == nil || len(h.Actions.Request) != 1 || !strings.EqualFold(h.Actions.Request[0].Name, "Host") ||
				h.Actions.Request[0].Action.Set == nil || h.Actions.Request[0].Action.Set.Value != "internal.example.com" {
				t.Errorf("httpHeaders = %+v; want Host set to internal.example.com", h)
			}
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, translateAdopted(t, tc.ingress, tc.objects...))
		})
	}
}

// wantRouteAnnotations fails unless there are n Routes, each with the
// annotations of want ("" meaning absent).
func wantRouteAnnotations(t *testing.T, res Result, n int, want map[string]string) {
	t.Helper()
	if len(res.Routes) != n {
		t.Fatalf("%d Routes, want %d; problems %q", len(res.Routes), n, res.Problems)
	}
	for _, r := range res.Routes {
		for k, v := range want {
			if got, ok := r.Annotations[k]; got != v || (v == "" && ok) {
				t.Errorf("route %s: annotation %s = %q (set %v), want %q", r.Name, k, got, ok, v)
			}
		}
	}
}

// canaryIngress is an adopted canary Ingress for www.example.com/ sending
// weight of total to service.
func canaryIngress(name, service, weight, total string) *networkingv1.Ingress {
	mods := []func(*networkingv1.Ingress){named(name), className("nginx"), nginxAnnotation("canary", "true"),
		nginxAnnotation("canary-weight", weight), rule("www.example.com", path("/", service, portName("http")))}
	if total != "" {
		mods = append(mods, nginxAnnotation("canary-weight-total", total))
	}
	return ingress(mods...)
}

func TestCanaries(t *testing.T) {
	primary := func() *networkingv1.Ingress {
		return ingress(className("nginx"), rule("www.example.com", path("/", "web", portName("http"))))
	}
	type backend struct {
		name   string
		weight int32
	}
	cases := []struct {
		name     string
		canaries []any
		want     []backend
		problem  string
	}{
		{name: "one canary takes its weight of 100", canaries: []any{canaryIngress("web-canary", "web-canary", "30", "")},
			want: []backend{{"web", 70}, {"web-canary", 30}}},
		{name: "weights over a total above 256 are scaled", canaries: []any{canaryIngress("web-canary", "web-canary", "300", "1000")},
			want: []backend{{"web", 179}, {"web-canary", 77}}},
		{name: "a canary of another class is not merged",
			canaries: []any{func() *networkingv1.Ingress {
				c := canaryIngress("web-canary", "web-canary", "30", "")
				c.Spec.IngressClassName = ptrTo("traefik")
				return c
			}()},
			want: []backend{{"web", 100}}},
		{name: "a canary whose backend port differs is reported, not merged (a Route has one port)",
			canaries: []any{service("other-port", servicePort("web", 8080)), func() *networkingv1.Ingress {
				c := canaryIngress("web-canary", "other-port", "30", "")
				c.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port = portNumber(8080)
				return c
			}()},
			want:    []backend{{"web", 100}},
			problem: "its backend port (targetPort web) is not the Route's (targetPort http)"},
		{name: "a canary whose Service is missing is reported",
			canaries: []any{canaryIngress("web-canary", "missing", "30", "")},
			want:     []backend{{"web", 100}},
			problem:  `its backend service "missing" is not found`},
		{name: "more than three canaries: three are merged, the rest reported",
			canaries: []any{canaryIngress("c1", "api", "10", ""), canaryIngress("c2", "cart", "10", ""),
				canaryIngress("c3", "web-canary", "10", ""), canaryIngress("c4", "web-canary", "10", "")},
			want:    []backend{{"web", 70}, {"api", 10}, {"cart", 10}, {"web-canary", 10}},
			problem: "canary Ingresses c4 not merged"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := translateAdoptedWeighted(t, primary(), tc.canaries...)
			if len(res.Routes) != 1 {
				t.Fatalf("%d Routes, want 1; problems %q", len(res.Routes), res.Problems)
			}
			r := res.Routes[0]
			got := []backend{{r.Spec.To.Name, *r.Spec.To.Weight}}
			for _, b := range r.Spec.AlternateBackends {
				got = append(got, backend{b.Name, *b.Weight})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("backends = %v, want %v", got, tc.want)
			}
			if tc.problem == "" && len(res.Problems) > 0 || tc.problem != "" && (len(res.Problems) != 1 || !strings.Contains(res.Problems[0], tc.problem)) {
				t.Errorf("problems = %q, want %q", res.Problems, tc.problem)
			}
		})
	}
	t.Run("header and cookie canaries choose the canary on the primary's Route", func(t *testing.T) {
		byHeader := canaryIngress("by-header", "web-canary", "0", "")
		byHeader.Annotations["nginx.ingress.kubernetes.io/canary-by-header"] = "X-Canary"
		byHeader.Annotations["nginx.ingress.kubernetes.io/canary-by-header-value"] = "yes"
		byCookie := canaryIngress("by-cookie", "api", "10", "")
		byCookie.Annotations["nginx.ingress.kubernetes.io/canary-by-cookie"] = "beta"
		res := translateAdoptedWeighted(t, primary(), byCookie, byHeader)
		if len(res.Routes) != 1 {
			t.Fatalf("%d Routes; problems %q", len(res.Routes), res.Problems)
		}
		r := res.Routes[0]
		var got []string
		for _, b := range r.Spec.AlternateBackends {
			got = append(got, fmt.Sprintf("%s %d", b.Name, *b.Weight))
		}
		// Canaries merge in name order: by-cookie first, which chooses.
		if want := []string{"api 10", "web-canary 0"}; !slices.Equal(got, want) || *r.Spec.To.Weight != 90 {
			t.Errorf("backends %v (to %d), want %v (to 90)", got, *r.Spec.To.Weight, want)
		}
		want := map[string]string{routecore.AnnCanaryBackend: "api", routecore.AnnCanaryByCookie: "beta", routecore.AnnCanaryByHeader: "", routecore.AnnCanaryByHeaderValue: ""}
		for k, v := range want {
			if g, ok := r.Annotations[k]; g != v || (v == "" && ok) {
				t.Errorf("annotation %s = %q (set %v), want %q", k, g, ok, v)
			}
		}
		if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "canary Ingress by-header is merged into Route") ||
			!strings.Contains(res.Problems[0], "already sends requests by header or cookie to canary Ingress by-cookie") {
			t.Errorf("problems %q", res.Problems)
		}
		if errs := routecore.ValidateRoute(r, routecore.ValidateOptions{}); len(errs) > 0 {
			t.Errorf("the merged Route is invalid: %v", errs)
		}
		// Alone, the header canary (weight 0) chooses.
		res = translateAdoptedWeighted(t, primary(), byHeader)
		r = res.Routes[0]
		if r.Annotations[routecore.AnnCanaryBackend] != "web-canary" || r.Annotations[routecore.AnnCanaryByHeader] != "X-Canary" ||
			r.Annotations[routecore.AnnCanaryByHeaderValue] != "yes" || len(r.Spec.AlternateBackends) != 1 || *r.Spec.AlternateBackends[0].Weight != 0 {
			t.Errorf("header canary: annotations %v, backends %v", r.Annotations, r.Spec.AlternateBackends)
		}
		if errs := routecore.ValidateRoute(r, routecore.ValidateOptions{}); len(errs) > 0 {
			t.Errorf("the merged Route is invalid: %v", errs)
		}
	})
	t.Run("the canary itself has no Route", func(t *testing.T) {
		c := canaryIngress("web-canary", "web-canary", "30", "")
		res := translateAdopted(t, c, primary())
		if !res.Canary || len(res.Routes) != 0 || len(res.Problems) != 0 {
			t.Errorf("canary result: canary %v, %d Routes, problems %q; want a canary with neither", res.Canary, len(res.Routes), res.Problems)
		}
	})
	t.Run("a canary without a primary is reported", func(t *testing.T) {
		c := canaryIngress("web-canary", "web-canary", "30", "")
		res := translateAdopted(t, c)
		if !res.Canary || len(res.Routes) != 0 || len(res.Problems) != 1 || !strings.Contains(res.Problems[0], "no primary Ingress") {
			t.Errorf("canary result: canary %v, %d Routes, problems %q; want one problem", res.Canary, len(res.Routes), res.Problems)
		}
	})
}

func ptrTo[T any](v T) *T { return &v }

func TestNotAdoptedIngressesAreNotConverted(t *testing.T) {
	ing := ingress(nginxAnnotation("affinity", "cookie"), nginxAnnotation("proxy-read-timeout", "120"),
		rule("www.example.com", path("/", "web", portName("http"))))
	res := TranslateWith(ing, objects(web(), ing), nginxOptions())
	if res.Adopted || res.Conversion != nil || len(res.Routes) != 1 {
		t.Fatalf("unclassed Ingress without an adopted default class: adopted %v, %d Routes", res.Adopted, len(res.Routes))
	}
	if _, set := res.Routes[0].Annotations[routecore.AnnTimeout]; set {
		t.Errorf("route got %s from a conversion it should not have had", routecore.AnnTimeout)
	}
}

// The controller knows no ConfigMap: zero Globals mean ingress-nginx's
// documented defaults, not zero timeouts.
func TestAdoptedWithoutGlobalsAssumesDefaults(t *testing.T) {
	ing := ingress(className("nginx"), rule("www.example.com", path("/", "web", portName("http"))))
	res := TranslateWith(ing, objects(web(), ing), Options{AdoptClasses: []string{"nginx"}})
	if !res.Adopted || len(res.Routes) != 1 || res.Routes[0].Annotations[routecore.AnnTimeout] != "60s" {
		t.Fatalf("adopted %v, routes %d, annotations %v; want one Route with ingress-nginx's 60s", res.Adopted, len(res.Routes), res.Routes)
	}
}

// Events name the Ingress's own annotations by kind; ingress-nginx's
// defaults (the same on every Ingress) are left to translate's report.
func TestFindingNotes(t *testing.T) {
	ing := ingress(className("nginx"), nginxAnnotation("proxy-read-timeout", "120"), nginxAnnotation("auth-url", "http://auth"),
		nginxAnnotation("server-snippet", "return 200;"), tls("www-tls", "www.example.com"), rule("www.example.com", path("/", "web", portName("http"))))
	pki := certificates(t)
	res := translateAdopted(t, ing, tlsSecret("www-tls", pki.crt, pki.key))
	approximated, unsupported, refused := findingNotes(res.Conversion)
	for _, c := range []struct{ kind, note, want string }{
		{"approximated", approximated, nginx.Prefix + `proxy-read-timeout="120": approximate: `},
		{"unsupported", unsupported, nginx.Prefix + `auth-url="http://auth": not-supported: `},
		{"refused", refused, nginx.Prefix + `server-snippet="return 200;": refused: `},
	} {
		if !strings.HasPrefix(c.note, c.want) || strings.Count(c.note, nginx.Prefix) != 1 || strings.Contains(c.note, "ingress-nginx default ") {
			t.Errorf("%s note %q, want only %q…", c.kind, c.note, c.want)
		}
	}
}
