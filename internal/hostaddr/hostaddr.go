// Package hostaddr finds an address of this machine that Kubernetes accepts
// in an EndpointSlice, for backends that run on the machine itself
// (routeshift local, end-to-end tests): Kubernetes refuses loopback
// addresses there.
//
// It imports nothing of routeshift's, so that tests and `routeshift local`
// (internal/cli) can use it; it must not import them.
package hostaddr

import (
	"errors"
	"net"
)

// IPv4 is the machine's first IPv4 address that an EndpointSlice may hold:
// on an interface that is up and not loopback, global unicast.
func IPv4() (string, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return "", err
	}
	for _, iface := range ifaces {
		if iface.Flags&net.FlagUp == 0 || iface.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := iface.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && ipn.IP.IsGlobalUnicast() {
				return ipn.IP.String(), nil
			}
		}
	}
	return "", errors.New("this machine has no non-loopback IPv4 address for backends on it (Kubernetes refuses loopback endpoints): bring up a network interface")
}

// LocalOnly wraps l so that Accept closes, and skips, connections whose
// peer is not an address of this machine: a backend that must listen on a
// network address is still reachable only from the machine itself.
func LocalOnly(l net.Listener) net.Listener { return localOnly{l} }

type localOnly struct{ net.Listener }

func (l localOnly) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if a, ok := c.RemoteAddr().(*net.TCPAddr); ok && isLocal(a.IP) {
			return c, nil
		}
		c.Close()
	}
}

// isLocal reports whether ip is loopback or assigned to one of this
// machine's interfaces (looked up per connection: addresses change).
func isLocal(ip net.IP) bool {
	if ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.Equal(ip) {
			return true
		}
	}
	return false
}
