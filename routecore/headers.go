package routecore

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	headerNamePattern = regexp.MustCompile("^[-!#$%&'*+.0-9A-Z^_`a-z|~]+$")

	// Header values are HAProxy format strings limited to literal text, %%
	// and %[fetch(,converter)*] with optional {Q,X,E} flags, where the fetch
	// is the direction's hdr() or ssl_c_der and the converters lower and
	// base64. Control characters are never allowed: they would break the
	// quoted string in haproxy.cfg.
	requestHeaderValue  = headerValuePattern(`req\.hdr`)
	responseHeaderValue = headerValuePattern(`res\.hdr`)

	reservedHeaders = []string{"strict-transport-security", "proxy", "cookie", "set-cookie"}
)

func headerValuePattern(hdrFetch string) *regexp.Regexp {
	flags := `(?:\{[-+]?[QXE](?:,[-+]?[QXE])*\})?`
	fetch := `(?:` + hdrFetch + `\([0-9A-Za-z-]+\)|ssl_c_der)`
	dynamic := `%` + flags + `\[` + fetch + `(?:,(?:lower|base64))*\]`
	return regexp.MustCompile(`^(?:%%|` + dynamic + `|[^%\x00-\x1f\x7f])+$`)
}

func headerValueMessage(fetch string) string {
	return "Either header value provided is not in correct format or the converter specified is not allowed. " +
		"The dynamic header value  may use HAProxy's %[] syntax and otherwise must be a valid HTTP header value as defined in " +
		"https://datatracker.ietf.org/doc/html/rfc7230#section-3.2 Sample fetchers allowed are " + fetch + ", ssl_c_der. " +
		"Converters allowed are lower, base64."
}

func (c *check) headers() field.ErrorList {
	h := c.route.Spec.HTTPHeaders
	if h == nil {
		return nil
	}
	var errs field.ErrorList
	if tls := c.route.Spec.TLS; tls != nil && tls.Termination == TLSTerminationPassthrough &&
		(len(h.Actions.Request) > 0 || len(h.Actions.Response) > 0) {
		errs = append(errs, field.Invalid(specPath.Child("tls", "termination"), tls.Termination,
			"only edge and re-encrypt routes are supported for providing customized headers."))
	}
	actions := specPath.Child("httpHeaders", "actions")
	var old RouteHTTPHeaderActions
	if !c.creating() && c.old.Spec.HTTPHeaders != nil {
		old = c.old.Spec.HTTPHeaders.Actions
	}
	for _, d := range []struct {
		list, old    []RouteHTTPHeader
		direction    string
		valuePattern *regexp.Regexp
		fetch        string
	}{
		{h.Actions.Response, old.Response, "response", responseHeaderValue, "res.hdr"},
		{h.Actions.Request, old.Request, "request", requestHeaderValue, "req.hdr"},
	} {
		path := actions.Child(d.direction)
		listErrs := validateHeaderList(d.list, d.direction, d.valuePattern, d.fetch, path)
		// The room the values take is judged once each value is valid,
		// and, so that stored routes stay editable, only when it changed.
		if len(listErrs) == 0 && (c.creating() || !reflect.DeepEqual(d.list, d.old)) {
			listErrs = validateHeaderValuesTotal(d.list, path)
		}
		errs = append(errs, listErrs...)
	}
	return errs
}

func validateHeaderList(list []RouteHTTPHeader, direction string, valuePattern *regexp.Regexp, fetch string, path *field.Path) field.ErrorList {
	if len(list) > MaxHeaderActions {
		return field.ErrorList{field.Invalid(path, len(list), fmt.Sprintf("%s headers list can't exceed %d items", direction, MaxHeaderActions))}
	}
	var errs field.ErrorList
	seen := make(map[string]bool, len(list))
	for i := range list {
		h, p := &list[i], path.Index(i)
		if seen[h.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), h.Name))
		}
		seen[h.Name] = true
		errs = append(errs, validateHeaderName(h.Name, p.Child("name"))...)
		errs = append(errs, validateHeaderAction(&h.Action, valuePattern, fetch, p.Child("action"))...)
	}
	return errs
}

func validateHeaderName(name string, path *field.Path) field.ErrorList {
	switch {
	case name == "":
		return field.ErrorList{field.Required(path, "")}
	case len(name) > MaxHeaderNameLength:
		return field.ErrorList{field.Invalid(path, name, fmt.Sprintf("name exceeds the maximum length, which is %d", MaxHeaderNameLength))}
	case isReservedHeader(name):
		return field.ErrorList{field.Forbidden(path, "the following headers may not be modified using this API: "+strings.Join(reservedHeaders, ", "))}
	case !headerNamePattern.MatchString(name):
		return field.ErrorList{field.Invalid(path, name, "name must be a valid HTTP header name as defined in RFC 2616 section 4.2")}
	}
	return nil
}

func isReservedHeader(name string) bool {
	for _, r := range reservedHeaders {
		if strings.EqualFold(name, r) {
			return true
		}
	}
	return false
}

func validateHeaderAction(a *RouteHTTPHeaderActionUnion, valuePattern *regexp.Regexp, fetch string, path *field.Path) field.ErrorList {
	if a.Type != Set && a.Type != Delete {
		return field.ErrorList{field.Invalid(path.Child("type"), a.Type, `type must be "Set" or "Delete"`)}
	}
	if (a.Type == Set) != (a.Set != nil) {
		return field.ErrorList{field.Required(path.Child("set"), "set is required when type is Set, and forbidden otherwise")}
	}
	if a.Set == nil {
		return nil
	}
	vpath := path.Child("set", "value")
	switch v := a.Set.Value; {
	case v == "":
		return field.ErrorList{field.Required(vpath, "")}
	case len(v) > MaxHeaderValueLength:
		return field.ErrorList{field.Invalid(vpath, v, fmt.Sprintf("value exceeds the maximum length, which is %d", MaxHeaderValueLength))}
	case !valuePattern.MatchString(v):
		return field.ErrorList{field.Invalid(vpath, v, headerValueMessage(fetch))}
	}
	return nil
}
