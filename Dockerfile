# The Sidecar's image, for anyone with a registry: `docker build .` pulls
# golang:1.26-bookworm, assembles the filesystem with scripts/image-rootfs.sh
# (both binaries statically linked, CA certificates, the non-root user hoop
# 65532) and copies it into an empty image. `make image` builds the same last
# stage from Dockerfile.local without any registry (docs/container.md).
# Pass --build-arg VERSION=… REVISION=… for the OCI labels.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN scripts/image-rootfs.sh /rootfs

FROM scratch
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="hoop sidecar" \
      org.opencontainers.image.description="Approval gate between AI agents and the systems they touch (PostgreSQL, HTTP, gRPC, MCP); also holds the reference Control Plane (/usr/local/bin/controlplane)" \
      org.opencontainers.image.source="https://github.com/hoophq/sidecar" \
      org.opencontainers.image.url="https://github.com/hoophq/sidecar" \
      org.opencontainers.image.documentation="https://github.com/hoophq/sidecar/blob/main/docs/container.md" \
      org.opencontainers.image.vendor="hoop.dev" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY --from=build /rootfs/ /
USER 65532:65532
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
WORKDIR /tmp
ENTRYPOINT ["/usr/local/bin/sidecar"]
CMD ["run", "--config", "/etc/hoop/config.yaml"]
