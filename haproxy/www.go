package haproxy

import (
	"cmp"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// www-redirect: a route the snapshot lets serve its other host
// (router.Route.WWWRedirectHost) has that host routed to its backend like
// its own host (same maps, same path, its certificate in the crt-list),
// and the backend redirects requests for it to the route's own host.
// Routes without the other host render nothing of it.

// WWWRedirectData redirects requests whose host is From to the route's
// own host, with the request's scheme, path and query.
type WWWRedirectData struct {
	// From is the quoted other host; Location the quoted log-format
	// location.
	From, Location string
	Code           int
}

// wwwEntries are the lines the route's other host wants in the keyed
// files: those of its own host, for the other host.
func wwwEntries(rt *router.Route, certFile string) []mapEntry {
	if rt.WWWRedirectHost == "" || rt.Wildcard || !nameSafe(rt.WWWRedirectHost) {
		return nil
	}
	other := *rt
	other.Host, other.WWWRedirectHost = rt.WWWRedirectHost, ""
	// The forwarded-headers policy is the backend's, listed once with the
	// route's own host.
	return routeEntries(&other, certFile, "")
}

// wwwRedirect fills in the redirect of the route's other host; it reports
// false when a value cannot be quoted.
func wwwRedirect(rt *router.Route, d *BackendData) bool {
	if rt.WWWRedirectHost == "" || rt.Wildcard || !nameSafe(rt.WWWRedirectHost) {
		return true
	}
	from, ok := quote(rt.WWWRedirectHost)
	if !ok {
		return false
	}
	// The host is a name (nameSafe), which a log-format string prints
	// as it is.
	loc, ok := quote("%[ssl_fc,iif(https,http)]://" + rt.Host + "%[pathq]")
	if !ok || !nameSafe(rt.Host) {
		return false
	}
	d.WWWRedirect = &WWWRedirectData{From: from, Location: loc, Code: cmp.Or(rt.Overrides.RedirectCode, routecore.DefaultWWWRedirectCode)}
	return true
}
