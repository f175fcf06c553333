package nginx

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/routeshift/routeshift/routecore"
)

// acceptedRewrites says which paths and rewrite targets RewritePath
// converts.
const acceptedRewrites = "accepted: a literal path with a target without captures; " +
	"PREFIX(/|$)(.*) with TARGET/$2; PREFIX/(.*) with TARGET/$1; PREFIX(/.*) or PREFIX(.*) with TARGET$1; " +
	"where PREFIX is a literal path and TARGET a literal path or nothing"

// captureForms are the regular-expression tails RewritePath understands
// after a literal prefix: the capture the target may use and whether the
// request path must continue with '/' after the prefix.
var captureForms = []struct {
	tail    string
	capture string
	slash   bool // the Route's path is the prefix followed by '/'
}{
	{"(/|$)(.*)", "$2", false},
	{"/?(.*)", "$1", false},
	{"/(.*)", "$1", true},
	{"(/.*)", "$1", true},
	{"(.*)", "$1", false},
	{"/.*", "", true},
	{".*", "", false},
}

// braced finds ${n} captures, which mean $n.
var braced = regexp.MustCompile(`\$\{([0-9])\}`)

// RewritePath converts an Ingress path and ingress-nginx's rewrite-target
// into the Route's path (a prefix) and the value of the Route's
// rewrite-target annotation (empty for none). regex says whether the path
// is a regular expression (use-regex, implied by rewrite-target).
//
// The Route's router replaces the path prefix by the target and keeps the
// rest of the request path, so only captures of that rest are expressible:
//
//	/api(/|$)(.*) with /$2      -> /api, /
//	/api/(.*) with /$1          -> /api/, /
//	/api(/.*) with $1           -> /api/, /
//	/something(/|$)(.*) with /new/$2 -> /something, /new/
//	/foo with /                 -> /foo, /
//
// A target without captures on a literal path keeps the rest of the
// request path, where ingress-nginx replaces the whole path. A regular
// expression that is not a literal prefix, optionally followed by one of
// those capture forms, is refused with an error naming the accepted forms.
func RewritePath(path, target string, regex bool) (routePath, rewriteTarget string, err error) {
	target = braced.ReplaceAllString(strings.TrimSpace(target), "$$$1")
	if !regex {
		if strings.Contains(target, "$") {
			return "", "", fmt.Errorf("rewrite-target %q uses captures, but path %q is not a regular expression (%s)", target, path, acceptedRewrites)
		}
		return checkRewrite(path, target)
	}
	if prefix, ok := literal(path); ok {
		if strings.Contains(target, "$") {
			return "", "", fmt.Errorf("rewrite-target %q uses captures, but path %q captures nothing (%s)", target, path, acceptedRewrites)
		}
		return checkRewrite(prefix, target)
	}
	for _, form := range captureForms {
		head, found := strings.CutSuffix(path, form.tail)
		if !found {
			continue
		}
		prefix, ok := literal(head)
		if !ok {
			break
		}
		if form.slash || prefix == "" {
			prefix += "/"
		}
		if target == "" {
			return checkRewrite(prefix, "")
		}
		if form.capture == "" {
			break
		}
		static, found := strings.CutSuffix(target, form.capture)
		if !found || strings.Contains(static, "$") {
			break
		}
		switch {
		case form.capture == "$2" || form.tail == "/?(.*)" || form.tail == "/(.*)":
			// The capture starts after the '/' that follows the prefix: the
			// target must end with '/' (the router's target then absorbs
			// that '/').
			if !strings.HasSuffix(static, "/") {
				break
			}
			return checkRewrite(prefix, static)
		default:
			// The capture starts with the '/' (or is empty): the target is
			// the static part, "/" when there is none.
			if static == "" {
				static = "/"
			}
			return checkRewrite(prefix, static)
		}
		break
	}
	if target == "" {
		return "", "", fmt.Errorf("path %q is a regular expression that is not a literal prefix, and a Route's path is a prefix: write the prefix itself, optionally followed by (/|$)(.*), /(.*), (/.*) or (.*)", path)
	}
	return "", "", fmt.Errorf("path %q with rewrite-target %q cannot be expressed as a Route's path and rewrite-target (%s)", path, target, acceptedRewrites)
}

// literal returns a regular expression's text when it matches only that
// text (escaped '.', '/' and '-' are read as themselves; an unescaped '.'
// is read as a literal dot, as paths mean it), with a leading '^' dropped.
func literal(re string) (string, bool) {
	re = strings.TrimPrefix(re, "^")
	var b strings.Builder
	for i := 0; i < len(re); i++ {
		switch ch := re[i]; {
		case ch == '\\' && i+1 < len(re) && strings.IndexByte("./-_~", re[i+1]) >= 0:
			i++
			b.WriteByte(re[i])
		case strings.IndexByte(`\^$*+?()[]{}|`, ch) >= 0:
			return "", false
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), true
}

// checkRewrite returns the Route's path and rewrite target when routecore
// accepts them.
func checkRewrite(routePath, target string) (string, string, error) {
	if !strings.HasPrefix(routePath, "/") {
		return "", "", fmt.Errorf("path %q does not start with '/'", routePath)
	}
	if target != "" {
		a, _ := routecore.LookupAnnotation(routecore.AnnRewriteTarget)
		if err := a.Validate(field.NewPath("rewrite-target"), target); err != nil {
			return "", "", fmt.Errorf("rewrite-target %q: %s", target, err.Detail)
		}
	}
	return routePath, target, nil
}
