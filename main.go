// Command routeshift provides OpenShift-style Routes (route.openshift.io/v1)
// on any Kubernetes cluster: an admission webhook, an Ingress-to-Route
// controller, an HAProxy router, and offline tools. See README.md.
package main

import (
	"os"

	"github.com/routeshift/routeshift/internal/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
