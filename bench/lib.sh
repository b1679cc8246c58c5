# bench/lib.sh — plumbing shared by the bench scripts. Source it after
# setting NAME (the log prefix) and optionally KEEP; it creates $WORK, $RAW and $PIDS, removes
# the work dir and stops every pid in PIDS (ours only) on exit.
# shellcheck shell=bash

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
KEEP=${KEEP:-0}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ruvio-$NAME.XXXXXX")
RAW="$WORK/raw.csv"
PIDS=()

cleanup() {
	local p
	for p in "${PIDS[@]:-}"; do
		[[ -n "$p" ]] || continue
		kill "$p" 2>/dev/null || true
	done
	for p in "${PIDS[@]:-}"; do
		[[ -n "$p" ]] || continue
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	if [[ "$KEEP" == 1 ]]; then echo "work dir kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() { echo "$NAME: $*" >&2; exit 1; }
log() { echo "$NAME: $*" >&2; }

# need TOOL...: stop unless every tool is on PATH.
need() {
	local t
	for t in "$@"; do command -v "$t" >/dev/null || die "$t not found"; done
}

# pinprefix CPU: the words that pin a command to CPU ("" = none: SERVER_CPU= or CLIENT_CPU= set
# empty leaves that side unpinned, where the scripts default to CPU 0 and 1). Expanded unquoted in
# front of the command rather than wrapping it in a function, so that $! is the server's own pid.
pinprefix() { [[ -n "$1" ]] && echo "taskset -c $1" || true; }

# cputicks PID: the CPU time process PID has used, user and system, in clock ticks (CLK_TCK).
cputicks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# cpuns PID: the CPU time process PID's threads have used, in nanoseconds, from the scheduler's
# own account (/proc/PID/task/*/schedstat, first field): clock ticks are 10 ms, so a run of
# 200 ms of CPU reads ±5 % from ticks alone. A thread that has exited is no longer counted (the
# servers measured keep theirs). Without schedstat, the ticks in nanoseconds.
cpuns() {
	local ns
	ns=$(cat "/proc/$1/task/"*/schedstat 2>/dev/null | awk '{ s += $1 } END { if (NR) printf "%.0f", s }')
	if [[ -n "$ns" && "$ns" != 0 ]]; then
		echo "$ns"
	else
		echo "$(cputicks "$1") * 1000000000 / $(getconf CLK_TCK)" | bc
	fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port N: a port p with p..p+N-1 all free. Ports come from 20000-31999, below the
# ephemeral range (32768+) where redis-benchmark and redis-cli bind their own sockets.
free_port() {
	local n=${1:-1} p i ok
	for _ in $(seq 200); do
		p=$((20000 + RANDOM % 12000))
		ok=1
		for ((i = 0; i < n; i++)); do port_free $((p + i)) || { ok=0; break; }; done
		[[ $ok == 1 ]] && { echo "$p"; return 0; }
	done
	die "no free port"
}

wait_ready() { # port pid name
	for _ in $(seq 100); do
		kill -0 "$2" 2>/dev/null || die "$3 exited during start-up (see logs in $WORK)"
		[[ "$(redis-cli -p "$1" ping 2>/dev/null || true)" == PONG ]] && return 0
		sleep 0.1
	done
	die "$3 did not answer PING on port $1"
}

# start_labeled LABEL COMMAND...: COMMAND on a free port with a data directory of its own
# ($WORK/data-LABEL), pinned to SERVER_CPU, logging to $WORK/LABEL.log; sets PORT[LABEL] and
# PID[LABEL] (associative arrays the caller declares) and waits for PING.
start_labeled() {
	local label=$1; shift
	PORT[$label]=$(free_port)
	mkdir -p "$WORK/data-$label"
	# shellcheck disable=SC2046
	$(pinprefix "$SERVER_CPU") "$@" --port "${PORT[$label]}" --dir "$WORK/data-$label" >"$WORK/$label.log" 2>&1 &
	PID[$label]=$!
	PIDS+=("${PID[$label]}")
	wait_ready "${PORT[$label]}" "${PID[$label]}" "$label"
}

# build_ruvio: $WORK/ruvio from RUVIO_BIN, or built from the repository.
build_ruvio() {
	if [[ -n "${RUVIO_BIN:-}" ]]; then
		log "using prebuilt $RUVIO_BIN"
		cp "$RUVIO_BIN" "$WORK/ruvio"
	else
		log "building ruvio"
		(cd "$ROOT" && go build -o "$WORK/ruvio" .) || die "go build failed (set RUVIO_BIN=path to use a prebuilt binary)"
	fi
}

# start_cache_redis [ARG...]: redis-server on a free port with no persistence, pinned to SERVER_CPU,
# with ARGs appended to its command line; sets REDIS_PORT and REDIS_PID.
start_cache_redis() {
	REDIS_PORT=$(free_port)
	mkdir -p "$WORK/redis"
	# shellcheck disable=SC2046
	$(pinprefix "${SERVER_CPU:-}") redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK/redis" \
		--save "" --appendonly no --daemonize no --logfile "$WORK/redis.log" "$@" &
	REDIS_PID=$!
	PIDS+=("$REDIS_PID")
	wait_ready "$REDIS_PORT" "$REDIS_PID" redis-server
}

# start_cache_ruvio [ARG...]: $WORK/ruvio with RUVIO_SHARDS shards (default one) on free ports,
# pinned to SERVER_CPU, keeping its WAL (RUVIO_WAL, default true) with fsync no and no snapshots (a
# background snapshot would land in the middle of a run), ARGs and RUVIO_EXTRA appended; sets
# RUVIO_PORT (shard 0's) and RUVIO_PID.
start_cache_ruvio() {
	local shards=${RUVIO_SHARDS:-1} data="$WORK/ruvio-data"
	[[ "$shards" == 1 ]] || data+="-$shards"
	cat >"$WORK/ruvio.toml" <<EOT
[persistence]
wal = ${RUVIO_WAL:-true}
fsync = "no"
snapshot_every = 0
snapshot_wal_bytes = 0
snapshot_on_shutdown = false
EOT
	RUVIO_PORT=$(free_port "$shards")
	mkdir -p "$data"
	# shellcheck disable=SC2046,SC2086
	$(pinprefix "${SERVER_CPU:-}") "$WORK/ruvio" --config "$WORK/ruvio.toml" --port "$RUVIO_PORT" --dir "$data" \
		--shards "$shards" --loglevel warn "$@" ${RUVIO_EXTRA:-} >"$WORK/ruvio.log" 2>&1 &
	RUVIO_PID=$!
	PIDS+=("$RUVIO_PID")
	wait_ready "$RUVIO_PORT" "$RUVIO_PID" ruvio
}
