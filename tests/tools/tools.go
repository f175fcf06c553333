//go:build tools

// Package tools pins the real Kubernetes components the tests run:
// kube-apiserver, kube-controller-manager, kubectl and etcd for the control
// planes, and kube-scheduler, kubelet and kube-proxy for the real node of
// tests/cluster, built from the versions required in go.mod. Importing the main packages here keeps their
// dependencies in go.sum; the file is never compiled.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
