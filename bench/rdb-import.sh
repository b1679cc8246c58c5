#!/usr/bin/env bash
# bench/rdb-import.sh — RDB import rate: `ruvio import-rdb` beside redis-server loading the same
# RDB file at start.
#
#   bench/rdb-import.sh                 # N=1,000,000 strings plus N/10 small hashes
#   N=200000 bench/rdb-import.sh
#
# redis-server (pinned to SERVER_CPU) makes the data set (DEBUG POPULATE N strings of 16 bytes,
# and N/10 hashes of 4 fields written by a Lua loop) and SAVEs it. Then, each pinned to
# SERVER_CPU, one after the other:
#   redis   redis-server started on that file; the time is Redis's own "DB loaded from disk"
#   import  ruvio import-rdb of the file into an empty data directory (1 shard); wall time
#   start   ruvio started on the imported directory until it answers PING (snapshot load)
# and prints keys per second for each. Only processes started here are stopped, by pid.
set -euo pipefail

N=${N:-1000000}
SERVER_CPU=${SERVER_CPU-0}
RUVIO_BIN=${RUVIO_BIN:-}
REDIS=${REDIS:-redis-server}
work=$(mktemp -d /tmp/rdb-import.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

if [[ -z $RUVIO_BIN ]]; then
	RUVIO_BIN=$work/ruvio-bin
	(cd "$(dirname "$0")/.." && go build -o "$RUVIO_BIN" .)
fi
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now() { date +%s.%N; }

port=$(freeport)
mkdir -p "$work/redis"
taskset -c "$SERVER_CPU" "$REDIS" --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
	--dir "$work/redis" --enable-debug-command yes --logfile "$work/redis/make.log" &
pids+=($!)
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.05; done
redis-cli -p "$port" DEBUG POPULATE "$N" key 16 >/dev/null
redis-cli -p "$port" EVAL "for i=1,tonumber(ARGV[1]) do redis.call('HSET','h:'..i,'a',i,'b','x','c',i*2,'d','yy') end" 0 $((N / 10)) >/dev/null
keys=$(redis-cli -p "$port" DBSIZE)
redis-cli -p "$port" SAVE >/dev/null
redis-cli -p "$port" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
wait "${pids[0]}" 2>/dev/null || true
pids=()
size=$(stat -c %s "$work/redis/dump.rdb")

# redis-server loading the file at start.
port=$(freeport)
taskset -c "$SERVER_CPU" "$REDIS" --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
	--dir "$work/redis" --logfile "$work/redis/load.log" &
pids+=($!)
until grep -q "DB loaded from disk" "$work/redis/load.log" 2>/dev/null; do sleep 0.05; done
redis_s=$(sed -n 's/.*DB loaded from disk: \([0-9.]*\) seconds.*/\1/p' "$work/redis/load.log")
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true
pids=()

# ruvio import-rdb.
t0=$(now)
taskset -c "$SERVER_CPU" "$RUVIO_BIN" import-rdb --config "" --dir "$work/ruvio" "$work/redis/dump.rdb" >"$work/import.txt"
t1=$(now)
import_s=$(echo "$t1 - $t0" | bc -l)

# ruvio loading the imported snapshot at start.
port=$(freeport)
t0=$(now)
taskset -c "$SERVER_CPU" "$RUVIO_BIN" --config "" --dir "$work/ruvio" --port "$port" --reactors 1 >"$work/ruvio.log" 2>&1 &
pids+=($!)
until redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; do sleep 0.02; done
t1=$(now)
start_s=$(echo "$t1 - $t0" | bc -l)
got=$(redis-cli -p "$port" DBSIZE)
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true
pids=()

[[ $got == "$keys" ]] || { echo "ruvio holds $got keys, the RDB $keys" >&2; exit 1; }
head -1 "$work/import.txt"
printf '%-8s %10s %12s %14s\n' what keys seconds keys/s
printf '%-8s %10d %12.3f %14.0f\n' redis "$keys" "$redis_s" "$(echo "$keys / $redis_s" | bc -l)"
printf '%-8s %10d %12.3f %14.0f\n' import "$keys" "$import_s" "$(echo "$keys / $import_s" | bc -l)"
printf '%-8s %10d %12.3f %14.0f\n' start "$keys" "$start_s" "$(echo "$keys / $start_s" | bc -l)"
echo "RDB file: $size bytes; import/redis time ratio $(echo "$import_s / $redis_s" | bc -l | cut -c1-5)"
