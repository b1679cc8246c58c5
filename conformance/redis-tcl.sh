#!/usr/bin/env bash
# conformance/redis-tcl.sh — runs units of the Redis 7.0.15 TCL suite against Ruvio and prints
# passed/failed per unit beside the reference counts of redis-server 7.0.15 run the same way.
#
#   conformance/redis-tcl.sh [unit ...]             external mode: a fresh Ruvio per unit, the
#                                                   suite pointed at it (default: every unit the
#                                                   reference passes tests in)
#   MODE=normal conformance/redis-tcl.sh [unit ...] normal mode: the suite starts its own servers
#                                                   from its own generated redis.conf files, with
#                                                   Ruvio in place of src/redis-server (default:
#                                                   the units of the normal-mode reference)
#
# Environment: REDIS_TESTS (a redis 7.0.15 tree with tests/; default /tmp/redis-7.0.15),
# RUVIO_BIN (prebuilt binary; default: build), REFERENCE (the reference TSV), UNIT_TIMEOUT
# (seconds per unit, default 300), TEST_TIMEOUT (the suite's --timeout: seconds a test may go
# without progress before the suite gives up on it, default 180), SHARDS (default 1),
# RUVIO_EXTRA (more ruvio flags, e.g. "--reactor-per-shard=false"; external mode), KEEP=1 keeps
# logs and lists the failing tests.
# Normal mode only: TLS=1 runs the suite in its --tls mode (its own certificates from
# utils/gen-test-certs.sh; needs openssl and Tcl's tls package, Debian tcl-tls; reference
# reference-tcl-normal-tls-redis-7.0.15.tsv); SERVER_BIN runs another server in Ruvio's place (a redis-server 7.0.15 built
# from source, to make the reference: its counts are the reference file's rows), SKIPS (the
# skip list, conformance/tcl-normal-skips.tsv: tests that inspect Redis's internals, each with
# its reason).
# Redis's tests are never committed here: fetch the tree outside the project.
# shellcheck shell=bash
set -euo pipefail
NAME=tcl
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../bench/lib.sh"

MODE=${MODE:-external}
REDIS_TESTS=${REDIS_TESTS:-/tmp/redis-7.0.15}
UNIT_TIMEOUT=${UNIT_TIMEOUT:-300}
TEST_TIMEOUT=${TEST_TIMEOUT:-180}
SHARDS=${SHARDS:-1}
TAGS="-needs:debug -needs:repl -needs:config-maxmemory -needs:save -needs:pfdebug -needs:latency -needs:local-process"
case "$MODE" in
external) REFERENCE=${REFERENCE:-$ROOT/../shared/reference-tcl-redis-7.0.15.tsv} ;;
normal)
	if [[ "${TLS:-0}" == 1 ]]; then
		REFERENCE=${REFERENCE:-$HERE/../conformance/reference-tcl-normal-tls-redis-7.0.15.tsv}
	else
		REFERENCE=${REFERENCE:-$HERE/../conformance/reference-tcl-normal-redis-7.0.15.tsv}
	fi
	;;
*) die "MODE is external or normal, not $MODE" ;;
esac
SKIPS=${SKIPS:-$HERE/../conformance/tcl-normal-skips.tsv}

need tclsh8.6 redis-cli timeout
[[ -f "$REDIS_TESTS/tests/test_helper.tcl" ]] || die "no Redis test tree at $REDIS_TESTS (set REDIS_TESTS)"
if [[ -n "${SERVER_BIN:-}" ]]; then
	[[ "$MODE" == normal ]] || die "SERVER_BIN is for MODE=normal"
	cp "$SERVER_BIN" "$WORK/ruvio"
else
	build_ruvio
fi

units=("$@")
if [[ ${#units[@]} -eq 0 ]]; then
	[[ -f "$REFERENCE" ]] || die "no reference file $REFERENCE"
	if [[ "$MODE" == normal ]]; then
		mapfile -t units < <(awk -F'\t' 'NR > 1 { print $1 }' "$REFERENCE")
	else
		mapfile -t units < <(awk -F'\t' 'NR > 1 && $2 > 0 { print "unit/" $1 }' "$REFERENCE")
	fi
fi

# The normal mode runs the suite from a copy of its tree whose src/ holds the server under test
# as src/redis-server and Debian's redis-cli and redis-benchmark (the same tools for Ruvio and
# for the reference), and a skip file made from the skip list's names.
if [[ "$MODE" == normal ]]; then
	need redis-benchmark
	TREE="$WORK/tree"
	mkdir -p "$TREE/src"
	cp -a "$REDIS_TESTS/tests" "$TREE/tests"
	ln -s "$WORK/ruvio" "$TREE/src/redis-server"
	ln -s "$(command -v redis-cli)" "$TREE/src/redis-cli"
	ln -s "$(command -v redis-benchmark)" "$TREE/src/redis-benchmark"
	if [[ "${TLS:-0}" == 1 ]]; then
		# The suite's own certificates (its utils/gen-test-certs.sh, into tests/tls) and its
		# --tls mode: every server it starts serves TLS only, and its clients speak TLS.
		need openssl
		mkdir -p "$TREE/utils"
		cp "$REDIS_TESTS/utils/gen-test-certs.sh" "$TREE/utils/"
		(cd "$TREE" && ./utils/gen-test-certs.sh) >"$WORK/gen-test-certs.log" 2>&1 ||
			die "utils/gen-test-certs.sh failed (see $WORK/gen-test-certs.log)"
		echo 'package require tls' | tclsh8.6 >/dev/null 2>&1 || die "TLS=1 needs Tcl's tls package (Debian: tcl-tls)"
		TLS_FLAG=--tls
	fi
	: >"$WORK/skipfile"
	if [[ -z "${SERVER_BIN:-}" && -f "$SKIPS" ]]; then
		awk -F'\t' '!/^#/ && NF >= 3 { print $2 }' "$SKIPS" >"$WORK/skipfile"
	fi
fi

# run_unit UNIT DIR: runs one unit (unit/type/list, integration/replication) into DIR/tcl.log.
run_unit() {
	local unit=$1 dir=$2 port base pid
	if [[ "$MODE" == normal ]]; then
		base=$(free_port 1)
		# shellcheck disable=SC2086
		(cd "$TREE" && timeout "$UNIT_TIMEOUT" tclsh8.6 tests/test_helper.tcl --single "$unit" \
			--durable --clients 1 --timeout "$TEST_TIMEOUT" --baseport "$base" --portcount 2000 \
			--ignore-encoding --ignore-digest --skipfile "$WORK/skipfile" --dont-clean ${TLS_FLAG:-}) >"$dir/tcl.log" 2>&1 || true
		return
	fi
	port=$(free_port 1)
	base=$(free_port 1)
	# shellcheck disable=SC2086
	"$WORK/ruvio" --config "" --port "$port" --shards "$SHARDS" --dir "$dir/data" --fsync no \
		--loglevel warn ${RUVIO_EXTRA:-} >"$dir/server.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	wait_ready "$port" "$pid" ruvio
	(cd "$REDIS_TESTS" && timeout "$UNIT_TIMEOUT" tclsh8.6 tests/test_helper.tcl --host 127.0.0.1 \
		--port "$port" --single "$unit" --durable --clients 1 --timeout "$TEST_TIMEOUT" \
		--baseport "$base" --ignore-encoding --ignore-digest --tags "$TAGS") >"$dir/tcl.log" 2>&1 || true
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

ref_passed() { # unit name as in the TSV (type/list)
	[[ -f "$REFERENCE" ]] || { echo "?"; return; }
	awk -F'\t' -v u="$1" '$1 == u { print $2; found = 1 } END { if (!found) print "?" }' "$REFERENCE"
}

# skipped UNIT: how many of the unit's tests the skip list names (normal mode).
skipped() {
	[[ "$MODE" == normal && -z "${SERVER_BIN:-}" && -f "$SKIPS" ]] || { echo 0; return; }
	awk -F'\t' -v u="$1" '!/^#/ && $1 == u { n++ } END { print n + 0 }' "$SKIPS"
}

if [[ "$MODE" == normal ]]; then
	printf 'unit\tpassed\tfailed\treference\tskipped\tof comparable\n'
else
	printf 'unit\tpassed\tfailed\treference\n'
fi
total=0 total_ref=0 total_cmp=0
for unit in "${units[@]}"; do
	# External mode names units as the reference does (type/list); normal mode as the suite
	# does (unit/acl, integration/replication).
	if [[ "$MODE" == external ]]; then
		unit=${unit#unit/}
		name=$unit
		unit=unit/$unit
	else
		[[ "$unit" == unit/* || "$unit" == integration/* ]] || unit=unit/$unit
		name=$unit
	fi
	dir="$WORK/${unit//\//-}"
	mkdir -p "$dir"
	run_unit "$unit" "$dir"
	sed -i 's/\x1b\[[0-9;]*m//g' "$dir/tcl.log"
	passed=$(grep -c '^\[ok\]' "$dir/tcl.log" || true)
	# A unit that times out (a test waiting on something that never comes)
	# counts as one failure; the tests after it did not run.
	failed=$(grep -cE '^\[(err|exception|TIMEOUT)\]:' "$dir/tcl.log" || true)
	ref=$(ref_passed "$name")
	if [[ "$MODE" == normal ]]; then
		# The reference passes every test the skip list names, so the comparable count is the
		# reference's less the skipped tests.
		skip=$(skipped "$name")
		pct="?"
		if [[ "$ref" =~ ^[0-9]+$ ]]; then
			# A test that does not run in this mode (unit/tls without TLS=1: the reference
			# passes 0) is not skipped here either.
			((skip > ref)) && skip=$ref
			cmp=$((ref - skip))
			total_cmp=$((total_cmp + cmp))
			((cmp > 0)) && pct=$(awk -v p="$passed" -v c="$cmp" 'BEGIN { printf "%.1f%%", 100 * p / c }')
		fi
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$passed" "$failed" "$ref" "$skip" "$pct"
	else
		printf '%s\t%s\t%s\t%s\n' "$name" "$passed" "$failed" "$ref"
	fi
	total=$((total + passed))
	[[ "$ref" =~ ^[0-9]+$ ]] && total_ref=$((total_ref + ref))
	if [[ "$KEEP" == 1 ]]; then grep -E '^\[(err|exception|TIMEOUT)\]:|IN PROGRESS' "$dir/tcl.log" | sed 's/^/    /' >&2 || true; fi
done
if [[ "$MODE" == normal ]]; then
	printf 'total\t%s\t\t%s\t\t%s\n' "$total" "$total_ref" "$(awk -v p="$total" -v c="$total_cmp" 'BEGIN { if (c > 0) printf "%.1f%%", 100 * p / c; else print "?" }')"
else
	printf 'total\t%s\t\t%s\n' "$total" "$total_ref"
fi
