#!/usr/bin/env bash
# bench/stream.sh — streams, Ruvio vs redis-server 7, side by side.
#
#   bench/stream.sh                          # xadd and readack, -P 1 and -P 16, ROUNDS=3, then memory
#   CASES="xadd" PIPELINES=16 MEMORY=0 bench/stream.sh
#
# Cases: xadd (redis-benchmark: XADD bench * with 5 fields, the stream growing through the
# run), readack (bench/streamload: each client XREADGROUP … COUNT 1 STREAMS s > then XACK of
# what it read, -P pairs per round trip; the stream is seeded with as many entries as the run
# consumes and the group created at 0 before each run). Same set-up as bench/run.sh core mode:
# both servers pinned to CPU 0, the load generator to CPU 1, -c 50; odd rounds start with
# redis-server, even rounds with Ruvio; every run is bounded (-n and a hard `timeout`).
# MEMORY=1 (default) then loads N_MEM entries (XADD mem * with 5 fields) into each server with
# redis-cli --pipe and prints resident memory and used_memory.
# Only the processes started here are stopped, by pid.
set -euo pipefail

ALL_CASES="xadd readack"
CASES=${CASES:-$ALL_CASES}
ROUNDS=${ROUNDS:-3}
PIPELINES=${PIPELINES:-"1 16"}
CLIENTS=${CLIENTS:-50}
N_P1=${N_P1:-100000}
N_PIPE=${N_PIPE:-500000}
N_MEM=${N_MEM:-1000000}
MEMORY=${MEMORY:-1}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
SEED_TIMEOUT=${SEED_TIMEOUT:-300}
RUVIO_WAL=${RUVIO_WAL:-true}
RUVIO_EXTRA=${RUVIO_EXTRA:-}
RUVIO_BIN=${RUVIO_BIN:-}
KEEP=${KEEP:-0}

NAME=stream
MODE=stream
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-benchmark redis-cli taskset go timeout
for c in $CASES; do [[ " $ALL_CASES " == *" $c "* ]] || die "unknown case $c (cases: $ALL_CASES)"; done

build_ruvio
(cd "$ROOT" && go build -o "$WORK/gen" ./bench/gen && go build -o "$WORK/streamload" ./bench/streamload) ||
	die "go build of bench/gen or bench/streamload failed"

FIELDS="f1 value-1 f2 value-2 f3 value-3 f4 value-4 f5 value-5"

start_cache_redis
start_cache_ruvio

cli() { redis-cli -h 127.0.0.1 -p "$@"; }

# seed_read port n: a stream of n entries and a group at 0.
seed_read() {
	local out
	# shellcheck disable=SC2086
	out=$("$WORK/gen" resp -n "$2" XADD s '*' $FIELDS | timeout -k 5 "$SEED_TIMEOUT" redis-cli -h 127.0.0.1 -p "$1" --pipe 2>&1) ||
		die "seeding port $1: $out"
	[[ "$out" == *"errors: 0,"* ]] || die "seeding port $1 reported errors: $out"
	[[ "$(cli "$1" xgroup create s g 0)" == OK ]] || die "XGROUP CREATE on port $1 failed"
}

bench_one() { # server port case pipeline n round
	local server=$1 port=$2 c=$3 pipe=$4 n=$5 round=$6 out t0 t1 secs line rps
	[[ "$(cli "$port" flushall 2>&1)" == OK ]] || die "FLUSHALL on $server failed"
	t0=$(date +%s.%N)
	case "$c" in
	xadd)
		# shellcheck disable=SC2046,SC2086
		out=$(timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") \
			redis-benchmark -h 127.0.0.1 -p "$port" -P "$pipe" -c "$CLIENTS" -n "$n" --csv XADD bench '*' $FIELDS 2>&1) ||
			log "redis-benchmark $server $c -P $pipe exited $? (timeout ${RUN_TIMEOUT}s?)"
		line=$(printf '%s\n' "$out" | grep '^"' | grep -v '^"test"' | tail -n 1 || true)
		rps=$(printf '%s' "$line" | tr -d '"' | awk -F, '{ print $(NF-6) }')
		;;
	readack)
		seed_read "$port" "$n"
		t0=$(date +%s.%N)
		# shellcheck disable=SC2046
		out=$(timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") \
			"$WORK/streamload" -addr "127.0.0.1:$port" -clients "$CLIENTS" -pipeline "$pipe" -n "$n" 2>&1) ||
			log "streamload $server -P $pipe exited $?: $out"
		rps=$(awk '{ for (i = 1; i < NF; i++) if ($i == "pairs_per_sec") print $(i+1) }' <<<"$out")
		;;
	esac
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	[[ -n "$rps" ]] || rps=NA
	echo "$MODE,$round,$server,$c,$pipe,$CLIENTS,$n,$secs,$rps,NA,NA,NA,NA,NA,NA,$(cut -d' ' -f1 /proc/loadavg)" >>"$RAW"
	printf 'stream: round %s %-6s %-8s -P %-3s %6.1fs rps=%s\n' "$round" "$server" "$c" "$pipe" "$secs" "$rps" >&2
}

START=$(date +%s)
for ((r = 1; r <= ROUNDS; r++)); do
	for c in $CASES; do
		for p in $PIPELINES; do
			if [[ "$p" == 1 ]]; then n=$N_P1; else n=$N_PIPE; fi
			if ((r % 2 == 1)); then
				bench_one redis "$REDIS_PORT" "$c" "$p" "$n" "$r"
				bench_one ruvio "$RUVIO_PORT" "$c" "$p" "$n" "$r"
			else
				bench_one ruvio "$RUVIO_PORT" "$c" "$p" "$n" "$r"
				bench_one redis "$REDIS_PORT" "$c" "$p" "$n" "$r"
			fi
		done
	done
done
ELAPSED=$(($(date +%s) - START))

echo
echo "# Streams, Ruvio vs redis-server — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, redis $(redis-server --version | awk '{sub(/^v=/, "", $3); print $3}'), ROUNDS=$ROUNDS, -c $CLIENTS"
echo "# xadd: XADD bench * (5 fields) in requests/s; readack: XREADGROUP COUNT 1 + XACK pairs/s"
echo "# redis-server (--save \"\" --appendonly no) and ruvio (1 shard, wal=$RUVIO_WAL fsync no, no snapshots) pinned to CPU $SERVER_CPU; load generator pinned to CPU ${CLIENT_CPU:-any}"
awk -f "$HERE/summarize.awk" -v ruvio=ruvio "$RAW"
echo "# load time ${ELAPSED}s"

[[ "$MEMORY" == 1 ]] || exit 0
rss_bytes() { awk '/^VmRSS:/{print $2 * 1024}' "/proc/$1/status"; }
field() { tr -d '\r' | awk -F: -v k="$1" '$1==k{print $2}'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "NA" }'; }
# shellcheck disable=SC2086
"$WORK/gen" resp -n "$N_MEM" XADD mem '*' $FIELDS >"$WORK/mem.resp"
mem_row() { # port pid
	local out base
	cli "$1" flushall >/dev/null
	cli "$1" memory purge >/dev/null 2>&1 || true
	sleep 1
	base=$(rss_bytes "$2")
	# shellcheck disable=SC2046
	out=$(timeout -k 5 "$SEED_TIMEOUT" $(pinprefix "$CLIENT_CPU") redis-cli -h 127.0.0.1 -p "$1" --pipe <"$WORK/mem.resp" 2>&1) ||
		die "loading port $1: $out"
	[[ "$(cli "$1" xlen mem)" == "$N_MEM" ]] || die "port $1: XLEN is not $N_MEM"
	sleep 5
	cli "$1" memory purge >/dev/null 2>&1 || true
	sleep 1
	echo "$base $(rss_bytes "$2") $(cli "$1" info memory | field used_memory) $(cli "$1" memory usage mem samples 0)"
}
read -r rb rr ru rm <<<"$(mem_row "$REDIS_PORT" "$REDIS_PID")"
read -r vb vr vu vm <<<"$(mem_row "$RUVIO_PORT" "$RUVIO_PID")"
echo
echo "# Memory for one stream of N=$N_MEM entries (XADD mem * $FIELDS)"
echo
echo "| | redis | ruvio | ruvio/redis |"
echo "|---|--:|--:|--:|"
echo "| RSS growth MB | $(mb $((rr - rb))) | $(mb $((vr - vb))) | $(ratio $((vr - vb)) $((rr - rb))) |"
echo "| RSS MB | $(mb "$rr") | $(mb "$vr") | $(ratio "$vr" "$rr") |"
echo "| used_memory MB | $(mb "$ru") | $(mb "$vu") | $(ratio "$vu" "$ru") |"
echo "| MEMORY USAGE mem MB | $(mb "$rm") | $(mb "$vm") | $(ratio "$vm" "$rm") |"
