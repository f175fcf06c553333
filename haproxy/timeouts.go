package haproxy

import (
	"strconv"
	"time"
)

// maxHAProxyTimeout is the largest timeout HAProxy accepts.
const maxHAProxyTimeout = 2147483647 * time.Millisecond

// haproxyTime prints a duration as HAProxy milliseconds, rounding up and
// clipping to HAProxy's maximum.
func haproxyTime(d time.Duration) string {
	d = min(d, maxHAProxyTimeout)
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return strconv.FormatInt(int64(max(ms, 1)), 10) + "ms"
}
