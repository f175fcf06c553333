package routecore

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// BalanceAlgorithm is how a route's backend picks an endpoint for a new
// connection, as HAProxy's balance keyword names it. The balance
// annotation, ROUTER_LOAD_BALANCE_ALGORITHM, ROUTER_TCP_BALANCE_SCHEME and
// the renderer all accept exactly BalanceAlgorithms.
type BalanceAlgorithm string

// Balance algorithms.
const (
	BalanceRoundRobin BalanceAlgorithm = "roundrobin"
	BalanceLeastConn  BalanceAlgorithm = "leastconn"
	BalanceSource     BalanceAlgorithm = "source"
	BalanceRandom     BalanceAlgorithm = "random"
)

// BalanceAlgorithms lists every balance algorithm, in documentation order.
var BalanceAlgorithms = []BalanceAlgorithm{BalanceRoundRobin, BalanceLeastConn, BalanceSource, BalanceRandom}

// Validate returns nil for a known algorithm, else an error listing them
// (its Field is for the caller to fill in).
func (a BalanceAlgorithm) Validate() *field.Error { return ValidateEnum(a, BalanceAlgorithms) }

// ForwardedHeadersPolicies lists every forwarded-headers policy, in
// documentation order; the set-forwarded-headers annotation and
// ROUTER_SET_FORWARDED_HEADERS accept exactly these.
var ForwardedHeadersPolicies = []ForwardedHeadersPolicy{ForwardedAppend, ForwardedReplace, ForwardedIfNone, ForwardedNever}

// Validate returns nil for a known policy, else an error listing them (its
// Field is for the caller to fill in).
func (p ForwardedHeadersPolicy) Validate() *field.Error {
	return ValidateEnum(p, ForwardedHeadersPolicies)
}

// ValidateEnum accepts exactly the listed values (case-sensitive, as the
// router compares them); its error lists them, its Field is for the caller
// to fill in.
func ValidateEnum[T ~string](v T, values []T) *field.Error {
	if slices.Contains(values, v) {
		return nil
	}
	return field.NotSupported(nil, string(v), Strings(values))
}

// Strings returns an enumeration's values as strings, for messages and
// parsers of settings.
func Strings[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// ValidateCookieName is the rule of sticky-session cookie names (the
// cookie_name annotations and ROUTER_COOKIE_NAME): letters, digits, '_'
// and '-', at most MaxCookieNameLength bytes. Its Field is for the caller
// to fill in.
func ValidateCookieName(v string) *field.Error {
	if len(v) > MaxCookieNameLength {
		return field.TooLong(nil, v, MaxCookieNameLength)
	}
	if v == "" || strings.IndexFunc(v, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-')
	}) >= 0 {
		return field.Invalid(nil, v, "must consist of letters, digits, '_' and '-'")
	}
	return nil
}
