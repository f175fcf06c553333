package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The node's addresses. They exist only inside the node's and the client's
// network namespaces, so they cannot collide with the machine's own.
const (
	// NodeIP is the node's address on its link to the client namespace:
	// the API server, NodePorts and host ports listen here.
	NodeIP = "10.199.0.2"
	// ClientIP is the client namespace's end of that link.
	ClientIP   = "10.199.0.1"
	linkPrefix = "/24"
	// PodCIDR holds every Pod address (the bridge CNI's range).
	PodCIDR = "10.200.0.0/24"
	// ClusterCIDR is what kube-proxy treats as in-cluster traffic.
	ClusterCIDR = "10.200.0.0/16"
	// ServiceCIDR holds every ClusterIP.
	ServiceCIDR = "10.201.0.0/16"
	// APIServerServiceIP is the ClusterIP of the kubernetes Service, the
	// first of ServiceCIDR.
	APIServerServiceIP = "10.201.0.1"
	// APIServerPort is the API server's port on NodeIP.
	APIServerPort = 6443
	netnsDir      = "/run/netns"
)

// network is the node's network namespace and the client namespace beside
// it, joined by one veth pair. The client forwards nothing: it is where
// the tests' requests come from, and the node is its only neighbour.
type network struct {
	nodeNS, clientNS string
	clientFD         int
}

// newNetwork creates the two namespaces named after id and wires them.
func newNetwork(ctx context.Context, id string) (*network, error) {
	n := &network{nodeNS: "rsnode-" + id, clientNS: "rsclient-" + id, clientFD: -1}
	steps := [][]string{
		{"netns", "add", n.nodeNS},
		{"netns", "add", n.clientNS},
		// Both ends are made inside the namespaces: the machine's own
		// namespace never holds either.
		{"-n", n.nodeNS, "link", "add", "eth0", "type", "veth", "peer", "name", "eth0", "netns", n.clientNS},
		{"-n", n.nodeNS, "link", "set", "lo", "up"},
		{"-n", n.nodeNS, "addr", "add", NodeIP + linkPrefix, "dev", "eth0"},
		{"-n", n.nodeNS, "link", "set", "eth0", "up"},
		// A default route through the client, which drops what it does
		// not own: components that look for "the" interface find eth0.
		{"-n", n.nodeNS, "route", "add", "default", "via", ClientIP},
		{"-n", n.clientNS, "link", "set", "lo", "up"},
		{"-n", n.clientNS, "addr", "add", ClientIP + linkPrefix, "dev", "eth0"},
		{"-n", n.clientNS, "link", "set", "eth0", "up"},
		{"-n", n.clientNS, "route", "add", ClusterCIDR, "via", NodeIP},
		{"-n", n.clientNS, "route", "add", ServiceCIDR, "via", NodeIP},
	}
	for _, args := range steps {
		if err := run(ctx, "ip", args...); err != nil {
			return n, err
		}
	}
	// The node routes between its pods, its services and the client.
	if err := run(ctx, "ip", "netns", "exec", n.nodeNS, "sysctl", "-qw", "net.ipv4.ip_forward=1"); err != nil {
		return n, err
	}
	fd, err := unix.Open(filepath.Join(netnsDir, n.clientNS), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return n, fmt.Errorf("opening the client namespace: %w", err)
	}
	n.clientFD = fd
	return n, nil
}

// close deletes both namespaces; the veth pair and every pod namespace
// link go with them.
func (n *network) close(ctx context.Context) error {
	if n.clientFD >= 0 {
		_ = unix.Close(n.clientFD)
		n.clientFD = -1
	}
	var errs []error
	for _, ns := range []string{n.clientNS, n.nodeNS} {
		if _, err := os.Stat(filepath.Join(netnsDir, ns)); err != nil {
			continue
		}
		errs = append(errs, run(ctx, "ip", "netns", "delete", ns))
	}
	return errors.Join(errs...)
}

// nodePath is the node namespace's file, which nsenter --net takes.
func (n *network) nodePath() string { return filepath.Join(netnsDir, n.nodeNS) }

// clientPath is the client namespace's file.
func (n *network) clientPath() string { return filepath.Join(netnsDir, n.clientNS) }

// dial connects from the client namespace. The socket is made on an OS
// thread that has entered that namespace and is never handed back to the
// Go scheduler (the goroutine ends locked, so the thread ends with it); the
// connection keeps the namespace it was made in.
func (n *network) dial(ctx context.Context, network, address string) (net.Conn, error) {
	type result struct {
		conn net.Conn
		err  error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Setns(n.clientFD, unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("entering the client namespace: %w", err)}
			return
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, address)
		done <- result{conn, err}
	}()
	r := <-done
	return r.conn, r.err
}

// httpClient sends requests from the client namespace. Keep-alive
// connections are kept as by http.DefaultTransport.
func (n *network) httpClient(timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = n.dial
	tr.Proxy = nil
	return &http.Client{Transport: tr, Timeout: timeout}
}

// run runs a command and returns its output in the error when it fails.
func run(ctx context.Context, name string, args ...string) error {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
