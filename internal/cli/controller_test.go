package cli

import (
	"maps"
	"testing"
)

func TestControllersFlag(t *testing.T) {
	cases := []struct {
		flag []string
		want map[string]bool
		err  string
	}{
		{flag: []string{"*"}, want: map[string]bool{"ingress-to-route": true, "route-certificates": true}},
		{flag: []string{"*", "-route-certificates"}, want: map[string]bool{"ingress-to-route": true, "route-certificates": false}},
		{flag: []string{"route-certificates"}, want: map[string]bool{"route-certificates": true}},
		{flag: []string{"certificates"}, err: `--controllers: unknown controller "certificates": use ingress-to-route, route-certificates, '*' or -NAME`},
	}
	for _, c := range cases {
		o := &controllerOptions{controllers: c.flag}
		got, err := o.enabled()
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("--controllers=%v: error %v, want %s", c.flag, err, c.err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, c.want) {
			t.Errorf("--controllers=%v: %v, %v; want %v", c.flag, got, err, c.want)
		}
	}
}

// TestIngressNginxConfigMapFlag: --ingress-nginx-configmap takes
// NAMESPACE/NAME, and only with --adopt-class.
func TestIngressNginxConfigMapFlag(t *testing.T) {
	cases := []struct {
		value string
		adopt []string
		want  string // namespace/name, or the error
	}{
		{value: "ingress-nginx/ingress-nginx-controller", adopt: []string{"nginx"}, want: "ingress-nginx/ingress-nginx-controller"},
		{value: "", adopt: []string{"nginx"}, want: "/"},
		{value: "ingress-nginx-controller", adopt: []string{"nginx"},
			want: `--ingress-nginx-configmap "ingress-nginx-controller": give NAMESPACE/NAME, e.g. ingress-nginx/ingress-nginx-controller`},
		{value: "a/b/c", adopt: []string{"nginx"},
			want: `--ingress-nginx-configmap "a/b/c": give NAMESPACE/NAME, e.g. ingress-nginx/ingress-nginx-controller`},
		{value: "ingress-nginx/ingress-nginx-controller",
			want: "--ingress-nginx-configmap needs --adopt-class: its defaults apply to adopted Ingresses only"},
	}
	for _, c := range cases {
		o := &controllerOptions{controllers: []string{"*"}, nginxConfigMap: c.value}
		o.ingress.Adopt.AdoptClasses = c.adopt
		got := ""
		if _, err := o.enabled(); err != nil {
			got = err.Error()
		} else {
			got = o.ingress.NginxConfigMap.Namespace + "/" + o.ingress.NginxConfigMap.Name
		}
		if got != c.want {
			t.Errorf("--ingress-nginx-configmap %q: %s, want %s", c.value, got, c.want)
		}
	}
}
