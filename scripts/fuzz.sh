#!/usr/bin/env bash
# make fuzz (and the fuzz step of make test): runs every go fuzz target in
# the tree (go test takes one -fuzz target per run; FUZZLANES of them run at
# a time, below), each for FUZZTIME (default 10s; make fuzz passes a longer
# one). Targets are found by
# their declaration, `func FuzzName(f *testing.F)` in a _test.go file, so a
# target added anywhere is run without touching this script. One line per
# target: package, name, executions, and ok or FAIL; the failing targets'
# output follows the last target's line and the new crasher is left in
# <package>/testdata/fuzz/<FuzzName>/ to check in as a regression seed; a
# last line counts targets, executions and failures.
# Usage: scripts/fuzz.sh [package-dir-or-pattern...]   (default: the whole tree)
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-10s}"
# How long the fuzzer may shrink each new interesting input or crasher
# (go test's -fuzzminimizetime, default 60s). It counts against FUZZTIME: in
# make test's 10 s runs the default let one minimization take a target's
# whole run (FuzzRecordReader: 49 executions in 5 s, 78,815 with 0), so
# make test passes 0 (a crasher is then kept as found, not shrunk).
FUZZMINIMIZETIME="${FUZZMINIMIZETIME:-60s}"
roots=("${@:-.}")

targets=$(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\([A-Za-z0-9_]+ \*testing\.F\)' \
	--exclude-dir=node_modules --exclude-dir=.tools --exclude-dir=vendor --exclude-dir=.git "${roots[@]}" |
	sed -E 's#^(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' | sort -u)
if [ -z "$targets" ]; then
	echo "fuzz: no fuzz targets under ${roots[*]}"
	exit 0
fi

# Each package's test binary is built once, with the fuzzing instrumentation
# `go test -fuzz` adds (go test -c -fuzz), and runs each of its targets in
# the package's directory (seeds and new crashers in testdata/fuzz), with
# the corpus cache go test itself uses ($GOCACHE/fuzz/<import path>).
#
# The packages are shared among FUZZLANES lanes (default: one per CPU),
# balanced by their target counts; a lane builds and fuzzes its packages
# one target at a time, with nproc/FUZZLANES fuzz workers (-test.parallel).
# On 2 cores two targets with one worker each keep both cores fuzzing, as
# one target with two workers did, in half the wall time: each target gets
# FUZZTIME of one core instead of two, and a lane's build overlaps the
# other lane's fuzzing.
bins=$(mktemp -d)
trap 'rm -rf "$bins"' EXIT
cache="$(go env GOCACHE)/fuzz"
cpus=$(nproc 2>/dev/null || echo 1)
lanes="${FUZZLANES:-$cpus}"
if ! [ "$lanes" -ge 1 ] 2>/dev/null; then
	echo "fuzz: FUZZLANES must be a whole number of lanes, at least 1 (got '$lanes')" >&2
	exit 2
fi

# lane_of: "<lane> <dir> <name>" per target, each package in one lane, the
# largest packages first into the lane with the fewest targets so far.
assignment=$(awk -v lanes="$lanes" '
	{ n[$1]++; t[$1] = t[$1] $2 " " }
	END {
		for (p in n) order[++k] = p
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (n[order[j]] > n[order[i]] || (n[order[j]] == n[order[i]] && order[j] < order[i])) { x = order[i]; order[i] = order[j]; order[j] = x }
		for (i = 1; i <= k; i++) {
			best = 0
			for (l = 1; l < lanes; l++) if (load[l] < load[best]) best = l
			load[best] += n[order[i]]
			m = split(t[order[i]], names, " ")
			for (j = 1; j <= m; j++) print best, order[i], names[j]
		}
	}' <<<"$targets" | sort -s -k1,1n)

# run_lane fuzzes lane $1's targets; it prints one line per target and
# appends "<result> <execs>" to $bins/results and a failing target's output
# to $bins/failures.
run_lane() {
	local lane=$1 built_dir="" build_ok=0 bin="" build_log="$bins/build.$1.log" importpath=""
	local dir name pkg log result execs replay corpus
	while read -r _ dir name; do
		pkg="./${dir#./}"
		log=$(mktemp)
		result=FAIL
		if [ "$dir" != "$built_dir" ]; then
			built_dir=$dir
			bin="$bins/$(echo "${dir#./}" | tr / _).test"
			if go test -c -fuzz=. -o "$bin" "$pkg" >"$build_log" 2>&1; then build_ok=1; else build_ok=0; fi
			importpath=$(go list "$pkg")
		fi
		if [ "$build_ok" = 0 ]; then
			cp "$build_log" "$log"
		else
			if (cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "$FUZZTIME" \
				-test.parallel "$workers" -test.fuzzminimizetime "$FUZZMINIMIZETIME" \
				-test.fuzzcachedir "$cache/$importpath") >"$log" 2>&1; then
				result=ok
			elif grep -q 'context deadline exceeded' "$log" &&
				! grep -qE 'Failing input written to|panic:|_test\.go:[0-9]+:|hung or terminated' "$log"; then
				# Go 1.26's fuzz coordinator can fail a target with a bare "context
				# deadline exceeded" at the -fuzztime boundary, having found nothing
				# (go.dev/issue/75804, fixed in Go 1.27): it compares the deadline's
				# error on the parent context with the child's before the child has
				# been cancelled. Running it again is no cure (it struck one target
				# twice in a row in CI), so the run's whole corpus (seeds and every
				# input this and earlier runs kept) is replayed with an execution
				# count instead of a duration, which has no deadline to race: as many
				# executions as the corpus has entries (the run's last "total: N"; the
				# baseline pass counts against -fuzztime Nx) and one more. A target
				# passes if that replay does.
				corpus=$(grep -Eo 'total: [0-9]+|coverage: [0-9]+/[0-9]+' "$log" | grep -Eo '[0-9]+$' | sort -n | tail -1)
				echo "fuzz: $pkg $name: Go's fuzztime deadline race (go.dev/issue/75804), no input found; replaying its ${corpus:-0} corpus entries without a deadline"
				replay=$(mktemp)
				if (cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "$((${corpus:-0} + 1))x" \
					-test.parallel "$workers" -test.fuzzminimizetime "$FUZZMINIMIZETIME" \
					-test.fuzzcachedir "$cache/$importpath") >"$replay" 2>&1; then
					result=ok
				else
					{ echo "--- the replay of the corpus without a deadline:"; cat "$replay"; } >>"$log"
				fi
				rm -f "$replay"
			fi
		fi
		execs=$(grep -Eo 'execs: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)
		printf '%-4s %-40s %-22s %s execs in %s\n' "$result" "$pkg" "$name" "${execs:-?}" "$FUZZTIME"
		echo "$result ${execs:-0}" >>"$bins/results"
		if [ "$result" = FAIL ]; then
			{ echo "FAIL $pkg $name:"; sed 's/^/    /' "$log"; } >>"$bins/failures.$lane"
		fi
		rm -f "$log"
	done < <(awk -v lane="$lane" '$1 == lane' <<<"$assignment")
}

used_lanes=$(awk '{print $1}' <<<"$assignment" | sort -u)
# Fewer packages than lanes: the lanes that run share every core.
workers=$((cpus / $(wc -w <<<"$used_lanes")))
[ "$workers" -ge 1 ] || workers=1
pids=()
for lane in $used_lanes; do
	run_lane "$lane" &
	pids+=($!)
done
lane_failed=0
for p in "${pids[@]}"; do wait "$p" || lane_failed=1; done
failed=0 total=0 execs_total=0
touch "$bins/results"
while read -r result execs; do
	total=$((total + 1))
	execs_total=$((execs_total + execs))
	if [ "$result" = FAIL ]; then failed=$((failed + 1)); fi
done <"$bins/results"
# A lane that stopped early (a command of its own failed) leaves targets
# without a line: each counts as failed.
expected=$(wc -l <<<"$targets")
if [ "$lane_failed" = 1 ] || [ "$total" -lt "$expected" ]; then
	echo "fuzz: a lane stopped early: $((expected - total)) of $expected targets did not run"
	failed=$((failed + expected - total))
fi
cat "$bins"/failures.* 2>/dev/null || true
lanes_used=$(wc -w <<<"$used_lanes")
echo "fuzz: $total targets, $execs_total executions, $failed failed ($FUZZTIME each, $lanes_used at a time with $workers worker(s) each)"

# make fuzz (FUZZ_DIFFERENTIAL=1) also runs the SQL differential tests
# (conformance/differential) for HOOP_DIFF_DURATION per server; make test
# runs them for their default minute with the other conformance suites.
if [ "${FUZZ_DIFFERENTIAL:-}" = 1 ]; then
	export HOOP_DIFF_DURATION="${HOOP_DIFF_DURATION:-$FUZZTIME}"
	echo "fuzz: the SQL differential tests, $HOOP_DIFF_DURATION per server (conformance/differential)"
	log=$(mktemp)
	rc=0
	go test -count=1 -timeout 0 -v -run 'Differential$' ./conformance/differential/ >"$log" 2>&1 || rc=$?
	grep -iE 'seed|texts run|bypass|over-refusal|known|^(--- |ok|FAIL|PASS)' "$log" || true
	if [ "$rc" != 0 ]; then
		failed=$((failed + 1))
		echo "FAIL ./conformance/differential (full output: go test -v -run Differential ./conformance/differential/)"
	fi
	rm -f "$log"
fi

if [ "$failed" -gt 0 ]; then
	echo "fuzz: $failed target(s) failed"
	exit 1
fi
