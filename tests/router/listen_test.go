package router

import (
	"net"
	"testing"

	"github.com/routeshift/routeshift/internal/hostaddr"
)

// hostListener listens on a free port of the machine's own address:
// Kubernetes refuses loopback addresses in EndpointSlices.
func hostListener(t *testing.T) (l net.Listener, ip string, port int32) {
	t.Helper()
	ip, err := hostaddr.IPv4()
	if err != nil {
		t.Fatal(err)
	}
	l, err = net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	return l, ip, int32(l.Addr().(*net.TCPAddr).Port)
}
