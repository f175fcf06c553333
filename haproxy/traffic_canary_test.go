package haproxy

import (
	"fmt"
	"testing"
	"time"

	"github.com/routeshift/routeshift/routecore"
)

// TestTrafficCanary: header and cookie canaries on real HAProxy. The
// header decides first, then the cookie; always picks the canary (of
// weight 0), never keeps requests away from it, a custom value or a
// pattern match picks it instead of always, and other requests follow the
// weights. A canary's endpoints are picked at random.
func TestTrafficCanary(t *testing.T) {
	r := newTrafficRouter(t)
	stable := newBackend(t, "stable", nil, nil)
	canaryA, canaryB := newBackend(t, "canary-a", nil, nil), newBackend(t, "canary-b", nil, nil)
	r.endpoints("ns", "stable", stable)
	r.endpoints("ns", "canary", canaryA, canaryB)
	r.route(rt("ns", "shop", "shop.example.com", 1, toService("stable"), weighted(100, "canary", 0),
		annotated(routecore.AnnCanaryBackend, "canary", routecore.AnnCanaryByHeader, "X-Canary", routecore.AnnCanaryByCookie, "canary")))
	r.route(rt("ns", "value", "value.example.com", 2, toService("stable"), weighted(100, "canary", 0),
		annotated(routecore.AnnCanaryBackend, "canary", routecore.AnnCanaryByHeader, "X-Group", routecore.AnnCanaryByHeaderValue, "beta 'testers'")))
	r.route(rt("ns", "pattern", "pattern.example.com", 3, toService("stable"), weighted(100, "canary", 0), terminated(routecore.TLSTerminationEdge, "", nil, nil),
		annotated(routecore.AnnCanaryBackend, "canary", routecore.AnnCanaryByHeader, "X-Group", routecore.AnnCanaryByHeaderPattern, `^(?i)(beta|staff)-\d+$`)))
	r.route(rt("ns", "half", "half.example.com", 4, toService("stable"), weighted(50, "canary", 50),
		annotated(routecore.AnnCanaryBackend, "canary", routecore.AnnCanaryByHeader, "X-Canary")))
	r.start()

	c := r.client(clientOptions{})
	isCanary := func(x reply) bool { return x.served("canary-a") || x.served("canary-b") }
	isStable := func(x reply) bool { return x.served("stable") }
	cases := []struct {
		name   string
		url    string
		header []string
		want   func(reply) bool
		what   string
	}{
		{"header always", "http://shop.example.com/", []string{"X-Canary", "always"}, isCanary, "the canary"},
		{"header never", "http://shop.example.com/", []string{"X-Canary", "never"}, isStable, "stable"},
		{"other header value", "http://shop.example.com/", []string{"X-Canary", "yes"}, isStable, "stable"},
		{"cookie always", "http://shop.example.com/", []string{"Cookie", "a=b; canary=always"}, isCanary, "the canary"},
		{"cookie never", "http://shop.example.com/", []string{"Cookie", "canary=never"}, isStable, "stable"},
		{"header never beats cookie always", "http://shop.example.com/", []string{"X-Canary", "never", "Cookie", "canary=always"}, isStable, "stable"},
		{"header always beats cookie never", "http://shop.example.com/", []string{"X-Canary", "always", "Cookie", "canary=never"}, isCanary, "the canary"},
		{"neither: weights (canary 0)", "http://shop.example.com/", nil, isStable, "stable"},
		{"custom value", "http://value.example.com/", []string{"X-Group", "beta 'testers'"}, isCanary, "the canary"},
		{"custom value: always is no value", "http://value.example.com/", []string{"X-Group", "always"}, isStable, "stable"},
		{"custom value: never", "http://value.example.com/", []string{"X-Group", "never"}, isStable, "stable"},
		{"pattern match", "https://pattern.example.com/", []string{"X-Group", "Staff-42"}, isCanary, "the canary"},
		{"pattern no match", "https://pattern.example.com/", []string{"X-Group", "staff-42x"}, isStable, "stable"},
		{"pattern never", "https://pattern.example.com/", []string{"X-Group", "never"}, isStable, "stable"},
		{"50/50, never", "http://half.example.com/", []string{"X-Canary", "never"}, isStable, "stable"},
	}
	for _, tc := range cases {
		for i := range 20 {
			if got := fetch(c, tc.url, tc.header...); !tc.want(got) {
				t.Errorf("%s: request %d served by %q (%v), want %s", tc.name, i, got.header.Get("X-Backend"), got, tc.what)
				break
			}
		}
	}

	// The canary's endpoints are both picked; weights 50/50 without a
	// header reach both services.
	seen := map[string]int{}
	for range 40 {
		seen[fetch(c, "http://shop.example.com/", "X-Canary", "always").header.Get("X-Backend")]++
	}
	if seen["canary-a"] == 0 || seen["canary-b"] == 0 || seen["canary-a"]+seen["canary-b"] != 40 {
		t.Errorf("always over 40 requests reached %v, want both canary endpoints only", seen)
	}
	seen = map[string]int{}
	for range 20 {
		seen[fetch(c, "http://half.example.com/").header.Get("X-Backend")]++
	}
	if seen["stable"] == 0 || seen["canary-a"]+seen["canary-b"] == 0 {
		t.Errorf("50/50 without a header reached %v, want both services", seen)
	}

	// canary-a leaves: its slot is disabled (through the runtime API),
	// and the slot's picks fall to canary-b.
	r.endpoints("ns", "canary", canaryB)
	r.publish()
	eventually(t, 30*time.Second, "always reaches canary-b only", func() error {
		for i := range 20 {
			if got := fetch(c, "http://shop.example.com/", "X-Canary", "always"); !got.served("canary-b") {
				return fmt.Errorf("request %d: %v from %q", i, got, got.header.Get("X-Backend"))
			}
		}
		return nil
	})
}
