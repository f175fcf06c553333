package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/routeshift/routeshift/internal/version"
)

func newVersion() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version [-o json|yaml]",
		Short: "Print routeshift's version, git commit, Go version and Kubernetes client version",
		Long: `version prints which build of routeshift this is: its release, the git commit it was
built from, the Go version that built it and the version of the Kubernetes client library
(k8s.io/client-go) it talks to the API server with. "routeshift --version" prints the same.
The /metrics of every long-running command carry it too, as routeshift_build_info.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printVersion(cmd.OutOrStdout(), output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "json or yaml for a machine-readable form")
	return cmd
}

func printVersion(w io.Writer, output string) error {
	info := version.Get()
	switch output {
	case "":
		_, err := io.WriteString(w, versionText(info))
		return err
	case "json":
		out, err := json.MarshalIndent(info, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", out)
		return err
	case "yaml":
		return printYAML(w, []any{info})
	}
	return fmt.Errorf("--output %q is not supported: use -o json, -o yaml or omit it", output)
}

// versionText is the human-readable form, also printed by --version.
func versionText(info version.Info) string {
	return fmt.Sprintf("routeshift %s\n  git commit:        %s\n  Go version:        %s\n  Kubernetes client: %s (k8s.io/client-go)\n  platform:          %s\n",
		info.Version, info.Commit, info.GoVersion, info.KubernetesClient, info.Platform)
}
