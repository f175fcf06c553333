package router

import (
	"strings"
)

// DomainList is a list of DNS domains matched on label boundaries: an
// entry D matches host H when H is D or ends in "."+D, so open.header.test
// matches www.open.header.test but not foo.header.test.
type DomainList []string

// ParseDomainList splits a comma-separated list, trimming spaces and dropping
// empty items and a leading "*." ("*.example.com" means example.com).
func ParseDomainList(s string) DomainList {
	var out DomainList
	for item := range strings.SplitSeq(s, ",") {
		item = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(item), "*."))
		if item != "" {
			out = append(out, item)
		}
	}
	return out
}

// Matches reports whether host is one of the domains or inside one.
func (l DomainList) Matches(host string) bool {
	for _, d := range l {
		if host == d || (len(host) > len(d) && strings.HasSuffix(host, d) && host[len(host)-len(d)-1] == '.') {
			return true
		}
	}
	return false
}

// DomainKey is the host without its first label: the domain a wildcard
// route for host covers, and the partition admission judges host claims
// in. A single-label host has the empty key.
func DomainKey(host string) string {
	if _, rest, ok := strings.Cut(host, "."); ok {
		return rest
	}
	return ""
}

// HostnameTemplate is ROUTER_SUBDOMAIN: a host pattern with ${name} and
// ${namespace}, e.g. "${name}-${namespace}.apps.example.com".
type HostnameTemplate string

// Expand fills in the route's name and namespace.
func (t HostnameTemplate) Expand(name, namespace string) string {
	s := strings.Trim(string(t), `"'`)
	return strings.NewReplacer("${name}", name, "${namespace}", namespace).Replace(s)
}
