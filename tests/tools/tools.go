//go:build tools

// Package tools pins the real control-plane components the tests run:
// kube-apiserver, kube-controller-manager, kubectl and etcd, built from the
// versions required in go.mod. Importing the main packages here keeps their
// dependencies in go.sum; the file is never compiled.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
