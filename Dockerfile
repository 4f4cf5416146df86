# Builds both binaries. Not exercised on the development machines (no Docker engine there).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -o /out/sidecar ./cmd/sidecar && CGO_ENABLED=0 go build -o /out/controlplane ./cmd/controlplane

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/sidecar"]
