package routecore

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestDNSFastPath: the hand-written checks agree with apimachinery's on
// every input, so the fast path changes speed, never answers.
func TestDNSFastPath(t *testing.T) {
	inputs := []string{"", "a", "-a", "a-", "a-b", "A", "a.b", "a..b", ".a", "a.", "a_b", "ab1-2c", "*",
		"www.example.com", "xn--bcher-kva.example", "ünï", "a b", strings.Repeat("a", 63), strings.Repeat("a", 64),
		strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 127) + "a", strings.Repeat("a", 64) + ".com"}
	for _, s := range inputs {
		if got, want := isLowerDNSLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("isLowerDNSLabel(%q) = %v, apimachinery says %v", s, got, want)
		}
		if got, want := isLowerDNSSubdomain(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("isLowerDNSSubdomain(%q) = %v, apimachinery says %v", s, got, want)
		}
	}
}

func FuzzDNSFastPath(f *testing.F) {
	f.Add("www.example.com")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isLowerDNSLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("isLowerDNSLabel(%q) = %v, apimachinery says %v", s, got, want)
		}
		if got, want := isLowerDNSSubdomain(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("isLowerDNSSubdomain(%q) = %v, apimachinery says %v", s, got, want)
		}
	})
}
