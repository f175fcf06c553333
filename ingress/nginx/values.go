package nginx

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/routecore"
)

// present reports whether the Ingress has an annotation (key without
// Prefix).
func (c *converter) present(key string) bool {
	_, ok := c.in.Annotations[Prefix+key]
	return ok
}

// boolValue reads a boolean annotation as ingress-nginx does
// (strconv.ParseBool); ok is false when it is absent or invalid.
func (c *converter) boolValue(key string) (value, ok bool) {
	v, found := c.value(key)
	if !found {
		return false, false
	}
	b, err := strconv.ParseBool(v)
	return b, err == nil
}

// isTrue reports whether a boolean annotation is present and true.
func (c *converter) isTrue(key string) bool {
	b, ok := c.boolValue(key)
	return ok && b
}

// intValue reads a whole-number annotation of at least minimum; ok is
// false when it is absent or invalid.
func (c *converter) intValue(key string, minimum int64) (n int64, ok bool) {
	v, found := c.value(key)
	if !found {
		return 0, false
	}
	return parseInt(v, minimum)
}

// parseInt reads a decimal whole number of at least minimum that fits in
// an int32 (the widest a Route annotation takes).
func parseInt(v string, minimum int64) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < minimum || n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// invalid marks a finding whose value ingress-nginx itself would not use:
// it says what the value should have been and what ingress-nginx does
// instead (and so the Route).
func invalid(f *Finding, want, instead string) {
	f.Verdict = NotSupported
	f.Caveat = fmt.Sprintf("%q is not %s: ingress-nginx ignores it and %s.", f.Value, want, instead)
}

// noEffect marks a finding whose annotation has no effect in ingress-nginx
// without another one, so none on the Route either.
func noEffect(f *Finding, without string) {
	f.Verdict = Exact
	f.Caveat = "It has no effect without " + without + ", in ingress-nginx as on the Route."
}

// headerValue is a literal header value as routecore accepts it: '%'
// starts an HAProxy format, so it is doubled. ok is false for values no
// header can carry (empty, control characters) and for nginx variables
// ($name), which have no counterpart.
func headerValue(v string) (string, bool) {
	if v == "" || strings.Contains(v, "$") || strings.IndexFunc(v, func(r rune) bool {
		return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)
	}) >= 0 {
		return "", false
	}
	v = strings.ReplaceAll(v, "%", "%%")
	return v, len(v) <= routecore.MaxHeaderValueLength
}

// setHeader adds (or replaces) a Set action for name in list.
func setHeader(list *[]routecore.RouteHTTPHeader, name, value string) {
	h := routecore.RouteHTTPHeader{Name: name, Action: routecore.RouteHTTPHeaderActionUnion{
		Type: routecore.Set, Set: &routecore.RouteSetHTTPHeader{Value: value}}}
	for i := range *list {
		if strings.EqualFold((*list)[i].Name, name) {
			(*list)[i] = h
			return
		}
	}
	*list = append(*list, h)
}

// splitList splits a comma-separated annotation value, trimming spaces and
// dropping empty items.
func splitList(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// seconds is a Route TimeUnit of n seconds, at most routecore's
// MaxTimeUnit (whole seconds); capped reports that n was more.
func seconds(n int64) (value string, capped bool) {
	maxSeconds := int64(routecore.MaxTimeUnit / time.Second)
	return strconv.FormatInt(min(n, maxSeconds), 10) + "s", n > maxSeconds
}

// checkRouteValue validates a value of a Route annotation with routecore's
// catalogue, as the webhook will: the conversion never emits a value it
// refuses.
func checkRouteValue(key, value string) *field.Error {
	a, ok := routecore.LookupAnnotation(key)
	if !ok {
		return field.NotSupported[string](nil, key, nil)
	}
	return a.Validate(nil, value)
}

// setChecked records a Route annotation when routecore accepts the value,
// and reports whether it did.
func (c *converter) setChecked(key, value string) bool {
	if checkRouteValue(key, value) != nil {
		return false
	}
	c.set(key, value)
	return true
}

// sourceRanges reads a comma-separated list of addresses and CIDRs as
// ingress-nginx's source-range annotations take it: the entries, and
// those that are not an address or CIDR (ingress-nginx then refuses the
// whole list).
func sourceRanges(v string) (entries, bad []string) {
	entries = splitList(v)
	for _, e := range entries {
		if !isIPOrCIDR(e) {
			bad = append(bad, e)
		}
	}
	return entries, bad
}
