// Command pause is the sandbox ("pause") process of the test cluster's
// pods: the first container of every pod, which holds its namespaces open.
// It runs as the pod's PID 1 when the pod shares its process namespace, so
// it reaps the zombies orphaned processes leave, and it exits 0 on SIGINT
// or SIGTERM, as the kubelet stops a sandbox. It is built statically into
// a one-file image (tests/framework/image), so that the cluster tests need
// no registry.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 16)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s == syscall.SIGCHLD {
			reap()
			continue
		}
		os.Exit(0)
	}
}

// reap waits for every child that has exited. Signals coalesce, so one
// SIGCHLD may stand for several children.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
