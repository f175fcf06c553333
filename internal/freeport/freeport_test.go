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
