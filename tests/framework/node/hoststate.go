package node

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// HostState is what a node could leave behind on the machine, read from
// the machine's own namespaces: a node must leave every line as it found
// it.
type HostState map[string][]string

// hostPaths are the default paths of the node's components: each must
// exist after a node exactly when it existed before.
var hostPaths = []string{
	"/var/lib/kubelet", "/var/lib/containerd", "/var/lib/cni", "/var/log/pods", "/var/log/containers",
	"/run/containerd", "/run/netns", "/etc/cni", "/etc/kubernetes", "/run/xtables.lock",
}

// hostSysctls are machine-wide settings the node's components write.
var hostSysctls = append([]string{"net/ipv4/ip_forward", "net/bridge/bridge-nf-call-iptables"}, shadowedSysctls...)

// ReadHostState reads the machine's network namespaces, its own network
// links, routes and packet filter rules, its mounts, the top of every
// cgroup hierarchy, the kernel settings the kubelet and kube-proxy write
// and the components' default paths.
func ReadHostState(ctx context.Context) (HostState, error) {
	s := HostState{}
	commands := map[string][]string{
		"network namespaces": {"ip", "netns", "list"},
		"links":              {"ip", "-o", "link", "show"},
		"routes":             {"ip", "route", "show", "table", "all"},
		"iptables":           {"iptables-save"},
	}
	for key, argv := range commands {
		if _, err := exec.LookPath(argv[0]); err != nil {
			s[key] = []string{argv[0] + " is not installed"} // then no node can start either
			continue
		}
		out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
		}
		s[key] = normalize(key, string(out))
	}
	mounts, err := mountPoints()
	if err != nil {
		return nil, err
	}
	s["mounts"] = mounts
	if s["cgroups"], err = topCgroups(); err != nil {
		return nil, err
	}
	for _, name := range hostSysctls {
		data, err := os.ReadFile(filepath.Join("/proc/sys", name))
		if err == nil {
			s["sysctls"] = append(s["sysctls"], name+"="+strings.TrimSpace(string(data)))
		}
	}
	for _, p := range hostPaths {
		if _, err := os.Lstat(p); err == nil {
			s["paths"] = append(s["paths"], p)
		}
	}
	return s, nil
}

var (
	// Packet counters change on their own.
	iptablesCounters = regexp.MustCompile(`\s*\[\d+:\d+\]`)
	// A link's statistics-free line, without its index and alternate
	// names that the kernel renumbers.
	linkIndex = regexp.MustCompile(`^\d+: `)
)

// normalize drops what changes by itself from a command's output.
func normalize(key, out string) []string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case key == "iptables" && strings.HasPrefix(line, "#"): // when it was generated
			continue
		case key == "iptables":
			line = iptablesCounters.ReplaceAllString(line, "")
		case key == "links":
			// "3: eth0: <...> mtu ... state UP ..." -> "eth0"
			line = strings.SplitN(linkIndex.ReplaceAllString(line, ""), ":", 2)[0]
		case key == "network namespaces":
			line = strings.Fields(line)[0]
		}
		lines = append(lines, line)
	}
	slices.Sort(lines)
	return lines
}

// mountPoints lists the machine's mounts: mount point and file system type.
func mountPoints() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if len(fields) < 5 || sep < 0 || sep+1 >= len(fields) {
			continue
		}
		out = append(out, fields[4]+" "+fields[sep+1])
	}
	slices.Sort(out)
	return out, sc.Err()
}

// topCgroups lists the directories directly below the root of every cgroup
// hierarchy mounted under /sys/fs/cgroup.
func topCgroups() ([]string, error) {
	roots, err := filepath.Glob("/sys/fs/cgroup/*")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, root := range roots {
		entries, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, filepath.Join(root, e.Name()))
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// Diff lists what differs between s (before) and after, one line per
// difference: "+ key: line" is new, "- key: line" is gone.
func (s HostState) Diff(after HostState) []string {
	var keys []string
	for k := range s {
		keys = append(keys, k)
	}
	for k := range after {
		if _, ok := s[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		for _, line := range after[k] {
			if !slices.Contains(s[k], line) {
				out = append(out, "+ "+k+": "+line)
			}
		}
		for _, line := range s[k] {
			if !slices.Contains(after[k], line) {
				out = append(out, "- "+k+": "+line)
			}
		}
	}
	return out
}
