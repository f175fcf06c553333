package router

import (
	"slices"
	"testing"
)

// TestParseDomainList: ROUTER_ALLOWED_DOMAINS, ROUTER_DENIED_DOMAINS and
// ROUTER_OVERRIDE_DOMAINS are comma-separated; spaces, empty items and a
// leading "*." go, and domains are matched in lower case.
func TestParseDomainList(t *testing.T) {
	tests := []struct {
		in   string
		want DomainList
	}{
		{"", nil},
		{" , ,", nil},
		{"example.com", DomainList{"example.com"}},
		{" a.example.com ,b.example.com,, ", DomainList{"a.example.com", "b.example.com"}},
		{"*.apps.example.com", DomainList{"apps.example.com"}},
		{"*.", nil},
		{"Apps.Example.COM, *.Other.Org", DomainList{"apps.example.com", "other.org"}},
		// Only a leading "*." is a wildcard: an inner one stays (and
		// matches nothing a valid host could be).
		{"a.*.example.com", DomainList{"a.*.example.com"}},
	}
	for _, tt := range tests {
		if got := ParseDomainList(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("ParseDomainList(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDomainListMatches: a domain matches itself and the hosts under it,
// on label boundaries only.
func TestDomainListMatches(t *testing.T) {
	list := ParseDomainList("example.com, open.header.test")
	tests := []struct {
		host string
		want bool
	}{
		{"example.com", true},
		{"www.example.com", true},
		{"a.b.c.example.com", true},
		{"open.header.test", true},
		{"www.open.header.test", true},
		{"myexample.com", false},        // not on a label boundary
		{"foo.header.test", false},      // a sibling, not a subdomain
		{"header.test", false},          // a parent of a listed domain
		{"example.com.evil.org", false}, // a prefix is no match
		{"com", false},
		{"", false},
		{"xexample.com", false},
	}
	for _, tt := range tests {
		if got := list.Matches(tt.host); got != tt.want {
			t.Errorf("%q.Matches(%q) = %v, want %v", list, tt.host, got, tt.want)
		}
	}
	if DomainList(nil).Matches("example.com") {
		t.Error("an empty list matches a host")
	}
}

// TestDomainKey: the domain a wildcard route covers, and the partition host
// claims are judged in, is the host without its first label.
func TestDomainKey(t *testing.T) {
	tests := map[string]string{
		"www.example.com":       "example.com",
		"wildcard.abc.xyz":      "abc.xyz",
		"a.b.c.d":               "b.c.d",
		"example.com":           "com",
		"localhost":             "",
		"":                      "",
		"r-ns.apps.example.com": "apps.example.com",
	}
	for host, want := range tests {
		if got := DomainKey(host); got != want {
			t.Errorf("DomainKey(%q) = %q, want %q", host, got, want)
		}
	}
}

// TestHostnameTemplateExpand: ROUTER_SUBDOMAIN fills in ${name} and
// ${namespace}, as often as they appear, and may be quoted as in a shell.
func TestHostnameTemplateExpand(t *testing.T) {
	tests := []struct {
		tmpl HostnameTemplate
		want string
	}{
		{"${name}-${namespace}.apps.example.com", "web-shop.apps.example.com"},
		{"${namespace}.${name}.example.com", "shop.web.example.com"},
		{`"${name}-${namespace}.apps.example.com"`, "web-shop.apps.example.com"},
		{`'${name}.apps.example.com'`, "web.apps.example.com"},
		{"${name}-${name}.example.com", "web-web.example.com"},
		{"static.example.com", "static.example.com"},
		{"$name.example.com", "$name.example.com"}, // only the braced form
		{"", ""},
	}
	for _, tt := range tests {
		if got := tt.tmpl.Expand("web", "shop"); got != tt.want {
			t.Errorf("%q.Expand(web, shop) = %q, want %q", tt.tmpl, got, tt.want)
		}
	}
}
