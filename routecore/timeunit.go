package routecore

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// MaxTimeUnit is the largest TimeUnit accepted: HAProxy keeps timeouts in
// signed 32-bit milliseconds.
const MaxTimeUnit = 2147483647 * time.Millisecond

// ErrTimeUnitTooLarge is returned (wrapped) by ParseTimeUnit for values above
// MaxTimeUnit; the duration returned alongside it is MaxTimeUnit, which the
// router uses (it clips, the API rejects).
var ErrTimeUnitTooLarge = errors.New("must be at most 2147483647ms (about 24.8 days)")

// timeUnitHelp is the detail of every TimeUnit error, so users learn the
// grammar from the message.
const timeUnitHelp = "must be a TimeUnit: a whole number from 1 up, optionally followed by us, ms, s, m, h or d (no unit means ms), for example 5500ms or 30s"

var timeUnitScale = map[string]time.Duration{
	"us": time.Microsecond, "ms": time.Millisecond, "": time.Millisecond,
	"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour,
}

// ParseTimeUnit parses a TimeUnit as OpenShift defines it: ^[1-9][0-9]*(us|ms|s|m|h|d)?$,
// where no unit means milliseconds. Values above MaxTimeUnit return
// MaxTimeUnit and an error wrapping ErrTimeUnitTooLarge.
func ParseTimeUnit(s string) (time.Duration, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	digits, unit := s[:i], s[i:]
	scale, ok := timeUnitScale[unit]
	if digits == "" || digits[0] == '0' || !ok {
		return 0, errors.New(timeUnitHelp)
	}
	n, err := strconv.ParseUint(digits, 10, 63)
	if err != nil || n > uint64(MaxTimeUnit/scale) {
		return MaxTimeUnit, fmt.Errorf("%w", ErrTimeUnitTooLarge)
	}
	return time.Duration(n) * scale, nil
}

// ValidateTimeUnit returns nil for a duration a TimeUnit can write: a
// whole number of microseconds from 1us to MaxTimeUnit. Otherwise it
// returns the error ParseTimeUnit gives for such a value.
func ValidateTimeUnit(d time.Duration) error {
	switch {
	case d > MaxTimeUnit:
		return fmt.Errorf("%w", ErrTimeUnitTooLarge)
	case d < time.Microsecond || d%time.Microsecond != 0:
		return errors.New(timeUnitHelp)
	}
	return nil
}

// FormatTimeUnit renders a duration as a TimeUnit HAProxy accepts, in the
// largest unit that represents it exactly.
func FormatTimeUnit(d time.Duration) string {
	for _, u := range []struct {
		suffix string
		scale  time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}, {"ms", time.Millisecond}} {
		if d >= u.scale && d%u.scale == 0 {
			return strconv.FormatInt(int64(d/u.scale), 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(d/time.Microsecond), 10) + "us"
}
