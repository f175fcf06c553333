package runtime

import (
	"slices"
	"strconv"
	"testing"
)

// TestReasons: merged reasons keep their order and appear once; a log line
// names at most maxLoggedReasons, then how many more.
func TestReasons(t *testing.T) {
	a, b, c := Reason{Kind: "k", Subject: "a"}, Reason{Kind: "k", Subject: "b"}, Reason{Kind: ReasonNotLoaded}
	if got, want := mergeReasons([]Reason{c, a}, []Reason{a, b, b}), []Reason{c, a, b}; !slices.Equal(got, want) {
		t.Errorf("mergeReasons = %v, want %v", got, want)
	}
	if got, want := (Reason{Kind: "settings changed", Subject: "backend x", Detail: "Balance"}).String(), "backend x: settings changed (Balance)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	many := make([]Reason, maxLoggedReasons+5)
	for i := range many {
		many[i] = Reason{Kind: "k", Subject: strconv.Itoa(i)}
	}
	logged := reasonStrings(many)
	if len(logged) != maxLoggedReasons+1 || logged[0] != "0: k" || logged[maxLoggedReasons] != "and 5 more" {
		t.Errorf("reasonStrings = %q", logged)
	}
}
