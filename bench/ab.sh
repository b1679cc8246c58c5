#!/usr/bin/env bash
# bench/ab.sh — two Ruvio builds (A and B) against one redis-server, round by round.
#
#   RUVIO_A=/tmp/ruvio-before RUVIO_B=/tmp/ruvio-after bench/ab.sh
#   TESTS="hset sadd" ROUNDS=6 N=400000 RUVIO_A=… RUVIO_B=… bench/ab.sh
#
# The three servers run side by side, all pinned to SERVER_CPU, redis-benchmark pinned to
# CLIENT_CPU; each round runs every test once against each server, the order rotating by round
# (R A B, A B R, B R A). Besides requests/s it reads each server's CPU time (the scheduler's
# nanoseconds per thread, lib.sh cpuns) around every run: CPU microseconds per request depend far less on what
# else the machine is doing than requests/s do, so on a shared box they are the figure to compare
# builds by. Each line: rps and CPU µs/request of redis (R), A and B, then A/R and B/R in rps and
# R/A and R/B in CPU per request (> 1: Ruvio spends less CPU per request than redis-server).
# Collections grow over the rounds in all three servers alike.
set -euo pipefail

TESTS=${TESTS:-"hset rpush sadd lpush zadd"} # redis-benchmark -t names
ROUNDS=${ROUNDS:-6}
N=${N:-400000}                # -n per run
PIPELINE=${PIPELINE:-16}      # -P
CLIENTS=${CLIENTS:-50}        # -c
KEYSPACE=${KEYSPACE:-100000}  # -r
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-60} # hard limit per redis-benchmark run, seconds
# RUVIO_A_CONFIG, RUVIO_B_CONFIG: a config file for A or B (default none: built-in defaults), e.g.
# the same build twice, B with [server] direct_replies = true. --shards 1 --fsync no still apply.
# REDIS_ARGS: more redis-server arguments, e.g. "--appendonly yes --appendfsync no" to pair
# Ruvio's log (which --fsync no still writes) with Redis's AOF.
read -r -a REDIS_EXTRA <<<"${REDIS_ARGS:-}"
RUVIO_A=${RUVIO_A:?set RUVIO_A to the first ruvio binary}
RUVIO_B=${RUVIO_B:?set RUVIO_B to the second ruvio binary}
NAME=ab

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-benchmark redis-cli taskset timeout bc

declare -A PORT PID
start_labeled R redis-server --bind 127.0.0.1 --save "" --daemonize no --logfile "$WORK/R-redis.log" "${REDIS_EXTRA[@]}"
start_labeled A "$RUVIO_A" --config "${RUVIO_A_CONFIG:-}" --shards 1 --fsync no --loglevel warn
start_labeled B "$RUVIO_B" --config "${RUVIO_B_CONFIG:-}" --shards 1 --fsync no --loglevel warn

# one LABEL TEST: "rps cpu-µs-per-request"
one() {
	local c0 c1 rps
	c0=$(cpuns "${PID[$1]}")
	# shellcheck disable=SC2046
	rps=$(timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") redis-benchmark -h 127.0.0.1 \
		-p "${PORT[$1]}" -t "$2" -P "$PIPELINE" -c "$CLIENTS" -n "$N" -r "$KEYSPACE" --csv 2>/dev/null |
		tail -1 | cut -d, -f2 | tr -d '"') || true
	c1=$(cpuns "${PID[$1]}")
	echo "${rps:-0} $(echo "scale=4; ($c1 - $c0) / 1000 / $N" | bc)"
}

ratio() { [[ "$2" =~ ^0*\.?0*$ ]] && echo "-" || echo "scale=3; $1 / $2" | bc; }

log "redis pid=${PID[R]} A=${PID[A]} ($RUVIO_A) B=${PID[B]} ($RUVIO_B); -P $PIPELINE -c $CLIENTS -n $N -r $KEYSPACE"
echo "round test rpsR rpsA rpsB cpuR cpuA cpuB rpsA/R rpsB/R cpuR/A cpuR/B load1" | tee "$WORK/rows"
declare -A RPS CPU
for ((r = 1; r <= ROUNDS; r++)); do
	case $((r % 3)) in
	1) order="R A B" ;;
	2) order="A B R" ;;
	0) order="B R A" ;;
	esac
	for t in $TESTS; do
		for s in $order; do
			read -r RPS[$s] CPU[$s] < <(one "$s" "$t")
		done
		echo "$r $t ${RPS[R]} ${RPS[A]} ${RPS[B]} ${CPU[R]} ${CPU[A]} ${CPU[B]}" \
			"$(ratio "${RPS[A]}" "${RPS[R]}") $(ratio "${RPS[B]}" "${RPS[R]}")" \
			"$(ratio "${CPU[R]}" "${CPU[A]}") $(ratio "${CPU[R]}" "${CPU[B]}") $(cut -d' ' -f1 /proc/loadavg)" |
			tee -a "$WORK/rows"
	done
done

# Medians over the rounds, per test.
echo "# medians over $ROUNDS rounds: test rpsA/R rpsB/R cpuR/A cpuR/B cpuA/B (> 1: B spends less CPU per request than A)"
for t in $TESTS; do
	awk -v t="$t" '
		function med(a, n,   i, j, x) {
			for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		NR > 1 && $2 == t && $7 > 0 && $8 > 0 { n++; ra[n] = $9; rb[n] = $10; ca[n] = $11; cb[n] = $12; ab[n] = $7 / $8 }
		END { if (n) printf "# %s %.2f %.2f %.2f %.2f %.2f\n", t, med(ra, n), med(rb, n), med(ca, n), med(cb, n), med(ab, n) }
	' "$WORK/rows"
done
