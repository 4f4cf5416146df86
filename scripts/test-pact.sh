#!/usr/bin/env bash
# The Pact contract between the Sidecar and its Control Plane
# (docs/contract-testing.md): first the consumer tests (the Sidecar's real
# client against the Pact mock server; they fail when the pact they write
# differs from pacts/), then the provider verification of the committed pact
# against the reference Control Plane. Installs libpact_ffi first when it is
# missing (scripts/deps.d/pact.sh). Extra arguments go to both `go test`s,
# e.g. -run or -v. UPDATE_PACT=1 rewrites pacts/ from the consumer tests.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.d/pact.sh

export CGO_ENABLED=1
export CGO_LDFLAGS="-L$PACT_LIB_DIR -Wl,-rpath,$PACT_LIB_DIR${CGO_LDFLAGS:+ $CGO_LDFLAGS}"
export LD_LIBRARY_PATH="$PACT_LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

echo "== go vet -tags pact (Pact tests)"
go vet -tags pact ./conformance/pact/...
echo "== Pact consumer tests (write the pact, compare with pacts/)"
go test -tags pact -count=1 -timeout 5m "$@" ./conformance/pact/consumer/
echo "== Pact provider verification (reference Control Plane against pacts/)"
go test -tags pact -count=1 -timeout 5m "$@" ./conformance/pact/provider/
