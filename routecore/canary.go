package routecore

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Header and cookie canaries: canary-backend names one of the route's
// alternate backends, and canary-by-header (with an optional value or
// pattern) and canary-by-cookie decide, request by request, whether the
// canary serves it. The header decides first, then the cookie; a request
// neither decides follows the route's weights.
const (
	// AnnCanaryBackend names the canary: one of spec.alternateBackends.
	AnnCanaryBackend = "routeshift.io/canary-backend"
	// AnnCanaryByHeader names the request header that picks the canary.
	AnnCanaryByHeader = "routeshift.io/canary-by-header"
	// AnnCanaryByHeaderValue is the header value that picks the canary
	// instead of "always".
	AnnCanaryByHeaderValue = "routeshift.io/canary-by-header-value"
	// AnnCanaryByHeaderPattern is a regular expression header values that
	// pick the canary match, instead of "always".
	AnnCanaryByHeaderPattern = "routeshift.io/canary-by-header-pattern"
	// AnnCanaryByCookie names the cookie that picks the canary.
	AnnCanaryByCookie = "routeshift.io/canary-by-cookie"
)

// Values and limits of the canary annotations.
const (
	// CanaryAlways in the header (without a value or pattern) or the
	// cookie sends the request to the canary; CanaryNever keeps it away
	// from the canary.
	CanaryAlways = "always"
	CanaryNever  = "never"
	// MaxCanaryHeaderNameLength bounds canary-by-header.
	MaxCanaryHeaderNameLength = 256
	// MaxCanaryHeaderValueLength bounds canary-by-header-value.
	MaxCanaryHeaderValueLength = 1024
	// MaxCanaryPatternLength bounds canary-by-header-pattern.
	MaxCanaryPatternLength = 256
)

// canaryKeys are the canary annotations, in catalogue order.
var canaryKeys = []string{AnnCanaryBackend, AnnCanaryByHeader, AnnCanaryByHeaderValue, AnnCanaryByHeaderPattern, AnnCanaryByCookie}

// Help texts of the canary annotations.
const (
	canaryBackendHelp = "Name of the Service among spec.alternateBackends that is the route's canary, for canary-by-header and canary-by-cookie: a request they pick is served by one of its endpoints (at random), whatever its weight (0 is the usual weight of a canary that only picked requests reach); a request they keep away from the canary (never) is served by an endpoint of the route's other services with a weight above 0 (at random, all of them when none has one); any other request follows the weights of spec.to and spec.alternateBackends. " +
		"The choice is made before the sticky-session cookie is read, so it overrides that cookie; a request that no header or cookie decides but whose sticky-session cookie names a canary endpoint (set when the canary served it) stays on that endpoint. " +
		"When no endpoint of the chosen services is up, the request follows the weights. Endpoints a service gains beyond the server slots it had at the last reload (through the runtime API) are not chosen by the header or cookie until the next reload. " +
		"Without canary-by-header or canary-by-cookie it has no effect (a warning), so that a rollout may keep it between steps."
	canaryByHeaderHelp = "Name of the request header that picks the canary (canary-backend, which it requires): the value always sends the request to the canary and never keeps it away; with canary-by-header-value or canary-by-header-pattern, that value or a match picks the canary instead of always (never still keeps it away). The header decides before canary-by-cookie. " +
		"Letters, digits, '-', '_' and '.'; at most 256 bytes; case does not matter."
	canaryByHeaderValueHelp   = "The value of canary-by-header (which it requires) that picks the canary, instead of always: compared exactly, with its case. Printable text without leading or trailing spaces (HTTP strips them from header values), other than never; at most 1024 bytes. Not with canary-by-header-pattern."
	canaryByHeaderPatternHelp = "Regular expression a value of canary-by-header (which it requires) must match to pick the canary, instead of always: unanchored (write ^ and $ to match the whole value); never still keeps the request away from the canary, even when the pattern matches it. Not with canary-by-header-value. At most 256 bytes. " +
		"It must compile with Go's regexp (RE2 syntax) and mean the same to HAProxy's PCRE2, so only this is accepted: literals, ., character classes (with [:name:] classes), | ( ) (?: ) groups, (?i) and (?i: ) for case-insensitive matching, the repetitions * + ? {n} {n,} {n,m} and their lazy forms, ^ and $, " +
		`and the escapes \d \D \s \S \w \W \b \B \A \z \t \n \r \f \xHH and \ before punctuation, in ASCII (HAProxy compares bytes, Go UTF-8 characters); refused are \Q...\E, every other (? group or flag (named groups, (?s), (?m), atomic and lookaround groups), backreferences, \p classes and other escapes. ` +
		"Patterns with nested repetitions such as (a+)+ may cost HAProxy much time on long values."
	canaryByCookieHelp = "Name of the cookie that picks the canary (canary-backend, which it requires): the value always sends the request to the canary, never keeps it away. canary-by-header decides first. Letters, digits, '_' and '-'; at most 1024 bytes."
)

// canaryServiceName accepts the name of a Service.
func canaryServiceName(v string) *field.Error {
	if errs := validation.IsDNS1123Label(v); len(errs) > 0 {
		return field.Invalid(nil, v, "must be the name of a Service among spec.alternateBackends: "+strings.Join(errs, "; "))
	}
	return nil
}

// canaryHeaderName accepts header names of letters, digits, '-', '_'
// and '.': every header in use, and nothing HAProxy's configuration reads
// specially.
func canaryHeaderName(v string) *field.Error {
	if len(v) > MaxCanaryHeaderNameLength {
		return field.TooLong(nil, v, MaxCanaryHeaderNameLength)
	}
	if v == "" || strings.IndexFunc(v, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.')
	}) >= 0 {
		return field.Invalid(nil, v, "must be an HTTP header name of letters, digits, '-', '_' and '.', such as X-Canary")
	}
	return nil
}

// canaryHeaderValue accepts a non-empty value a header can carry as it is
// (no leading or trailing spaces), other than never.
func canaryHeaderValue(v string) *field.Error {
	switch {
	case len(v) > MaxCanaryHeaderValueLength:
		return field.TooLong(nil, v, MaxCanaryHeaderValueLength)
	case v == "":
		return field.Invalid(nil, v, "must not be empty")
	case strings.TrimSpace(v) != v:
		return field.Invalid(nil, v, "must not start or end with spaces, which HTTP strips from header values")
	case v == CanaryNever:
		return field.Invalid(nil, v, `must not be "never", which keeps requests away from the canary`)
	}
	return nil
}

// canaryPatternDetail lists what canary-by-header-pattern accepts.
const canaryPatternDetail = `: accepted are literals, ., classes, | and groups, (?: ), (?i), (?i: ), repetitions, ^, $ and the escapes \d \D \s \S \w \W \b \B \A \z \t \n \r \f \xHH and \ before punctuation, in ASCII`

// canaryPattern accepts a regular expression Go compiles and HAProxy's
// PCRE2 reads alike (see canaryByHeaderPatternHelp).
func canaryPattern(v string) *field.Error {
	if len(v) > MaxCanaryPatternLength {
		return field.TooLong(nil, v, MaxCanaryPatternLength)
	}
	if v == "" {
		return field.Invalid(nil, v, "must not be empty")
	}
	if _, err := regexp.Compile(v); err != nil {
		return field.Invalid(nil, v, "must be a regular expression: "+err.Error())
	}
	if bad := pcreDifference(v); bad != "" {
		return field.Invalid(nil, v, bad+" is not accepted"+canaryPatternDetail)
	}
	return nil
}

// pcreDifference returns the first construct of pattern (which Go
// compiles) that is not accepted, quoted, or "".
func pcreDifference(p string) string {
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			e := p[i+1]
			i++
			switch {
			case strings.IndexByte("dDsSwWbBAztnrf", e) >= 0:
			case e == 'x':
				// Two hex digits: code points above 0xff are no bytes.
				if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
					return `\x` + p[i+1:min(i+3, len(p))]
				}
				i += 2
			case e < 0x80 && !('a' <= e && e <= 'z' || 'A' <= e && e <= 'Z' || '0' <= e && e <= '9'):
			default:
				return fmt.Sprintf(`\%c`, e)
			}
		case c >= 0x80:
			return "non-ASCII text"
		case inClass && c == '[' && strings.HasPrefix(p[i:], "[:"):
			if end := strings.Index(p[i+2:], ":]"); end >= 0 {
				i += 2 + end + 1
			}
		case inClass && c == ']':
			inClass = false
		case !inClass && c == '[':
			inClass = true
			// A ']' first (after an optional '^') is literal.
			if strings.HasPrefix(p[i+1:], "^]") {
				i += 2
			} else if strings.HasPrefix(p[i+1:], "]") {
				i++
			}
		case !inClass && c == '(' && strings.HasPrefix(p[i:], "(?"):
			rest := p[i:]
			if !strings.HasPrefix(rest, "(?:") && !strings.HasPrefix(rest, "(?i)") && !strings.HasPrefix(rest, "(?i:") {
				end := strings.IndexAny(rest, ":)")
				if end < 0 {
					end = len(rest) - 1
				}
				return rest[:end+1]
			}
		}
	}
	return ""
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// canary checks the canary annotations together: the canary must be one
// of spec.alternateBackends (and not spec.to's Service), the header and
// cookie need it, the value and the pattern need the header and exclude
// each other. Values that are invalid on their own (reported with the
// values) and passthrough routes (refused with the terminations) are left
// out. On update, nothing is refused again while the canary annotations,
// spec.to and the alternate backends' names are unchanged.
func (c *check) canary() field.ErrorList {
	a := c.route.Annotations
	if c.opts.SkipAnnotationValues || len(a) == 0 || c.route.termination() == TLSTerminationPassthrough {
		return nil
	}
	valid := map[string]string{}
	for _, k := range canaryKeys {
		if v, ok := a[k]; ok {
			if e, _ := LookupAnnotation(k); e.Validate(nil, v) == nil {
				valid[k] = v
			}
		}
	}
	if len(valid) == 0 || !c.creating() && sameCanary(c.route, c.old) {
		return nil
	}
	var errs field.ErrorList
	spec := &c.route.Spec
	backend, hasBackend := valid[AnnCanaryBackend]
	if hasBackend {
		var names []string
		found := false
		for _, b := range spec.AlternateBackends {
			names = append(names, fmt.Sprintf("%q", b.Name))
			found = found || b.Name == backend
		}
		switch {
		case len(names) == 0:
			errs = append(errs, field.Invalid(annotationsPath.Key(AnnCanaryBackend), backend,
				"must name one of spec.alternateBackends, and the route has none: add the canary Service there (with weight 0, only the requests the header or cookie picks reach it)"))
		case !found:
			errs = append(errs, field.Invalid(annotationsPath.Key(AnnCanaryBackend), backend, "must name one of spec.alternateBackends: "+strings.Join(names, ", ")))
		case spec.To.Name == backend:
			errs = append(errs, field.Invalid(annotationsPath.Key(AnnCanaryBackend), backend, "must not be spec.to's Service, which serves the requests kept away from the canary"))
		}
	}
	_, hasHeader := a[AnnCanaryByHeader]
	for _, k := range canaryKeys[1:] {
		v, ok := valid[k]
		if !ok {
			continue
		}
		if !hasBackend {
			errs = append(errs, field.Invalid(annotationsPath.Key(k), v, "needs "+AnnCanaryBackend+", the alternate backend it sends requests to"))
		}
		if (k == AnnCanaryByHeaderValue || k == AnnCanaryByHeaderPattern) && !hasHeader {
			errs = append(errs, field.Invalid(annotationsPath.Key(k), v, "needs "+AnnCanaryByHeader+", the header it compares"))
		}
		if _, both := a[AnnCanaryByHeaderValue]; k == AnnCanaryByHeaderPattern && both {
			errs = append(errs, field.Invalid(annotationsPath.Key(k), v, "cannot be used with "+AnnCanaryByHeaderValue+": set one of them"))
		}
	}
	return errs
}

// sameCanary reports whether old had the same canary annotations, spec.to
// and alternate backend names as r.
func sameCanary(r, old *Route) bool {
	for _, k := range canaryKeys {
		v, ok := r.Annotations[k]
		ov, had := old.Annotations[k]
		if ok != had || v != ov {
			return false
		}
	}
	if r.Spec.To.Name != old.Spec.To.Name || len(r.Spec.AlternateBackends) != len(old.Spec.AlternateBackends) {
		return false
	}
	for i := range r.Spec.AlternateBackends {
		if r.Spec.AlternateBackends[i].Name != old.Spec.AlternateBackends[i].Name {
			return false
		}
	}
	return true
}

// canaryWarning says that canary-backend without canary-by-header or
// canary-by-cookie has no effect, or "".
func canaryWarning(r *Route) string {
	v, ok := r.Annotations[AnnCanaryBackend]
	if !ok || canaryServiceName(v) != nil || r.termination() == TLSTerminationPassthrough {
		return ""
	}
	if _, h := r.Annotations[AnnCanaryByHeader]; h {
		return ""
	}
	if _, ck := r.Annotations[AnnCanaryByCookie]; ck {
		return ""
	}
	return annotationsPath.Key(AnnCanaryBackend).String() + ": has no effect without " + AnnCanaryByHeader + " or " + AnnCanaryByCookie +
		": requests follow the weights of spec.to and spec.alternateBackends"
}
