// Package cluster installs routeshift on a real single-node Kubernetes
// cluster, the way a platform engineer first tries it: every shipped
// install unmodified (`kubectl apply -k manifests/overlays/<each>`, `helm
// install` with the default values and with each router.mode), pods run
// by the kubelet and containerd from images built by the Dockerfile's own
// recipe, traffic through the pod network, Services (kube-proxy),
// NodePorts and host ports. It checks what only a real node shows:
// rollouts (router and manager, under load), leader failover, the
// cert-manager overlay with cert-manager itself running as Pods, an
// upgrade from the previous release, and an uninstall that leaves nothing
// behind.
//
// The node (tests/framework/node) lives in network, PID and mount
// namespaces of its own; tests reach it only from the client namespace
// beside it, and TestMain checks that the machine is left as it was found.
// It needs root and what `make tools` builds; with CI=true anything
// missing fails the package, otherwise the tests skip.
//
// It imports the test framework and routecore's types, and no component:
// it tests the shipped artefacts, not the code.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/routeshift/routeshift/tests/framework/node"
)

// The package's node, started by TestMain.
var (
	theNode *node.Node
	// startErr is why there is no node: a missing program (the tests
	// skip, or fail under CI=true) or a failed start (they fail).
	startErr error
	// repoRoot is the repository, whose manifests and chart are installed.
	repoRoot string
	// binDir holds what `make tools` builds.
	binDir string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	var err error
	if repoRoot, err = findRepoRoot(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if binDir = os.Getenv("ROUTESHIFT_BIN"); binDir == "" {
		binDir = filepath.Join(repoRoot, "bin")
	}
	ctrl.SetLogger(logr.Discard()) // the tests' API clients log nothing worth reading
	if cleaned, err := node.RemoveStale(ctx, filepath.Join(os.TempDir(), "routeshift-node-*")); len(cleaned) > 0 || err != nil {
		fmt.Fprintf(os.Stderr, "cluster: removed what killed runs left of their nodes in %v (%v)\n", cleaned, err)
	}
	before, err := node.ReadHostState(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "reading the machine's state: %v\n", err)
		return 1
	}
	start := time.Now()
	theNode, startErr = node.Start(ctx, node.Options{BinDir: binDir, Log: os.Stderr})
	if startErr == nil {
		fmt.Fprintf(os.Stderr, "cluster: node ready in %.1fs\n", time.Since(start).Seconds())
		startErr = theNode.LoadImages(ctx, repoRoot)
	}
	var missing *node.MissingError
	if startErr != nil && !errors.As(startErr, &missing) {
		fmt.Fprintf(os.Stderr, "starting the node: %v\n", startErr)
	}
	// An interrupted run still removes the node.
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-interrupted; ok && theNode != nil {
			fmt.Fprintln(os.Stderr, "interrupted: removing the node")
			_ = theNode.Stop(context.Background())
			os.Exit(1)
		}
	}()
	code := m.Run()
	signal.Stop(interrupted)
	close(interrupted)
	if theNode != nil {
		if err := theNode.Stop(context.Background()); err != nil {
			fmt.Fprintf(os.Stderr, "stopping the node: %v\n", err)
			code = 1
		}
	}
	if code := checkHostLeftAlone(before); code != 0 {
		return code
	}
	return code
}

// checkHostLeftAlone compares the machine with how it was before the node.
func checkHostLeftAlone(before node.HostState) int {
	after, err := node.ReadHostState(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "reading the machine's state: %v\n", err)
		return 1
	}
	if diff := before.Diff(after); len(diff) > 0 {
		fmt.Fprintf(os.Stderr, "the node left the machine changed:\n  %s\n", strings.Join(diff, "\n  "))
		return 1
	}
	fmt.Fprintln(os.Stderr, "cluster: the machine is as the tests found it")
	return 0
}

// requireNode returns the node, or ends t: it fails when the node could
// not start or when CI=true, and skips when only programs are missing.
func requireNode(t *testing.T) *node.Node {
	t.Helper()
	var missing *node.MissingError
	switch {
	case startErr == nil:
		return theNode
	case errors.As(startErr, &missing) && os.Getenv("CI") != "true":
		t.Skip(startErr)
	default:
		t.Fatal(startErr)
	}
	return nil
}

// findRepoRoot walks up to the directory holding routeshift's go.mod.
func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(data), "module github.com/routeshift/routeshift\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no routeshift go.mod above the working directory")
		}
		dir = parent
	}
}
