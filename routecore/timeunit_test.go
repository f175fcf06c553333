package routecore

import (
	"errors"
	"strconv"
	"testing"
	"time"
)

func TestParseTimeUnit(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{in: "5500ms", want: 5500 * time.Millisecond},
		{in: "5500", want: 5500 * time.Millisecond},
		{in: "10us", want: 10 * time.Microsecond},
		{in: "30s", want: 30 * time.Second},
		{in: "5m", want: 5 * time.Minute},
		{in: "2h", want: 2 * time.Hour},
		{in: "1d", want: 24 * time.Hour},
		{in: "2147483647", want: MaxTimeUnit},
		{in: "24d", want: 24 * 24 * time.Hour},
		{in: "25d", want: MaxTimeUnit, wantErr: ErrTimeUnitTooLarge.Error()},
		{in: "2147483648ms", want: MaxTimeUnit, wantErr: ErrTimeUnitTooLarge.Error()},
		{in: "99999999999999999999999s", want: MaxTimeUnit, wantErr: ErrTimeUnitTooLarge.Error()},
		{in: "0", wantErr: timeUnitHelp},
		{in: "0s", wantErr: timeUnitHelp},
		{in: "05s", wantErr: timeUnitHelp},
		{in: "", wantErr: timeUnitHelp},
		{in: "s", wantErr: timeUnitHelp},
		{in: "5 minutes", wantErr: timeUnitHelp},
		{in: "5S", wantErr: timeUnitHelp},
		{in: "1.5s", wantErr: timeUnitHelp},
		{in: "-5s", wantErr: timeUnitHelp},
		{in: "5sec", wantErr: timeUnitHelp},
		{in: "+5s", wantErr: timeUnitHelp},
		{in: " 5s", wantErr: timeUnitHelp},
		{in: "5s ", wantErr: timeUnitHelp},
		{in: "5ns", wantErr: timeUnitHelp},
		{in: "٥s", wantErr: timeUnitHelp},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTimeUnit(tt.in)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if got != tt.want || gotErr != tt.wantErr {
				t.Errorf("ParseTimeUnit(%q) = %v, %q; want %v, %q", tt.in, got, gotErr, tt.want, tt.wantErr)
			}
			if tt.wantErr == ErrTimeUnitTooLarge.Error() && !errors.Is(err, ErrTimeUnitTooLarge) {
				t.Errorf("error %v does not wrap ErrTimeUnitTooLarge", err)
			}
		})
	}
}

func TestFormatTimeUnit(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second: "30s", 5500 * time.Millisecond: "5500ms", 90 * time.Minute: "90m",
		48 * time.Hour: "2d", 10 * time.Microsecond: "10us", time.Hour: "1h",
	} {
		if got := FormatTimeUnit(d); got != want {
			t.Errorf("FormatTimeUnit(%v) = %q, want %q", d, got, want)
		}
		if back, err := ParseTimeUnit(FormatTimeUnit(d)); err != nil || back != d {
			t.Errorf("ParseTimeUnit(FormatTimeUnit(%v)) = %v, %v", d, back, err)
		}
	}
}

// TestTimeUnitLimitPerUnit: in every unit, the largest value that fits in
// MaxTimeUnit is accepted, and one more is too large (and clipped to
// MaxTimeUnit for the router).
func TestTimeUnitLimitPerUnit(t *testing.T) {
	for unit, largest := range map[string]uint64{"us": 2147483647000, "ms": 2147483647, "": 2147483647, "s": 2147483, "m": 35791, "h": 596, "d": 24} {
		fits := strconv.FormatUint(largest, 10) + unit
		if d, err := ParseTimeUnit(fits); err != nil || d > MaxTimeUnit || MaxTimeUnit-d >= timeUnitScale[unit] {
			t.Errorf("ParseTimeUnit(%q) = %v, %v; want the largest value under %v", fits, d, err, MaxTimeUnit)
		}
		over := strconv.FormatUint(largest+1, 10) + unit
		if d, err := ParseTimeUnit(over); !errors.Is(err, ErrTimeUnitTooLarge) || d != MaxTimeUnit {
			t.Errorf("ParseTimeUnit(%q) = %v, %v; want MaxTimeUnit and ErrTimeUnitTooLarge", over, d, err)
		}
	}
}

// TestFormatTimeUnitUnits: the largest unit that says the duration
// exactly; what no millisecond says exactly is written in microseconds.
func TestFormatTimeUnitUnits(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{MaxTimeUnit, "2147483647ms"},
		{1500 * time.Millisecond, "1500ms"},
		{1500 * time.Microsecond, "1500us"},
		{25 * time.Hour, "25h"},
		{24 * time.Hour, "1d"},
		{61 * time.Second, "61s"},
		{120 * time.Second, "2m"},
		{time.Microsecond, "1us"},
	}
	for _, tt := range tests {
		if got := FormatTimeUnit(tt.d); got != tt.want {
			t.Errorf("FormatTimeUnit(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestValidateTimeUnit: a duration is valid exactly when ParseTimeUnit can
// produce it, and the error is ParseTimeUnit's.
func TestValidateTimeUnit(t *testing.T) {
	cases := []struct {
		d       time.Duration
		wantErr string
	}{
		{time.Microsecond, ""},
		{30 * time.Second, ""},
		{MaxTimeUnit, ""},
		{0, timeUnitHelp},
		{-time.Second, timeUnitHelp},
		{time.Nanosecond, timeUnitHelp},
		{1500 * time.Nanosecond, timeUnitHelp},
		{MaxTimeUnit + time.Millisecond, ErrTimeUnitTooLarge.Error()},
	}
	for _, c := range cases {
		err := ValidateTimeUnit(c.d)
		if got := timeUnitErrText(err); got != c.wantErr {
			t.Errorf("ValidateTimeUnit(%v) = %q, want %q", c.d, got, c.wantErr)
		}
		if c.wantErr == "" {
			if back, err := ParseTimeUnit(FormatTimeUnit(c.d)); err != nil || back != c.d {
				t.Errorf("%v: ParseTimeUnit(FormatTimeUnit) = %v, %v; a valid duration must round-trip", c.d, back, err)
			}
		}
	}
	if !errors.Is(ValidateTimeUnit(MaxTimeUnit+1), ErrTimeUnitTooLarge) {
		t.Error("a duration above MaxTimeUnit must wrap ErrTimeUnitTooLarge")
	}
}

func timeUnitErrText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
