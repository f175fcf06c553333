// Command cluster brings up the real single-node Kubernetes cluster of
// tests/cluster for a person to try routeshift's manifests and chart by
// hand (`make cluster`), and removes it (`make cluster-down`).
//
//	go run ./tests/cmd/cluster up [--dir bin/cluster]
//	go run ./tests/cmd/cluster down [--dir bin/cluster]
//
// Run it from the repository's root: `up` builds the routeshift image from
// the Dockerfile's recipe, under the name the manifests give it, and
// imports it with the pause, backend and cert-manager images. It needs root
// and what `make tools` builds.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/routeshift/routeshift/tests/framework/node"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: cluster up|down [--dir DIR] [--bin DIR]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	dir := fs.String("dir", "bin/cluster", "the node's files (its state, certificates, logs, containerd's images)")
	bin := fs.String("bin", "bin", "the programs `make tools` builds")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	binDir, err := filepath.Abs(*bin)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "up":
		return up(ctx, *dir, binDir)
	case "down":
		return down(ctx, *dir)
	default:
		return fmt.Errorf("unknown command %q: use up or down", args[0])
	}
}

func up(ctx context.Context, dir, binDir string) error {
	if n, err := node.Attach(dir); err == nil && n.Running() {
		return fmt.Errorf("a node already runs with its files in %s: `make cluster-down` first", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n, err := node.Start(ctx, node.Options{BinDir: binDir, Dir: dir, Log: os.Stderr, Detach: true})
	if err != nil {
		return err
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := n.LoadImages(ctx, root); err != nil {
		return errors.Join(err, n.Stop(context.Background()))
	}
	fmt.Printf(`The node is up; its files are in %[1]s.

Its API server and its pods are reachable only from the network namespace
%[2]s. Open a shell there, with kubectl and helm from bin/:

  sudo nsenter --net=/run/netns/%[2]s env KUBECONFIG=%[3]s PATH=%[4]s:$PATH bash

then try the manifests as on any cluster, e.g.

  kubectl apply -k manifests/overlays/self-signed
  kubectl -n routeshift get pods -o wide
  curl -H 'Host: <a route host>' http://%[5]s:<the router Service's NodePort>/

Logs: %[1]s/log (components), %[1]s/var/log/pods (pods). Remove it all:
make cluster-down
`, n.Dir, n.ClientNamespace(), n.Kubeconfig, binDir, node.NodeIP)
	return nil
}

func down(ctx context.Context, dir string) error {
	n, err := node.Attach(dir)
	if err != nil {
		return err
	}
	if err := n.Stop(ctx); err != nil {
		return err
	}
	fmt.Println("The node is gone, and its files, namespaces and cgroups with it.")
	return nil
}
