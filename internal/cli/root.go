// Package cli wires routeshift's subcommands: flags, input and output. The
// decisions are made in routecore, webhook, ingress and haproxy; this
// package only adapts them to a command line.
//
// It may import any package of routeshift, as it wires them together;
// only main imports it, so no other package may import it.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/routeshift/routeshift/internal/version"
)

// errInvalid reports that the command ran but found invalid objects; the
// details were already printed, so only the exit status is left to set.
var errInvalid = errors.New("invalid objects")

// Execute runs routeshift with args and returns the process exit status.
func Execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	// SIGINT and SIGTERM cancel the context: long-running commands shut
	// down gracefully.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := root.ExecuteContext(ctx); err != nil {
		if !errors.Is(err, errInvalid) {
			fmt.Fprintln(stderr, "error:", err)
		}
		return 1
	}
	return 0
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "routeshift",
		Short: "OpenShift-style Routes for any Kubernetes cluster",
		Long: `routeshift serves OpenShift's Route API (route.openshift.io/v1) on vanilla Kubernetes:
an admission webhook that defaults Routes and rejects bad ones at kubectl time with
OpenShift's messages, an Ingress-to-Route controller, and an HAProxy router.

The offline commands apply the same rules to files, for CI and migration dry-runs.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// --version prints what the version command prints (a fixed text, so
	// that no template syntax can come from the build's values).
	root.Version = version.Get().Version
	root.SetVersionTemplate(strings.ReplaceAll(versionText(version.Get()), "{{", "{{\"{{\"}}"))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newValidate(), newTranslate(), newRender(), newWebhook(), newController(), newManager(), newRouter(), newClearRouteStatus(), newLocal(), newVersion())
	return root
}
