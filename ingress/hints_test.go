package ingress

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/routeshift/routeshift/routecore"
)

func TestAnnotationHints(t *testing.T) {
	cases := []struct {
		name        string
		annotations map[string]string
		want        []string
	}{
		{"none", nil, []string{}},
		{"router and other annotations only", map[string]string{routecore.AnnTimeout: "5s", "team": "shop"}, []string{}},
		{"known, with an equivalent", map[string]string{"nginx.ingress.kubernetes.io/proxy-read-timeout": "60"},
			[]string{"annotation nginx.ingress.kubernetes.io/proxy-read-timeout has no effect on Routes: set haproxy.router.openshift.io/timeout with a unit, e.g. 60s"}},
		{"unknown nginx annotation", map[string]string{"nginx.ingress.kubernetes.io/brand-new": "x"},
			[]string{"annotation nginx.ingress.kubernetes.io/brand-new has no effect on Routes"}},
		{"sorted by key", map[string]string{"nginx.ingress.kubernetes.io/ssl-redirect": "true", "nginx.ingress.kubernetes.io/affinity": "cookie"},
			[]string{
				"annotation nginx.ingress.kubernetes.io/affinity has no effect on Routes: sticky-session cookies are on by default; haproxy.router.openshift.io/disable_cookies turns them off",
				"annotation nginx.ingress.kubernetes.io/ssl-redirect has no effect on Routes: Routes of hosts with TLS redirect plain HTTP to HTTPS already",
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ing := ingress(func(i *networkingv1.Ingress) { i.Annotations = c.annotations })
			if got := AnnotationHints(ing); !slices.Equal(got, c.want) {
				t.Errorf("hints %q, want %q", got, c.want)
			}
		})
	}
}

func TestPathTypeHints(t *testing.T) {
	exact, prefix := networkingv1.PathTypeExact, networkingv1.PathTypePrefix
	backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web"}}
	ing := ingress(func(i *networkingv1.Ingress) {
		i.Spec.Rules = []networkingv1.IngressRule{
			{Host: "a.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
				{Path: "/", PathType: &prefix, Backend: backend},
				{Path: "/healthz", PathType: &exact, Backend: backend},
			}}}},
			{Host: "b.example.com"},
			{Host: "c.example.com", IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
				{Path: "/x", Backend: backend},
				{Path: "/login", PathType: &exact, Backend: backend},
			}}}},
		}
	})
	want := []string{
		`path "/healthz" of host "a.example.com" (rule 0, path 1) has pathType Exact: routeshift serves it exactly (routeshift.io/path-type: Exact), but OpenShift makes no Route for an Exact path, so on OpenShift it would not be served; use pathType Prefix there`,
		`path "/login" of host "c.example.com" (rule 2, path 1) has pathType Exact: routeshift serves it exactly (routeshift.io/path-type: Exact), but OpenShift makes no Route for an Exact path, so on OpenShift it would not be served; use pathType Prefix there`,
	}
	if got := PathTypeHints(ing); !slices.Equal(got, want) {
		t.Errorf("hints\n%q\nwant\n%q", got, want)
	}
}

// Every hint that names an annotation names one the router knows.
func TestAnnotationHintsNameKnownAnnotations(t *testing.T) {
	for k, hint := range nginxEquivalents {
		for _, w := range strings.Fields(hint) {
			if (strings.Contains(w, ".openshift.io/") || strings.HasPrefix(w, "routeshift.io/")) && !strings.Contains(w, "route.openshift.io/") {
				if _, ok := routecore.LookupAnnotation(strings.TrimRight(w, ",:)")); !ok {
					t.Errorf("hint for %s names %q, which is not in the annotation catalogue", k, w)
				}
			}
		}
	}
}

func TestClipNote(t *testing.T) {
	long := strings.Repeat("é", 600) // 1200 bytes
	for _, c := range []struct {
		in   string
		want int // length in bytes
	}{{"short", 5}, {strings.Repeat("a", maxNote), maxNote}, {long, -1}} {
		got := clipNote(c.in)
		switch {
		case c.want >= 0 && len(got) != c.want:
			t.Errorf("clipNote(%d bytes) = %d bytes, want %d", len(c.in), len(got), c.want)
		case c.want < 0 && (len(got) > maxNote || !strings.HasSuffix(got, " …") || !utf8.ValidString(got)):
			t.Errorf("clipNote(%d bytes) = %d bytes %q…, want at most %d valid UTF-8 bytes ending in an ellipsis", len(c.in), len(got), got[:20], maxNote)
		}
	}
}
