#!/usr/bin/env bash
# bench/netpath.sh — what the kernel path costs per request: redis-server, Ruvio and the netpath
# tool (bench/netpath: one loop serving GET and SET from a map) over epoll and over io_uring.
#
#   bench/netpath.sh                                  # builds ruvio and netpath from the repository
#   RUVIO_BIN=/tmp/ruvio TESTS="get set" PIPELINES="1 16" ROUNDS=5 bench/netpath.sh
#
# Servers, each pinned to SERVER_CPU, redis-benchmark pinned to CLIENT_CPU:
#   R  redis-server 7.0 (no RDB, no AOF)
#   E  netpath -mode epoll: epoll_wait, then read(2) and write(2) per ready socket, as redis-server
#   U  netpath -mode uring: one io_uring_enter per turn submits its sends and receives
#   V  Ruvio, one shard, --fsync no
# E and U do the same work per request, so U/E is the kernel path's share alone; R/E says how far
# a server of that minimal shape is from redis-server, R/V and R/U what a server gains from each
# path. Each round runs every server once per test, the order rotating by round. CPU per request
# is the server's utime + stime from /proc around the run, over -n. Output: one line per round,
# then medians: "# test P cpuR cpuE cpuU cpuV R/E R/U R/V E/U" (ratios > 1: the second spends less).
set -euo pipefail

TESTS=${TESTS:-"get set"}
PIPELINES=${PIPELINES:-"1 16"}
ROUNDS=${ROUNDS:-5}
N1=${N1:-200000}    # -n at -P 1
N16=${N16:-1000000} # -n at deeper pipelines
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-100000}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
NAME=netpath

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-benchmark redis-cli taskset timeout bc go
build_ruvio
(cd "$ROOT" && go build -o "$WORK/netpath" ./bench/netpath) || die "go build ./bench/netpath failed"

declare -A PORT PID
start_labeled R redis-server --bind 127.0.0.1 --save "" --daemonize no --logfile "$WORK/R-redis.log"
start_labeled E "$WORK/netpath" -mode epoll
start_labeled U "$WORK/netpath" -mode uring
start_labeled V "$WORK/ruvio" --config "" --shards 1 --fsync no --loglevel warn

# one LABEL TEST P N: CPU µs per request
one() {
	local c0 c1
	c0=$(cpuns "${PID[$1]}")
	# shellcheck disable=SC2046
	timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") redis-benchmark -h 127.0.0.1 -p "${PORT[$1]}" \
		-t "$2" -P "$3" -c "$CLIENTS" -n "$4" -r "$KEYSPACE" --csv >/dev/null 2>&1 || true
	c1=$(cpuns "${PID[$1]}")
	echo "scale=4; ($c1 - $c0) / 1000 / $4" | bc
}

echo "round test P cpuR cpuE cpuU cpuV load1" | tee "$WORK/rows"
declare -A CPU
for p in $PIPELINES; do
	n=$N16
	[[ $p == 1 ]] && n=$N1
	for ((r = 1; r <= ROUNDS; r++)); do
		case $((r % 4)) in
		1) order="R E U V" ;;
		2) order="E U V R" ;;
		3) order="U V R E" ;;
		0) order="V R E U" ;;
		esac
		for t in $TESTS; do
			for s in $order; do CPU[$s]=$(one "$s" "$t" "$p" "$n"); done
			echo "$r $t $p ${CPU[R]} ${CPU[E]} ${CPU[U]} ${CPU[V]} $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$WORK/rows"
		done
	done
done

echo "# medians over $ROUNDS rounds, CPU µs per request: test P cpuR cpuE cpuU cpuV R/E R/U R/V E/U"
for p in $PIPELINES; do
	for t in $TESTS; do
		awk -v t="$t" -v p="$p" '
			function med(a, n,   i, j, x) {
				for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			NR > 1 && $2 == t && $3 == p && $4 > 0 && $5 > 0 && $6 > 0 && $7 > 0 {
				n++; r[n] = $4; e[n] = $5; u[n] = $6; v[n] = $7
				re[n] = $4 / $5; ru[n] = $4 / $6; rv[n] = $4 / $7; eu[n] = $5 / $6
			}
			END {
				if (n) printf "# %s %s %.3f %.3f %.3f %.3f %.2f %.2f %.2f %.2f\n", t, p, med(r, n), med(e, n), med(u, n), med(v, n),
					med(re, n), med(ru, n), med(rv, n), med(eu, n)
			}
		' "$WORK/rows"
	done
done
