#!/usr/bin/env bash
# bench/scaling.sh — how Ruvio's throughput grows with its shards, beside one redis-server, on a
# machine with CPUs to spare (issue 32's scaling curve; the 2-CPU development VM cannot show it).
#
#   SERVER_CPUS=0-7 CLIENT_CPUS=8-15 bench/scaling.sh            # 16 CPUs: 1, 2, 4, 8 shards
#   SHARDS="1 2" SERVER_CPUS=0 CLIENT_CPUS=1 THREADS=1 N=100000 bench/scaling.sh   # a smoke run
#
# For each shard count k: a Ruvio of k shards (--fsync no: its log is written, not synced; no
# snapshots, which would land in the middle of a run) pinned to SERVER_CPUS, so Go gets one P
# per CPU there; then redis-benchmark with --threads THREADS pinned to CLIENT_CPUS, through
# --cluster when k > 1 (a Ruvio of several shards is a cluster of that many nodes: each key goes
# to the shard of its slot), with CLIENTS connections per shard and N requests per shard. One
# redis-server (no persistence, REDIS_ARGS appended, e.g. "--io-threads 4") on the same CPUs
# with the same client settings is the baseline (its CLIENTS and N those of one shard). Server
# CPU time comes from the scheduler (lib.sh cpuns) around each run.
#
# Each line: test, -P, server (redis or ruvio-k), requests/s, requests/s over redis-server's,
# server CPU µs per request, and the CPU the server used over the run's wall time (how many CPUs
# it kept busy). Every run is bounded by -n and RUN_TIMEOUT; only processes started here are
# stopped, by pid.
set -euo pipefail

SHARDS=${SHARDS:-"1 2 4 8"}
TESTS=${TESTS:-"set get"}        # redis-benchmark -t names
PIPELINES=${PIPELINES:-"1 16"}   # -P values
THREADS=${THREADS:-8}            # redis-benchmark --threads
CLIENTS=${CLIENTS:-50}           # connections per shard
N=${N:-1000000}                  # requests per shard and run
KEYSPACE=${KEYSPACE:-1000000}    # -r
SERVER_CPUS=${SERVER_CPUS-0}     # taskset list for the servers ("" = unpinned)
CLIENT_CPUS=${CLIENT_CPUS-1}     # taskset list for redis-benchmark ("" = unpinned)
RUN_TIMEOUT=${RUN_TIMEOUT:-120}  # hard limit per redis-benchmark run, seconds
read -r -a REDIS_EXTRA <<<"${REDIS_ARGS:-}"
NAME=scaling

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-benchmark redis-cli taskset timeout bc
build_ruvio

# The lib.sh starters pin to SERVER_CPU.
SERVER_CPU=$SERVER_CPUS

# bench PORT PID CLUSTER CLIENTS N TEST P: "rps cpu-µs-per-request cpus-busy"
bench() {
	local port=$1 pid=$2 cluster=$3 clients=$4 n=$5 t=$6 p=$7 c0 c1 w0 w1 rps
	local args=(-h 127.0.0.1 -p "$port" -t "$t" -P "$p" -c "$clients" -n "$n" -r "$KEYSPACE" --threads "$THREADS" --csv)
	[[ "$cluster" == 1 ]] && args+=(--cluster)
	c0=$(cpuns "$pid")
	w0=$(date +%s%N)
	# shellcheck disable=SC2046
	rps=$(timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPUS") redis-benchmark "${args[@]}" 2>/dev/null |
		grep -v '^"test"' | tail -1 | cut -d, -f2 | tr -d '"') || true
	w1=$(date +%s%N)
	c1=$(cpuns "$pid")
	echo "${rps:-0} $(echo "scale=3; ($c1 - $c0) / 1000 / $n" | bc) $(echo "scale=2; ($c1 - $c0) / ($w1 - $w0)" | bc)"
}

# The baseline: one redis-server.
declare -A REDIS_RPS
start_cache_redis "${REDIS_EXTRA[@]}"
echo "test P server rps rps/redis cpu_us_per_request cpus_busy"
for p in $PIPELINES; do
	for t in $TESTS; do
		read -r rps cpu busy < <(bench "$REDIS_PORT" "$REDIS_PID" 0 "$CLIENTS" "$N" "$t" "$p")
		REDIS_RPS[$t:$p]=$rps
		echo "$t $p redis $rps 1.00 $cpu $busy"
	done
done
kill "$REDIS_PID" && wait "$REDIS_PID" 2>/dev/null || true

for k in $SHARDS; do
	RUVIO_SHARDS=$k start_cache_ruvio
	cluster=0
	[[ "$k" -gt 1 ]] && cluster=1
	for p in $PIPELINES; do
		for t in $TESTS; do
			read -r rps cpu busy < <(bench "$RUVIO_PORT" "$RUVIO_PID" "$cluster" $((CLIENTS * k)) $((N * k)) "$t" "$p")
			ratio=-
			[[ "${REDIS_RPS[$t:$p]}" =~ ^0*\.?0*$ ]] || ratio=$(echo "scale=2; $rps / ${REDIS_RPS[$t:$p]}" | bc)
			echo "$t $p ruvio-$k $rps $ratio $cpu $busy"
		done
	done
	kill "$RUVIO_PID" && wait "$RUVIO_PID" 2>/dev/null || true
done
