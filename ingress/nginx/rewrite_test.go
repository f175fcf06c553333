package nginx

import (
	"strings"
	"testing"

	"github.com/routeshift/routeshift/routecore"
)

func TestRewritePath(t *testing.T) {
	for _, tc := range []struct {
		path, target string
		regex        bool
		routePath    string
		rewrite      string
		err          string // part of the error; "" for none
	}{
		// The capture forms.
		{path: "/api(/|$)(.*)", target: "/$2", regex: true, routePath: "/api", rewrite: "/"},
		{path: "/something(/|$)(.*)", target: "/new/$2", regex: true, routePath: "/something", rewrite: "/new/"},
		{path: "/something(/|$)(.*)", target: "/new/${2}", regex: true, routePath: "/something", rewrite: "/new/"},
		{path: "^/api(/|$)(.*)", target: "/$2", regex: true, routePath: "/api", rewrite: "/"},
		{path: "/api/(.*)", target: "/$1", regex: true, routePath: "/api/", rewrite: "/"},
		{path: "/api/(.*)", target: "/v2/$1", regex: true, routePath: "/api/", rewrite: "/v2/"},
		{path: "/api/?(.*)", target: "/$1", regex: true, routePath: "/api", rewrite: "/"},
		{path: "/api(/.*)", target: "$1", regex: true, routePath: "/api/", rewrite: "/"},
		{path: "/api(/.*)", target: "/v2$1", regex: true, routePath: "/api/", rewrite: "/v2"},
		{path: "/api(.*)", target: "/v2$1", regex: true, routePath: "/api", rewrite: "/v2"},
		{path: "/api(.*)", target: "$1", regex: true, routePath: "/api", rewrite: "/"},
		{path: "/(.*)", target: "/$1", regex: true, routePath: "/", rewrite: "/"},
		{path: "/v1\\.0/(.*)", target: "/$1", regex: true, routePath: "/v1.0/", rewrite: "/"},
		// Literal paths.
		{path: "/foo", target: "/", regex: false, routePath: "/foo", rewrite: "/"},
		{path: "/foo", target: "/", regex: true, routePath: "/foo", rewrite: "/"},
		{path: "/foo", target: "", regex: false, routePath: "/foo"},
		{path: "/foo/bar.html", target: "", regex: true, routePath: "/foo/bar.html"},
		// Regular expressions that are prefixes, without rewrite.
		{path: "/api/.*", target: "", regex: true, routePath: "/api/"},
		{path: "/api.*", target: "", regex: true, routePath: "/api"},
		{path: "/api(/|$)(.*)", target: "", regex: true, routePath: "/api"},
		{path: "/.*", target: "", regex: true, routePath: "/"},
		// Refused.
		{path: "/api/v[0-9]+", target: "", regex: true, err: "not a literal prefix"},
		{path: "/api/v[0-9]+/(.*)", target: "/$1", regex: true, err: "accepted:"},
		{path: "/api(/|$)(.*)", target: "/$1", regex: true, err: "accepted:"},
		{path: "/api(/|$)(.*)", target: "/new$2", regex: true, err: "accepted:"},
		{path: "/api/(.*)", target: "/v2$1", regex: true, err: "accepted:"},
		{path: "/(a|b)/(.*)", target: "/$2", regex: true, err: "accepted:"},
		{path: "/api/.*", target: "/x", regex: true, err: "accepted:"},
		{path: "/foo", target: "/$1", regex: false, err: "not a regular expression"},
		{path: "/foo", target: "/$1", regex: true, err: "captures nothing"},
		{path: "/foo", target: "/a b", regex: false, err: "rewrite-target"},
		{path: "/foo", target: "/x?y=1", regex: false, err: "rewrite-target"},
		{path: "foo", target: "/", regex: false, err: "does not start with '/'"},
	} {
		t.Run(tc.path+" "+tc.target, func(t *testing.T) {
			routePath, rewrite, err := RewritePath(tc.path, tc.target, tc.regex)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got (%q, %q, %v), want an error saying %q", routePath, rewrite, err, tc.err)
				}
				return
			}
			if err != nil || routePath != tc.routePath || rewrite != tc.rewrite {
				t.Fatalf("got (%q, %q, %v), want (%q, %q)", routePath, rewrite, err, tc.routePath, tc.rewrite)
			}
			conv := Conversion{}
			if rewrite != "" {
				conv.Annotations = map[string]string{routecore.AnnRewriteTarget: rewrite}
			}
			checkValid(t, conv, false, routePath)
		})
	}
}

// TestRewriteConversion checks the path and target a Conversion records
// go through RewritePath as the caller would use them.
func TestRewriteConversion(t *testing.T) {
	conv := Convert(Input{Annotations: kv("rewrite-target", "/$2"), Globals: DefaultGlobals()})
	routePath, rewrite, err := RewritePath("/api(/|$)(.*)", conv.RewriteTarget, conv.UseRegex)
	if err != nil || routePath != "/api" || rewrite != "/" {
		t.Fatalf("got (%q, %q, %v)", routePath, rewrite, err)
	}
}
