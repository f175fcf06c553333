package settingfield

import (
	"errors"
	"testing"
	"time"

	"github.com/routeshift/routeshift/routecore"
)

type conf struct {
	s    string
	b    bool
	n    int
	d    time.Duration
	mode string
}

// TestKinds: each kind's parsing and rule, through Set (text) and Check (a
// value set in code), with the same words for both.
func TestKinds(t *testing.T) {
	str := func(c *conf) *string { return &c.s }
	num := func(c *conf) *int { return &c.n }
	dur := func(c *conf) *time.Duration { return &c.d }
	noX := func(v string) error {
		if v == "x" {
			return errors.New("not x")
		}
		return nil
	}
	cases := []struct {
		name  string
		field Field[conf]
		text  string
		want  conf
		err   string
	}{
		{"text", Text(str, nil), "any thing", conf{s: "any thing"}, ""},
		{"text with a rule", Text(str, noX), "x", conf{s: "x"}, "not x"},
		{"bool", Bool(func(c *conf) *bool { return &c.b }), "TRUE", conf{b: true}, ""},
		{"bool empty", Bool(func(c *conf) *bool { return &c.b }), "", conf{}, ""},
		{"bool wrong", Bool(func(c *conf) *bool { return &c.b }), "yes", conf{}, "use true or false"},
		{"int", Int(num, 1, 10, "from 1 to 10"), "10", conf{n: 10}, ""},
		{"int above", Int(num, 1, 10, "from 1 to 10"), "11", conf{n: 11}, "must be from 1 to 10"},
		{"int not a number", Int(num, 1, 10, "from 1 to 10"), "ten", conf{}, "must be from 1 to 10"},
		{"port", Port(num, false), "0", conf{}, "must be a port number from 1 to 65535"},
		{"port or zero", Port(num, true), "0", conf{}, ""},
		{"port or zero above", Port(num, true), "65536", conf{n: 65536}, "must be a port number, or 0"},
		{"seconds", Seconds(dur, 60), "45", conf{d: 45 * time.Second}, ""},
		{"seconds above", Seconds(dur, 60), "61", conf{}, "must be a whole number of seconds from 0 to 60"},
		{"time unit", TimeUnit(dur, false), "500ms", conf{d: 500 * time.Millisecond}, ""},
		{"time unit zero", TimeUnit(dur, false), "0", conf{}, "must be a TimeUnit"},
		{"time unit too large", TimeUnit(dur, false), "25d", conf{}, routecore.ErrTimeUnitTooLarge.Error()},
		{"optional time unit empty", TimeUnit(dur, true), "", conf{}, ""},
		{"optional time unit", TimeUnit(dur, true), "1h", conf{d: time.Hour}, ""},
		{"interval as a TimeUnit", Interval(dur, time.Second, "5s"), "10s", conf{d: 10 * time.Second}, ""},
		{"interval as a Go duration", Interval(dur, time.Second, "5s"), "1m30s", conf{d: 90 * time.Second}, ""},
		{"interval too short", Interval(dur, time.Second, "5s"), "100ms", conf{d: 100 * time.Millisecond}, "must be at least 1s"},
		{"interval unreadable", Interval(dur, time.Second, "5s"), "soon", conf{}, "must be a TimeUnit such as 5s"},
		{"one of", OneOf(func(c *conf) *string { return &c.mode }, "a", "b"), "b", conf{mode: "b"}, ""},
		{"one of others", OneOf(func(c *conf) *string { return &c.mode }, "a", "b"), "c", conf{mode: "c"}, "use one of a, b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got conf
			err := c.field.Set(&got, c.text)
			if msg := errText(err); !startsWith(msg, c.err) || (c.err == "") != (err == nil) {
				t.Errorf("Set(%q) = %v, want %q", c.text, err, c.err)
			}
			if got != c.want {
				t.Errorf("Set(%q) set %+v, want %+v", c.text, got, c.want)
			}
			// A value Set kept is held to the same rule by Check.
			if err == nil || got != (conf{}) {
				if check := c.field.Check(&got); errText(check) != errText(err) && !errors.Is(err, routecore.ErrTimeUnitTooLarge) {
					t.Errorf("Check after Set(%q) = %v, Set said %v", c.text, check, err)
				}
			}
		})
	}
}

// TestCheckOfValuesSetInCode: values no text gives are refused too.
func TestCheckOfValuesSetInCode(t *testing.T) {
	dur := func(c *conf) *time.Duration { return &c.d }
	cases := []struct {
		name  string
		field Field[conf]
		c     conf
		err   string
	}{
		{"negative seconds", Seconds(dur, 60), conf{d: -time.Second}, "must be a whole number of seconds from 0 to 60"},
		{"part of a second", Seconds(dur, 60), conf{d: 1500 * time.Millisecond}, "must be a whole number of seconds from 0 to 60"},
		{"nanoseconds", TimeUnit(dur, false), conf{d: time.Nanosecond}, "must be a TimeUnit"},
		{"optional negative", TimeUnit(dur, true), conf{d: -time.Second}, "must be a TimeUnit"},
		{"interval zero", Interval(dur, time.Second, "5s"), conf{}, "must be at least 1s"},
		{"no rule", New(func(*conf, string) error { return nil }, nil), conf{n: -5}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := errText(c.field.Check(&c.c)); !startsWith(got, c.err) || (c.err == "") != (got == "") {
				t.Errorf("Check(%+v) = %q, want %q", c.c, got, c.err)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func startsWith(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }
