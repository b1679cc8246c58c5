#!/usr/bin/env bash
# bench/multi.sh — MULTI/SET/INCR/EXEC through a Go client (bench/multi), Ruvio against
# redis-server 7 side by side, both pinned to SERVER_CPU and the client to CLIENT_CPU, rounds
# alternating which server goes first. Prints transactions/s per round, the paired ratio
# (ruvio / redis) per round and its median, and each server's CPU time per transaction.
# DURATION must be in whole seconds ("4s").
#
#   bench/multi.sh        ROUNDS=5 DURATION=5s CLIENTS=50
# shellcheck shell=bash
set -euo pipefail
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5s}
CLIENTS=${CLIENTS:-50}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUVIO_BIN=${RUVIO_BIN:-}
KEEP=${KEEP:-0}
NAME=multi
MODE=multi
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-cli taskset go timeout
build_ruvio
(cd "$ROOT" && go build -o "$WORK/multi" ./bench/multi) || die "go build ./bench/multi failed"

start_cache_redis
start_cache_ruvio

HZ=$(getconf CLK_TCK)
# load port pid: prints "tx/s server-cpu-us-per-tx". The CPU cost per transaction is less
# sensitive than throughput to other load on a shared machine.
load() {
	local t0 t1 tps secs
	t0=$(cputicks "$2")
	# shellcheck disable=SC2046
	tps=$(timeout 120 $(pinprefix "$CLIENT_CPU") "$WORK/multi" -addr "127.0.0.1:$1" -clients "$CLIENTS" -duration "$DURATION")
	t1=$(cputicks "$2")
	secs=${DURATION%s}
	awk -v tps="$tps" -v d="$((t1 - t0))" -v hz="$HZ" -v s="$secs" 'BEGIN { printf "%s %.1f", tps, d / hz * 1e6 / (tps * s) }'
}
printf 'round\tredis tx/s\truvio tx/s\tratio\tredis cpu us/tx\truvio cpu us/tx\n'
ratios=()
for r in $(seq 1 "$ROUNDS"); do
	if (( r % 2 )); then a=$(load "$REDIS_PORT" "$REDIS_PID"); b=$(load "$RUVIO_PORT" "$RUVIO_PID")
	else b=$(load "$RUVIO_PORT" "$RUVIO_PID"); a=$(load "$REDIS_PORT" "$REDIS_PID"); fi
	ratio=$(awk -v a="${a% *}" -v b="${b% *}" 'BEGIN { printf "%.3f", b / a }')
	ratios+=("$ratio")
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "${a% *}" "${b% *}" "$ratio" "${a#* }" "${b#* }"
done
printf 'median ratio\t%s\n' "$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
