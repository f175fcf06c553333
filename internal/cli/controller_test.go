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
