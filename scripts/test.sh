#!/usr/bin/env bash
# make test: vet, then every test. Packages with concurrency run under the
# race detector; the conformance suites run the real binaries against real
# servers and clients (see conformance/).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/bin:$PATH"
echo "== go vet"
go vet ./...
echo "== unit tests (race detector)"
go test -race -count=1 -timeout 10m ./domain/... ./ports/... ./app/... ./internal/... ./adapters/...
echo "== reference Control Plane, binaries and conformance suites"
go test -count=1 -timeout 15m -p 2 ./cmd/... ./conformance/...
echo "== Pact contract: consumer tests, then provider verification (scripts/test-pact.sh)"
./scripts/test-pact.sh
