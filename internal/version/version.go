// Package version holds routeshift's version and build information: the
// release and commit the linker sets (the Makefile's build target and the
// Dockerfile pass -ldflags -X), else what the Go toolchain recorded in the
// binary. It owns the routeshift_build_info metric. It imports nothing of
// routeshift's, so that every package may import it.
package version

import (
	"errors"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// Version and Commit are set at build time:
//
//	go build -ldflags "-X github.com/routeshift/routeshift/internal/version.Version=0.1.0 \
//	  -X github.com/routeshift/routeshift/internal/version.Commit=$(git rev-parse HEAD)"
//
// Left empty, they are read from the binary's build information (the
// module's version for `go install …@vX.Y.Z`, the vcs.revision of a build
// in a git checkout).
var (
	Version string
	Commit  string
)

// unknown stands for what neither the linker nor the build information says.
const unknown = "unknown"

// clientGoModule is the module whose version is the Kubernetes client's.
const clientGoModule = "k8s.io/client-go"

// Info is what `routeshift version` prints.
type Info struct {
	Version          string `json:"version"`
	Commit           string `json:"commit"`
	GoVersion        string `json:"goVersion"`
	KubernetesClient string `json:"kubernetesClient"`
	Platform         string `json:"platform"`
}

// Get returns this binary's build information.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(Version, Commit, bi)
}

// fromBuildInfo fills what the linker left empty from bi (nil when the
// binary carries none).
func fromBuildInfo(version, commit string, bi *debug.BuildInfo) Info {
	info := Info{Version: version, Commit: commit, GoVersion: runtime.Version(),
		KubernetesClient: unknown, Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		bi = &debug.BuildInfo{}
	}
	if info.Version == "" {
		info.Version = moduleVersion(bi)
	}
	if info.Commit == "" {
		info.Commit = vcsCommit(bi)
	}
	for _, dep := range bi.Deps {
		if dep.Path == clientGoModule {
			if dep.Replace != nil {
				dep = dep.Replace
			}
			info.KubernetesClient = dep.Version
		}
	}
	return info
}

// moduleVersion is the main module's version: set by `go install
// module@version`, "(devel)" or empty for a build in a checkout.
func moduleVersion(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return unknown
}

// vcsCommit is the git commit the toolchain stamped (go build in a checkout
// without -buildvcs=false), with "-dirty" when the tree had changes.
func vcsCommit(bi *debug.BuildInfo) string {
	var revision, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	switch {
	case revision == "":
		return unknown
	case modified == "true":
		return revision + "-dirty"
	}
	return revision
}

// BuildInfoCollector returns the gauge routeshift_build_info, always 1,
// whose labels say which build runs (for dashboards and alerts that compare
// replicas or follow a rollout).
func BuildInfoCollector() prometheus.Collector {
	info := Get()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "routeshift_build_info",
		Help: "Which routeshift build runs: version, git commit and Go version (the value is always 1).",
		ConstLabels: prometheus.Labels{
			"version": info.Version, "commit": info.Commit, "goversion": info.GoVersion,
		},
	})
	g.Set(1)
	return g
}

// RegisterBuildInfo registers routeshift_build_info with reg once; a
// second registration (the components `routeshift local` runs in one
// process share registries) is not an error.
func RegisterBuildInfo(reg prometheus.Registerer) error {
	err := reg.Register(BuildInfoCollector())
	if already := (prometheus.AlreadyRegisteredError{}); errors.As(err, &already) {
		return nil
	}
	return err
}
