package node

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

// PauseImage is the sandbox image containerd gives every pod: a static
// program built from tests/images/pause and imported before any pod
// starts (there is no registry to pull from).
const PauseImage = "routeshift.test/pause:1"

// shadowedSysctls are the machine-wide kernel settings the kubelet writes at
// start. The node's mount namespace lays a file of its own over each, so
// the kubelet writes there and the machine keeps its values.
var shadowedSysctls = []string{
	"vm/overcommit_memory",
	"vm/panic_on_oom",
	"kernel/panic",
	"kernel/panic_on_oops",
	"kernel/keys/root_maxkeys",
	"kernel/keys/root_maxbytes",
}

// layout is where a node keeps its files. Dir is on the machine's file
// system; /run, /var/lib and /var/log inside the node's mount namespace
// are its own (a tmpfs, Dir/var/lib and Dir/var/log), so the kubelet,
// containerd and the CNI plugins use their default paths without touching
// the machine's.
type layout struct {
	Dir, Bin   string
	CgroupName string
}

func (l layout) path(elem ...string) string {
	return filepath.Join(append([]string{l.Dir}, elem...)...)
}

// pki is the directory of certificates and kubeconfigs.
func (l layout) pki(name string) string { return l.path("pki", name) }

// ContainerdSocket is containerd's API socket. It lies on the machine's
// file system, so ctr reaches it from outside the node's namespaces.
func (l layout) containerdSocket() string { return l.path("containerd.sock") }

// templateData is what the configuration templates print.
type templateData struct {
	layout
	Name, NodeIP, ClientIP, PodCIDR, ClusterCIDR, ServiceCIDR, PauseImage string
	APIServerPort                                                         int
	Sysctls                                                               []string
}

// writeConfigs writes every component's configuration and the init script.
func writeConfigs(l layout) error {
	data := templateData{layout: l, Name: Name, NodeIP: NodeIP, ClientIP: ClientIP, PodCIDR: PodCIDR,
		ClusterCIDR: ClusterCIDR, ServiceCIDR: ServiceCIDR, PauseImage: PauseImage,
		APIServerPort: APIServerPort, Sysctls: shadowedSysctls}
	files := []struct {
		name, text string
		mode       os.FileMode
	}{
		{"containerd.toml", containerdConfig, 0o644},
		{"cni/net.d/10-node.conflist", cniConfig, 0o644},
		{"kubelet.yaml", kubeletConfig, 0o644},
		{"kube-proxy.yaml", kubeProxyConfig, 0o644},
		{"resolv.conf", "# The node has no cluster DNS; pods resolve nothing.\n", 0o644},
		{"init.sh", initScript, 0o755},
	}
	for _, f := range files {
		tmpl, err := template.New(f.name).Option("missingkey=error").Parse(f.text)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, data); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		path := l.path(f.name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(b.String()), f.mode); err != nil {
			return err
		}
	}
	return nil
}

// containerdConfig: the CRI runtime with runc from Debian, the CNI plugins
// from Debian, images pinned (nothing can be pulled) and the OOM score
// never set below containerd's own, which needs CAP_SYS_RESOURCE this
// machine withholds.
const containerdConfig = `version = 3
root = "/var/lib/containerd"
state = "/run/containerd"

[grpc]
  address = "{{.Dir}}/containerd.sock"

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = "{{.PauseImage}}"

[plugins."io.containerd.cri.v1.runtime"]
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = "/usr/sbin/runc"
        SystemdCgroup = false
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["/usr/lib/cni"]
    conf_dir = "{{.Dir}}/cni/net.d"
`

// cniConfig: one bridge for every pod, with hairpin mode so that a pod
// reaches itself through its Service, and portmap for hostPorts.
const cniConfig = `{
  "cniVersion": "1.0.0",
  "name": "node",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "{{.PodCIDR}}"}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`

// kubeletConfig: cgroup v1 through cgroupfs under a cgroup of the node's
// own, no image garbage collection (imported images cannot be pulled
// again) and eviction only when the machine is really short.
const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: "{{.Dir}}/pki/ca.crt"}
authorization: {mode: Webhook}
tlsCertFile: "{{.Dir}}/pki/kubelet-serving.crt"
tlsPrivateKeyFile: "{{.Dir}}/pki/kubelet-serving.key"
containerRuntimeEndpoint: "unix://{{.Dir}}/containerd.sock"
cgroupDriver: cgroupfs
cgroupRoot: "/{{.CgroupName}}"
failCgroupV1: false
failSwapOn: false
resolvConf: "{{.Dir}}/resolv.conf"
clusterDomain: cluster.local
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {"memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%", "nodefs.inodesFree": "1%"}
healthzBindAddress: 127.0.0.1
readOnlyPort: 0
serializeImagePulls: false
oomScoreAdj: 0
`

// kubeProxyConfig: iptables, and no conntrack setting of the machine's
// (the table size and its timeouts are machine-wide).
const kubeProxyConfig = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: "{{.Dir}}/pki/kube-proxy.kubeconfig"}
hostnameOverride: {{.Name}}
mode: iptables
clusterCIDR: {{.ClusterCIDR}}
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 0.0.0.0:10256
`

// initScript is PID 1 of the node's PID namespace: it lays the node's own
// file systems over the machine's inside the node's mount namespace, then
// starts every component and stays, reaping orphans, until it is killed.
// Killing it kills every process of the node, pods included.
const initScript = `#!/bin/bash
set -euo pipefail
D={{.Dir}}
mkdir -p "$D/var/lib" "$D/var/log" "$D/tmp" "$D/log" "$D/sysctl" "$D/cgroup-hold"
# A sysfs of the node's network namespace, keeping the machine's cgroups.
mount --rbind /sys/fs/cgroup "$D/cgroup-hold"
mount -t sysfs sysfs /sys
mount --move "$D/cgroup-hold" /sys/fs/cgroup
mount -t tmpfs -o mode=0755 tmpfs /run
mount --bind "$D/var/lib" /var/lib
mount --bind "$D/var/log" /var/log
{{range .Sysctls}}mkdir -p "$(dirname "$D/sysctl/{{.}}")" && cat /proc/sys/{{.}} >"$D/sysctl/{{.}}"
mount --bind "$D/sysctl/{{.}}" /proc/sys/{{.}}
{{end}}mount --make-rshared /
export PATH="{{.Bin}}:/usr/sbin:/usr/bin:/sbin:/bin" TMPDIR="$D/tmp"
# Each component is restarted when it exits, as a service manager would: a
# component started before the API server's bootstrap policy exists exits.
start() {
  local name=$1; shift
  ( while :; do "$@" >>"$D/log/$name.log" 2>&1 || true
      echo "$(date +%T) $name exited" >>"$D/log/exits"; sleep 1; done ) &
}
P="$D/pki"
start containerd containerd --config "$D/containerd.toml"
start etcd etcd --data-dir "$D/etcd" --listen-client-urls http://127.0.0.1:2379 \
  --advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://127.0.0.1:2380 \
  --listen-metrics-urls http://127.0.0.1:2381 --unsafe-no-fsync
start kube-apiserver kube-apiserver --etcd-servers http://127.0.0.1:2379 \
  --advertise-address {{.NodeIP}} --secure-port {{.APIServerPort}} --service-cluster-ip-range {{.ServiceCIDR}} \
  --client-ca-file "$P/ca.crt" --tls-cert-file "$P/apiserver.crt" --tls-private-key-file "$P/apiserver.key" \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$P/sa.crt" --service-account-signing-key-file "$P/sa.key" \
  --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction --allow-privileged \
  --kubelet-client-certificate "$P/apiserver-kubelet-client.crt" --kubelet-client-key "$P/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority "$P/ca.crt"
start kube-controller-manager kube-controller-manager --kubeconfig "$P/controller-manager.kubeconfig" \
  --authentication-kubeconfig "$P/controller-manager.kubeconfig" --authorization-kubeconfig "$P/controller-manager.kubeconfig" \
  --bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials \
  --service-account-private-key-file "$P/sa.key" --root-ca-file "$P/ca.crt" \
  --cluster-signing-cert-file "$P/ca.crt" --cluster-signing-key-file "$P/ca.key" \
  --service-cluster-ip-range {{.ServiceCIDR}}
start kube-scheduler kube-scheduler --kubeconfig "$P/scheduler.kubeconfig" \
  --authentication-kubeconfig "$P/scheduler.kubeconfig" --authorization-kubeconfig "$P/scheduler.kubeconfig" \
  --bind-address 127.0.0.1 --leader-elect=false
start kubelet kubelet --config "$D/kubelet.yaml" --kubeconfig "$P/kubelet.kubeconfig" \
  --hostname-override {{.Name}} --node-ip {{.NodeIP}}
start kube-proxy kube-proxy --config "$D/kube-proxy.yaml"
touch "$D/started"
while :; do wait || true; sleep 1; done
`
