package routecore

import (
	"errors"
	"strconv"
	"testing"
	"time"
)

// TestTimeUnitNormalForm: parsing a TimeUnit and formatting the duration
// gives its normal form, in the largest unit that says it exactly; the
// normal form parses to the same duration and is its own normal form.
func TestTimeUnitNormalForm(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"1", "1ms"},
		{"1us", "1us"},
		{"999us", "999us"},
		{"1000us", "1ms"},
		{"1001us", "1001us"},
		{"1000", "1s"},
		{"1000ms", "1s"},
		{"1500", "1500ms"},
		{"60s", "1m"},
		{"90s", "90s"},
		{"86400s", "1d"},
		{"3600000", "1h"},
		{"60m", "1h"},
		{"1440m", "1d"},
		{"24h", "1d"},
		{"36h", "36h"},
		{"48h", "2d"},
		{"7d", "7d"},
		{"24d", "24d"},
		{"2147483647", "2147483647ms"},
		{"2147483647000us", "2147483647ms"},
		{"2147483s", "2147483s"},
		{"35791m", "35791m"},
		{"596h", "596h"},
		{"0001s", ""}, // leading zeros are refused
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, err := ParseTimeUnit(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("ParseTimeUnit(%q) = %v, want an error", tt.in, d)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTimeUnit(%q): %v", tt.in, err)
			}
			got := FormatTimeUnit(d)
			if got != tt.want {
				t.Errorf("FormatTimeUnit(ParseTimeUnit(%q)) = %q, want %q", tt.in, got, tt.want)
			}
			back, err := ParseTimeUnit(got)
			if err != nil || back != d {
				t.Errorf("ParseTimeUnit(%q) = %v, %v; want %v", got, back, err, d)
			}
			if again := FormatTimeUnit(back); again != got {
				t.Errorf("normal form %q formats again as %q", got, again)
			}
		})
	}
}

// TestTimeUnitRoundTripPerUnit: every whole number of every unit, up to
// the largest that fits MaxTimeUnit, formats to a TimeUnit that parses
// back to the same duration.
func TestTimeUnitRoundTripPerUnit(t *testing.T) {
	units := []struct {
		suffix  string
		scale   time.Duration
		largest int64
	}{
		{"us", time.Microsecond, 2147483647000},
		{"ms", time.Millisecond, 2147483647},
		{"s", time.Second, 2147483},
		{"m", time.Minute, 35791},
		{"h", time.Hour, 596},
		{"d", 24 * time.Hour, 24},
	}
	for _, u := range units {
		for _, n := range []int64{1, 2, 7, 23, 59, 60, 61, 999, 1000, 1001, 3600, u.largest - 1, u.largest} {
			if n < 1 || n > u.largest {
				continue
			}
			d := time.Duration(n) * u.scale
			s := FormatTimeUnit(d)
			back, err := ParseTimeUnit(s)
			if err != nil || back != d {
				t.Errorf("%d%s: FormatTimeUnit = %q, which parses to %v, %v", n, u.suffix, s, back, err)
			}
			// Written in its own unit, the number parses to the same.
			if p, err := ParseTimeUnit(strconv.FormatInt(n, 10) + u.suffix); err != nil || p != d {
				t.Errorf("ParseTimeUnit(%d%s) = %v, %v; want %v", n, u.suffix, p, err, d)
			}
		}
	}
}

// TestTimeUnitErrorKinds: a value outside the grammar returns 0 and the
// grammar's help, never ErrTimeUnitTooLarge; a value in the grammar but
// too large returns MaxTimeUnit and wraps ErrTimeUnitTooLarge.
func TestTimeUnitErrorKinds(t *testing.T) {
	tests := []struct {
		in       string
		tooLarge bool
	}{
		{"ms5", false},
		{"5msms", false},
		{"5m s", false},
		{"5µs", false},
		{"5μs", false},
		{"5usec", false},
		{"5Ms", false},
		{"5H", false},
		{"5D", false},
		{"0us", false},
		{"00", false},
		{"1e3", false},
		{"0x10", false},
		{"9223372036854775808us", true},
		{"18446744073709551616", true},
		{"2147483647001us", true},
		{"2147484s", true},
		{"35792m", true},
		{"597h", true},
	}
	for _, tt := range tests {
		d, err := ParseTimeUnit(tt.in)
		switch {
		case err == nil:
			t.Errorf("ParseTimeUnit(%q) = %v, want an error", tt.in, d)
		case tt.tooLarge && (d != MaxTimeUnit || !errors.Is(err, ErrTimeUnitTooLarge) || err.Error() != "must be at most 2147483647ms (about 24.8 days)"):
			t.Errorf("ParseTimeUnit(%q) = %v, %v; want MaxTimeUnit and ErrTimeUnitTooLarge", tt.in, d, err)
		case !tt.tooLarge && (d != 0 || errors.Is(err, ErrTimeUnitTooLarge) || err.Error() != timeUnitDetail):
			t.Errorf("ParseTimeUnit(%q) = %v, %v; want 0 and the grammar's help", tt.in, d, err)
		}
	}
	if MaxTimeUnit != 2147483647*time.Millisecond || FormatTimeUnit(MaxTimeUnit) != "2147483647ms" {
		t.Errorf("MaxTimeUnit = %v (%s)", MaxTimeUnit, FormatTimeUnit(MaxTimeUnit))
	}
}
