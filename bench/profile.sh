#!/usr/bin/env bash
# bench/profile.sh — where does ruvio spend its CPU under redis-benchmark load?
#
#   bench/profile.sh                       # SET -P 16 and GET -P 1, 1 shard pinned to CPU 0
#   CASES="incr:1 mset:16" bench/profile.sh
#
# ruvio has no pprof endpoint, so this samples the running process with `perf record -g`
# (Go keeps frame pointers, so call graphs work without DWARF), and runs ruvio with
# GODEBUG=gctrace=1 to count garbage collections per run (an allocation-rate signal).
# Same set-up as `bench/run.sh` core mode: ruvio (1 shard, --fsync no) on CPU 0,
# redis-benchmark on CPU 1. Each case is bounded by -n and a hard timeout.
set -euo pipefail

CASES=${CASES:-"set:16 get:1"}  # test:pipeline
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-100000}
N_P1=${N_P1:-80000}
N_PIPE=${N_PIPE:-800000}
FREQ=${FREQ:-999}                # perf sampling frequency, Hz
TOP=${TOP:-25}                   # lines of each report to print
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-60}
RUVIO_BIN=${RUVIO_BIN:-}         # prebuilt ruvio binary (default: go build from the repo root)
OUT=${OUT:-}                     # keep perf.data files and reports here (default: temp, removed)

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ruvio-prof.XXXXXX")
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]:-}"; do [[ -n "$p" ]] && kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]:-}"; do
		[[ -n "$p" ]] || continue
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() { echo "profile: $*" >&2; exit 1; }

command -v perf >/dev/null || die "perf not found (Debian: apt-get install linux-perf)"
[[ -z "$OUT" ]] || mkdir -p "$OUT"

if [[ -n "${RUVIO_BIN:-}" ]]; then
	cp "$RUVIO_BIN" "$WORK/ruvio"
else
	(cd "$ROOT" && go build -o "$WORK/ruvio" .) || die "go build failed (set RUVIO_BIN=path to use a prebuilt binary)"
fi

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT=
for _ in $(seq 200); do p=$((20000 + RANDOM % 40000)); port_free "$p" && { PORT=$p; break; }; done
[[ -n "$PORT" ]] || die "no free port"

mkdir -p "$WORK/data"
GODEBUG=gctrace=1 taskset -c "$SERVER_CPU" "$WORK/ruvio" --config "" --port "$PORT" --dir "$WORK/data" \
	--shards 1 --fsync no --loglevel warn >"$WORK/ruvio.out" 2>"$WORK/ruvio.err" &
PID=$!
PIDS+=("$PID")
for _ in $(seq 100); do
	[[ "$(redis-cli -p "$PORT" ping 2>/dev/null || true)" == PONG ]] && break
	kill -0 "$PID" 2>/dev/null || die "ruvio exited: $(tail -3 "$WORK/ruvio.err")"
	sleep 0.1
done

# warm up: fill the keyspace so GET finds keys
timeout 30 taskset -c "$CLIENT_CPU" redis-benchmark -p "$PORT" -t set -P 16 -c "$CLIENTS" -n 200000 \
	-r "$KEYSPACE" -q >/dev/null 2>&1 || true

gcs() { grep -c '^gc ' "$WORK/ruvio.err" || true; }

for c in $CASES; do
	IFS=: read -r t p <<<"$c"
	n=$N_P1; [[ "$p" != 1 ]] && n=$N_PIPE
	[[ "$t" == mset ]] && n=$((n / 2))
	data="$WORK/perf-$t-P$p.data"
	gc0=$(gcs)
	perf record -q -F "$FREQ" -g -p "$PID" -o "$data" 2>"$WORK/perf.err" &
	PERF=$!
	PIDS+=("$PERF")
	sleep 0.3
	res=$(timeout -k 5 "$RUN_TIMEOUT" taskset -c "$CLIENT_CPU" redis-benchmark -p "$PORT" -t "$t" \
		-P "$p" -c "$CLIENTS" -n "$n" -r "$KEYSPACE" --csv 2>&1 | grep '^"' | grep -v '^"test"' | tail -1 || true)
	kill -INT "$PERF" 2>/dev/null || true
	wait "$PERF" 2>/dev/null || true
	gc1=$(gcs)
	echo "=================================================================="
	echo "== ${t^^} -P $p -c $CLIENTS -n $n: $res"
	echo "== GC cycles during the run: $((gc1 - gc0))  (GODEBUG=gctrace=1)"
	echo "== self time by symbol (perf report --no-children), all threads of ruvio"
	perf report -i "$data" --no-children --sort symbol --stdio -g none --percent-limit 0.7 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n "$TOP" || true
	echo "== inclusive time by symbol (perf report --children), Go frames"
	perf report -i "$data" --children --sort symbol --stdio -g none --percent-limit 3 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n "$TOP" || true
	if [[ -n "$OUT" ]]; then
		cp "$data" "$OUT/"
		perf report -i "$data" --no-children --stdio -G 2>/dev/null >"$OUT/report-$t-P$p.txt" || true
	fi
done
echo "== last gctrace lines"
grep '^gc ' "$WORK/ruvio.err" | tail -n 3 || true
