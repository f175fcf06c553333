package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// runtimeDefaultCaps are the capabilities containerd and CRI-O give a
// container that names none (its bounding set before drop and add).
var runtimeDefaultCaps = []string{"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
	"NET_BIND_SERVICE", "NET_RAW", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}

// pod is one pod of a workload, as the API server would create it (the
// service-account token volume added) and the kubelet would run it.
type pod struct {
	Name, Namespace string
	Spec            corev1.PodSpec
}

// serviceAccountVolume is the volume the API server's ServiceAccount
// admission adds to every pod that mounts its token, and where it goes.
const (
	serviceAccountVolume = "kube-api-access"
	serviceAccountDir    = "/var/run/secrets/kubernetes.io/serviceaccount"
)

// newPod makes the workload's first pod.
func newPod(w *workload) (*pod, error) {
	p := &pod{Name: w.Name + "-0", Namespace: w.Namespace, Spec: *w.Template.Spec.DeepCopy()}
	if err := checkEmulated(&p.Spec); err != nil {
		return nil, fmt.Errorf("%s: %w", w, err)
	}
	if p.Spec.AutomountServiceAccountToken != nil && !*p.Spec.AutomountServiceAccountToken {
		return p, nil
	}
	mode := int32(0o644)
	expiry := int64(3607)
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: serviceAccountVolume, VolumeSource: corev1.VolumeSource{
		Projected: &corev1.ProjectedVolumeSource{DefaultMode: &mode, Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &expiry}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
		}}}})
	for i := range p.Spec.Containers {
		p.Spec.Containers[i].VolumeMounts = append(p.Spec.Containers[i].VolumeMounts,
			corev1.VolumeMount{Name: serviceAccountVolume, MountPath: serviceAccountDir, ReadOnly: true})
	}
	return p, nil
}

// checkEmulated refuses what this emulation of the kubelet does not do, so
// that a manifest using it fails here instead of passing untested.
func checkEmulated(spec *corev1.PodSpec) error {
	switch {
	case len(spec.InitContainers) > 0 || len(spec.EphemeralContainers) > 0:
		return fmt.Errorf("init and ephemeral containers are not emulated")
	case len(spec.Containers) != 1:
		return fmt.Errorf("%d containers: only pods of one container are emulated", len(spec.Containers))
	case spec.HostPID || spec.HostIPC || spec.ShareProcessNamespace != nil:
		return fmt.Errorf("host PID/IPC and process namespace sharing are not emulated")
	}
	c := spec.Containers[0]
	switch {
	case c.WorkingDir != "" || len(c.EnvFrom) > 0 || c.Lifecycle != nil || c.StartupProbe != nil:
		return fmt.Errorf("container %s: workingDir, envFrom, lifecycle hooks and startup probes are not emulated", c.Name)
	case c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged:
		return fmt.Errorf("container %s: privileged containers are not emulated", c.Name)
	}
	for _, a := range append(slices.Clone(c.Command), c.Args...) {
		if strings.Contains(a, "$(") {
			return fmt.Errorf("container %s: $(VAR) references in command or args are not emulated: %q", c.Name, a)
		}
	}
	for _, v := range spec.Volumes {
		if v.EmptyDir == nil && v.Secret == nil && v.Projected == nil {
			return fmt.Errorf("volume %s: only emptyDir, secret and projected volumes are emulated", v.Name)
		}
	}
	return nil
}

// identity is the user, group and supplementary groups the container runs
// as: the container's securityContext, else the pod's, else the image's
// USER; fsGroup and supplementalGroups join the supplementary groups. It
// refuses, as the kubelet does, a root user under runAsNonRoot.
func identity(p *pod, img image) (uid, gid int64, groups []int64, err error) {
	c := p.Spec.Containers[0]
	uid, gid = img.UID, img.GID
	var nonRoot *bool
	if psc := p.Spec.SecurityContext; psc != nil {
		uid, gid, nonRoot = valueOr(psc.RunAsUser, uid), valueOr(psc.RunAsGroup, gid), psc.RunAsNonRoot
		if psc.FSGroup != nil {
			groups = append(groups, *psc.FSGroup)
		}
		groups = append(groups, psc.SupplementalGroups...)
	}
	if csc := c.SecurityContext; csc != nil {
		uid, gid = valueOr(csc.RunAsUser, uid), valueOr(csc.RunAsGroup, gid)
		if csc.RunAsNonRoot != nil {
			nonRoot = csc.RunAsNonRoot
		}
	}
	if nonRoot != nil && *nonRoot && uid == 0 {
		return 0, 0, nil, fmt.Errorf("container %s: runAsNonRoot and the user is root (the kubelet refuses to start it)", c.Name)
	}
	slices.Sort(groups)
	return uid, gid, slices.Compact(groups), nil
}

func valueOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// boundingSet is the container's capability bounding set: the runtime's
// default set less securityContext.capabilities.drop plus add. A non-root
// process keeps no capability in its permitted or effective set (nor
// ambient: Kubernetes sets none); programs it runs may gain those of their
// file capabilities that the bounding set holds.
func boundingSet(c corev1.Container) []string {
	caps := slices.Clone(runtimeDefaultCaps)
	if c.SecurityContext == nil || c.SecurityContext.Capabilities == nil {
		return caps
	}
	for _, d := range c.SecurityContext.Capabilities.Drop {
		if d == "ALL" {
			caps = nil
		}
		caps = slices.DeleteFunc(caps, func(c string) bool { return c == strings.TrimPrefix(string(d), "CAP_") })
	}
	for _, a := range c.SecurityContext.Capabilities.Add {
		caps = append(caps, strings.TrimPrefix(string(a), "CAP_"))
	}
	slices.Sort(caps)
	return slices.Compact(caps)
}

// noNewPrivs is whether the container runs with no_new_privs: when
// allowPrivilegeEscalation is false.
func noNewPrivs(c corev1.Container) bool {
	sc := c.SecurityContext
	return sc != nil && sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation
}

// readOnlyRoot is whether the container's root filesystem is read-only.
func readOnlyRoot(c corev1.Container) bool {
	sc := c.SecurityContext
	return sc != nil && sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem
}

// containerEnv is the container's environment as the kubelet gives it:
// the image's PATH, HOSTNAME, the API server's address in
// KUBERNETES_SERVICE_HOST/PORT (what rest.InClusterConfig reads), then the
// container's env with fieldRef values resolved.
func containerEnv(p *pod, apiHost, apiPort string) ([]string, error) {
	env := []string{"PATH=" + imagePath, "HOSTNAME=" + p.Name,
		"KUBERNETES_SERVICE_HOST=" + apiHost, "KUBERNETES_SERVICE_PORT=" + apiPort, "KUBERNETES_SERVICE_PORT_HTTPS=" + apiPort}
	for _, e := range p.Spec.Containers[0].Env {
		value := e.Value
		if e.ValueFrom != nil {
			if e.ValueFrom.FieldRef == nil {
				return nil, fmt.Errorf("env %s: only valueFrom.fieldRef is emulated", e.Name)
			}
			v, err := fieldValue(p, e.ValueFrom.FieldRef.FieldPath)
			if err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
			value = v
		} else if strings.Contains(value, "$(") {
			return nil, fmt.Errorf("env %s: $(VAR) references are not emulated", e.Name)
		}
		env = append(env, e.Name+"="+value)
	}
	return env, nil
}

// fieldValue resolves a downward API field of the pod.
func fieldValue(p *pod, path string) (string, error) {
	switch path {
	case "metadata.namespace":
		return p.Namespace, nil
	case "metadata.name":
		return p.Name, nil
	case "spec.serviceAccountName":
		return p.Spec.ServiceAccountName, nil
	case "status.podIP", "status.hostIP":
		return "127.0.0.1", nil
	}
	return "", fmt.Errorf("field %s is not emulated", path)
}

// rootfs is the container's root filesystem: the host's /usr and /etc
// (read-only) with the image's routeshift binary and HAProxy (with the
// image's file capabilities) in place, and mount points for the volumes.
type rootfs struct {
	// Dir is the root; Local replaces /usr/local; Capped maps an image path
	// to a copy of the host's file carrying the image's file capabilities.
	Dir, Local string
	Capped     map[string]string
}

// newRootfs lays out a root filesystem under dir for binary, the
// routeshift binary built as the Dockerfile builds it.
func newRootfs(dir, binary string, img image) (*rootfs, error) {
	r := &rootfs{Dir: filepath.Join(dir, "root"), Local: filepath.Join(dir, "usr-local"), Capped: map[string]string{}}
	for _, d := range []string{"usr", "etc", "proc", "dev", "sys", "tmp", "run", "var/lib", r.Local} {
		if !filepath.IsAbs(d) {
			d = filepath.Join(r.Dir, d)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	for link, target := range map[string]string{"bin": "usr/bin", "sbin": "usr/sbin", "lib": "usr/lib", "lib64": "usr/lib64", "var/run": "../run"} {
		if err := os.Symlink(target, filepath.Join(r.Dir, link)); err != nil {
			return nil, err
		}
	}
	rel, ok := strings.CutPrefix(img.Binary, "/usr/local/")
	if !ok {
		return nil, fmt.Errorf("the image's binary %s is not under /usr/local", img.Binary)
	}
	if err := copyFile(binary, filepath.Join(r.Local, rel), 0o755); err != nil {
		return nil, err
	}
	for path, caps := range img.FileCaps {
		capped := filepath.Join(dir, "capped-"+filepath.Base(path))
		if err := copyFile(path, capped, 0o755); err != nil {
			return nil, fmt.Errorf("copying %s for its file capabilities: %w", path, err)
		}
		if out, err := exec.Command("setcap", caps, capped).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("setcap %s %s: %v: %s", caps, capped, err, out)
		}
		r.Capped[path] = capped
	}
	return r, nil
}

func copyFile(from, to string, mode os.FileMode) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, mode)
}

// mountPoint makes the directory a volume is mounted on, inside the root.
func (r *rootfs) mountPoint(path string) error {
	return os.MkdirAll(filepath.Join(r.Dir, path), 0o755)
}

// process is how to start the container's process.
type process struct {
	Argv       []string
	Env        []string
	UID, GID   int64
	Groups     []int64
	Bounding   []string
	NoNewPrivs bool
	ReadOnly   bool
	Hostname   string
	Mounts     []volumeMount
}

// command is the process started the way a container runtime would, in a
// private mount and UTS namespace: the root filesystem is assembled with
// bind mounts (read-only where the container's is), the volumes mounted,
// then chroot and setpriv set the user, groups, capability bounding set and
// no_new_privs and exec the container's command, which keeps the PID.
func (r *rootfs) command(p process) *exec.Cmd {
	script := []string{"set -e", "R=" + shellQuote(r.Dir),
		`mount --bind "$R" "$R"`,
		`mount --bind -o ro /usr "$R/usr"`,
		`mount --bind -o ro ` + shellQuote(r.Local) + ` "$R/usr/local"`,
		`mount --bind -o ro /etc "$R/etc"`,
		`mount -t proc proc "$R/proc"`,
		`mount --rbind /dev "$R/dev"`,
		`mount --rbind -o ro /sys "$R/sys"`}
	for path, capped := range r.Capped {
		script = append(script, `mount --bind -o ro `+shellQuote(capped)+` "$R"`+shellQuote(path))
	}
	for _, m := range p.Mounts {
		script = append(script, m.shell())
	}
	if p.ReadOnly {
		script = append(script, `mount -o remount,bind,ro "$R"`)
	}
	script = append(script, "hostname "+shellQuote(p.Hostname), `exec chroot "$R" `+strings.Join(quoteAll(setpriv(p)), " "))
	cmd := exec.Command("unshare", "--mount", "--uts", "--propagation", "private", "/bin/sh", "-c", strings.Join(script, "\n"))
	cmd.Env = p.Env
	return cmd
}

// setpriv is the command line that drops to the container's identity.
func setpriv(p process) []string {
	caps := "-all"
	for _, c := range p.Bounding {
		caps += ",+" + strings.ToLower(c)
	}
	args := []string{"/usr/bin/setpriv", "--reuid=" + strconv.FormatInt(p.UID, 10), "--regid=" + strconv.FormatInt(p.GID, 10)}
	if len(p.Groups) == 0 {
		args = append(args, "--clear-groups")
	} else {
		var gs []string
		for _, g := range p.Groups {
			gs = append(gs, strconv.FormatInt(g, 10))
		}
		args = append(args, "--groups="+strings.Join(gs, ","))
	}
	args = append(args, "--inh-caps=-all", "--bounding-set="+caps)
	if p.NoNewPrivs {
		args = append(args, "--no-new-privs")
	}
	return append(append(args, "--"), p.Argv...)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}

// argv is the container's command line: command replaces the image's
// ENTRYPOINT, args follow it.
func argv(c corev1.Container, img image) []string {
	cmd := img.Entrypoint
	if len(c.Command) > 0 {
		cmd = c.Command
	}
	return append(slices.Clone(cmd), c.Args...)
}
