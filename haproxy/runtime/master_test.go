package runtime

import (
	"slices"
	"testing"
)

// TestServerCommands: the runtime API commands that put a slot in the
// wanted state, an added one with the options the configuration gives it.
func TestServerCommands(t *testing.T) {
	tests := []struct {
		name string
		u    ServerUpdate
		want []string
	}{
		{"disabled", ServerUpdate{Backend: "be", Server: "s1"}, []string{"set server be/s1 state maint"}},
		{"enabled, checked", ServerUpdate{Backend: "be", Server: "s1", Address: "10.0.0.1", Port: 80, Weight: 2, Enabled: true, Checked: true},
			[]string{"set server be/s1 addr 10.0.0.1 port 80", "set server be/s1 weight 2", "enable health be/s1", "set server be/s1 state ready"}},
		{"enabled, unchecked", ServerUpdate{Backend: "be", Server: "s1", Address: "10.0.0.1", Port: 80, Weight: 1, Enabled: true},
			[]string{"set server be/s1 addr 10.0.0.1 port 80", "set server be/s1 weight 1", "disable health be/s1",
				"set server be/s1 health up", "set server be/s1 state ready"}},
		{"added with options and a cookie", ServerUpdate{Backend: "be", Server: "s2", Address: "fd00::1", Port: 8443, Weight: 1, Enabled: true,
			Checked: true, Add: true, Options: "check inter 5000ms ssl verify none", CookieKey: "routeshift"},
			[]string{"add server be/s2 [fd00::1]:8443 weight 1 check inter 5000ms ssl verify none",
				"set dynamic-cookie-key backend be routeshift", "enable health be/s2", "set server be/s2 state ready"}},
		{"added, disabled", ServerUpdate{Backend: "be", Server: "s2", Address: "10.0.0.2", Port: 80, Weight: 1, Add: true},
			[]string{"add server be/s2 10.0.0.2:80 weight 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serverCommands(tt.u); !slices.Equal(got, tt.want) {
				t.Errorf("got\n  %q\nwant\n  %q", got, tt.want)
			}
		})
	}
}
