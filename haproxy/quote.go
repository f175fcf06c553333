package haproxy

import (
	"strings"
)

// Everything the renderer prints that comes from a route goes through one
// of these functions: they either return a form HAProxy reads as exactly one
// word (or one map key) or refuse the value.

// quote returns s as one HAProxy configuration word: single-quoted, where
// HAProxy neither expands variables nor treats '#' or spaces specially, with
// each ' written as ' \' ' without the spaces (close the quotes, an escaped
// quote, reopen). It refuses control characters: a line break ends a
// configuration line whatever the quotes.
func quote(s string) (string, bool) {
	if hasControl(s) {
		return "", false
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", true
}

// quoteLiteral quotes s as a log-format string that prints s literally:
// '%' is doubled so that HAProxy evaluates nothing in it.
func quoteLiteral(s string) (string, bool) {
	return quote(strings.ReplaceAll(s, "%", "%%"))
}

// hasControl reports whether s holds a byte HAProxy's configuration or map
// readers would take as the end of a line or string: C0 controls and DEL.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// maxMapKey bounds map keys. HAProxy reads map files line by line into a
// buffer of tune.bufsize (16 kB by default) and takes what does not fit as
// the next line, so an overlong key would inject a line of its own; no
// request line that long reaches the lookup anyway.
const maxMapKey = 4096

// mapKeySafe reports whether s can be a map key: a map line is "key value"
// split on spaces and tabs, ends at CR or LF, and NUL ends the key, so keys
// may hold none of them (nor other controls), and must fit in a line.
// Keys always start with a host or "*.", never with '#' (a comment).
func mapKeySafe(s string) bool {
	if s == "" || len(s) > maxMapKey {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// nameSafe reports whether s is made of the characters of Kubernetes names
// and DNS host names (lower-case letters, digits, '-' and '.'), which are
// valid in HAProxy proxy names, file names and map keys as they are.
func nameSafe(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}
