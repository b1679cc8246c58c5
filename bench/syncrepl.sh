#!/usr/bin/env bash
# bench/syncrepl.sh — the cost of synchronous replication: durable SET throughput of a Ruvio
# primary with one replica on loopback, both with fsync always, under sync-replicas 0
# (asynchronous) and 1 (each reply waits for the replica's acknowledgement). The setting is
# changed at run time (CONFIG SET sync-replicas) on the same pair of processes, alternating
# 0 and 1 for ROUNDS rounds, so both see the same box, data directory and WAL size.
#
#   bench/syncrepl.sh        ROUNDS=3 N=50000 CLIENTS=50 P=1
# shellcheck shell=bash
set -euo pipefail
ROUNDS=${ROUNDS:-3}
N=${N:-50000}
CLIENTS=${CLIENTS:-50}
P=${P:-1}
RUVIO_BIN=${RUVIO_BIN:-}
KEEP=${KEEP:-0}
NAME=syncrepl
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-benchmark redis-cli go timeout
build_ruvio

ruvio_start() { # port dir [primary-port]
	mkdir -p "$2"
	local extra=()
	[[ -n "${3:-}" ]] && extra=(--replicaof "127.0.0.1:$3")
	"$WORK/ruvio" --config "" --port "$1" --dir "$2" --shards 1 --fsync always --loglevel warn "${extra[@]}" >"$2/ruvio.log" 2>&1 &
	PIDS+=($!)
	wait_ready "$1" "$!" ruvio
}

UP=$(free_port); ruvio_start "$UP" "$WORK/ruvio-p"
UR=$(free_port); ruvio_start "$UR" "$WORK/ruvio-r" "$UP"
for _ in $(seq 100); do
	redis-cli -p "$UR" info replication | grep -q master_link_status:up && break
	sleep 0.1
done
redis-cli -p "$UR" info replication | grep -q master_link_status:up || die "the replica's link did not come up"

one() { # sync-replicas
	[[ "$(redis-cli -p "$UP" config set sync-replicas "$1")" == OK ]] || die "CONFIG SET sync-replicas $1 failed"
	local out
	out=$(timeout 300 redis-benchmark -p "$UP" -t set -n "$N" -c "$CLIENTS" -P "$P" -q 2>/dev/null | tr '\r' '\n' | grep 'requests per second' | tail -1)
	printf 'sync-replicas=%s  %s\n' "$1" "$out"
}
echo "# redis-benchmark -t set -n $N -c $CLIENTS -P $P -q; primary and replica fsync always; $(df -T "${TMPDIR:-/tmp}" | awk 'NR==2{print $2}') at ${TMPDIR:-/tmp}"
for r in $(seq "$ROUNDS"); do
	if ((r % 2)); then one 0; one 1; else one 1; one 0; fi
done
timeouts=$(redis-cli -p "$UP" info replication | tr -d '\r' | grep '^sync_timeouts:' || true)
echo "# primary INFO: $timeouts"
