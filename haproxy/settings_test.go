package haproxy

import (
	"maps"
	"slices"
	"testing"

	"github.com/routeshift/routeshift/haproxy/dataplane"
)

// TestCipherProfilesNamed: every profile ROUTER_CIPHERS accepts has a
// cipher list, and no list is unreachable.
func TestCipherProfilesNamed(t *testing.T) {
	if got, want := slices.Sorted(maps.Keys(cipherProfiles)), slices.Sorted(slices.Values(dataplane.CipherProfiles)); !slices.Equal(got, want) {
		t.Errorf("cipher lists of %v, profiles %v", got, want)
	}
}
