#!/usr/bin/env bash
# bench/memory-collections.sh — memory held by ruvio and redis-server for the same collections.
#
#   bench/memory-collections.sh                        # every data set, N=1,000,000
#   SETS="hashes bigzset" N=200000 bench/memory-collections.sh
#
# Data sets (each loaded alone into a fresh server with redis-cli --pipe from bench/gen; {i} is
# the command's index as 10 digits):
#   hashes   N hashes  h:{i}, 10 fields f0..f9 of 10-byte values      (HSET, listpack in both)
#   sets     N sets    s:{i}, 10 integers 1..10                       (SADD, intset in both)
#   zsets    N sorted sets z:{i}, 10 members m0..m9, scores 1..10     (ZADD, listpack in both)
#   bigzset  one sorted set bigz of N members m:{i}, scores {i}       (ZADD, skiplist in both)
# Servers: redis-server --save "" --appendonly no; ruvio 1 shard, WAL on, fsync no, no
# snapshots; both pinned to SERVER_CPU. After the load, SETTLE seconds later and MEMORY PURGE
# (Redis: jemalloc returns dirty pages; ruvio: the Go heap returns its free pages) it reads
# VmRSS from /proc/PID/status and used_memory from INFO memory. Memory figures are exact on a
# loaded machine; only the time a load takes is not.
# Only the processes started here are stopped, by pid.
set -euo pipefail

N=${N:-1000000}
SETS=${SETS:-"hashes sets zsets bigzset"}
SETTLE=${SETTLE:-10}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
LOAD_TIMEOUT=${LOAD_TIMEOUT:-1800}
RUVIO_EXTRA=${RUVIO_EXTRA:-}
RUVIO_BIN=${RUVIO_BIN:-}
KEEP=${KEEP:-0}

NAME=memory-collections
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-cli taskset go timeout
cli() { redis-cli -h 127.0.0.1 -p "$@"; }
field() { tr -d '\r' | awk -F: -v k="$1" '$1==k{print $2}'; } # field NAME < INFO text
rss_bytes() { awk '/^VmRSS:/{print $2 * 1024}' "/proc/$1/status"; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "NA" }'; }

build_ruvio
(cd "$ROOT" && go build -o "$WORK/gen" ./bench/gen) || die "go build ./bench/gen failed"

# gen_set NAME: the data set's commands in RESP.
gen_set() {
	local args=() k
	case $1 in
	hashes) args=(HSET "h:{i}"); for k in 0 1 2 3 4 5 6 7 8 9; do args+=("f$k" "{i}"); done ;;
	sets) args=(SADD "s:{i}" 1 2 3 4 5 6 7 8 9 10) ;;
	zsets) args=(ZADD "z:{i}"); for k in 0 1 2 3 4 5 6 7 8 9; do args+=("$((k + 1))" "m$k"); done ;;
	bigzset) args=(ZADD bigz "{i}" "m:{i}") ;;
	*) die "unknown data set $1" ;;
	esac
	"$WORK/gen" resp -n "$N" -digits 10 "${args[@]}"
}

keys_expected() { [[ $1 == bigzset ]] && echo 1 || echo "$N"; }

load() { # port set
	local out
	# shellcheck disable=SC2046
	out=$(timeout -k 5 "$LOAD_TIMEOUT" $(pinprefix "$CLIENT_CPU") redis-cli -h 127.0.0.1 -p "$1" --pipe <"$WORK/$2.resp" 2>&1) ||
		die "loading $2 into port $1 failed: $out"
	[[ "$out" == *"errors: 0, replies: $N"* ]] || die "loading $2 into port $1: $out"
	[[ "$(cli "$1" dbsize)" == "$(keys_expected "$2")" ]] || die "port $1: DBSIZE is not $(keys_expected "$2") after loading $2"
}

# measure SET PORT PID: loads, waits, purges; prints "rss used encoding extra".
measure() {
	local set=$1 port=$2 pid=$3 info enc key extra v
	load "$port" "$set"
	sleep "$SETTLE"
	cli "$port" memory purge >/dev/null
	sleep 1
	case $set in hashes) key=h:0000000001 ;; sets) key=s:0000000001 ;; zsets) key=z:0000000001 ;; bigzset) key=bigz ;; esac
	enc=$(cli "$port" object encoding "$key")
	info=$(cli "$port" info memory)
	extra=""
	for f in used_memory_dataset used_memory_overhead keyspace_arena_mapped go_heap_alloc go_heap_inuse mem_fragmentation_ratio; do
		v=$(field "$f" <<<"$info")
		[[ -n "$v" ]] && extra="$extra $f=$v"
	done
	echo "$(rss_bytes "$pid") $(field used_memory <<<"$info") $enc$extra"
}

start_redis() {
	REDIS_PORT=$(free_port)
	# shellcheck disable=SC2046
	$(pinprefix "$SERVER_CPU") redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK" \
		--save "" --appendonly no --daemonize no --logfile "$WORK/redis.log" &
	REDIS_PID=$!
	PIDS+=("$REDIS_PID")
	wait_ready "$REDIS_PORT" "$REDIS_PID" redis-server
}

start_ruvio() {
	RUVIO_PORT=$(free_port)
	rm -rf "$WORK/ruvio-data"
	mkdir -p "$WORK/ruvio-data"
	cat >"$WORK/ruvio.toml" <<TOML
[server]
shards = 1
[persistence]
wal = true
fsync = "no"
snapshot_every = 0
snapshot_wal_bytes = 0
snapshot_on_shutdown = false
TOML
	# shellcheck disable=SC2046,SC2086
	$(pinprefix "$SERVER_CPU") "$WORK/ruvio" --config "$WORK/ruvio.toml" --port "$RUVIO_PORT" --dir "$WORK/ruvio-data" \
		$RUVIO_EXTRA >"$WORK/ruvio.log" 2>&1 &
	RUVIO_PID=$!
	PIDS+=("$RUVIO_PID")
	wait_ready "$RUVIO_PORT" "$RUVIO_PID" ruvio
}

stop() { # pid
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

ROWS=()
for set in $SETS; do
	gen_set "$set" >"$WORK/$set.resp"
	start_redis
	log "$set: loading into redis-server"
	read -r rr ru renc rextra <<<"$(measure "$set" "$REDIS_PORT" "$REDIS_PID")"
	stop "$REDIS_PID"
	start_ruvio
	log "$set: loading into ruvio"
	read -r vr vu venc vextra <<<"$(measure "$set" "$RUVIO_PORT" "$RUVIO_PID")"
	stop "$RUVIO_PID"
	rm -f "$WORK/$set.resp"
	ROWS+=("| $set | $renc / $venc | $(mb "$rr") | $(mb "$vr") | $(ratio "$vr" "$rr") | $(mb "$ru") | $(mb "$vu") | $(ratio "$vu" "$ru") |")
	log "$set: redis rss=$rr used=$ru $rextra"
	log "$set: ruvio rss=$vr used=$vu $vextra"
done

echo
echo "# Collections, N=$N — $(date -u +%Y-%m-%dT%H:%MZ), redis $(redis-server --version | awk '{sub(/^v=/, "", $3); print $3}'), after ${SETTLE}s and MEMORY PURGE"
echo
echo "| data set | encoding redis / ruvio | redis RSS MB | ruvio RSS MB | RSS ruvio/redis | redis used_memory MB | ruvio used_memory MB | used_memory ruvio/redis |"
echo "|---|---|--:|--:|--:|--:|--:|--:|"
printf '%s\n' "${ROWS[@]}"
