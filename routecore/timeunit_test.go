package routecore

import (
	"errors"
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
