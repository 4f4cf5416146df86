#!/usr/bin/env bash
# make test: vet, then every test. Packages with concurrency run under the
# race detector; the conformance suites run the real binaries against real
# servers and clients (see conformance/). Every fuzz target runs for 10 s
# (scripts/fuzz.sh); its seed corpus runs with the unit tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/bin:$PATH"
echo "== go vet"
go vet ./...
echo "== unit tests (race detector)"
go test -race -count=1 -timeout 10m ./domain/... ./ports/... ./app/... ./internal/... ./adapters/...
echo "== fuzz targets, 10 s each (their seed corpora already ran above as tests; make fuzz runs them longer)"
FUZZTIME=10s ./scripts/fuzz.sh
echo "== reference Control Plane, binaries and conformance suites"
go test -count=1 -timeout 15m -p 2 ./cmd/... ./conformance/...
echo "== Pact contract: consumer tests, then provider verification (scripts/test-pact.sh)"
./scripts/test-pact.sh
