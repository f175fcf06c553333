// Package node runs a real single-node Kubernetes cluster on this machine,
// for tests/cluster and `make cluster`: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, kubelet and kube-proxy from the
// repository's bin/ (built by `make tools`), containerd 2 with runc and the
// CNI plugins, and pods from images imported into containerd (there is no
// registry).
//
// The node is isolated from the machine:
//
//   - it has a network namespace of its own, whose only neighbour is a
//     client namespace that forwards nothing; pods and Services live in
//     ranges inside those two. Tests reach the node only from the client
//     namespace (Node.Dial, Node.HTTPClient, Node.Command);
//   - every node process runs in one PID and mount namespace, so one kill
//     ends them all, pods included. Inside it, /run, /var/lib and /var/log
//     are the node's own and the kernel settings the kubelet writes are
//     files of the node's, so the machine keeps its values;
//   - pods run under a cgroup of the node's own, removed at Stop, which
//     also removes the namespaces and checks that the machine is as it was
//     (ReadHostState).
//
// It needs root, cgroup v1 or v2 hierarchies under /sys/fs/cgroup, and the
// Debian packages iproute2, util-linux, runc, containernetworking-plugins
// and iptables (`make node-tools` installs them).
//
// It must not import routeshift's components: it runs what users install.
package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Name is the node's name, and its hostname in kube-apiserver's eyes.
const Name = "routeshift-node"

// binaries are the programs a node runs from the bin directory.
var binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet",
	"kube-proxy", "kubectl", "containerd", "containerd-shim-runc-v2", "ctr"}

// systemPrograms are what a node needs from the machine.
var systemPrograms = []string{"ip", "nsenter", "unshare", "iptables", "/usr/sbin/runc", "/usr/lib/cni/bridge",
	"/usr/lib/cni/host-local", "/usr/lib/cni/portmap", "/usr/lib/cni/loopback"}

// Options configure Start.
type Options struct {
	// BinDir holds the programs `make tools` builds.
	BinDir string
	// Dir keeps the node's files (default: a new directory under the
	// system's temporary directory). It must not lie under /run, /var/lib
	// or /var/log, which the node lays its own over.
	Dir string
	// Log receives progress lines (default: discarded).
	Log io.Writer
	// Detach lets the node outlive the process that started it (`make
	// cluster`); otherwise the node dies with that process.
	Detach bool
}

// Node is a running node.
type Node struct {
	// Dir holds the node's files: pki/ (certificates and kubeconfigs),
	// log/ (one file per component), var/log/pods (the pods' logs).
	Dir string
	// Kubeconfig is the admin's kubeconfig (group system:masters). The API
	// server's address exists only inside the node's and the client's
	// namespaces: use it through Command.
	Kubeconfig string
	// Config is the admin's rest config; it dials from the client
	// namespace.
	Config *rest.Config

	id      string
	layout  layout
	net     *network
	log     io.Writer
	initPID int
	pidNS   string
	cmdDone chan error
	before  netnsDir0
}

// netnsDir0 is how /run/netns was before the node: `ip netns add` makes it
// a mount point the first time, which Stop undoes.
type netnsDir0 struct{ existed, mounted bool }

// Start starts a node and returns when its API server answers and the node
// is Ready. On failure it stops what it started.
func Start(ctx context.Context, opts Options) (*Node, error) {
	if err := checkPrograms(opts.BinDir); err != nil {
		return nil, err
	}
	n := &Node{id: newID(), log: opts.Log, cmdDone: make(chan error, 1)}
	if n.log == nil {
		n.log = io.Discard
	}
	n.before = netnsDirState()
	if err := n.start(ctx, opts); err != nil {
		return nil, errors.Join(fmt.Errorf("starting the node: %w (%s)", err, n.keepLogs()), n.Stop(context.Background()))
	}
	return n, nil
}

// keepLogs moves the components' logs out of the node's directory, which
// Stop removes, and says where they are.
func (n *Node) keepLogs() string {
	if n.Dir == "" {
		return "no logs"
	}
	dir, err := os.MkdirTemp("", "routeshift-node-logs-")
	if err == nil {
		err = os.Rename(n.layout.path("log"), filepath.Join(dir, "log"))
	}
	if err != nil {
		return "its logs are lost: " + err.Error()
	}
	return "the components' logs are in " + filepath.Join(dir, "log")
}

func (n *Node) start(ctx context.Context, opts Options) error {
	var err error
	if n.Dir = opts.Dir; n.Dir == "" {
		if n.Dir, err = os.MkdirTemp("", "routeshift-node-"); err != nil {
			return err
		}
	}
	if n.Dir, err = filepath.Abs(n.Dir); err != nil {
		return err
	}
	for _, bad := range []string{"/run", "/var/lib", "/var/log"} {
		if n.Dir == bad || strings.HasPrefix(n.Dir, bad+"/") {
			return fmt.Errorf("the node's directory %s lies under %s, which the node replaces: choose another", n.Dir, bad)
		}
	}
	n.layout = layout{Dir: n.Dir, Bin: opts.BinDir, CgroupName: "routeshift-node-" + n.id}
	n.Kubeconfig = n.layout.pki("admin.kubeconfig")
	fmt.Fprintf(n.log, "node: files in %s\n", n.Dir)
	if err := writePKI(n.layout.path("pki")); err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	if err := writeConfigs(n.layout); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	if err := makeCgroups(n.layout.CgroupName); err != nil {
		return err
	}
	if n.net, err = newNetwork(ctx, n.id); err != nil {
		return fmt.Errorf("network namespaces: %w", err)
	}
	if err := n.startInit(opts.Detach); err != nil {
		return err
	}
	if n.Config, err = clientcmd.BuildConfigFromFlags("", n.Kubeconfig); err != nil {
		return err
	}
	n.Config.Dial = n.net.dial
	if err := n.saveState(); err != nil {
		return err
	}
	return n.waitReady(ctx)
}

// startInit runs init.sh as PID 1 of new PID and mount namespaces inside
// the node's network namespace. The thread that starts it stays locked
// until the node ends: a parent-death signal follows the thread, and Go
// ends threads that other goroutines locked (Dial does).
func (n *Node) startInit(detach bool) error {
	logFile, err := os.OpenFile(n.layout.path("log", "init.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		if err = os.MkdirAll(n.layout.path("log"), 0o755); err == nil {
			logFile, err = os.OpenFile(n.layout.path("log", "init.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		}
		if err != nil {
			return err
		}
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer logFile.Close()
		cmd := exec.Command("nsenter", "--net="+n.net.nodePath(), "--",
			"unshare", "--pid", "--fork", "--kill-child", "--mount", "--propagation", "private", "--mount-proc",
			"--", "/bin/bash", n.layout.path("init.sh"))
		cmd.Stdout, cmd.Stderr = logFile, logFile
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if !detach {
			cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		}
		if err := cmd.Start(); err != nil {
			started <- fmt.Errorf("starting the node's init: %w", err)
			return
		}
		started <- nil
		if detach {
			_ = cmd.Process.Release()
			return
		}
		n.cmdDone <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return err
	}
	return n.findInit()
}

// findInit finds the host PID of the node's PID 1 (unshare's only child)
// and the PID namespace it heads.
func (n *Node) findInit() error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if pid, ns, ok := initOf(n.layout.path("init.sh")); ok {
			n.initPID, n.pidNS = pid, ns
			return os.WriteFile(n.layout.path("init.pid"), []byte(strconv.Itoa(pid)+"\n"), 0o644)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("the node's init did not start: see log/init.log")
}

// initOf finds the process running script whose PID namespace is not the
// caller's.
func initOf(script string) (int, string, bool) {
	self, _ := os.Readlink("/proc/self/ns/pid")
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !strings.Contains(string(cmdline), "/bin/bash\x00"+script) {
			continue
		}
		ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
		if err == nil && ns != self {
			return pid, ns, true
		}
	}
	return 0, "", false
}

func newID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// checkPrograms reports every program a node needs and cannot find.
func checkPrograms(binDir string) error {
	var missing []string
	for _, name := range binaries {
		if info, err := os.Stat(filepath.Join(binDir, name)); err != nil || info.Mode().Perm()&0o111 == 0 {
			missing = append(missing, filepath.Join(binDir, name))
		}
	}
	for _, name := range systemPrograms {
		if _, err := exec.LookPath(name); err != nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return &MissingError{Programs: missing}
	}
	if os.Geteuid() != 0 {
		return errors.New("a node needs root (network, PID and mount namespaces, cgroups)")
	}
	return nil
}

// MissingError names the programs a node needs that are not installed.
type MissingError struct{ Programs []string }

func (e *MissingError) Error() string {
	return "the node needs " + strings.Join(e.Programs, ", ") + ": run `make node-tools` (as root, it also installs the Debian packages)"
}
