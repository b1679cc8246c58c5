#!/usr/bin/env bash
# bench/costs.sh — what one request costs each server, split by where it goes, at full speed.
#
#   bench/costs.sh                                   # builds ruvio from the repository
#   RUVIO_BIN=/tmp/ruvio TESTS="set get" PIPELINES="1 16" ROUNDS=3 bench/costs.sh
#
# redis-server (no RDB, no AOF), redis-server with AOF (appendfsync no: the fair pairing for
# Ruvio's log, which --fsync no still writes) and Ruvio (one shard, --fsync no) run side by side,
# each pinned to SERVER_CPU, redis-benchmark pinned to CLIENT_CPU. Around each run the script reads
# from /proc, with no tracer attached (strace slows both servers a hundredfold and changes how
# requests batch):
#   - user and system CPU time (/proc/PID/stat, 10 ms ticks);
#   - read- and write-family syscalls (/proc/PID/io syscr, syscw: read/readv/recvmsg… and
#     write/writev/sendmsg…, sockets, files and eventfds alike);
#   - context switches of all the server's threads (/proc/PID/task/*/status), voluntary and not.
# RUVIO_CONFIG names a config file for Ruvio (default none), e.g. one with [server]
# direct_replies = true; --shards 1 --fsync no still apply.
# Each line is the median of ROUNDS runs of one server, test and pipeline depth, per request.
set -euo pipefail

TESTS=${TESTS:-"set get incr hset lpush zadd sadd mset"} # redis-benchmark -t names
PIPELINES=${PIPELINES:-"1 16"}
ROUNDS=${ROUNDS:-3}
N1=${N1:-200000}     # -n at -P 1
N16=${N16:-2000000}  # -n at deeper pipelines
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-100000}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
NAME=costs

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-benchmark redis-cli taskset timeout
build_ruvio

declare -A PORT PID
start_labeled redis redis-server --bind 127.0.0.1 --save "" --daemonize no --logfile "$WORK/redis.log"
start_labeled redis-aof redis-server --bind 127.0.0.1 --save "" --daemonize no --logfile "$WORK/redis-aof.log" \
	--appendonly yes --appendfsync no
start_labeled ruvio "$WORK/ruvio" --config "${RUVIO_CONFIG:-}" --shards 1 --fsync no --loglevel warn

# snap PID: "utime stime syscr syscw voluntary involuntary"
snap() {
	local pid=$1 ut st r w v=0 nv=0 f a b
	read -r ut st < <(awk '{ print $14, $15 }' "/proc/$pid/stat")
	r=$(awk '/^syscr/ { print $2 }' "/proc/$pid/io")
	w=$(awk '/^syscw/ { print $2 }' "/proc/$pid/io")
	for f in /proc/"$pid"/task/*/status; do
		read -r a b < <(awk '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 } END { print v + 0, n + 0 }' "$f" 2>/dev/null || echo "0 0")
		v=$((v + a)); nv=$((nv + b))
	done
	echo "$ut $st $r $w $v $nv"
}

# one LABEL TEST P N: appends "label test P user_us sys_us reads writes vcs nvcs" to $RAW
one() {
	local label=$1 t=$2 p=$3 n=$4 s0 s1
	s0=$(snap "${PID[$label]}")
	# shellcheck disable=SC2046
	timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") redis-benchmark -h 127.0.0.1 -p "${PORT[$label]}" \
		-t "$t" -P "$p" -c "$CLIENTS" -n "$n" -r "$KEYSPACE" -q >/dev/null 2>&1 || die "$label $t -P $p: redis-benchmark failed"
	s1=$(snap "${PID[$label]}")
	echo "$s0 $s1" | awk -v l="$label" -v t="$t" -v p="$p" -v n="$n" '{
		printf "%s %s %s %.3f %.3f %.4f %.4f %.4f %.4f\n", l, t, p,
			($7 - $1) * 10000 / n, ($8 - $2) * 10000 / n, ($9 - $3) / n, ($10 - $4) / n,
			($11 - $5) / n, ($12 - $6) / n }' >>"$RAW"
}

: >"$RAW"
for p in $PIPELINES; do
	n=$N16
	[[ $p == 1 ]] && n=$N1
	for t in $TESTS; do
		# a first short run fills collections in every server alike
		for label in redis redis-aof ruvio; do one "$label" "$t" "$p" $((n / 10)) && sed -i '$d' "$RAW"; done
		for ((r = 0; r < ROUNDS; r++)); do
			for label in redis redis-aof ruvio; do one "$label" "$t" "$p" "$n"; done
		done
		log "-P $p $t done"
	done
done

echo "# per request, medians of $ROUNDS runs: CPU µs (user, system), read and write syscalls, context switches (voluntary, involuntary)"
printf "%-9s %-6s %3s %8s %8s %8s %8s %8s %8s\n" server test P user_us sys_us reads writes vcs nvcs
sort -k3,3n -k2,2 -k1,1 "$RAW" | awk '
	function med(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x } return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	function flush() { if (k == 0) return; printf "%-9s %-6s %3s", key[1], key[2], key[3]; for (c = 4; c <= 9; c++) { for (i = 1; i <= k; i++) col[i] = v[i, c]; printf " %8s", med(col, k) } printf "\n"; k = 0 }
	{ id = $1 " " $2 " " $3; if (id != last) { flush(); last = id; key[1] = $1; key[2] = $2; key[3] = $3 } k++; for (c = 4; c <= 9; c++) v[k, c] = $c }
	END { flush() }'
