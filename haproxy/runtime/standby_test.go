package runtime

import "testing"

func TestStandbyPool(t *testing.T) {
	var s standbyPool
	if _, ok := s.take("http"); ok {
		t.Fatal("a pool that was never reset has a free backend")
	}
	s.reset(map[string][]string{"http": {"a", "b"}, "tcp": {"c"}})
	var got []string
	for _, kind := range []string{"http", "tcp", "http", "http", "tcp"} {
		if name, ok := s.take(kind); ok {
			got = append(got, name)
		}
	}
	if want := []string{"a", "c", "b"}; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("took %v, want %v and then nothing", got, want)
	}
	s.reset(s.loaded) // HAProxy restarted with the same configuration
	if name, ok := s.take("http"); !ok || name != "a" {
		t.Errorf("after a restart, took %q (%v), want a", name, ok)
	}
	s.reset(nil) // a load failed: standby use is unknown
	if name, ok := s.take("tcp"); ok {
		t.Errorf("after a failed load, took %q", name)
	}
}

func TestCommandWord(t *testing.T) {
	cases := []struct {
		word string
		ok   bool
	}{
		{"www.example.com/api/v1", true},
		{"*.apps.example.com/", true},
		{"be_http:ns:name", true},
		{"@redirect-https", true},
		{"/var/lib/routeshift/conf/maps/http_prefix.map", true},
		{"", false},
		{"a;b", false},
		{`a\b`, false},
		{"a#b", false},
		{"a b", false},
		{"a'b", false},
		{`a"b`, false},
		{"a\tb", false},
		{"caf\xc3\xa9", false},
	}
	for _, c := range cases {
		if got := CommandWord(c.word); got != c.ok {
			t.Errorf("CommandWord(%q) = %v, want %v", c.word, got, c.ok)
		}
	}
}
