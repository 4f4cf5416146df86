#!/usr/bin/env bash
# make test: vet, then every test. Packages with concurrency run under the
# race detector; the conformance suites run the real binaries against real
# servers and clients (see conformance/). Every fuzz target runs for 10 s
# (scripts/fuzz.sh); its seed corpus runs with the unit tests.
#
# Each phase prints its start (UTC) and its duration; the go test phases run
# under gotestsum (installed by make deps), which prints one line per package
# and, after the phase, the skipped and failed tests by name. The last line
# counts packages, tests passed, skipped and failed, and fuzz targets and
# executions, over the whole run.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/bin:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
began=$(date +%s)
phases=""

# phase NAME CMD...: runs CMD as one timed phase; a failure stops make test
# after printing the summary of what ran.
phase() {
	local name=$1 start rc=0
	shift
	start=$(date +%s)
	echo "== $(date -u +%H:%M:%S) $name"
	"$@" || rc=$?
	local took=$(($(date +%s) - start))
	phases="$phases, $name ${took}s"
	echo "== $(date -u +%H:%M:%S) $name: $([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)") in ${took}s"
	if [ "$rc" != 0 ]; then
		summary
		exit "$rc"
	fi
}

# gotests JSONFILE GO-TEST-ARGS...: go test under gotestsum.
gotests() {
	local json=$1
	shift
	gotestsum --format pkgname --format-hide-empty-pkg --jsonfile "$json" -- "$@"
}

# summary prints the last line: counts over every go test event file and
# the fuzz phase's own count line.
summary() {
	local events="$work"/*.json
	count() { cat $events 2>/dev/null | grep -E "\"Action\":\"$1\"" | grep -c "$2" || true; }
	local pkgs passed skipped failed names fuzz
	pkgs=$(cat $events 2>/dev/null | grep -E '"Action":"(pass|fail|skip)"' | grep -v '"Test":' |
		sed -E 's/.*"Package":"([^"]*)".*/\1/' | sort -u | wc -l || true)
	passed=$(count pass '"Test":')
	skipped=$(count skip '"Test":')
	failed=$(count fail '"Test":')
	names=$(cat $events 2>/dev/null | grep -E '"Action":"skip"' | grep '"Test":' |
		sed -E 's/.*"Test":"([^"]*)".*/\1/' | sort -u | paste -sd, - | sed 's/,/, /g' || true)
	fuzz=$(grep -h '^fuzz: [0-9]* targets' "$work/fuzz.log" 2>/dev/null | sed 's/^fuzz: //' || echo "not run")
	echo "== make test: $pkgs packages, $passed tests passed, $skipped skipped${names:+ ($names)}, $failed failed;" \
		"fuzz: $fuzz; $(($(date +%s) - began))s in all (${phases#, })"
}

# No minimizing in these brief runs: it counts against each target's 10 s
# (scripts/fuzz.sh, FUZZMINIMIZETIME); make fuzz keeps go test's 60 s.
fuzz() { FUZZTIME=10s FUZZMINIMIZETIME=0 ./scripts/fuzz.sh | tee "$work/fuzz.log"; }

phase "go vet" go vet ./...
phase "unit tests (race detector)" gotests "$work/unit.json" \
	-race -count=1 -timeout 10m ./domain/... ./ports/... ./app/... ./internal/... ./adapters/...
# The long streaming tests skip under the race detector (tenfold slower);
# they run here without it, so their memory bounds are checked every time.
phase "long streams without the race detector" gotests "$work/long.json" \
	-count=1 -timeout 5m -run 'FlatMemory' ./adapters/inbound/mongodb/
# The seed corpora already ran above as tests; make fuzz runs them longer.
phase "fuzz targets, 10 s each" fuzz
phase "reference Control Plane, binaries and conformance suites" gotests "$work/conformance.json" \
	-count=1 -timeout 15m -p 2 ./cmd/... ./conformance/...
phase "Pact contract: consumer tests, then provider verification (scripts/test-pact.sh)" ./scripts/test-pact.sh
summary
