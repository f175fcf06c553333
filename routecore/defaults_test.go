package routecore

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDefault(t *testing.T) {
	bare := func(mods ...func(*Route)) *Route {
		r := &Route{ObjectMeta: metav1.ObjectMeta{Name: "no-route-hostname", Namespace: "mynamespace"},
			Spec: RouteSpec{To: RouteTargetReference{Name: "service-name"}}}
		for _, m := range mods {
			m(r)
		}
		return r
	}
	defaulted := func(mods ...func(*Route)) *Route {
		r := bare(func(r *Route) {
			r.Spec.To.Kind = "Service"
			r.Spec.To.Weight = weight(100)
			r.Spec.WildcardPolicy = WildcardPolicyNone
		})
		for _, m := range mods {
			m(r)
		}
		return r
	}
	generated := func(host string) func(*Route) {
		return func(r *Route) {
			r.Spec.Host = host
			r.Annotations = map[string]string{HostGeneratedAnnotation: "true"}
		}
	}
	tests := []struct {
		name   string
		in     *Route
		old    *Route
		suffix string
		want   *Route
	}{
		{name: "no host: generated", in: bare(),
			want: defaulted(generated("no-route-hostname-mynamespace.router.default.svc.cluster.local"))},
		{name: "custom suffix", in: bare(), suffix: "apps.example.com",
			want: defaulted(generated("no-route-hostname-mynamespace.apps.example.com"))},
		{name: "dots in the name become dashes", in: bare(func(r *Route) { r.Name = "a.b" }),
			want: defaulted(func(r *Route) { r.Name = "a.b" }, generated("a-b-mynamespace.router.default.svc.cluster.local"))},
		{name: "host given", in: bare(func(r *Route) { r.Spec.Host = "www.example.com" }),
			want: defaulted(func(r *Route) { r.Spec.Host = "www.example.com" })},
		{name: "subdomain given: no host", in: bare(func(r *Route) { r.Spec.Subdomain = "frontend" }),
			want: defaulted(func(r *Route) { r.Spec.Subdomain = "frontend" })},
		{name: "wildcard Subdomain: no host", in: bare(func(r *Route) { r.Spec.WildcardPolicy = WildcardPolicySubdomain }),
			want: defaulted(func(r *Route) { r.Spec.WildcardPolicy = WildcardPolicySubdomain })},
		{name: "no name yet: no host", in: bare(func(r *Route) { r.Name = "" }),
			want: defaulted(func(r *Route) { r.Name = "" })},
		{name: "explicit weight 0 kept, alternates defaulted",
			in: bare(func(r *Route) {
				r.Spec.Host = "h.example.com"
				r.Spec.To.Weight = weight(0)
				r.Spec.AlternateBackends = []RouteTargetReference{{Name: "b"}}
			}),
			want: defaulted(func(r *Route) {
				r.Spec.Host = "h.example.com"
				r.Spec.To.Weight = weight(0)
				r.Spec.AlternateBackends = []RouteTargetReference{{Kind: "Service", Name: "b", Weight: weight(100)}}
			})},
		{name: "termination normalised", in: bare(func(r *Route) { r.Spec.Host = "h.example.com"; r.Spec.TLS = &TLSConfig{Termination: "Reencrypt"} }),
			want: defaulted(func(r *Route) {
				r.Spec.Host = "h.example.com"
				r.Spec.TLS = &TLSConfig{Termination: TLSTerminationReencrypt}
			})},
		{name: "empty termination becomes edge", in: bare(func(r *Route) { r.Spec.Host = "h.example.com"; r.Spec.TLS = &TLSConfig{} }),
			want: defaulted(func(r *Route) {
				r.Spec.Host = "h.example.com"
				r.Spec.TLS = &TLSConfig{Termination: TLSTerminationEdge}
			})},
		{name: "empty termination with destination CA stays empty",
			in:   bare(func(r *Route) { r.Spec.Host = "h.example.com"; r.Spec.TLS = &TLSConfig{DestinationCACertificate: "ca"} }),
			want: defaulted(func(r *Route) { r.Spec.Host = "h.example.com"; r.Spec.TLS = &TLSConfig{DestinationCACertificate: "ca"} })},
		{name: "status wildcard policy",
			in: bare(func(r *Route) {
				r.Spec.Host = "h.example.com"
				r.Status.Ingress = []RouteIngress{{RouterName: "default"}}
			}),
			want: defaulted(func(r *Route) {
				r.Spec.Host = "h.example.com"
				r.Status.Ingress = []RouteIngress{{RouterName: "default", WildcardPolicy: WildcardPolicyNone}}
			})},
		{name: "update restores the stored host", in: bare(),
			old:  defaulted(generated("no-route-hostname-mynamespace.router.default.svc.cluster.local")),
			want: defaulted(func(r *Route) { r.Spec.Host = "no-route-hostname-mynamespace.router.default.svc.cluster.local" })},
		{name: "update never generates", in: bare(func(r *Route) { r.Spec.Subdomain = "frontend" }),
			old:  defaulted(func(r *Route) { r.Spec.Subdomain = "frontend" }),
			want: defaulted(func(r *Route) { r.Spec.Subdomain = "frontend" })},
		{name: "update with no host on either side: none", in: bare(func(r *Route) { r.Spec.Subdomain = "shop" }),
			old:  defaulted(func(r *Route) { r.Spec.Subdomain = "frontend" }),
			want: defaulted(func(r *Route) { r.Spec.Subdomain = "shop" })},
		{name: "update with a new host keeps it", in: bare(func(r *Route) { r.Spec.Host = "new.example.com" }),
			old:  defaulted(func(r *Route) { r.Spec.Host = "old.example.com" }),
			want: defaulted(func(r *Route) { r.Spec.Host = "new.example.com" })},
		{name: "termination in capitals", in: bare(func(r *Route) { r.Spec.Host = "h.example.com"; r.Spec.TLS = &TLSConfig{Termination: "PASSTHROUGH"} }),
			want: defaulted(func(r *Route) {
				r.Spec.Host = "h.example.com"
				r.Spec.TLS = &TLSConfig{Termination: TLSTerminationPassthrough}
			})},
		{name: "unknown termination left for validation", in: bare(func(r *Route) { r.Spec.Host = "h.example.com"; r.Spec.TLS = &TLSConfig{Termination: "Bogus"} }),
			want: defaulted(func(r *Route) { r.Spec.Host = "h.example.com"; r.Spec.TLS = &TLSConfig{Termination: "Bogus"} })},
		{name: "given kind, weight and policy kept", in: bare(func(r *Route) {
			r.Spec.Host = "h.example.com"
			r.Spec.To = RouteTargetReference{Kind: "Pod", Name: "p", Weight: weight(7)}
			r.Spec.WildcardPolicy = "All"
		}), want: defaulted(func(r *Route) {
			r.Spec.Host = "h.example.com"
			r.Spec.To = RouteTargetReference{Kind: "Pod", Name: "p", Weight: weight(7)}
			r.Spec.WildcardPolicy = "All"
		})},
		{name: "status entry with a policy kept", in: bare(func(r *Route) {
			r.Spec.Host = "h.example.com"
			r.Status.Ingress = []RouteIngress{{RouterName: "a", WildcardPolicy: WildcardPolicySubdomain}, {RouterName: "b"}}
		}), want: defaulted(func(r *Route) {
			r.Spec.Host = "h.example.com"
			r.Status.Ingress = []RouteIngress{{RouterName: "a", WildcardPolicy: WildcardPolicySubdomain}, {RouterName: "b", WildcardPolicy: WildcardPolicyNone}}
		})},
		{name: "generated host joins other annotations", in: bare(func(r *Route) { r.Annotations = map[string]string{"team": "shop"} }),
			want: defaulted(func(r *Route) {
				r.Spec.Host = "no-route-hostname-mynamespace.router.default.svc.cluster.local"
				r.Annotations = map[string]string{"team": "shop", HostGeneratedAnnotation: "true"}
			})},
		{name: "no namespace: no host", in: bare(func(r *Route) { r.Namespace = "" }),
			want: defaulted(func(r *Route) { r.Namespace = "" })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Default(tt.in, tt.old, DefaultOptions{RouteSuffix: tt.suffix})
			if !reflect.DeepEqual(tt.in, tt.want) {
				t.Errorf("Default =\n%+v\nwant\n%+v", tt.in, tt.want)
			}
			again := tt.in.DeepCopy()
			Default(again, tt.old, DefaultOptions{RouteSuffix: tt.suffix})
			if !reflect.DeepEqual(again, tt.in) {
				t.Errorf("Default is not idempotent:\n%+v\nthen\n%+v", tt.in, again)
			}
		})
	}
}

func TestGeneratedHostTooLong(t *testing.T) {
	r := &Route{ObjectMeta: metav1.ObjectMeta{Name: "a-route-with-a-rather-long-name", Namespace: "and-a-namespace-with-a-long-name-too"},
		Spec: RouteSpec{To: RouteTargetReference{Name: "s"}}}
	Default(r, nil, DefaultOptions{})
	sameMessages(t, ValidateRoute(r, ValidateOptions{}), []string{
		`spec.host: Invalid value: "a-route-with-a-rather-long-name-and-a-namespace-with-a-long-name-too.router.default.svc.cluster.local": must be no more than 63 characters`,
	})
}

func TestValidateRouteSuffix(t *testing.T) {
	for suffix, ok := range map[string]bool{
		"apps.example.com": true, "router.default.svc.cluster.local": true,
		"www^acme^org": false, "bad wolf.whoswho": false, "tardis#1.watch": false, "ünïcode.org": false,
	} {
		if err := ValidateRouteSuffix(suffix); (err == nil) != ok {
			t.Errorf("ValidateRouteSuffix(%q) = %v, want ok=%v", suffix, err, ok)
		}
	}
}
