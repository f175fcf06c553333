package haproxy

import (
	"cmp"
	"strings"

	"github.com/routeshift/routeshift/routecore"
	"github.com/routeshift/routeshift/router"
)

// The request rules of routeshift's own annotations (routecore's
// extension catalogue): body limits, deny lists, redirects, and rate
// limits that answer 429. Each is printed only for routes that ask for
// it (or, for the body limit, when ROUTER_MAX_BODY_SIZE is set), so that
// other routes render as before.

// BodyLimitData refuses request bodies larger than Bytes with 413.
type BodyLimitData struct {
	Bytes int64
	// Buffered also checks bodies without a Content-Length (chunked) as
	// far as HAProxy buffers them: set when the limit is below the
	// buffer, so that a larger body fills more of it than the limit.
	Buffered bool
}

// RedirectData redirects every request of the route.
type RedirectData struct {
	// Location is the quoted URL; with Prefix, the request's path and
	// query are appended to it.
	Location string
	Prefix   bool
	Code     int
}

// HTTPSRedirectData redirects plain-HTTP requests to HTTPS with the
// route's own status (insecureEdgeTerminationPolicy Redirect with a
// redirect-code other than 302; 302 redirects are the frontend's).
type HTTPSRedirectData struct {
	// Port is ":PORT" of ROUTER_HTTPS_REDIRECT_PORT, or empty.
	Port string
	Code int
}

// RateLimitAnswerData makes the rate limits answer with an HTTP status
// and Retry-After instead of closing the connection.
type RateLimitAnswerData struct {
	Status int
}

// BasicAuthData asks requests for the credentials of one of Users.
type BasicAuthData struct {
	// Userlist names the userlist section of the users.
	Userlist string
	Users    []UserData
	// Realm is the quoted realm clients are told.
	Realm string
	// Forward keeps the Authorization header for the endpoints.
	Forward bool
}

// UserData is one user of a userlist: quoted name and crypt(3) hash.
type UserData struct {
	Name, Hash string
}

// defaultRealm is the realm of routes that name none.
const defaultRealm = "Authentication Required"

// requestRules fills in the route's request rules. It returns why the
// route cannot be served safely, or "".
func requestRules(def *backendDefaults, rt *router.Route, d *BackendData, out *backendOutput) string {
	o := &rt.Overrides
	limit := def.maxBodySize
	if o.MaxBodySize.Set {
		limit = o.MaxBodySize.Bytes
	}
	if limit > 0 {
		d.BodyLimit = &BodyLimitData{Bytes: limit, Buffered: limit < def.bodyBuffer}
	}
	if len(o.IPDenylist) > 0 {
		list, invalid := canonicalIPs(o.IPDenylist)
		if invalid > 0 {
			// Dropping an entry would let in a source meant to be kept
			// out.
			return "an IP denylist entry cannot be read"
		}
		d.DenyList = ipListData(def, list, ipListFile(rt, "deny"), out)
	}
	if a := rt.BasicAuth; a != nil {
		if why := basicAuth(rt, a, d); why != "" {
			return why
		}
	}
	if d.RateLimit != nil {
		if len(o.RateLimitExempt) > 0 {
			// An exemption the router cannot read counts the source
			// (the safe side).
			if list, _ := canonicalIPs(o.RateLimitExempt); len(list) > 0 {
				d.RateLimit.Exempt = ipListData(def, list, ipListFile(rt, "exempt"), out)
			}
		}
		if o.RateLimitStatus == 429 {
			d.RateLimit.Answer = &RateLimitAnswerData{Status: 429}
		}
	}
	code := o.RedirectCode
	if o.AppRoot != "" && validRedirect(routecore.AnnAppRoot, o.AppRoot) {
		loc, ok := quoteLiteral(o.AppRoot)
		if !ok {
			return "the app-root path cannot be quoted"
		}
		d.AppRoot = loc
	}
	if o.RedirectTo != "" && validRedirect(routecore.AnnRedirectTo, o.RedirectTo) {
		url, prefix := strings.CutSuffix(o.RedirectTo, routecore.RequestURIVariable)
		loc, ok := quoteLiteral(url)
		if !ok {
			return "the redirect URL cannot be quoted"
		}
		d.Redirect = &RedirectData{Location: loc, Prefix: prefix, Code: cmp.Or(code, 301)}
	}
	if !wwwRedirect(rt, d) {
		return "the www-redirect host cannot be quoted"
	}
	if why := canaryRules(rt, d); why != "" {
		return why
	}
	if c := httpsRedirectCode(rt); c != 0 && c != 302 {
		d.HTTPSRedirect = &HTTPSRedirectData{Port: def.httpsRedirectPort, Code: c}
	}
	return ""
}

// validRedirect reports whether value is valid for the catalogue entry of
// key: the router ignores what the webhook would refuse.
func validRedirect(key, value string) bool {
	a, ok := routecore.LookupAnnotation(key)
	return ok && a.Validate(nil, value) == nil
}

// httpsRedirectCode is the status plain-HTTP requests of an edge or
// reencrypt route with insecureEdgeTerminationPolicy Redirect are
// redirected to HTTPS with: the route's redirect-code, else 302 (0 for
// routes that do not redirect so).
func httpsRedirectCode(rt *router.Route) int {
	term := rt.Termination()
	if term != routecore.TLSTerminationEdge && term != routecore.TLSTerminationReencrypt ||
		rt.TLS.InsecureEdgeTerminationPolicy != routecore.InsecureEdgeTerminationPolicyRedirect {
		return 0
	}
	return cmp.Or(rt.Overrides.RedirectCode, 302)
}

// ipListFile is the path of one of the route's IP lists ("deny",
// "exempt") when it is too long for the acl line.
func ipListFile(rt *router.Route, kind string) string {
	return allowListsDir + "/" + routeFileName(rt) + "." + kind + ".txt"
}

// basicAuth fills in the route's users and realm. It returns why they
// cannot be written safely, or "".
func basicAuth(rt *router.Route, a *router.BasicAuth, d *BackendData) string {
	realm, ok := quote(cmp.Or(a.Realm, defaultRealm))
	if !ok || len(a.Users) == 0 {
		return "the basic authentication users or realm cannot be quoted"
	}
	b := &BasicAuthData{Userlist: "auth:" + rt.Namespace + ":" + rt.Name, Realm: realm, Forward: a.Forward}
	for _, u := range a.Users {
		name, ok1 := quote(u.Name)
		hash, ok2 := quote(u.Hash)
		if !ok1 || !ok2 {
			return "the basic authentication users or realm cannot be quoted"
		}
		b.Users = append(b.Users, UserData{Name: name, Hash: hash})
	}
	d.BasicAuth = b
	return ""
}
