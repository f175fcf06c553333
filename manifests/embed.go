// Package manifests holds routeshift's Kubernetes manifests (kustomize
// bases and overlays). They are embedded in the binary so that
// `routeshift local` installs exactly what a cluster install applies.
//
// It holds files only and imports nothing of routeshift's, so that the
// commands and the tests can read the same manifests.
package manifests

import "embed"

// FS holds the CRD, RBAC and webhook configurations.
//
//go:embed crd/*.yaml rbac/*.yaml webhook/*.yaml overlays/self-signed/*.yaml
var FS embed.FS
