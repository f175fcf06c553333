// Package hostaddr finds an address of this machine that Kubernetes accepts
// in an EndpointSlice, for backends that run on the machine itself
// (routeshift local, end-to-end tests): Kubernetes refuses loopback
// addresses there.
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
