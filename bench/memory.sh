#!/usr/bin/env bash
# bench/memory.sh — memory held by ruvio and redis-server for the same N small strings.
#
#   bench/memory.sh                  # N=1,000,000 SETs
#   N=10000000 bench/memory.sh       # 10M
#
# Both servers get the same N SETs (key:{i} -> value:{i}, {i} = 10 digits: 14-byte keys and
# 16-byte values, all keys distinct), written with redis-cli --pipe from bench/gen:
#   ruvio  1 shard, wal = true, fsync no, no snapshots (generated config), pinned to SERVER_CPU;
#   redis  --save "" --appendonly no, pinned to SERVER_CPU.
# After loading, again after SETTLE seconds, and once more after MEMORY PURGE (Redis: jemalloc
# returns dirty pages; Ruvio: the Go heap returns free pages, e.g. the input buffers the pipe
# burst left), it reads VmRSS from /proc/PID/status and used_memory from INFO memory, and
# prints one table with the ratios ruvio / redis.
# Only the processes started here are stopped, by pid.
set -euo pipefail

N=${N:-1000000}
KEY_TMPL=${KEY_TMPL:-"key:{i}"}
VAL_TMPL=${VAL_TMPL:-"value:{i}"}
DIGITS=${DIGITS:-10}
SETTLE=${SETTLE:-10}                # seconds to wait before the second reading
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
LOAD_TIMEOUT=${LOAD_TIMEOUT:-1800}
RUVIO_EXTRA=${RUVIO_EXTRA:-}
RUVIO_BIN=${RUVIO_BIN:-}
KEEP=${KEEP:-0}

NAME=memory
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
"$WORK/gen" resp -n "$N" -digits "$DIGITS" SET "$KEY_TMPL" "$VAL_TMPL" >"$WORK/load.resp"

load() { # port
	local out
	# shellcheck disable=SC2046
	out=$(timeout -k 5 "$LOAD_TIMEOUT" $(pinprefix "$CLIENT_CPU") redis-cli -h 127.0.0.1 -p "$1" --pipe <"$WORK/load.resp" 2>&1) ||
		die "loading port $1 failed: $out"
	[[ "$out" == *"errors: 0, replies: $N"* ]] || die "loading port $1: $out"
	[[ "$(cli "$1" dbsize)" == "$N" ]] || die "port $1: DBSIZE is not $N after loading"
}

# measure NAME PORT PID: loads, reads the figures three times; prints
# "name rss0 used0 rss1 used1 rss2 used2 extra".
measure() {
	local name=$1 port=$2 pid=$3 base r0 u0 r1 u1 r2 u2 info extra
	base=$(rss_bytes "$pid")
	load "$port"
	r0=$(rss_bytes "$pid")
	u0=$(cli "$port" info memory | field used_memory)
	sleep "$SETTLE"
	r1=$(rss_bytes "$pid")
	info=$(cli "$port" info memory)
	u1=$(field used_memory <<<"$info")
	cli "$port" memory purge >/dev/null
	sleep 1
	r2=$(rss_bytes "$pid")
	info=$(cli "$port" info memory)
	u2=$(field used_memory <<<"$info")
	extra="empty_rss=$(mb "$base")MB"
	for f in used_memory_dataset used_memory_overhead keyspace_arena_mapped go_heap_alloc go_heap_sys go_gc_cpu_fraction mem_fragmentation_ratio; do
		v=$(field "$f" <<<"$info")
		[[ -n "$v" ]] && extra="$extra $f=$v"
	done
	echo "$name $r0 $u0 $r1 $u1 $r2 $u2 $extra"
}

# ---------------------------------------------------------------- redis
REDIS_PORT=$(free_port)
# shellcheck disable=SC2046
$(pinprefix "$SERVER_CPU") redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK" \
	--save "" --appendonly no --daemonize no --logfile "$WORK/redis.log" &
REDIS_PID=$!
PIDS+=("$REDIS_PID")
wait_ready "$REDIS_PORT" "$REDIS_PID" redis-server
log "loading $N SETs into redis-server"
REDIS_ROW=$(measure redis "$REDIS_PORT" "$REDIS_PID")
kill "$REDIS_PID" 2>/dev/null || true

# ---------------------------------------------------------------- ruvio
RUVIO_PORT=$(free_port)
mkdir -p "$WORK/ruvio-data"
cat >"$WORK/ruvio.toml" <<EOF
[server]
shards = 1
[persistence]
wal = true
fsync = "no"
snapshot_every = 0
snapshot_wal_bytes = 0
snapshot_on_shutdown = false
EOF
# shellcheck disable=SC2046,SC2086
$(pinprefix "$SERVER_CPU") "$WORK/ruvio" --config "$WORK/ruvio.toml" --port "$RUVIO_PORT" --dir "$WORK/ruvio-data" \
	$RUVIO_EXTRA >"$WORK/ruvio.log" 2>&1 &
RUVIO_PID=$!
PIDS+=("$RUVIO_PID")
wait_ready "$RUVIO_PORT" "$RUVIO_PID" ruvio
log "loading $N SETs into ruvio"
RUVIO_ROW=$(measure ruvio "$RUVIO_PORT" "$RUVIO_PID")

# ---------------------------------------------------------------- report
read -r _ rr0 ru0 rr1 ru1 rr2 ru2 rextra <<<"$REDIS_ROW"
read -r _ vr0 vu0 vr1 vu1 vr2 vu2 vextra <<<"$RUVIO_ROW"
echo
echo "# Memory for N=$N SETs ($KEY_TMPL -> $VAL_TMPL, {i} = $DIGITS digits) — $(date -u +%Y-%m-%dT%H:%MZ), redis $(redis-server --version | awk '{sub(/^v=/, "", $3); print $3}')"
echo
echo "| reading | redis RSS MB | ruvio RSS MB | RSS ruvio/redis | redis used_memory MB | ruvio used_memory MB | used_memory ruvio/redis | ruvio RSS bytes/key |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|"
echo "| after load | $(mb "$rr0") | $(mb "$vr0") | $(ratio "$vr0" "$rr0") | $(mb "$ru0") | $(mb "$vu0") | $(ratio "$vu0" "$ru0") | $(awk -v b="$vr0" -v n="$N" 'BEGIN{printf "%.0f", b/n}') |"
echo "| after ${SETTLE}s | $(mb "$rr1") | $(mb "$vr1") | $(ratio "$vr1" "$rr1") | $(mb "$ru1") | $(mb "$vu1") | $(ratio "$vu1" "$ru1") | $(awk -v b="$vr1" -v n="$N" 'BEGIN{printf "%.0f", b/n}') |"
echo "| after MEMORY PURGE | $(mb "$rr2") | $(mb "$vr2") | $(ratio "$vr2" "$rr2") | $(mb "$ru2") | $(mb "$vu2") | $(ratio "$vu2" "$ru2") | $(awk -v b="$vr2" -v n="$N" 'BEGIN{printf "%.0f", b/n}') |"
echo
echo "redis: $rextra"
echo "ruvio: $vextra"
