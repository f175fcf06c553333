package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// volumeMount is a volume mounted into the container: a host directory
// bound onto Target, or a tmpfs (Source empty) with TmpfsOptions.
type volumeMount struct {
	Source, Target string
	ReadOnly       bool
	TmpfsOptions   string
}

// shell is the command that mounts it under the root $R.
func (m volumeMount) shell() string {
	target := `"$R"` + shellQuote(m.Target)
	if m.Source == "" {
		return "mount -t tmpfs -o " + shellQuote(m.TmpfsOptions) + " tmpfs " + target
	}
	ro := ""
	if m.ReadOnly {
		ro = "-o ro "
	}
	return "mount --bind " + ro + shellQuote(m.Source) + " " + target
}

// volumeMaker materialises a pod's volumes as the kubelet does.
type volumeMaker struct {
	Client kubernetes.Interface
	// CA is the API server's CA, the kube-root-ca.crt ConfigMap's ca.crt
	// (which kube-controller-manager would publish).
	CA []byte
	// Dir holds the volumes' host directories.
	Dir string
}

// volumeMounts materialises every volume the container mounts and returns
// the mounts. Secret files are root-owned with the volume's mode; fsGroup
// becomes their group and adds group read (the kubelet's rule for
// read-only volumes), emptyDirs are 0777 (setgid to fsGroup).
func (vm *volumeMaker) volumeMounts(ctx context.Context, p *pod) ([]volumeMount, error) {
	c := p.Spec.Containers[0]
	var fsGroup, fsUser *int64
	if psc := p.Spec.SecurityContext; psc != nil {
		fsGroup, fsUser = psc.FSGroup, psc.RunAsUser
	}
	if c.SecurityContext != nil && c.SecurityContext.RunAsUser != nil {
		fsUser = c.SecurityContext.RunAsUser
	}
	var mounts []volumeMount
	for _, m := range c.VolumeMounts {
		if m.SubPath != "" || m.SubPathExpr != "" {
			return nil, fmt.Errorf("volumeMount %s: subPath is not emulated", m.Name)
		}
		v, err := findVolume(p, m.Name)
		if err != nil {
			return nil, err
		}
		mount, err := vm.volume(ctx, p, v, fsGroup, fsUser)
		if err != nil {
			return nil, fmt.Errorf("volume %s: %w", v.Name, err)
		}
		mount.Target, mount.ReadOnly = m.MountPath, mount.ReadOnly || m.ReadOnly
		mounts = append(mounts, mount)
	}
	return mounts, nil
}

func findVolume(p *pod, name string) (corev1.Volume, error) {
	for _, v := range p.Spec.Volumes {
		if v.Name == name {
			return v, nil
		}
	}
	return corev1.Volume{}, fmt.Errorf("volumeMount %s names no volume of the pod", name)
}

func (vm *volumeMaker) volume(ctx context.Context, p *pod, v corev1.Volume, fsGroup, fsUser *int64) (volumeMount, error) {
	switch {
	case v.EmptyDir != nil:
		return vm.emptyDir(p, v, fsGroup)
	case v.Secret != nil:
		files, err := vm.secretFiles(ctx, p.Namespace, v.Secret)
		if err != nil {
			return volumeMount{}, err
		}
		dir, err := vm.writeAtomic(p, v.Name, files, fsGroup)
		return volumeMount{Source: dir, ReadOnly: true}, err
	default:
		files, err := vm.projectedFiles(ctx, p, v.Projected, fsGroup, fsUser)
		if err != nil {
			return volumeMount{}, err
		}
		dir, err := vm.writeAtomic(p, v.Name, files, fsGroup)
		return volumeMount{Source: dir, ReadOnly: true}, err
	}
}

func (vm *volumeMaker) emptyDir(p *pod, v corev1.Volume, fsGroup *int64) (volumeMount, error) {
	mode, gid := os.FileMode(0o777), ""
	if fsGroup != nil {
		mode |= os.ModeSetgid
		gid = fmt.Sprintf(",gid=%d", *fsGroup)
	}
	if v.EmptyDir.Medium == corev1.StorageMediumMemory {
		opts := fmt.Sprintf("mode=%o%s", mode.Perm()|setgidBits(mode), gid)
		if v.EmptyDir.SizeLimit != nil {
			opts += fmt.Sprintf(",size=%d", v.EmptyDir.SizeLimit.Value())
		}
		return volumeMount{TmpfsOptions: opts}, nil
	}
	dir := filepath.Join(vm.Dir, p.Name, v.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return volumeMount{}, err
	}
	if fsGroup != nil {
		if err := os.Chown(dir, 0, int(*fsGroup)); err != nil {
			return volumeMount{}, err
		}
	}
	return volumeMount{Source: dir}, os.Chmod(dir, mode)
}

// setgidBits is the octal 02000 of a mode with the setgid bit, for tmpfs's mode=.
func setgidBits(m os.FileMode) os.FileMode {
	if m&os.ModeSetgid != 0 {
		return 0o2000
	}
	return 0
}

// file is one file of a Secret, ConfigMap or projected volume.
type file struct {
	Path  string
	Data  []byte
	Mode  os.FileMode
	Owner int // uid; the group is root's unless fsGroup
}

// secretFiles reads the Secret (waiting for it, as the kubelet keeps the
// pod waiting) and returns its files: every key, or the items listed.
func (vm *volumeMaker) secretFiles(ctx context.Context, ns string, s *corev1.SecretVolumeSource) ([]file, error) {
	var secret *corev1.Secret
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var err error
		secret, err = vm.Client.CoreV1().Secrets(ns).Get(ctx, s.SecretName, metav1.GetOptions{})
		if err == nil {
			break
		}
		if !apierrors.IsNotFound(err) || time.Now().After(deadline) {
			return nil, fmt.Errorf("secret %s/%s: %w (the kubelet would not start the pod)", ns, s.SecretName, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	mode := os.FileMode(valueOr(s.DefaultMode, 0o644))
	var files []file
	if len(s.Items) == 0 {
		for k, v := range secret.Data {
			files = append(files, file{Path: k, Data: v, Mode: mode})
		}
		return files, nil
	}
	for _, it := range s.Items {
		data, ok := secret.Data[it.Key]
		if !ok {
			return nil, fmt.Errorf("secret %s/%s has no key %s", ns, s.SecretName, it.Key)
		}
		files = append(files, file{Path: it.Path, Data: data, Mode: os.FileMode(valueOr(it.Mode, int32(mode)))})
	}
	return files, nil
}

// projectedFiles makes the files of a projected volume: a service-account
// token from the TokenRequest API (owned by the container's user, mode
// 0600, when the pod sets a user and no fsGroup, as the kubelet does),
// kube-root-ca.crt's ca.crt and the downward API's namespace.
func (vm *volumeMaker) projectedFiles(ctx context.Context, p *pod, v *corev1.ProjectedVolumeSource, fsGroup, fsUser *int64) ([]file, error) {
	mode := os.FileMode(valueOr(v.DefaultMode, 0o644))
	var files []file
	for _, src := range v.Sources {
		switch {
		case src.ServiceAccountToken != nil:
			tr, err := vm.Client.CoreV1().ServiceAccounts(p.Namespace).CreateToken(ctx, p.Spec.ServiceAccountName,
				&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: src.ServiceAccountToken.ExpirationSeconds}},
				metav1.CreateOptions{})
			if err != nil {
				return nil, fmt.Errorf("TokenRequest for service account %s/%s: %w", p.Namespace, p.Spec.ServiceAccountName, err)
			}
			f := file{Path: src.ServiceAccountToken.Path, Data: []byte(tr.Status.Token), Mode: mode}
			if fsGroup == nil && fsUser != nil {
				f.Owner, f.Mode = int(*fsUser), 0o600
			}
			files = append(files, f)
		case src.ConfigMap != nil && src.ConfigMap.Name == "kube-root-ca.crt":
			files = append(files, file{Path: "ca.crt", Data: vm.CA, Mode: mode})
		case src.DownwardAPI != nil:
			for _, it := range src.DownwardAPI.Items {
				if it.FieldRef == nil {
					return nil, fmt.Errorf("downwardAPI %s: only fieldRef is emulated", it.Path)
				}
				value, err := fieldValue(p, it.FieldRef.FieldPath)
				if err != nil {
					return nil, err
				}
				files = append(files, file{Path: it.Path, Data: []byte(value), Mode: mode})
			}
		default:
			return nil, fmt.Errorf("only serviceAccountToken, kube-root-ca.crt and downwardAPI projections are emulated")
		}
	}
	return files, nil
}

// writeAtomic writes files the way the kubelet's atomic writer does: into a
// timestamped directory ..TS, linked as ..data, each top-level name a link
// into ..data. fsGroup, when set, becomes the group of every file and
// directory and adds group read (and search and setgid on directories).
func (vm *volumeMaker) writeAtomic(p *pod, name string, files []file, fsGroup *int64) (string, error) {
	dir := filepath.Join(vm.Dir, p.Name, name)
	ts := "..2026_01_01_00_00_00.000000001"
	for _, f := range files {
		path := filepath.Join(dir, ts, f.Path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, f.Data, f.Mode); err != nil {
			return "", err
		}
		if err := os.Chmod(path, f.Mode); err != nil { // WriteFile's mode is masked by the umask
			return "", err
		}
		if err := os.Chown(path, f.Owner, 0); err != nil {
			return "", err
		}
	}
	if err := os.Symlink(ts, filepath.Join(dir, "..data")); err != nil {
		return "", err
	}
	for _, f := range files {
		top := strings.SplitN(f.Path, "/", 2)[0]
		if err := os.Symlink(filepath.Join("..data", top), filepath.Join(dir, top)); err != nil && !os.IsExist(err) {
			return "", err
		}
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		return "", err
	}
	if fsGroup == nil {
		return dir, nil
	}
	return dir, applyFSGroup(dir, int(*fsGroup))
}

// applyFSGroup gives every file and directory under dir the group gid, as
// the kubelet does for a read-only volume: group read, and on directories
// group search and setgid. Links are left alone.
func applyFSGroup(dir string, gid int) error {
	return filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.Mode()&os.ModeSymlink != 0 {
			return err
		}
		if err := os.Lchown(path, -1, gid); err != nil {
			return err
		}
		mask := os.FileMode(0o440)
		if info.IsDir() {
			mask |= 0o110 | os.ModeSetgid
		}
		return os.Chmod(path, info.Mode()|mask)
	})
}
