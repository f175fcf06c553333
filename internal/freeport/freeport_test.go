package freeport

import (
	"fmt"
	"net"
	"testing"
)

func TestGet(t *testing.T) {
	low := ephemeralLow()
	seen := map[int]bool{}
	for range 50 {
		p, err := Get()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d returned twice", p)
		}
		seen[p] = true
		if low-lowest >= 1000 && (p < lowest || p >= low) {
			t.Errorf("port %d outside [%d, %d): the kernel may give it to a client socket", p, lowest, low)
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			t.Fatalf("port %d cannot be listened on: %v", p, err)
		}
		l.Close()
	}
}

// A port something listens on is never returned.
func TestGetSkipsListeningPorts(t *testing.T) {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	busy := map[int]bool{}
	for range 20 {
		p, err := Get()
		if err != nil {
			t.Fatal(err)
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, l)
		busy[p] = true
	}
	for range 50 {
		if p, _ := Get(); busy[p] {
			t.Fatalf("Get returned port %d, which is in use", p)
		}
	}
}

func TestInPortList(t *testing.T) {
	cases := []struct {
		list string
		port int
		want bool
	}{
		{"", 8080, false},
		{"\n", 8080, false},
		{"8080\n", 8080, true},
		{"8080", 8081, false},
		{"80,40000-40010\n", 40000, true},
		{"80,40000-40010", 40010, true},
		{"80,40000-40010", 40005, true},
		{"80,40000-40010", 40011, false},
		{"80, 443", 443, true},
	}
	for _, c := range cases {
		if got := inPortList(c.list, c.port); got != c.want {
			t.Errorf("inPortList(%q, %d) = %v, want %v", c.list, c.port, got, c.want)
		}
	}
}

// Ports below and above the ephemeral range are never a client's.
func TestClientsMayTake(t *testing.T) {
	low, high := EphemeralRange()
	if low <= 0 || high < low {
		t.Fatalf("EphemeralRange() = %d, %d", low, high)
	}
	for _, p := range []int{low - 1, high + 1} {
		if ClientsMayTake(p) {
			t.Errorf("ClientsMayTake(%d) with the range %d-%d", p, low, high)
		}
	}
}
