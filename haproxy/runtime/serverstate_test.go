package runtime

import "testing"

// TestKeepServerState: of HAProxy's server state, the servers the next
// configuration keeps at the same address and port stay; a slot given
// another endpoint, and a server the configuration drops, go.
func TestKeepServerState(t *testing.T) {
	const header = "1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port\n"
	down := "3 be_http:ns:web 1 s0 10.0.0.1 0 0 1 1 12 8 2 0 6 0 0 0 - 8080 - 0 0 - - 0\n"
	up := "3 be_http:ns:web 2 s1 10.0.0.2 2 0 1 1 12 6 3 4 6 0 0 0 - 8080 - 0 0 - - 0\n"
	v6 := "4 be_http:ns:v6 1 s0 fd00::1 0 0 1 1 12 8 2 0 6 0 0 0 - 8080 - 0 0 - - 0\n"
	state := header + down + up + v6
	for _, c := range []struct {
		name  string
		slots map[string]string
		want  string
	}{
		{"the same servers", map[string]string{"be_http:ns:web/s0": "10.0.0.1 8080", "be_http:ns:web/s1": "10.0.0.2 8080", "be_http:ns:v6/s0": "fd00::1 8080"},
			state},
		{"s0 holds another endpoint", map[string]string{"be_http:ns:web/s0": "10.0.0.9 8080", "be_http:ns:web/s1": "10.0.0.2 8080", "be_http:ns:v6/s0": "fd00::1 8080"},
			header + up + v6},
		{"another port", map[string]string{"be_http:ns:web/s0": "10.0.0.1 9090"}, header},
		{"the backend is gone", map[string]string{"be_http:ns:web/s0": "10.0.0.1 8080"}, header + down},
		{"no slots", nil, header},
	} {
		got, err := keepServerState(state, c.slots)
		if err != nil || got != c.want {
			t.Errorf("%s: %v\n%s\nwant:\n%s", c.name, err, got, c.want)
		}
	}
	if _, err := keepServerState("Unknown command\n", nil); err == nil {
		t.Error("an answer that is not a server state was taken")
	}
}
