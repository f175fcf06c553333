// Package install runs routeshift's shipped install, the kustomize overlays
// of manifests/ and the Helm chart of charts/routeshift, the way a cluster
// would: it renders them with the kustomize and Helm Go libraries, applies
// them to a real kube-apiserver, and runs one pod of every Deployment and
// DaemonSet as the kubelet and a container runtime would, with the
// container's command, arguments, environment, user, groups, capabilities,
// no_new_privs, read-only root filesystem and volumes, against that
// apiserver and with HAProxy carrying the image's file capabilities. Then
// it checks what an installation must do: admission, Ingress conversion,
// traffic over HTTP and HTTPS, and the probes. An install with cert-manager
// objects runs the real cert-manager beside it (tests/framework): its
// controller issues the webhook's certificate and its CA injector fills
// the webhook configurations' caBundle.
//
// The few things that must differ from a cluster (no service network, one
// machine for every port) are substituted in one place, substitute.go.
//
// It imports the test framework and no routeshift package but internal
// helpers: it tests the shipped artefacts, not the code.
package install
