// Package image builds the routeshift container image, and the small
// images its Kubernetes tests run beside it, without Docker: the tests run
// kubelet on containerd, which imports OCI image archives (ctr images
// import), and CI has no Docker engine.
//
// It owns three things. ReadDockerfile reads the repository's Dockerfile
// into a Recipe and refuses every instruction or command it could not
// reproduce, so that the image the tests run cannot drift from the one
// `docker build` makes. BuildRootfs makes the final stage's root file
// system with mmdebstrap from the machine's own apt sources (its packages,
// its setcap steps, apt's lists removed), cached by content. WriteArchive
// writes layers and an image config as an OCI image layout tar named for
// containerd; RouteshiftImage and BinaryImage put the pieces together, with
// binaries from Recipe.BuildBinary (the build stage's go build, run
// locally) and GoBuildStatic (tests/images/pause and backend).
//
// An archive is loaded where kubelet finds it, under the name it was
// written with, by
//
//	ctr -n k8s.io images import ARCHIVE
//
// which also unpacks it for the default snapshotter (overlayfs), keeping
// haproxy's capability.
//
// It imports no routeshift package and starts no cluster: it makes files
// that tests/framework and the cluster tests load.
package image
