// Package freeport picks TCP ports on loopback for listeners that another
// process opens a moment later (HAProxy's frontends, kube-apiserver, the
// webhook). A port the kernel hands out for "127.0.0.1:0" comes from the
// ephemeral range, which every outgoing connection on the machine also
// draws from: between picking it and binding it, a client socket can take
// it. Ports below the ephemeral range are never given to client sockets,
// so Get picks there.
//
// It imports nothing of routeshift's, so that tests and `routeshift local`
// (internal/controlplane, internal/cli) can use it; it must not import
// them.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// lowest is the lowest port Get picks: above the well-known and most
// registered service ports.
const lowest = 10000

var (
	mu     sync.Mutex
	handed = map[int]bool{}
)

// Get returns a port on 127.0.0.1 that nothing listens on, below the
// kernel's ephemeral port range, and that Get has not returned before in
// this process. When the ephemeral range leaves no room below it, the
// kernel picks.
func Get() (int, error) {
	low := ephemeralLow()
	mu.Lock()
	defer mu.Unlock()
	if low-lowest >= 1000 {
		for range 200 {
			p := lowest + rand.IntN(low-lowest)
			if handed[p] {
				continue
			}
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				continue
			}
			l.Close()
			handed[p] = true
			return p, nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	p := l.Addr().(*net.TCPAddr).Port
	handed[p] = true
	return p, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	low, _ := EphemeralRange()
	return low
}

// EphemeralRange returns the kernel's ephemeral port range
// (/proc/sys/net/ipv4/ip_local_port_range), from which outgoing connections
// take their local ports; Linux's default when it cannot be read.
func EphemeralRange() (low, high int) {
	low, high = 32768, 60999
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var l, h int
		if _, err := fmt.Sscan(string(b), &l, &h); err == nil {
			low, high = l, h
		}
	}
	return low, high
}

// ClientsMayTake reports whether the kernel may give port to an outgoing
// connection: it is in the ephemeral range and not among the ports
// /proc/sys/net/ipv4/ip_local_reserved_ports keeps out of it. A listener
// on such a port can find it taken by any program's client socket.
func ClientsMayTake(port int) bool {
	low, high := EphemeralRange()
	if port < low || port > high {
		return false
	}
	reserved, _ := os.ReadFile("/proc/sys/net/ipv4/ip_local_reserved_ports")
	return !inPortList(string(reserved), port)
}

// inPortList reports whether port is in a list such as "8080,9000-9100".
func inPortList(list string, port int) bool {
	for _, item := range strings.Split(strings.TrimSpace(list), ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		if !isRange {
			hi = lo
		}
		l, errL := strconv.Atoi(strings.TrimSpace(lo))
		h, errH := strconv.Atoi(strings.TrimSpace(hi))
		if errL == nil && errH == nil && l <= port && port <= h {
			return true
		}
	}
	return false
}
