# routeshift — build, test and benchmark. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := build

BIN        := $(CURDIR)/bin
# The project's version: the image tag the manifests and the Helm chart name.
VERSION    := $(shell cat $(CURDIR)/VERSION)
COMMIT     ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
# What `routeshift version` and routeshift_build_info report.
LDFLAGS    := -X github.com/routeshift/routeshift/internal/version.Version=$(VERSION) \
	-X github.com/routeshift/routeshift/internal/version.Commit=$(COMMIT)
GO         ?= go
K8S_VER    := v1.37.0
CONTROLLER_GEN_VER := v0.23.0
# cert-manager's CRDs, for the dry run of manifests/overlays/cert-manager.
CERT_MANAGER_VER := v1.21.2
CERT_MANAGER_CRDS := $(BIN)/cert-manager-crds-$(CERT_MANAGER_VER)
FUZZTIME   ?= 10s
TOOLS_STAMP := $(BIN)/.tools-$(shell cat tests/tools/go.mod tests/tools/go.sum | sha256sum | cut -c1-16)
# cert-manager's controller, CA injector and ACME HTTP-01 solver, assembled
# from its own packages in a module of their own (cert-manager's dependency
# versions, apart from kube-apiserver's), rebuilt when that module changes.
# Static (CGO_ENABLED=0): tests/cluster runs them as Pods of images holding
# nothing else.
CM_TOOLS   := tests/tools/certmanager
CM_TOOLS_STAMP := $(BIN)/.cert-manager-static-$(shell cat $(CM_TOOLS)/go.mod $(CM_TOOLS)/go.sum $(CM_TOOLS)/*/*.go | sha256sum | cut -c1-16)
# The real node of tests/cluster and `make cluster`: kube-scheduler, kubelet
# and kube-proxy from the tools module (beside the control plane), containerd
# and the helm CLI from the Go module proxy, runc, the CNI plugins,
# mmdebstrap and iptables from Debian.
NODE_STAMP := $(BIN)/.node-$(shell cat tests/tools/go.mod tests/tools/go.sum | sha256sum | cut -c1-16)
CONTAINERD_VER := v2.4.2
CONTAINERD_STAMP := $(BIN)/.containerd-$(CONTAINERD_VER)
HELM_VER   := $(shell awk '$$1 == "helm.sh/helm/v3" {print $$2}' go.mod)
HELM_STAMP := $(BIN)/.helm-$(HELM_VER)
NODE_PACKAGES := runc containernetworking-plugins mmdebstrap iptables
# Let's Encrypt's ACME test server and its DNS server, for ACME in the tests.
PEBBLE_VER := v2.10.1
PEBBLE_STAMP := $(BIN)/.pebble-$(PEBBLE_VER)
K8S_LDFLAGS := -s -w \
	-X k8s.io/component-base/version.gitVersion=$(K8S_VER) \
	-X k8s.io/component-base/version.gitMajor=1 \
	-X k8s.io/component-base/version.gitMinor=37 \
	-X k8s.io/component-base/version.gitTreeState=clean
# Fuzz targets: package and function, one per line of `make fuzz`.
FUZZ_TARGETS := ./routecore:FuzzDefaultValidateJSON ./routecore:FuzzDefaultValidateFields ./routecore:FuzzDNSFastPath ./ingress:FuzzTranslate ./router:FuzzStoreIncremental ./haproxy:FuzzRender ./internal/cli:FuzzYAMLDocument ./internal/input:FuzzQuickCheck ./internal/input:FuzzFastYAML

.PHONY: help
help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 14

.PHONY: build
build: ## build bin/routeshift, stamped with VERSION and the git commit
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/routeshift .

.PHONY: image
image: ## build the container image routeshift:$(VERSION) (needs a Docker engine)
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t routeshift:$(VERSION) .

.PHONY: run
run: $(TOOLS_STAMP) haproxy build ## the whole system on this machine: API server, webhook, controller, router, a demo (ARGS="--clean" etc.)
	$(BIN)/routeshift local --bin-dir $(BIN) $(ARGS)

.PHONY: test
test: tools generate-check lint ## everything CI runs: unit, integration (real apiserver, kubectl), a short fuzz, then the real node
	CI=$${CI:-} $(GO) test -count=1 -timeout 30m $$($(GO) list ./... | grep -v '/tests/cluster$$')
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME)
	$(MAKE) --no-print-directory test-cluster

# The real node runs alone, after the other suites: it needs both cores.
.PHONY: test-cluster
test-cluster: ## install every shipped variant on a real one-node cluster (root; tests/cluster)
	CI=$${CI:-} $(GO) test -count=1 -timeout 45m -v ./tests/cluster

.PHONY: cluster
cluster: tools ## bring up a real one-node Kubernetes cluster with routeshift's images, to try the manifests by hand (root)
	$(GO) run ./tests/cmd/cluster up --dir $(BIN)/cluster --bin $(BIN)

.PHONY: cluster-down
cluster-down: ## remove the cluster `make cluster` brought up: its processes, namespaces, cgroups and files
	$(GO) run ./tests/cmd/cluster down --dir $(BIN)/cluster

.PHONY: tools
tools: $(TOOLS_STAMP) haproxy $(BIN)/controller-gen cert-manager-tools node-tools ## build kube-apiserver, kube-controller-manager, kubectl, etcd, cert-manager, pebble and the node's programs into bin/ (cached); ensure HAProxy

.PHONY: node-tools
node-tools: $(NODE_STAMP) $(CONTAINERD_STAMP) $(HELM_STAMP) node-packages ## build kube-scheduler, kubelet, kube-proxy, containerd, helm into bin/ (cached); ensure runc, CNI plugins, mmdebstrap, iptables

$(NODE_STAMP): tests/tools/go.mod tests/tools/go.sum
	@mkdir -p $(BIN)
	@echo ">> building kube-scheduler, kubelet, kube-proxy $(K8S_VER) (≈2 min after the control plane)"
	cd tests/tools && for cmd in kube-scheduler kubelet kube-proxy; do \
		$(GO) build -trimpath -ldflags '$(K8S_LDFLAGS)' -o $(BIN)/$$cmd k8s.io/kubernetes/cmd/$$cmd || exit 1; done
	@rm -f $(BIN)/.node-*
	@touch $@

$(CONTAINERD_STAMP):
	@mkdir -p $(BIN)
	@echo ">> building containerd $(CONTAINERD_VER), its runc shim and ctr (≈2 min cold)"
	GOBIN=$(BIN) CGO_ENABLED=0 $(GO) install -trimpath \
		github.com/containerd/containerd/v2/cmd/containerd@$(CONTAINERD_VER) \
		github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$(CONTAINERD_VER) \
		github.com/containerd/containerd/v2/cmd/ctr@$(CONTAINERD_VER)
	@rm -f $(BIN)/.containerd-*
	@touch $@

# The helm CLI at the version of the Helm SDK in go.mod.
$(HELM_STAMP):
	@mkdir -p $(BIN)
	@test -n "$(HELM_VER)" || { echo "go.mod requires no helm.sh/helm/v3"; exit 1; }
	@echo ">> building helm $(HELM_VER)"
	GOBIN=$(BIN) CGO_ENABLED=0 $(GO) install -trimpath helm.sh/helm/v3/cmd/helm@$(HELM_VER)
	@rm -f $(BIN)/.helm-*
	@touch $@

.PHONY: node-packages
node-packages: ## install runc, the CNI plugins, mmdebstrap and iptables (Debian packages) when missing
	@missing=; for p in $(NODE_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo ">> installing$$missing"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null; \
	else echo "the real node needs$$missing: run 'sudo apt-get install -y$$missing' (Debian 12)" >&2; exit 1; fi

.PHONY: cert-manager-tools
cert-manager-tools: $(CM_TOOLS_STAMP) $(PEBBLE_STAMP) $(CERT_MANAGER_CRDS)/acme.cert-manager.io_orders.yaml ## build cert-manager's controller, cainjector, acmesolver (and fetch its CRDs) and pebble into bin/ (cached)

$(CM_TOOLS_STAMP): $(CM_TOOLS)/go.mod $(CM_TOOLS)/go.sum $(wildcard $(CM_TOOLS)/*/*.go)
	@mkdir -p $(BIN)
	@grep -q '^\s*github.com/cert-manager/cert-manager $(CERT_MANAGER_VER)$$' $(CM_TOOLS)/go.mod || \
		{ echo "$(CM_TOOLS)/go.mod must require github.com/cert-manager/cert-manager $(CERT_MANAGER_VER), the version of CERT_MANAGER_VER"; exit 1; }
	@echo ">> building cert-manager $(CERT_MANAGER_VER) controller, cainjector, acmesolver (≈3 min cold)"
	cd $(CM_TOOLS) && for cmd in controller cainjector acmesolver; do \
		CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w -X github.com/cert-manager/cert-manager/pkg/util.AppVersion=$(CERT_MANAGER_VER)' \
			-o $(BIN)/cert-manager-$$cmd ./$$cmd || exit 1; done
	@rm -f $(BIN)/.cert-manager-*
	@touch $@

$(PEBBLE_STAMP):
	@mkdir -p $(BIN)
	@echo ">> building pebble $(PEBBLE_VER)"
	GOBIN=$(BIN) $(GO) install -trimpath github.com/letsencrypt/pebble/v2/cmd/pebble@$(PEBBLE_VER) github.com/letsencrypt/pebble/v2/cmd/pebble-challtestsrv@$(PEBBLE_VER)
	@rm -f $(BIN)/.pebble-*
	@touch $@

# All of cert-manager's CRDs, the ACME Orders and Challenges too (their file
# is the target, so a directory from before they were copied is redone).
$(CERT_MANAGER_CRDS)/acme.cert-manager.io_orders.yaml:
	@echo ">> fetching cert-manager $(CERT_MANAGER_VER) CRDs (Go module proxy)"
	@dir=$$($(GO) mod download -json github.com/cert-manager/cert-manager@$(CERT_MANAGER_VER) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p'); \
		test -n "$$dir" || { echo "could not download cert-manager $(CERT_MANAGER_VER)"; exit 1; }; \
		out=$(CERT_MANAGER_CRDS); rm -rf $$out.tmp && mkdir -p $$out.tmp && cp $$dir/deploy/crds/*cert-manager.io_*.yaml $$out.tmp/ && \
		chmod 0644 $$out.tmp/* && rm -rf $$out && mv $$out.tmp $$out

$(TOOLS_STAMP): tests/tools/go.mod tests/tools/go.sum
	@mkdir -p $(BIN)
	@echo ">> building etcd (≈1.5 min cold)"
	cd tests/tools && $(GO) build -trimpath -ldflags '-s -w' -o $(BIN)/etcd go.etcd.io/etcd/server/v3
	@echo ">> building kube-apiserver $(K8S_VER) (≈10 min cold)"
	cd tests/tools && $(GO) build -trimpath -ldflags '$(K8S_LDFLAGS)' -o $(BIN)/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
	@echo ">> building kube-controller-manager $(K8S_VER) (≈2 min)"
	cd tests/tools && $(GO) build -trimpath -ldflags '$(K8S_LDFLAGS)' -o $(BIN)/kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
	@echo ">> building kubectl $(K8S_VER)"
	cd tests/tools && $(GO) build -trimpath -ldflags '$(K8S_LDFLAGS)' -o $(BIN)/kubectl k8s.io/kubernetes/cmd/kubectl
	@rm -f $(BIN)/.tools-*
	@touch $@

$(BIN)/controller-gen:
	GOBIN=$(BIN) $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VER)

.PHONY: haproxy
haproxy: ## install HAProxy (Debian package) when missing; fail unless the haproxy in PATH is 2.6 or newer
	@if command -v haproxy >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo ">> installing haproxy"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy) >/dev/null; \
	else echo "HAProxy >= 2.6 is required and there is no haproxy in PATH: run 'sudo apt-get install -y haproxy' (Debian 12, Ubuntu 24.04 or newer)" >&2; exit 1; fi
	@path=$$(command -v haproxy); line=$$(haproxy -v 2>&1 | head -1); \
	ver=$$(echo "$$line" | sed -n 's/^HA-\{0,1\}Proxy version \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p'); \
	if [ -z "$$ver" ]; then \
		echo "$$path -v printed '$$line', not a HAProxy version: reinstall HAProxy >= 2.6 ('sudo apt-get install -y haproxy')" >&2; exit 1; fi; \
	set -- $$ver; \
	if [ "$$1" -lt 2 ] || { [ "$$1" -eq 2 ] && [ "$$2" -lt 6 ]; }; then \
		echo "$$path is HAProxy $$1.$$2; routeshift needs 2.6 or newer: install a newer HAProxy ('sudo apt-get install -y haproxy' on Debian 12 or Ubuntu 24.04 and newer; packages for older releases: https://haproxy.debian.net) and put it first in PATH" >&2; exit 1; fi; \
	echo "$$line"

.PHONY: generate
generate: $(BIN)/controller-gen ## regenerate deepcopy code, the CRD (manifests and chart) and docs/reference from the code
	$(BIN)/controller-gen object paths=./routecore/...
	$(BIN)/controller-gen crd paths=./routecore/... output:crd:artifacts:config=manifests/crd
	cp manifests/crd/route.openshift.io_routes.yaml charts/routeshift/files/
	$(GO) run ./internal/docgen docs/reference

.PHONY: generate-check
generate-check: generate ## fail if generated files are out of date
	@if [ -n "$$(git status --porcelain -- routecore/zz_generated.deepcopy.go manifests/crd charts/routeshift/files docs/reference)" ]; then \
		git status --porcelain -- routecore/zz_generated.deepcopy.go manifests/crd charts/routeshift/files docs/reference; \
		echo "generated files changed: run 'make generate' and commit the result"; exit 1; fi

.PHONY: lint
lint: ## gofmt and go vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "not gofmt'ed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

.PHONY: fuzz
fuzz: ## run every fuzz target for FUZZTIME (default 10s)
	@FUZZTIME=$(FUZZTIME) GO=$(GO) .ci/fuzz $(FUZZ_TARGETS)

.PHONY: bench
bench: ## run the benchmarks and write BENCHMARKS.md
	.ci/bench
