package routecore

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits of the route values that reach HAProxy's configuration. Each keeps
// a wide margin below what HAProxy 2.6, with the router's default buffers
// (ROUTER_BUF_SIZE 32768, ROUTER_MAX_REWRITE_SIZE 8192), refuses to load or
// cannot serve; docs/validation.md ("Limits") has the measurements. The
// webhook, `routeshift validate` and the router check them through
// ValidateRoute and the annotation catalogue, and the CRD schema repeats
// those it can express. Lengths are in bytes.
const (
	// MaxPathLength bounds spec.path. The router looks a request up by
	// host+path in maps whose keys it keeps to 4096 bytes, and HAProxy
	// refuses the whole configuration when the rewrite-target rule built
	// from a path of 32,758 bytes or more no longer compiles ("regular
	// expression is too large").
	MaxPathLength = 2048
	// MaxRewriteTargetLength bounds the rewrite-target annotation: the
	// rewritten path must fit in HAProxy's request buffer (it refuses the
	// request with a 500 from about 32,650 bytes).
	MaxRewriteTargetLength = 2048
	// MaxHeaderActions is the number of header actions per direction.
	MaxHeaderActions = 20
	// MaxHeaderNameLength bounds a header action's name.
	MaxHeaderNameLength = 255
	// MaxHeaderValueLength bounds a header action's value.
	MaxHeaderValueLength = 16384
	// MaxHeaderValuesTotal bounds the values of the Set actions of one
	// direction together: HAProxy adds them to a message that must still
	// fit in its buffer, and answers 500 to every request once they need
	// more than about 32,600 bytes. With every header action and the
	// rewrite target at their limits, requests that bring 8 KiB of
	// headers of their own are still served.
	MaxHeaderValuesTotal = 16384
	// MaxCookieNameLength bounds the sticky-session cookie's name:
	// browsers keep cookies of up to 4096 bytes (name, value and
	// attributes), and HAProxy writes a broken Set-Cookie header for
	// names of about 32,700 bytes.
	MaxCookieNameLength = 1024
	// MaxHSTSHeaderLength bounds the hsts_header annotation, a response
	// header HAProxy adds.
	MaxHSTSHeaderLength = 1024
	// MaxAllowlistEntries bounds the addresses and CIDRs of an IP
	// allowlist. HAProxy loads far more (100,000 in 0.2 s); the limit
	// keeps one Route from making every reload of the router slow.
	MaxAllowlistEntries = 10000
)

// tooLong is the error of a value longer than limit bytes, or nil.
func tooLong(path *field.Path, value string, limit int) *field.Error {
	if len(value) > limit {
		return field.TooLong(path, value, limit)
	}
	return nil
}

// validateHeaderValuesTotal refuses a direction whose Set actions' values
// add up to more than MaxHeaderValuesTotal.
func validateHeaderValuesTotal(list []RouteHTTPHeader, path *field.Path) field.ErrorList {
	n := 0
	for i := range list {
		if s := list[i].Action.Set; s != nil {
			n += len(s.Value)
		}
	}
	if n > MaxHeaderValuesTotal {
		return field.ErrorList{field.Invalid(path, n, fmt.Sprintf(
			"the values of the headers to set may add up to at most %d bytes, so that they fit in HAProxy's buffer with the message", MaxHeaderValuesTotal))}
	}
	return nil
}
