package node

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Dial connects to address from the client namespace: a pod, a ClusterIP,
// a NodePort or a host port of the node.
func (n *Node) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	return n.net.dial(ctx, network, address)
}

// HTTPClient sends requests from the client namespace, keeping connections
// alive as http.DefaultTransport does; timeout bounds each request.
func (n *Node) HTTPClient(timeout time.Duration) *http.Client { return n.net.httpClient(timeout) }

// Command runs a program in the client namespace, with KUBECONFIG the
// admin's and the bin directory first in PATH: kubectl and helm reach the
// node as a person at its console would.
func (n *Node) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "nsenter", append([]string{"--net=" + n.net.clientPath(), "--", name}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+n.Kubeconfig, "PATH="+n.layout.Bin+":"+os.Getenv("PATH"),
		"HOME="+n.layout.path("home"))
	return cmd
}

// Run runs a program like Command, with stdin, and returns its standard
// output and error apart; err says how it exited.
func (n *Node) Run(ctx context.Context, stdin string, name string, args ...string) (stdout, stderr string, err error) {
	cmd := n.Command(ctx, name, args...)
	var out, errOut bytes.Buffer
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if err != nil {
		err = fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), errOut.String(), err
}

// ImportImage imports an OCI image archive into containerd's k8s.io
// namespace, where the kubelet finds it, unpacked for the overlayfs
// snapshotter. The archive names the image.
func (n *Node) ImportImage(ctx context.Context, archive string) error {
	out, err := exec.CommandContext(ctx, filepath.Join(n.layout.Bin, "ctr"), "--address", n.layout.containerdSocket(),
		"--namespace", "k8s.io", "images", "import", "--snapshotter", "overlayfs", archive).CombinedOutput()
	if err != nil {
		return fmt.Errorf("importing %s: %w: %s", archive, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Images lists the images containerd holds for the kubelet.
func (n *Node) Images(ctx context.Context) ([]string, error) {
	out, err := exec.CommandContext(ctx, filepath.Join(n.layout.Bin, "ctr"), "--address", n.layout.containerdSocket(),
		"--namespace", "k8s.io", "images", "list", "--quiet").Output()
	if err != nil {
		return nil, fmt.Errorf("listing images: %w", err)
	}
	return strings.Fields(string(out)), nil
}

// Log returns a component's log (etcd, kube-apiserver, kubelet,
// containerd, …), or why it cannot.
func (n *Node) Log(component string) string {
	data, err := os.ReadFile(n.layout.path("log", component+".log"))
	if err != nil {
		return err.Error()
	}
	return string(data)
}

// PodLogs returns the logs the kubelet kept of a pod's containers,
// current and previous, by file.
func (n *Node) PodLogs(namespace, pod string) map[string]string {
	dirs, _ := filepath.Glob(n.layout.path("var", "log", "pods", namespace+"_"+pod+"_*"))
	return readPodLogs(dirs)
}

// PodLogsOf returns the logs the kubelet still keeps of every pod of
// namespace whose name starts with prefix, deleted pods included, by pod
// and file.
func (n *Node) PodLogsOf(namespace, prefix string) map[string]map[string]string {
	out := map[string]map[string]string{}
	dirs, _ := filepath.Glob(n.layout.path("var", "log", "pods", namespace+"_"+prefix+"*"))
	for _, dir := range dirs {
		pod := strings.SplitN(strings.TrimPrefix(filepath.Base(dir), namespace+"_"), "_", 2)[0]
		out[pod] = readPodLogs([]string{dir})
	}
	return out
}

func readPodLogs(dirs []string) map[string]string {
	out := map[string]string{}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "*.log"))
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil {
				rel, _ := filepath.Rel(dir, f)
				out[rel] = string(data)
			}
		}
	}
	return out
}
