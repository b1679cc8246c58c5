#!/usr/bin/env bash
# bench/repl.sh — replication: Ruvio primary + replica against redis-server 7 primary + replica,
# all four with fsync always (Ruvio persistence.fsync = "always", Redis appendfsync always).
# Two loads through a Go client (bench/repl), ROUNDS times, alternating which system goes first:
#   wait: CLIENTS clients each SET then WAIT 1 0 (Ruvio's WAIT counts the replica's disk, Redis's
#         counts receipt);
#   lag:  CLIENTS clients each pipelining P SETs, sampling every 50 ms how far the replica is
#         behind (Ruvio: WAL records; Redis: replication-offset bytes) and how long a marker SET
#         on the primary takes to appear on the replica.
#
#   bench/repl.sh        ROUNDS=3 DURATION=5s CLIENTS=50 P=16
# shellcheck shell=bash
set -euo pipefail
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
CLIENTS=${CLIENTS:-50}
P=${P:-16}
RUVIO_BIN=${RUVIO_BIN:-}
KEEP=${KEEP:-0}
NAME=repl
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-cli go timeout
build_ruvio
(cd "$ROOT" && go build -o "$WORK/repl" ./bench/repl) || die "go build ./bench/repl failed"

redis_start() { # port dir [replicaof-port]
	mkdir -p "$2"
	local extra=()
	[[ -n "${3:-}" ]] && extra=(--replicaof 127.0.0.1 "$3")
	redis-server --port "$1" --bind 127.0.0.1 --dir "$2" --save "" --appendonly yes --appendfsync always \
		--daemonize no --logfile "$2/redis.log" "${extra[@]}" &
	PIDS+=($!)
	wait_ready "$1" "$!" redis-server
}
ruvio_start() { # port dir [primary-port]
	mkdir -p "$2"
	local extra=()
	[[ -n "${3:-}" ]] && extra=(--replicaof "127.0.0.1:$3")
	"$WORK/ruvio" --config "" --port "$1" --dir "$2" --shards 1 --fsync always --loglevel warn "${extra[@]}" >"$2/ruvio.log" 2>&1 &
	PIDS+=($!)
	wait_ready "$1" "$!" ruvio
}

RP=$(free_port); redis_start "$RP" "$WORK/redis-p"
RR=$(free_port); redis_start "$RR" "$WORK/redis-r" "$RP"
UP=$(free_port); ruvio_start "$UP" "$WORK/ruvio-p"
UR=$(free_port); ruvio_start "$UR" "$WORK/ruvio-r" "$UP"
for _ in $(seq 100); do
	redis-cli -p "$RR" info replication | grep -q master_link_status:up &&
		redis-cli -p "$UR" info replication | grep -q master_link_status:up && break
	sleep 0.1
done

one() { # kind primary replica mode
	timeout 120 "$WORK/repl" -kind "$1" -primary "127.0.0.1:$2" -replica "127.0.0.1:$3" -mode "$4" \
		-clients "$CLIENTS" -pipeline "$P" -duration "$DURATION"
}
for r in $(seq "$ROUNDS"); do
	for mode in wait lag; do
		if ((r % 2)); then
			one redis "$RP" "$RR" "$mode"; one ruvio "$UP" "$UR" "$mode"
		else
			one ruvio "$UP" "$UR" "$mode"; one redis "$RP" "$RR" "$mode"
		fi
	done
done
