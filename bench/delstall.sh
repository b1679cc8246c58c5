#!/usr/bin/env bash
# bench/delstall.sh — does deleting a huge collection stall its shard?
#
#   bench/delstall.sh                     # 5,000,000 elements per collection
#   N=1000000 TYPES="zset hash" bench/delstall.sh
#
# For each type (zset, hash, list, set) one ruvio shard (fsync no, no snapshots) is loaded with
# one collection of N elements through redis-cli --pipe, copied three times with COPY, and the
# four copies go by DEL, UNLINK, expiry (PEXPIRE 1, then the active expiry cycle) and
# FLUSHALL. During each, `gen pingprobe` sends PING after PING on its own connection for
# PROBE seconds (the deletion starts one second in) and reports the longest round trip and how
# many took over 1 ms; a stall of the shard is a round trip as long as the stall. Beside it,
# the command's own time in the shard from INFO commandstats (usec of the call). The machine's
# load shows in the probe's baseline: compare with the "idle" row, probed without a deletion.
# Only the processes started here are stopped, by pid.
set -euo pipefail

N=${N:-5000000}
TYPES=${TYPES:-"zset hash list set"}
PROBE=${PROBE:-4}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUVIO_BIN=${RUVIO_BIN:-}
KEEP=${KEEP:-0}

NAME=delstall
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-cli taskset go timeout
cli() { redis-cli -h 127.0.0.1 -p "$@"; }

build_ruvio
(cd "$ROOT" && go build -o "$WORK/gen" ./bench/gen) || die "go build ./bench/gen failed"

# gen_load TYPE: RESP commands adding N elements, 10 per command, to key "big".
gen_load() {
	local args=() k
	case $1 in
	zset) args=(ZADD big); for k in 0 1 2 3 4 5 6 7 8 9; do args+=("{i}$k" "member:{i}$k"); done ;;
	hash) args=(HSET big); for k in 0 1 2 3 4 5 6 7 8 9; do args+=("field:{i}$k" "value:{i}$k"); done ;;
	list) args=(RPUSH big); for k in 0 1 2 3 4 5 6 7 8 9; do args+=("element:{i}$k"); done ;;
	set) args=(SADD big); for k in 0 1 2 3 4 5 6 7 8 9; do args+=("member:{i}$k"); done ;;
	esac
	"$WORK/gen" resp -n $((N / 10)) -digits 9 "${args[@]}"
}

# probe PORT OP...: runs OP (a redis-cli command, or "idle") one second into a PROBE-second
# ping probe and prints the probe's line and the command's usec from INFO commandstats.
probe() {
	local port=$1 out usec=""
	shift
	cli "$port" config resetstat >/dev/null
	# shellcheck disable=SC2046
	$(pinprefix "$CLIENT_CPU") "$WORK/gen" pingprobe -addr "127.0.0.1:$port" -for "${PROBE}s" >"$WORK/probe.out" &
	local ppid=$!
	sleep 1
	if [[ "$1" != idle ]]; then
		cli "$port" "$@" >/dev/null
		usec=$(cli "$port" info commandstats | tr -d '\r' | awk -F'[:,=]' -v c="cmdstat_${1,,}" '$1==c{print $5}')
	fi
	wait "$ppid"
	out=$(cat "$WORK/probe.out")
	echo "$out command_usec=${usec:-NA}"
}

echo "# Deleting one collection of N=$N elements — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| type | deletion | PINGs | max round trip µs | p99.9 µs | over 1 ms | over 10 ms | command µs in the shard |"
echo "|---|---|--:|--:|--:|--:|--:|--:|"
for type in $TYPES; do
	port=$(free_port)
	data="$WORK/data-$type"
	mkdir -p "$data"
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
	# shellcheck disable=SC2046
	$(pinprefix "$SERVER_CPU") "$WORK/ruvio" --config "$WORK/ruvio.toml" --port "$port" --dir "$data" >"$WORK/ruvio-$type.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	wait_ready "$port" "$pid" ruvio
	log "$type: loading $N elements"
	gen_load "$type" | cli "$port" --pipe >/dev/null
	for k in big2 big3 big4; do cli "$port" copy big "$k" >/dev/null; done
	sleep 2
	row() { # name probe-line
		local p
		p=$2
		echo "| $type | $1 | $(sed -E 's/.*pings=([0-9]+) max_us=([0-9]+) p999_us=([0-9]+) p99_us=[0-9]+ over_1ms=([0-9]+) over_10ms=([0-9]+) command_usec=([^ ]*).*/\1 | \2 | \3 | \4 | \5 | \6/' <<<"$p") |"
	}
	row idle "$(probe "$port" idle)"
	row DEL "$(probe "$port" del big)"
	row UNLINK "$(probe "$port" unlink big2)"
	row "expiry (PEXPIRE 1)" "$(probe "$port" pexpire big3 1)"
	row FLUSHALL "$(probe "$port" flushall)"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
done
