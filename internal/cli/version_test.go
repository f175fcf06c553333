package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/routeshift/routeshift/internal/version"
)

func TestPrintVersion(t *testing.T) {
	info := version.Get()
	cases := []struct {
		output string
		want   []string // lines of the output
		err    string
	}{
		{"", []string{"routeshift " + info.Version, "  git commit:        " + info.Commit, "  Go version:        " + info.GoVersion,
			"  Kubernetes client: " + info.KubernetesClient + " (k8s.io/client-go)", "  platform:          " + info.Platform}, ""},
		{"json", []string{"{", `  "version": "` + info.Version + `",`, `  "commit": "` + info.Commit + `",`, `  "goVersion": "` + info.GoVersion + `",`,
			`  "kubernetesClient": "` + info.KubernetesClient + `",`, `  "platform": "` + info.Platform + `"`, "}"}, ""},
		{"yaml", []string{"commit: " + info.Commit, "goVersion: " + info.GoVersion, "kubernetesClient: " + info.KubernetesClient,
			"platform: " + info.Platform, "version: " + info.Version}, ""},
		{"wide", nil, `--output "wide" is not supported: use -o json, -o yaml or omit it`},
	}
	for _, c := range cases {
		t.Run(c.output, func(t *testing.T) {
			var out bytes.Buffer
			err := printVersion(&out, c.output)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Errorf("error %v, want %q", err, c.err)
				}
				return
			}
			if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); err != nil || strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("printed (%v):\n%s\nwant:\n%s", err, out.String(), strings.Join(c.want, "\n"))
			}
		})
	}
}
