# The routeshift image: the binary, plus HAProxy 2.6 (Debian 12) for the router.
#   make image                      # routeshift:$(cat VERSION), with the commit
#   docker build --build-arg VERSION=$(cat VERSION) --build-arg COMMIT=$(git rev-parse HEAD) \
#     -t REGISTRY/routeshift:$(cat VERSION) .
# The manifests and the Helm chart name the tag in VERSION; README.md shows
# how to point them at another registry.
FROM golang:1.26-bookworm AS build
ARG VERSION=dev
ARG COMMIT=unknown
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -X github.com/routeshift/routeshift/internal/version.Version=${VERSION} -X github.com/routeshift/routeshift/internal/version.Commit=${COMMIT}" \
    -o /out/routeshift .

FROM debian:12-slim
ARG VERSION=dev
ARG COMMIT=unknown
LABEL org.opencontainers.image.title="routeshift" \
      org.opencontainers.image.description="OpenShift-style Routes for Kubernetes: admission webhook, Ingress-to-Route controller and HAProxy router" \
      org.opencontainers.image.source="https://github.com/routeshift/routeshift" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}"
# HAProxy carries the file capability NET_BIND_SERVICE so that the router,
# running as 65532, can bind ports below 1024 (the host-network overlay's 80
# and 443). The kernel refuses to run it unless the container keeps
# NET_BIND_SERVICE in its bounding set: every router manifest adds exactly
# that capability. tests/install reads this line and gives its HAProxy the
# same capabilities.
RUN apt-get update \
 && apt-get install -y --no-install-recommends haproxy ca-certificates libcap2-bin \
 && setcap cap_net_bind_service=+ep /usr/sbin/haproxy \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/routeshift /usr/local/bin/routeshift
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/routeshift"]
