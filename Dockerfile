# The routeshift image: the binary, plus HAProxy 2.6 (Debian 12) for the router.
#   docker build -t REGISTRY/routeshift:TAG . && docker push REGISTRY/routeshift:TAG
# then point the manifests at it:
#   cd manifests/base && kustomize edit set image routeshift=REGISTRY/routeshift:TAG
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags=-s -o /out/routeshift .

FROM debian:12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends haproxy ca-certificates libcap2-bin \
 && setcap cap_net_bind_service=+ep /usr/sbin/haproxy \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/routeshift /usr/local/bin/routeshift
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/routeshift"]
