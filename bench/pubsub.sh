#!/usr/bin/env bash
# bench/pubsub.sh — PUBLISH (and SPUBLISH) fan-out: Ruvio against redis-server 7, paired.
#
#   bench/pubsub.sh                           # 1, 10 and 100 subscribers, ROUNDS=3
#   SUBSCRIBERS="10" ROUNDS=1 bench/pubsub.sh
#
# Both servers pinned to SERVER_CPU (ruvio with 1 shard, WAL fsync no, no snapshots; redis
# with --save "" --appendonly no). For each case, bench/subs holds the subscriber connections
# (reading and discarding) and redis-benchmark sends PUBLISH bench <PAYLOAD bytes> from -c 50
# clients with -P 16; both run on CLIENT_CPU. Delivered messages per second = PUBLISH calls
# per second x subscribers. Rounds alternate which server goes first. Every run is bounded
# (-n and a hard timeout); only the processes started here are stopped (by pid).
set -euo pipefail

SUBSCRIBERS=${SUBSCRIBERS:-"1 10 100"}
CMDS=${CMDS:-"PUBLISH SPUBLISH"}
ROUNDS=${ROUNDS:-3}
N=${N:-200000}
CLIENTS=${CLIENTS:-50}
PIPELINE=${PIPELINE:-16}
PAYLOAD=${PAYLOAD:-64}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
RUVIO_BIN=${RUVIO_BIN:-}
KEEP=${KEEP:-0}

NAME=pubsub
# shellcheck source=bench/lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib.sh"
need redis-server redis-benchmark redis-cli taskset go timeout
build_ruvio
(cd "$ROOT" && go build -o "$WORK/subs" ./bench/subs) || die "go build bench/subs failed"

start_cache_redis --client-output-buffer-limit "pubsub 0 0 0"
start_cache_ruvio
redis-cli -p "$RUVIO_PORT" config set ruvio-client-output-buffer-limit 0 >/dev/null

MSG=$(head -c "$PAYLOAD" /dev/zero | tr '\0' m)

# one server port subs cmd: PUBLISH calls per second
one() {
	local port=$2 subs=$3 cmd=$4 sub=SUBSCRIBE rps spid
	[[ $cmd == SPUBLISH ]] && sub=SSUBSCRIBE
	# shellcheck disable=SC2046
	$(pinprefix "$CLIENT_CPU") "$WORK/subs" -addr "127.0.0.1:$port" -n "$subs" -cmd "$sub" -channel bench \
		-for "${RUN_TIMEOUT}s" >"$WORK/subs.out" 2>&1 &
	spid=$!
	PIDS+=("$spid")
	for _ in $(seq 100); do grep -q ready "$WORK/subs.out" && break; sleep 0.1; done
	grep -q ready "$WORK/subs.out" || die "subscribers did not start: $(cat "$WORK/subs.out")"
	# shellcheck disable=SC2046
	rps=$(timeout "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") redis-benchmark -h 127.0.0.1 -p "$port" \
		-c "$CLIENTS" -n "$N" -P "$PIPELINE" --csv "$cmd" bench "$MSG" | awk -F'"' 'NR == 2 { print $4 }')
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	echo "$rps"
}

echo "# Pub/Sub fan-out, ruvio vs redis-server — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# servers on CPU $SERVER_CPU; subscribers (bench/subs) and redis-benchmark -c $CLIENTS -P $PIPELINE -n $N on CPU $CLIENT_CPU; payload $PAYLOAD bytes; ROUNDS=$ROUNDS"
printf '%-9s %5s %14s %14s %16s %7s\n' command subs redis_calls/s ruvio_calls/s ruvio_delivered/s ratio
for cmd in $CMDS; do
	for subs in $SUBSCRIBERS; do
		[[ $cmd == SPUBLISH && $subs != 10 ]] && continue
		rs=() us=()
		for ((r = 0; r < ROUNDS; r++)); do
			if ((r % 2 == 0)); then
				rs+=("$(one redis "$REDIS_PORT" "$subs" "$cmd")")
				us+=("$(one ruvio "$RUVIO_PORT" "$subs" "$cmd")")
			else
				us+=("$(one ruvio "$RUVIO_PORT" "$subs" "$cmd")")
				rs+=("$(one redis "$REDIS_PORT" "$subs" "$cmd")")
			fi
		done
		med() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
		R=$(med "${rs[@]}") U=$(med "${us[@]}")
		awk -v c="$cmd" -v s="$subs" -v r="$R" -v u="$U" \
			'BEGIN { printf "%-9s %5d %14.0f %14.0f %16.0f %7.2f\n", c, s, r, u, u * s, (r > 0 ? u / r : 0) }'
	done
done
