#!/usr/bin/env bash
# bench/geo.sh — GEOSEARCH over one sorted set of 1M members, Ruvio vs redis-server 7, side by side.
#
#   bench/geo.sh                           # every case, -P 1 and -P 16, ROUNDS=3, ~3-5 min
#   CASES="radius" PIPELINES=1 bench/geo.sh
#
# The data: GEO_MEMBERS (1M) points spread uniformly over longitude 0..20, latitude 40..60
# (awk's rand() with a fixed seed, written once and piped into both servers). Cases: radius
# (GEOSEARCH FROMLONLAT 10 50 BYRADIUS 10 km: about a hundred members in no order), radius_asc
# (the same, WITHDIST ASC COUNT 10), box (BYBOX 20 20 km WITHCOORD). Same set-up as
# `bench/bitops.sh`: both servers pinned to CPU 0, redis-benchmark on CPU 1, -c 50; the data is
# loaded once per server; odd rounds start with redis-server, even rounds with Ruvio; every
# run is bounded (-n and a hard `timeout`); free loopback ports; only the processes started here
# are stopped (by pid).
set -euo pipefail

ALL_CASES="radius radius_asc box"
CASES=${CASES:-$ALL_CASES}
ROUNDS=${ROUNDS:-3}
PIPELINES=${PIPELINES:-"1 16"}
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-1000000}      # -r (unused by the commands; kept for the table)
N_P1=${N_P1:-50000}                # -n at -P 1
N_PIPE=${N_PIPE:-200000}           # -n at -P > 1
GEO_MEMBERS=${GEO_MEMBERS:-1000000}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
SEED_TIMEOUT=${SEED_TIMEOUT:-300}
RUVIO_WAL=${RUVIO_WAL:-true}
RUVIO_EXTRA=${RUVIO_EXTRA:-}
RUVIO_BIN=${RUVIO_BIN:-}
RAW_OUT=${RAW_OUT:-}
KEEP=${KEEP:-0}

NAME=geo
MODE=geo
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-benchmark redis-cli taskset go timeout
for c in $CASES; do [[ " $ALL_CASES " == *" $c "* ]] || die "unknown case $c (cases: $ALL_CASES)"; done

build_ruvio
awk -v n="$GEO_MEMBERS" 'BEGIN { srand(14); for (i = 0; i < n; i += 100) { printf "GEOADD geo"; for (j = i; j < i + 100 && j < n; j++) printf " %.6f %.6f m:%d", rand() * 20, 40 + rand() * 20, j; printf "\r\n" } }' >"$WORK/geo.txt"

start_cache_redis
start_cache_ruvio

cli() { redis-cli -h 127.0.0.1 -p "$@"; }
R=__rand_int__

case_cmd() {
	case "$1" in
	radius) echo "GEOSEARCH geo FROMLONLAT 10 50 BYRADIUS 10 km" ;;
	radius_asc) echo "GEOSEARCH geo FROMLONLAT 10 50 BYRADIUS 10 km WITHDIST ASC COUNT 10" ;;
	box) echo "GEOSEARCH geo FROMLONLAT 10 50 BYBOX 20 20 km WITHCOORD" ;;
	esac
}

# load port: the sorted set every case reads, the same on both servers.
load() {
	local port=$1 out
	out=$(timeout -k 5 "$SEED_TIMEOUT" redis-cli -h 127.0.0.1 -p "$port" --pipe <"$WORK/geo.txt" 2>&1) || die "loading: $out"
	[[ "$out" == *"errors: 0,"* ]] || die "loading reported errors: $out"
	[[ "$(cli "$port" zcard geo)" == "$GEO_MEMBERS" ]] || die "loading: zcard is $(cli "$port" zcard geo)"
}
load "$REDIS_PORT"
load "$RUVIO_PORT"

bench_one() { # server port case pipeline n round
	local server=$1 port=$2 c=$3 pipe=$4 n=$5 round=$6 out t0 t1 secs line
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
	printf 'geo: round %s %-6s %-9s -P %-3s %6.1fs rps=%s\n' "$round" "$server" "$c" "$pipe" "$secs" "$(cut -d, -f1 <<<"$line")" >&2
}

# One sample reply per case and server: both answer the same.
for c in $CASES; do
	cmd=$(case_cmd "$c")
	# shellcheck disable=SC2086
	a=$(cli "$REDIS_PORT" $cmd 2>&1 | md5sum); b=$(cli "$RUVIO_PORT" $cmd 2>&1 | md5sum)
	# shellcheck disable=SC2086
	log "sample $c: $(cli "$RUVIO_PORT" $cmd 2>&1 | wc -l) reply lines; identical replies: $([[ "$a" == "$b" ]] && echo yes || echo NO)"
done

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
echo "# GEOSEARCH over $GEO_MEMBERS members, Ruvio vs redis-server — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, redis $(redis-server --version | awk '{sub(/^v=/, "", $3); print $3}'), ROUNDS=$ROUNDS, -c $CLIENTS"
echo "# redis-server (--save \"\" --appendonly no) and ruvio (1 shard, wal=$RUVIO_WAL fsync no, no snapshots) pinned to CPU $SERVER_CPU; redis-benchmark pinned to CPU ${CLIENT_CPU:-any}"
awk -f "$HERE/summarize.awk" -v ruvio=ruvio "$RAW"
echo "# load time ${ELAPSED}s; 1-min load average during runs: $(awk -F, 'NF>=16 && $16!=""{s+=$16; n++; if($16>m)m=$16} END{if(n) printf "mean %.1f, max %.1f", s/n, m; else print "n/a"}' "$RAW") (2 = just this benchmark)"
echo "# raw rows: mode,round,server,test,pipeline,clients,n,secs,rps,avg,min,p50,p95,p99,max,load1"
