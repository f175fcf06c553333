// Package settingfield holds the kinds of value a router setting may have.
// Each kind knows how the setting's text becomes its field (Set) and the
// rule the field's value must meet (Check), so that a value set in code is
// held to the same rule, in the same words, as one read from a flag or the
// environment.
//
// It is a leaf: the settings table (internal/settings) and the data-plane
// settings (haproxy/proxyconfig) build their fields from it; it imports
// only routecore, for TimeUnits.
package settingfield

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/routeshift/routeshift/routecore"
)

// Field is one setting's field of a configuration of type C.
type Field[C any] struct {
	parse func(c *C, v string) error
	check func(c *C) error
}

// Set parses v into the field, then checks the field's rule.
func (f Field[C]) Set(c *C, v string) error {
	if err := f.parse(c, v); err != nil {
		return err
	}
	return f.Check(c)
}

// Check returns nil when the field's value meets its rule, else what is
// wrong with it.
func (f Field[C]) Check(c *C) error {
	if f.check == nil {
		return nil
	}
	return f.check(c)
}

// Text is a string field; check, when set, is its rule.
func Text[C any](get func(*C) *string, check func(string) error) Field[C] {
	f := Field[C]{parse: func(c *C, v string) error { *get(c) = v; return nil }}
	if check != nil {
		f.check = func(c *C) error { return check(*get(c)) }
	}
	return f
}

// Bool accepts true/TRUE/false/FALSE and the other spellings strconv
// knows; empty is false.
func Bool[C any](get func(*C) *bool) Field[C] {
	return Field[C]{parse: func(c *C, v string) error {
		if v == "" {
			*get(c) = false
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("use true or false")
		}
		*get(c) = b
		return nil
	}}
}

// Int is a whole number from least to most; what describes the range
// ("a port number from 1 to 65535") in its error.
func Int[C any](get func(*C) *int, least, most int, what string) Field[C] {
	bad := errors.New("must be " + what)
	return Field[C]{
		parse: func(c *C, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return bad
			}
			*get(c) = n
			return nil
		},
		check: func(c *C) error {
			if n := *get(c); n < least || n > most {
				return bad
			}
			return nil
		},
	}
}

// Port is a port number; with zero, 0 (none) too.
func Port[C any](get func(*C) *int, zero bool) Field[C] {
	if zero {
		return Int(get, 0, 65535, "a port number, or 0")
	}
	return Int(get, 1, 65535, "a port number from 1 to 65535")
}

// Seconds is a whole number of seconds from 0 to most.
func Seconds[C any](get func(*C) *time.Duration, most int) Field[C] {
	bad := fmt.Errorf("must be a whole number of seconds from 0 to %d", most)
	return Field[C]{
		parse: func(c *C, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > most {
				return bad
			}
			*get(c) = time.Duration(n) * time.Second
			return nil
		},
		check: func(c *C) error {
			if d := *get(c); d < 0 || d > time.Duration(most)*time.Second || d%time.Second != 0 {
				return bad
			}
			return nil
		},
	}
}

// TimeUnit is a duration written as HAProxy's TimeUnit ("30s", "500ms");
// with optional, empty is 0 (not set).
func TimeUnit[C any](get func(*C) *time.Duration, optional bool) Field[C] {
	return Field[C]{
		parse: func(c *C, v string) error {
			if optional && v == "" {
				*get(c) = 0
				return nil
			}
			d, err := routecore.ParseTimeUnit(v)
			if err != nil {
				return err
			}
			*get(c) = d
			return nil
		},
		check: func(c *C) error {
			if d := *get(c); !optional || d != 0 {
				return routecore.ValidateTimeUnit(d)
			}
			return nil
		},
	}
}

// Interval is a TimeUnit or a Go duration ("10s", "1m30s"), at least
// least; example names a valid value.
func Interval[C any](get func(*C) *time.Duration, least time.Duration, example string) Field[C] {
	return Field[C]{
		parse: func(c *C, v string) error {
			d, err := routecore.ParseTimeUnit(v)
			if err != nil {
				if d, err = time.ParseDuration(v); err != nil {
					return errors.New("must be a TimeUnit such as " + example)
				}
			}
			*get(c) = d
			return nil
		},
		check: func(c *C) error {
			if *get(c) < least {
				return errors.New("must be at least " + least.String())
			}
			return nil
		},
	}
}

// OneOf accepts exactly the values of an enumeration.
func OneOf[C any, T ~string](get func(*C) *T, values ...T) Field[C] {
	return Field[C]{
		parse: func(c *C, v string) error { *get(c) = T(v); return nil },
		check: func(c *C) error {
			if !slices.Contains(values, *get(c)) {
				return fmt.Errorf("use one of %s", strings.Join(routecore.Strings(values), ", "))
			}
			return nil
		},
	}
}

// New is a field of another kind: parse turns text into the field's value
// (and reports text it cannot read), check is the value's rule (nil for
// none).
func New[C any](parse func(c *C, v string) error, check func(c *C) error) Field[C] {
	return Field[C]{parse: parse, check: check}
}
