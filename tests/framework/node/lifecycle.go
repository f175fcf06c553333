package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"golang.org/x/sys/unix"
)

// startTimeout bounds the node's start: a cold start on a busy 2-core
// machine takes well under a minute.
const startTimeout = 3 * time.Minute

// waitReady waits until the API server answers, the node is Ready and the
// default ServiceAccount exists (pods cannot be created before), then
// imports nothing: images are the caller's (ImportImage).
func (n *Node) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	clients, err := kubernetes.NewForConfig(n.Config)
	if err != nil {
		return err
	}
	steps := []struct {
		what  string
		ready func(context.Context) error
	}{
		{"the API server", func(ctx context.Context) error {
			_, err := clients.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
			return err
		}},
		{"the node to be Ready", func(ctx context.Context) error {
			node, err := clients.CoreV1().Nodes().Get(ctx, Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			for _, c := range node.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					return nil
				}
				if c.Type == corev1.NodeReady {
					return fmt.Errorf("%s: %s", c.Reason, c.Message)
				}
			}
			return errors.New("no Ready condition yet")
		}},
		{"the default ServiceAccount", func(ctx context.Context) error {
			_, err := clients.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
			return err
		}},
	}
	start := time.Now()
	for _, s := range steps {
		if err := n.poll(ctx, s.what, s.ready); err != nil {
			return err
		}
		fmt.Fprintf(n.log, "node: %s after %.1fs\n", s.what, time.Since(start).Seconds())
	}
	return nil
}

// poll calls ready until it succeeds, the node's init ends or ctx ends.
func (n *Node) poll(ctx context.Context, what string, ready func(context.Context) error) error {
	var last error
	for {
		attempt, cancel := context.WithTimeout(ctx, 10*time.Second)
		last = ready(attempt)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case err := <-n.cmdDone:
			return fmt.Errorf("waiting for %s: the node's init ended (%v): %s", what, err, n.exits())
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w (last: %v; %s)", what, ctx.Err(), last, n.exits())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// exits says which components exited, from log/exits.
func (n *Node) exits() string {
	data, err := os.ReadFile(n.layout.path("log", "exits"))
	if err != nil || len(data) == 0 {
		return "no component exited"
	}
	return "components exited and were restarted: " + strings.ReplaceAll(strings.TrimSpace(string(data)), "\n", ", ")
}

// Stop kills every process of the node and removes its cgroups, network
// namespaces and files. It may be called on a node that did not finish
// starting, and by another process than the one that started it (Attach).
func (n *Node) Stop(ctx context.Context) error {
	var errs []error
	if n.initPID > 0 {
		errs = append(errs, n.killAll())
	}
	if n.layout.CgroupName != "" {
		errs = append(errs, removeCgroups(n.layout.CgroupName))
	}
	if n.net != nil {
		errs = append(errs, n.net.close(ctx))
	}
	errs = append(errs, n.restoreNetnsDir())
	if n.Dir != "" {
		errs = append(errs, os.RemoveAll(n.Dir))
	}
	return errors.Join(errs...)
}

// killAll kills the node's PID 1, which takes every process of its PID
// namespace with it, and waits until none is left.
func (n *Node) killAll() error {
	if err := syscall.Kill(n.initPID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("killing the node's init: %w", err)
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if left := processesIn(n.pidNS); len(left) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("processes of the node still run a minute after its init was killed: %v", processesIn(n.pidNS))
}

// processesIn lists the processes whose PID namespace is ns.
func processesIn(ns string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if got, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err == nil && got == ns {
			comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
			out = append(out, e.Name()+" "+strings.TrimSpace(string(comm)))
		}
	}
	return out
}

// cgroupHierarchies are the roots of the cgroup hierarchies the kubelet
// and runc make cgroups in.
func cgroupHierarchies() []string {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*")
	var out []string
	for _, r := range roots {
		if _, err := os.Stat(filepath.Join(r, "cgroup.procs")); err == nil {
			out = append(out, r)
		}
	}
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.procs"); err == nil {
		out = append(out, "/sys/fs/cgroup")
	}
	return out
}

// makeCgroups makes the node's cgroup in every hierarchy: the kubelet
// requires its cgroup root to exist. A cpuset cgroup starts without CPUs
// or memory nodes, so it gets its parent's.
func makeCgroups(name string) error {
	for _, root := range cgroupHierarchies() {
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("making cgroup %s: %w", dir, err)
		}
		for _, file := range []string{"cpuset.cpus", "cpuset.mems"} {
			data, err := os.ReadFile(filepath.Join(root, file))
			if err != nil {
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
				return fmt.Errorf("making cgroup %s: %w", dir, err)
			}
		}
	}
	return nil
}

// removeCgroups removes the node's cgroup and every cgroup below it, in
// every hierarchy, deepest first. A cgroup whose last process just died
// may refuse for a moment.
func removeCgroups(name string) error {
	var errs []error
	for _, root := range cgroupHierarchies() {
		dir := filepath.Join(root, name)
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		var dirs []string
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		slices.Reverse(dirs)
		for _, d := range dirs {
			errs = append(errs, rmdirRetry(d))
		}
	}
	return errors.Join(errs...)
}

func rmdirRetry(dir string) error {
	var err error
	for range 100 {
		if err = unix.Rmdir(dir); err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("removing cgroup %s: %w", dir, err)
}

// netnsDirState reads whether /run/netns exists and is a mount point.
func netnsDirState() netnsDir0 {
	_, err := os.Stat(netnsDir)
	mounts, _ := mountPoints()
	return netnsDir0{existed: err == nil, mounted: slices.ContainsFunc(mounts, func(m string) bool {
		return strings.HasPrefix(m, netnsDir+" ")
	})}
}

// restoreNetnsDir undoes what `ip netns add` did to /run/netns when no
// other namespace is left in it.
func (n *Node) restoreNetnsDir() error {
	now := netnsDirState()
	entries, _ := os.ReadDir(netnsDir)
	if len(entries) > 0 {
		return nil
	}
	if now.mounted && !n.before.mounted {
		if err := unix.Unmount(netnsDir, unix.MNT_DETACH); err != nil {
			return fmt.Errorf("unmounting %s: %w", netnsDir, err)
		}
	}
	if now.existed && !n.before.existed {
		return os.Remove(netnsDir)
	}
	return nil
}

// state is what Attach needs to find a detached node again.
type state struct {
	ID, Dir, Bin, CgroupName, PIDNamespace string
	InitPID                                int
	NetnsDirExisted, NetnsDirMounted       bool
}

const stateFile = "node.json"

// saveState writes Dir/node.json.
func (n *Node) saveState() error {
	data, err := json.MarshalIndent(state{ID: n.id, Dir: n.Dir, Bin: n.layout.Bin, CgroupName: n.layout.CgroupName,
		PIDNamespace: n.pidNS, InitPID: n.initPID, NetnsDirExisted: n.before.existed, NetnsDirMounted: n.before.mounted}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(n.Dir, stateFile), data, 0o644)
}

// Attach finds the node whose files are in dir, started by another
// process with Options.Detach, so that it can be used or stopped. A node
// whose processes are gone (the machine restarted) can still be stopped,
// which removes what is left of it.
func Attach(dir string) (*Node, error) {
	data, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return nil, fmt.Errorf("no node in %s: %w", dir, err)
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, stateFile), err)
	}
	n := &Node{Dir: s.Dir, id: s.ID, log: io.Discard, cmdDone: make(chan error, 1),
		layout: layout{Dir: s.Dir, Bin: s.Bin, CgroupName: s.CgroupName},
		net:    &network{nodeNS: "rsnode-" + s.ID, clientNS: "rsclient-" + s.ID, clientFD: -1},
		before: netnsDir0{existed: s.NetnsDirExisted, mounted: s.NetnsDirMounted}}
	n.Kubeconfig = n.layout.pki("admin.kubeconfig")
	if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", s.InitPID)); err == nil && ns == s.PIDNamespace {
		n.initPID, n.pidNS = s.InitPID, s.PIDNamespace
	}
	if fd, err := unix.Open(n.net.clientPath(), unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
		n.net.clientFD = fd
	}
	if n.Config, err = clientcmd.BuildConfigFromFlags("", n.Kubeconfig); err == nil {
		n.Config.Dial = n.net.dial
	}
	return n, nil
}

// Running reports whether the node's processes are running.
func (n *Node) Running() bool { return n.initPID > 0 && len(processesIn(n.pidNS)) > 0 }

// ClientNamespace is the name of the client network namespace, for `ip
// netns exec`.
func (n *Node) ClientNamespace() string { return n.net.clientNS }

// RemoveStale stops what is left of nodes whose files are in dirs matching
// pattern (e.g. filepath.Join(os.TempDir(), "routeshift-node-*")) and
// whose processes are gone: a test run killed before it could stop its
// node leaves its cgroups, namespaces and files behind. A running node is
// left alone. It returns the directories it cleaned.
func RemoveStale(ctx context.Context, pattern string) ([]string, error) {
	dirs, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	var cleaned []string
	var errs []error
	for _, dir := range dirs {
		n, err := Attach(dir)
		if err != nil || n.Running() {
			continue
		}
		cleaned = append(cleaned, dir)
		errs = append(errs, n.Stop(ctx))
	}
	return cleaned, errors.Join(errs...)
}
