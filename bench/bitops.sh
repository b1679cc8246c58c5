#!/usr/bin/env bash
# bench/bitops.sh — bitmap and HyperLogLog commands, Ruvio vs redis-server 7, side by side.
#
#   bench/bitops.sh                        # every case, -P 1 and -P 16, ROUNDS=3, ~3-5 min
#   CASES="bitcount" PIPELINES=1 bench/bitops.sh
#
# Cases: bitcount (BITCOUNT of one 1 MiB random string), pfadd (PFADD of random elements to
# one key, dense after the first few hundred), pfcount (PFCOUNT of one key of 100000 elements:
# the cached estimate, the usual case), pfcount2 (PFCOUNT of two such keys: merged and counted
# on every call, no cache). Same set-up as `bench/run.sh` core mode and `bench/keyjobs.sh`:
# both servers pinned to CPU 0, redis-benchmark on CPU 1, -c 50; each run starts from
# FLUSHALL plus the case's seed data, identical on both servers; odd rounds start with
# redis-server, even rounds with Ruvio; every run is bounded (-n and a hard `timeout`);
# free loopback ports; only the processes started here are stopped (by pid).
set -euo pipefail

ALL_CASES="bitcount pfadd pfcount pfcount2"
CASES=${CASES:-$ALL_CASES}
ROUNDS=${ROUNDS:-3}
PIPELINES=${PIPELINES:-"1 16"}
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-1000000}      # -r: distinct PFADD elements
N_BITCOUNT=${N_BITCOUNT:-20000}    # -n for bitcount (each call reads 1 MiB)
N_PFCOUNT2=${N_PFCOUNT2:-20000}    # -n for pfcount2 (each call merges two dense values)
N_P1=${N_P1:-100000}               # -n at -P 1 for the other cases
N_PIPE=${N_PIPE:-1000000}          # -n at -P > 1 for the other cases
HLL_ELEMENTS=${HLL_ELEMENTS:-100000}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
SEED_TIMEOUT=${SEED_TIMEOUT:-300}
RUVIO_WAL=${RUVIO_WAL:-true}
RUVIO_EXTRA=${RUVIO_EXTRA:-}
RUVIO_BIN=${RUVIO_BIN:-}
RAW_OUT=${RAW_OUT:-}
KEEP=${KEEP:-0}

NAME=bitops
MODE=bitops
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-benchmark redis-cli taskset go timeout
for c in $CASES; do [[ " $ALL_CASES " == *" $c "* ]] || die "unknown case $c (cases: $ALL_CASES)"; done

build_ruvio
(cd "$ROOT" && go build -o "$WORK/gen" ./bench/gen) || die "go build ./bench/gen failed"
head -c 1048576 /dev/urandom >"$WORK/bitmap.bin"

start_cache_redis
start_cache_ruvio

cli() { redis-cli -h 127.0.0.1 -p "$@"; }
R=__rand_int__

case_cmd() {
	case "$1" in
	bitcount) echo "BITCOUNT bm" ;;
	pfadd) echo "PFADD hll el:$R" ;;
	pfcount) echo "PFCOUNT hll" ;;
	pfcount2) echo "PFCOUNT hll hll2" ;;
	esac
}

# seed port case: the data a case starts from, the same on both servers.
seed() {
	local port=$1 c=$2 out
	case "$c" in
	bitcount)
		out=$(cli "$port" -x SET bm <"$WORK/bitmap.bin" 2>&1)
		[[ "$out" == OK ]] || die "seeding bitcount: $out" ;;
	pfcount | pfcount2)
		out=$( { "$WORK/gen" resp -n "$HLL_ELEMENTS" PFADD hll 'a:{i}'; "$WORK/gen" resp -n "$HLL_ELEMENTS" PFADD hll2 'b:{i}'; } |
			timeout -k 5 "$SEED_TIMEOUT" redis-cli -h 127.0.0.1 -p "$port" --pipe 2>&1) || die "seeding $c: $out"
		[[ "$out" == *"errors: 0,"* ]] || die "seeding $c reported errors: $out"
		cli "$port" PFCOUNT hll >/dev/null ;; # the estimate is cached from here on
	esac
}

bench_one() { # server port case pipeline n round
	local server=$1 port=$2 c=$3 pipe=$4 n=$5 round=$6 out t0 t1 secs line
	[[ "$(cli "$port" flushall 2>&1)" == OK ]] || die "FLUSHALL on $server failed"
	seed "$port" "$c"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2046
	out=$(timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") \
		redis-benchmark -h 127.0.0.1 -p "$port" -P "$pipe" -c "$CLIENTS" -n "$n" -r "$KEYSPACE" --csv \
		$(case_cmd "$c") 2>&1) || log "redis-benchmark $server $c -P $pipe exited $? (timeout ${RUN_TIMEOUT}s?)"
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	line=$(printf '%s\n' "$out" | grep '^"' | grep -v '^"test"' | tail -n 1 || true)
	if [[ -z "$line" ]]; then
		log "no CSV from $server $c -P $pipe; output was:"
		printf '%s\n' "$out" | tail -n 5 >&2
		line='"x","NA","NA","NA","NA","NA","NA","NA"'
	fi
	line=$(printf '%s' "$line" | tr -d '"' | awk -F, '{ print $(NF-6)","$(NF-5)","$(NF-4)","$(NF-3)","$(NF-2)","$(NF-1)","$NF }')
	echo "$MODE,$round,$server,$c,$pipe,$CLIENTS,$n,$secs,$line,$(cut -d' ' -f1 /proc/loadavg)" >>"$RAW"
	printf 'bitops: round %s %-6s %-9s -P %-3s %6.1fs rps=%s\n' "$round" "$server" "$c" "$pipe" "$secs" "$(cut -d, -f1 <<<"$line")" >&2
}

# One sample reply per case and server: both answer the same.
for c in $CASES; do
	for s in redis ruvio; do
		port=$RUVIO_PORT; [[ $s == redis ]] && port=$REDIS_PORT
		cli "$port" flushall >/dev/null
		seed "$port" "$c"
		cmd=$(case_cmd "$c"); cmd=${cmd//$R/1}
		# shellcheck disable=SC2086
		log "sample $c $s: $cmd -> $(cli "$port" $cmd 2>&1 | tr '\n' ' ' | cut -c1-60)"
	done
done

START=$(date +%s)
for ((r = 1; r <= ROUNDS; r++)); do
	for c in $CASES; do
		for p in $PIPELINES; do
			if [[ $c == bitcount ]]; then n=$N_BITCOUNT; elif [[ $c == pfcount2 ]]; then n=$N_PFCOUNT2; elif [[ "$p" == 1 ]]; then n=$N_P1; else n=$N_PIPE; fi
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
echo "# Bitmaps and HyperLogLog, Ruvio vs redis-server — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, redis $(redis-server --version | awk '{sub(/^v=/, "", $3); print $3}'), ROUNDS=$ROUNDS, -c $CLIENTS"
echo "# redis-server (--save \"\" --appendonly no) and ruvio (1 shard, wal=$RUVIO_WAL fsync no, no snapshots) pinned to CPU $SERVER_CPU; redis-benchmark pinned to CPU ${CLIENT_CPU:-any}"
awk -f "$HERE/summarize.awk" -v ruvio=ruvio "$RAW"
echo "# load time ${ELAPSED}s; 1-min load average during runs: $(awk -F, 'NF>=16 && $16!=""{s+=$16; n++; if($16>m)m=$16} END{if(n) printf "mean %.1f, max %.1f", s/n, m; else print "n/a"}' "$RAW") (2 = just this benchmark)"
echo "# raw rows: mode,round,server,test,pipeline,clients,n,secs,rps,avg,min,p50,p95,p99,max,load1"
