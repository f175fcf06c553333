package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestFromBuildInfo(t *testing.T) {
	clientGo := &debug.Module{Path: "k8s.io/client-go", Version: "v0.37.0"}
	checkout := &debug.BuildInfo{Main: debug.Module{Path: "github.com/routeshift/routeshift", Version: "(devel)"},
		Deps:     []*debug.Module{{Path: "k8s.io/api", Version: "v0.37.0"}, clientGo},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "e3443ec0"}, {Key: "vcs.modified", Value: "false"}}}
	dirty := &debug.BuildInfo{Main: checkout.Main, Deps: checkout.Deps,
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "e3443ec0"}, {Key: "vcs.modified", Value: "true"}}}
	installed := &debug.BuildInfo{Main: debug.Module{Path: "github.com/routeshift/routeshift", Version: "v0.2.0"},
		Deps: []*debug.Module{{Path: "k8s.io/client-go", Version: "v0.36.0", Replace: &debug.Module{Path: "k8s.io/client-go", Version: "v0.37.1"}}}}
	cases := []struct {
		name            string
		version, commit string // set by the linker
		bi              *debug.BuildInfo
		want            Info
	}{
		{"set by the linker", "0.1.0", "abc123", checkout, Info{Version: "0.1.0", Commit: "abc123", KubernetesClient: "v0.37.0"}},
		{"a build in a checkout", "", "", checkout, Info{Version: "unknown", Commit: "e3443ec0", KubernetesClient: "v0.37.0"}},
		{"a checkout with changes", "", "", dirty, Info{Version: "unknown", Commit: "e3443ec0-dirty", KubernetesClient: "v0.37.0"}},
		{"go install at a version, client-go replaced", "", "", installed, Info{Version: "v0.2.0", Commit: "unknown", KubernetesClient: "v0.37.1"}},
		{"no build information", "", "", nil, Info{Version: "unknown", Commit: "unknown", KubernetesClient: "unknown"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			want.GoVersion, want.Platform = runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH
			if got := fromBuildInfo(c.version, c.commit, c.bi); got != want {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestRegisterBuildInfo: one routeshift_build_info series of value 1 with
// this build's labels, however often it is registered.
func TestRegisterBuildInfo(t *testing.T) {
	reg := prometheus.NewRegistry()
	for range 2 {
		if err := RegisterBuildInfo(reg); err != nil {
			t.Fatal(err)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	info := Get()
	want := []string{"commit=" + info.Commit, "goversion=" + info.GoVersion, "version=" + info.Version}
	if len(families) != 1 || families[0].GetName() != "routeshift_build_info" || len(families[0].GetMetric()) != 1 {
		t.Fatalf("gathered %v, want one routeshift_build_info series", families)
	}
	m := families[0].GetMetric()[0]
	var got []string
	for _, l := range m.GetLabel() {
		got = append(got, l.GetName()+"="+l.GetValue())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") || m.GetGauge().GetValue() != 1 {
		t.Errorf("routeshift_build_info{%s} %v, want {%s} 1", strings.Join(got, " "), m.GetGauge().GetValue(), strings.Join(want, " "))
	}
}
