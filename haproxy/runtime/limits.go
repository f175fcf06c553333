package runtime

import (
	"fmt"
	"syscall"
)

// HAProxy's connections take file descriptors: two each (the client's and
// the server's side), besides one per server line (for its health checks)
// and a few for listeners, sockets and files. It raises its own limit to what maxconn
// needs at start, which an unprivileged process cannot do beyond the hard
// limit; it then runs anyway ("no strict-limits") but refuses connections
// once it runs out.

// fdsPerConnection is what one connection of maxconn takes.
const fdsPerConnection = 2

// fdReserve are the file descriptors kept for everything but connections:
// listeners, the master CLI and runtime API sockets, log sockets, files
// read at start (about 50 for the router's configuration), and about 1,000
// server lines, one each.
const fdReserve = 1024

// maxNoFile is where RaiseFileLimit stops when the hard limit is
// unlimited: the kernel's default fs.nr_open.
const maxNoFile = 1 << 20

// RaiseFileLimit sets the soft limit of open files of this process to its
// hard limit, so that HAProxy, which inherits it, can use them (Go raises
// the soft limit for itself but gives child processes the original one,
// unless the program sets the limit itself). It returns the soft limit in
// effect.
func RaiseFileLimit() (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, fmt.Errorf("reading the open-file limit: %w", err)
	}
	want := syscall.Rlimit{Cur: min(l.Max, maxNoFile), Max: l.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		return l.Cur, fmt.Errorf("raising the open-file limit to %d: %w", want.Cur, err)
	}
	return want.Cur, nil
}

// FittingMaxConn is the largest maxconn, at most want, whose connections
// fit in limit open files besides fdReserve (at least 1).
func FittingMaxConn(want int, limit uint64) int {
	if limit <= fdReserve+fdsPerConnection {
		return 1
	}
	return int(min(uint64(want), (limit-fdReserve)/fdsPerConnection))
}
