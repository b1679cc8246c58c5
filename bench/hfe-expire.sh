#!/usr/bin/env bash
# bench/hfe-expire.sh — hash-field expiry against redis-server 7.4: the server CPU time to give
# FIELDS fields a deadline (HPEXPIRE) and then to expire them all actively, per field, for Ruvio
# and for a redis-server 7.4 built from source (REDIS_SERVER, required: Debian's 7.0 has no
# field expiry). CPU time is read from /proc/<pid>/stat around each phase, so it does not depend
# on how busy the machine is; the load comes from redis-cli --pipe.
#
#   REDIS_SERVER=/tmp/redis-7.4.1/src/redis-server bench/hfe-expire.sh
#   HASHES=10000 PER_HASH=100 TTL_MS=2000 bench/hfe-expire.sh
set -euo pipefail
NAME=hfe-expire
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HASHES=${HASHES:-10000}
PER_HASH=${PER_HASH:-100}
TTL_MS=${TTL_MS:-2000}
WAIT_S=${WAIT_S:-300}
IDLE_S=${IDLE_S:-5}
REDIS_SERVER=${REDIS_SERVER:?set REDIS_SERVER to a redis-server 7.4 or later}
need redis-cli timeout awk
build_ruvio

# cpu_ms PID: the process's user+system CPU time in milliseconds.
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000 / hz }' "/proc/$1/stat"; }

# gen_hset / gen_expire: the commands, one hash a line, in RESP for redis-cli --pipe.
gen() { # verb-args-builder
	awk -v n="$HASHES" -v k="$PER_HASH" -v ttl="$TTL_MS" -v mode="$1" 'BEGIN {
		for (h = 0; h < n; h++) {
			if (mode == "hset") { argc = 2 + 2 * k; printf "*%d\r\n$4\r\nHSET\r\n", argc }
			else { argc = 5 + k; printf "*%d\r\n$8\r\nHPEXPIRE\r\n", argc }
			key = "h:" h; printf "$%d\r\n%s\r\n", length(key), key
			if (mode != "hset") { t = ttl ""; printf "$%d\r\n%s\r\n$6\r\nFIELDS\r\n$%d\r\n%d\r\n", length(t), t, length(k ""), k }
			for (f = 0; f < k; f++) {
				field = "f" f; printf "$%d\r\n%s\r\n", length(field), field
				if (mode == "hset") { printf "$1\r\nv\r\n" }
			}
		}
	}'
}
gen hset >"$WORK/hset.resp"
gen expire >"$WORK/expire.resp"

run() { # name port pid
	local name=$1 port=$2 pid=$3 c0 c1 c2 start left i0 i1 t0 t1
	# The server's idle CPU rate (its timers), subtracted from the expiry phase, which waits.
	i0=$(cpu_ms "$pid"); t0=$(date +%s%N); sleep "$IDLE_S"; i1=$(cpu_ms "$pid"); t1=$(date +%s%N)
	redis-cli -p "$port" --pipe <"$WORK/hset.resp" >/dev/null
	c0=$(cpu_ms "$pid")
	redis-cli -p "$port" --pipe <"$WORK/expire.resp" >/dev/null
	c1=$(cpu_ms "$pid")
	start=$(date +%s%N)
	while :; do
		left=$(redis-cli -p "$port" dbsize)
		[[ "$left" == 0 ]] && break
		(($(date +%s%N) - start > WAIT_S * 1000000000)) && die "$name: $left hashes left after ${WAIT_S}s"
		sleep 0.5
	done
	c2=$(cpu_ms "$pid")
	awk -v n="$name" -v f="$((HASHES * PER_HASH))" -v a="$c0" -v b="$c1" -v c="$c2" -v s="$(($(date +%s%N) - start))" \
		-v idle="$(awk -v a="$i0" -v b="$i1" -v d="$((t1 - t0))" 'BEGIN { print (b - a) / (d / 1e9) }')" 'BEGIN {
		net = (c - b) - idle * s / 1e9
		printf "%-13s fields %d: HPEXPIRE %.0f ms CPU (%.0f ns/field); active expiry %.0f ms CPU over %.1f s, %.0f ms less the idle rate (%.1f ms/s): %.0f ns/field\n",
			n, f, b - a, 1e6 * (b - a) / f, c - b, s / 1e9, net, idle, 1e6 * net / f }'
}

RPORT=$(free_port 1)
mkdir -p "$WORK/redis"
"$REDIS_SERVER" --port "$RPORT" --bind 127.0.0.1 --dir "$WORK/redis" --save "" --appendonly no \
	--logfile "$WORK/redis.log" &
RPID=$!
PIDS+=("$RPID")
wait_ready "$RPORT" "$RPID" redis-server
QPORT=$(free_port 1)
"$WORK/ruvio" --config "" --port "$QPORT" --dir "$WORK/ruvio-data" --fsync no --loglevel warn >"$WORK/ruvio.log" 2>&1 &
QPID=$!
PIDS+=("$QPID")
wait_ready "$QPORT" "$QPID" ruvio

echo "$HASHES hashes of $PER_HASH fields, deadline ${TTL_MS} ms, $("$REDIS_SERVER" --version | cut -d' ' -f3)"
run redis-server "$RPORT" "$RPID"
run ruvio "$QPORT" "$QPID"
