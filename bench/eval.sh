#!/usr/bin/env bash
# bench/eval.sh — EVALSHA of a one-call script (INCR) and of a three-call script (INCR, GET,
# SET) through redis-benchmark, Ruvio against redis-server 7 side by side, both pinned to
# SERVER_CPU and the client to CLIENT_CPU, rounds alternating which server goes first. Prints
# requests/s per round and script, the paired ratio (ruvio / redis) and its median.
#
#   bench/eval.sh        ROUNDS=5 REQUESTS=200000 CLIENTS=50
# shellcheck shell=bash
set -euo pipefail
ROUNDS=${ROUNDS:-5}
REQUESTS=${REQUESTS:-200000}
CLIENTS=${CLIENTS:-50}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUVIO_BIN=${RUVIO_BIN:-}
KEEP=${KEEP:-0}
NAME=eval
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-cli redis-benchmark taskset timeout
build_ruvio

start_cache_redis
start_cache_ruvio

ONE="return redis.call('INCR', KEYS[1])"
THREE="local n = redis.call('INCR', KEYS[1]); redis.call('GET', KEYS[1]); return redis.call('SET', KEYS[2], n)"
declare -A SHA
for s in ONE THREE; do
	for p in "$REDIS_PORT" "$RUVIO_PORT"; do SHA[$s]=$(redis-cli -p "$p" script load "${!s}"); done
done

# rps port script: requests/s of EVALSHA of that script.
rps() {
	# shellcheck disable=SC2046
	timeout 120 $(pinprefix "$CLIENT_CPU") redis-benchmark -p "$1" -c "$CLIENTS" -n "$REQUESTS" -q \
		evalsha "${SHA[$2]}" 2 bench:n bench:s | tr '\r' '\n' | grep -o '[0-9.]* requests per second' | awk '{ print $1 }' | tail -1
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'round\tscript\tredis rps\truvio rps\tratio\n'
declare -A ratios
for r in $(seq 1 "$ROUNDS"); do
	for s in ONE THREE; do
		if (( r % 2 )); then a=$(rps "$REDIS_PORT" "$s"); b=$(rps "$RUVIO_PORT" "$s")
		else b=$(rps "$RUVIO_PORT" "$s"); a=$(rps "$REDIS_PORT" "$s"); fi
		ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')
		ratios[$s]+="$ratio "
		printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$s" "$a" "$b" "$ratio"
	done
done
for s in ONE THREE; do
	printf 'median ratio %s\t%s\n' "$s" "$(printf '%s\n' ${ratios[$s]} | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
