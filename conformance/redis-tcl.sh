#!/usr/bin/env bash
# conformance/redis-tcl.sh — runs units of the Redis 7.0.15 TCL suite in external mode against
# Ruvio, a fresh server per unit, and prints passed/failed per unit beside the reference counts
# of redis-server 7.0.15 run the same way (shared/reference-tcl-redis-7.0.15.tsv).
#
#   conformance/redis-tcl.sh [unit ...]        default: every unit the reference passes tests in
#
# Environment: REDIS_TESTS (a redis 7.0.15 tree with tests/; default /tmp/redis-7.0.15),
# RUVIO_BIN (prebuilt binary; default: build), REFERENCE (the reference TSV), UNIT_TIMEOUT
# (seconds per unit, default 300), SHARDS (default 1), RUVIO_EXTRA (more ruvio flags, e.g.
# "--reactors 2"), KEEP=1 keeps logs.
# Redis's tests are never committed here: fetch the tree outside the project.
# shellcheck shell=bash
set -euo pipefail
NAME=tcl
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../bench/lib.sh"

REDIS_TESTS=${REDIS_TESTS:-/tmp/redis-7.0.15}
REFERENCE=${REFERENCE:-$ROOT/../shared/reference-tcl-redis-7.0.15.tsv}
UNIT_TIMEOUT=${UNIT_TIMEOUT:-300}
SHARDS=${SHARDS:-1}
TAGS="-needs:debug -needs:repl -needs:config-maxmemory -needs:save -needs:pfdebug -needs:latency -needs:local-process"

need tclsh8.6 redis-cli timeout
[[ -f "$REDIS_TESTS/tests/test_helper.tcl" ]] || die "no Redis test tree at $REDIS_TESTS (set REDIS_TESTS)"
build_ruvio

units=("$@")
if [[ ${#units[@]} -eq 0 ]]; then
	[[ -f "$REFERENCE" ]] || die "no reference file $REFERENCE"
	mapfile -t units < <(awk -F'\t' 'NR > 1 && $2 > 0 { print "unit/" $1 }' "$REFERENCE")
fi

ref_passed() { # unit name as in the TSV (type/list)
	[[ -f "$REFERENCE" ]] || { echo "?"; return; }
	awk -F'\t' -v u="$1" '$1 == u { print $2; found = 1 } END { if (!found) print "?" }' "$REFERENCE"
}

printf 'unit\tpassed\tfailed\treference\n'
total=0 total_ref=0
for unit in "${units[@]}"; do
	unit=${unit#unit/}
	port=$(free_port 1)
	base=$(free_port 1)
	dir="$WORK/${unit//\//-}"
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	"$WORK/ruvio" --config "" --port "$port" --shards "$SHARDS" --dir "$dir/data" --fsync no \
		--loglevel warn ${RUVIO_EXTRA:-} >"$dir/server.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	wait_ready "$port" "$pid" ruvio
	(cd "$REDIS_TESTS" && timeout "$UNIT_TIMEOUT" tclsh8.6 tests/test_helper.tcl --host 127.0.0.1 \
		--port "$port" --single "unit/$unit" --durable --clients 1 --timeout 180 \
		--baseport "$base" --ignore-encoding --ignore-digest --tags "$TAGS") >"$dir/tcl.log" 2>&1 || true
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	sed -i 's/\x1b\[[0-9;]*m//g' "$dir/tcl.log"
	passed=$(grep -c '^\[ok\]' "$dir/tcl.log" || true)
	# A unit that times out (a test waiting on something that never comes)
	# counts as one failure; the tests after it did not run.
	failed=$(grep -cE '^\[(err|exception|TIMEOUT)\]:' "$dir/tcl.log" || true)
	ref=$(ref_passed "$unit")
	printf '%s\t%s\t%s\t%s\n' "$unit" "$passed" "$failed" "$ref"
	total=$((total + passed))
	[[ "$ref" =~ ^[0-9]+$ ]] && total_ref=$((total_ref + ref))
	if [[ "$KEEP" == 1 ]]; then grep -E '^\[(err|exception|TIMEOUT)\]:|IN PROGRESS' "$dir/tcl.log" | sed 's/^/    /' >&2 || true; fi
done
printf 'total\t%s\t\t%s\n' "$total" "$total_ref"
