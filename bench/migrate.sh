#!/usr/bin/env bash
# bench/migrate.sh — moving one slot that holds N small strings, then one slot that holds one sorted
# set of N members, between the two groups of a cluster, while clients read and write keys of the
# moving slot and of other slots; Ruvio's atomic migration (`ruvio cluster migrate`) against
# redis-server 7.0 in cluster mode moved with `redis-cli --cluster reshard` (SETSLOT + MIGRATE,
# key by key, --cluster-pipeline PIPELINE keys per MIGRATE), the same data on the same machine.
#
#   bench/migrate.sh          N=1000000 PIPELINE=10 CLIENTS=4 (SKIP_REDIS=1: Ruvio's side only)
#
# Both sides on 127.0.0.1 (Ruvio: two members; Redis: three masters, as redis-cli requires), no replicas, persistence with fsync everysec (Ruvio's WAL,
# Redis's AOF). Reported per move: the time the move took (the command's wall time), throughput
# (keys or members per second), and the latency percentiles of the probe clients (bench/slotmove)
# on the moving slot and on other slots, errors included (Redis clients see -ASK/-TRYAGAIN, which
# go-redis follows; Ruvio's see the write pause at the flip).
# shellcheck shell=bash
set -euo pipefail
N=${N:-1000000}
PIPELINE=${PIPELINE:-10}
CLIENTS=${CLIENTS:-4}
NAME=migrate
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need go redis-server redis-cli timeout
build_ruvio
(cd "$ROOT" && go build -o "$WORK/slotmove" ./bench/slotmove) || die "go build ./bench/slotmove failed"

# The data goes in slot 0 and slot 1: the first slots of the first node, which is what
# `redis-cli --cluster reshard --cluster-slots 1` takes first from its source.
TAG_STR=$("$WORK/slotmove" tag 0)
TAG_Z=$("$WORK/slotmove" tag 1)

# move_and_probe NAME CMD...: runs the probe clients while CMD moves a slot; prints the time.
move_and_probe() {
	local name=$1 tag=$2 addr=$3
	shift 3
	rm -f "$WORK/done"
	"$WORK/slotmove" -addr "$addr" -tag "$tag" -until "$WORK/done" -clients "$CLIENTS" probe >"$WORK/probe.out" 2>&1 &
	local probe=$!
	PIDS+=("$probe")
	sleep 1
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >"$WORK/move.out" 2>&1 || { cat "$WORK/move.out" >&2; die "$name: the move failed"; }
	t1=$(date +%s.%N)
	sleep 1
	touch "$WORK/done"
	wait "$probe" || true
	awk -v n="$N" -v a="$t0" -v b="$t1" -v name="$name" 'BEGIN { printf "%-44s %8.2f s  %10.0f per second\n", name, b - a, n / (b - a) }'
	sed 's/^/    /' "$WORK/probe.out"
}

# ---- Ruvio: two members, one group each ----
P0=$(free_port 4)
P1=$(free_port 4)
mkdir -p "$WORK/r0" "$WORK/r1"
members="r0=127.0.0.1:$((P0 + 3)),r1=127.0.0.1:$((P1 + 3))"
for i in 0 1; do
	port=$P0
	[[ $i == 1 ]] && port=$P1
	"$WORK/ruvio" --config "" --port "$port" --dir "$WORK/r$i" --shards 1 --fsync everysec --loglevel info \
		--cluster-name "r$i" --cluster-members "$members" --cluster-control-port $((port + 3)) \
		--cluster-replicas 0 >"$WORK/ruvio$i.log" 2>&1 &
	PIDS+=($!)
	wait_ready "$port" $! ruvio
done
for _ in $(seq 150); do
	redis-cli -p "$P0" cluster info 2>/dev/null | grep -q cluster_state:ok && break
	sleep 0.2
done
sleep 3 # the first write leases
log "ruvio: loading $N strings into slot 0 and a sorted set of $N members into slot 1"
"$WORK/slotmove" -addr "127.0.0.1:$P0" -tag "$TAG_STR" load-strings "$N" >&2
"$WORK/slotmove" -addr "127.0.0.1:$P0" -tag "$TAG_Z" load-zset "$N" >&2
redis-cli -p "$P0" save >/dev/null
echo "# $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); N=$N, probe clients $CLIENTS per class"
echo "## ruvio cluster migrate (atomic: copy, log tail, freeze, commit)"
ctl="127.0.0.1:$((P0 + 3))"
move_and_probe "ruvio: slot 0, $N strings" "$TAG_STR" "127.0.0.1:$P0" \
	"$WORK/ruvio" cluster migrate --control "$ctl" --slots 0 --to-group 1 --wait 10m
grep -h "migration committed" "$WORK"/ruvio*.log | tail -1 | sed -E 's/.*(\{.*)/    commit: \1/'
move_and_probe "ruvio: slot 1, one sorted set of $N members" "$TAG_Z" "127.0.0.1:$P0" \
	"$WORK/ruvio" cluster migrate --control "$ctl" --slots 1 --to-group 1 --wait 10m
grep -h "migration committed" "$WORK"/ruvio*.log | tail -1 | sed -E 's/.*(\{.*)/    commit: \1/'
grep -h "commands on the range resumed" "$WORK"/ruvio*.log | sed -E 's/.*"held": ([0-9.e-]+).*/    write pause at the flip (sender, freeze to resume): \1 s/'

[[ "${SKIP_REDIS:-0}" == 1 ]] && exit 0

# ---- redis-server 7.0 in cluster mode ----
# redis-cli --cluster create needs three masters: the third holds the last third of the slots.
Q0=$(free_port 1)
Q1=$(free_port 1)
Q2=$(free_port 1)
for q in "$Q0" "$Q1" "$Q2"; do
	mkdir -p "$WORK/redis$q"
	redis-server --port "$q" --bind 127.0.0.1 --dir "$WORK/redis$q" --cluster-enabled yes \
		--cluster-config-file nodes.conf --appendonly yes --appendfsync everysec --save "" \
		--logfile "$WORK/redis$q.log" --daemonize no &
	PIDS+=($!)
	wait_ready "$q" $! redis-server
done
redis-cli --cluster create "127.0.0.1:$Q0" "127.0.0.1:$Q1" "127.0.0.1:$Q2" --cluster-replicas 0 --cluster-yes >"$WORK/create.out" 2>&1 ||
	{ cat "$WORK/create.out" >&2; die "redis-cli --cluster create failed"; }
for _ in $(seq 100); do
	redis-cli -p "$Q0" cluster info | grep -q cluster_state:ok && redis-cli -p "$Q1" cluster info | grep -q cluster_state:ok && break
	sleep 0.2
done
log "redis: loading the same data"
"$WORK/slotmove" -addr "127.0.0.1:$Q0" -tag "$TAG_STR" load-strings "$N" >&2
"$WORK/slotmove" -addr "127.0.0.1:$Q0" -tag "$TAG_Z" load-zset "$N" >&2
ID0=$(redis-cli -p "$Q0" cluster myid)
ID1=$(redis-cli -p "$Q1" cluster myid)
echo "## redis-cli --cluster reshard --cluster-slots 1 --cluster-pipeline $PIPELINE (redis-server $(redis-server --version | sed -E 's/.*v=([^ ]+).*/\1/'))"
move_and_probe "redis: slot 0, $N strings" "$TAG_STR" "127.0.0.1:$Q0" \
	redis-cli --cluster reshard "127.0.0.1:$Q0" --cluster-from "$ID0" --cluster-to "$ID1" --cluster-slots 1 \
	--cluster-yes --cluster-pipeline "$PIPELINE"
move_and_probe "redis: slot 1, one sorted set of $N members" "$TAG_Z" "127.0.0.1:$Q0" \
	redis-cli --cluster reshard "127.0.0.1:$Q0" --cluster-from "$ID0" --cluster-to "$ID1" --cluster-slots 1 \
	--cluster-yes --cluster-pipeline "$PIPELINE"
