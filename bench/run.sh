#!/usr/bin/env bash
# bench/run.sh — Ruvio vs redis-server, side by side in one run.
#
#   bench/run.sh                      # MODE=core: 1-shard ruvio vs redis-server, both pinned
#   MODE=cluster bench/run.sh         # 2-shard ruvio (unpinned) via redis-benchmark --cluster
#   MODE=durable bench/run.sh         # fsync-always ruvio vs appendfsync-always redis-server
#   PRELOAD=10000000 TESTS="set get" bench/run.sh   # core mode on 10M keys loaded first
#
# Every load run is bounded (-n requests and a hard `timeout`), servers listen on free
# loopback ports in a temp dir, and only the processes started here are stopped (by pid).
# See bench/README.md for what the numbers mean.
set -euo pipefail

MODE=${MODE:-core}                  # core | cluster | durable
ROUNDS=${ROUNDS:-3}                 # rounds; the table shows the median over rounds
TESTS=${TESTS:-"set get incr mset"} # redis-benchmark -t names (core and cluster modes)
PIPELINES=${PIPELINES:-"1 16"}      # -P values (core and cluster modes)
CLIENTS=${CLIENTS:-50}              # -c (core and cluster modes)
KEYSPACE=${KEYSPACE:-100000}        # -r
PRELOAD=${PRELOAD:-0}               # core mode: SET this many keys (key:{12 digits}, 16-byte values, the
                                    # names redis-benchmark's -r uses) into both servers first; -r becomes it
N_P1=${N_P1:-80000}                 # -n at -P 1  (~2-7 s per run on the 2-vCPU box)
N_PIPE=${N_PIPE:-800000}            # -n at -P >1 (~1.5-4 s per run)
MSET_DIV=${MSET_DIV:-2}             # MSET sends 10 keys per request: divide -n by this
# durable mode: test:pipeline:clients cases
DURABLE_CASES=${DURABLE_CASES:-"set:1:1 set:1:10 set:1:50 set:1:200"}
N_DURABLE=${N_DURABLE:-60000}       # -n for durable runs at -c > 1 (~2-3 s)
N_DURABLE_C1=${N_DURABLE_C1:-5000}  # -n for durable runs at -c 1 (one fsync per request, ~2-3 s)
SERVER_CPU=${SERVER_CPU-0}         # CPU the servers are pinned to (core, durable; redis in cluster)
CLIENT_CPU=${CLIENT_CPU-1}         # CPU redis-benchmark is pinned to ("" = unpinned)
RUN_TIMEOUT=${RUN_TIMEOUT:-60}      # hard limit per redis-benchmark run, seconds
RUVIO_SHARDS_CLUSTER=${RUVIO_SHARDS_CLUSTER:-2}
RUVIO_EXTRA=${RUVIO_EXTRA:-}        # extra ruvio flags, e.g. "--reactors 1"
RUVIO_BIN=${RUVIO_BIN:-}            # prebuilt ruvio binary (default: go build from the repo root)
KEEP=${KEEP:-0}                     # 1 = keep the work dir (raw CSV, server logs)
NAME=bench

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-benchmark redis-cli taskset go timeout

# ---------------------------------------------------------------- build
build_ruvio

# ---------------------------------------------------------------- servers
REDIS_PORT=; RUVIO_PORT=; REDIS_PID=; RUVIO_PID=

start_redis() { # extra redis-server args...
	REDIS_PORT=$(free_port 1)
	mkdir -p "$WORK/redis"
	# shellcheck disable=SC2046
	$(pinprefix "$SERVER_CPU") redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK/redis" \
		--save "" --daemonize no --logfile "$WORK/redis.log" "$@" &
	REDIS_PID=$!
	PIDS+=("$REDIS_PID")
	wait_ready "$REDIS_PORT" "$REDIS_PID" redis-server
}

start_ruvio() { # cpu shards extra ruvio args...
	local cpu=$1 shards=$2; shift 2
	RUVIO_PORT=$(free_port "$shards")
	mkdir -p "$WORK/ruvio-data"
	# shellcheck disable=SC2046,SC2086
	$(pinprefix "$cpu") "$WORK/ruvio" --config "" --port "$RUVIO_PORT" --dir "$WORK/ruvio-data" \
		--shards "$shards" --loglevel warn $RUVIO_EXTRA "$@" >"$WORK/ruvio.log" 2>&1 &
	RUVIO_PID=$!
	PIDS+=("$RUVIO_PID")
	local i
	for ((i = 0; i < shards; i++)); do wait_ready $((RUVIO_PORT + i)) "$RUVIO_PID" ruvio; done
}

# ---------------------------------------------------------------- one run
# bench_one server port extra-bench-args test pipeline clients n round
# Appends "mode,round,server,test,pipeline,clients,n,secs,rps,avg,min,p50,p95,p99,max,load1,p999,client_cpu"
# to RAW (load1: the 1-minute load average when the run ended — anything above ~2 means other
# work shared the CPUs; p999: the latency at the first percentile >= 99.9% that redis-benchmark's
# distribution reports; client_cpu: redis-benchmark's user+system CPU time as a share of the run's
# wall time — near 100% means the load generator, not the server, set the pace).
TIMEFORMAT='%R %U %S'
bench_one() {
	local server=$1 port=$2 extra=$3 test=$4 pipe=$5 clients=$6 n=$7 round=$8
	local out secs line cpu times="$WORK/bench-time.out"
	# shellcheck disable=SC2046,SC2086
	out=$({ time timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") \
		redis-benchmark -h 127.0.0.1 -p "$port" $extra -t "$test" -P "$pipe" -c "$clients" \
		-n "$n" -r "$KEYSPACE" 2>&1; } 2>"$times") || log "redis-benchmark $server $test -P $pipe exited $? (timeout ${RUN_TIMEOUT}s?)"
	read -r secs cpu < <(awk '{ printf "%.1f %.0f\n", $1, ($1 > 0 ? 100 * ($2 + $3) / $1 : 0) }' "$times")
	# rps,avg,min,p50,p95,p99,max from the summary, then p99.9 from the distribution
	line=$(printf '%s\n' "$out" | tr '\r' '\n' | awk '
		/throughput summary:/ { rps = $3 }
		/^ *avg +min +p50/ { getline; avg = $1; mn = $2; p50 = $3; p95 = $4; p99 = $5; mx = $6 }
		/^Latency by percentile distribution/ { dist = 1; next }
		dist && /^$/ { dist = 0 }
		dist && p999 == "" { pct = $1; sub(/%$/, "", pct); if (pct + 0 >= 99.9) p999 = $3 }
		END { if (rps != "" && p99 != "") printf "%s,%s,%s,%s,%s,%s,%s,%s", rps, avg, mn, p50, p95, p99, mx, (p999 == "" ? "NA" : p999) }')
	if [[ -z "$line" ]]; then
		log "no summary from $server $test -P $pipe -c $clients; output was:"
		printf '%s\n' "$out" | tr '\r' '\n' | grep -v '^ *$' | tail -n 5 >&2
		line='NA,NA,NA,NA,NA,NA,NA,NA'
	fi
	echo "$MODE,$round,$server,$test,$pipe,$clients,$n,$secs,${line%,*},$(cut -d' ' -f1 /proc/loadavg),${line##*,},$cpu" >>"$RAW"
	printf 'bench: round %s %-12s %-5s -P %-3s -c %-3s %6.1fs rps=%s client cpu %s%%\n' \
		"$round" "$server" "$test" "$pipe" "$clients" "$secs" "$(cut -d, -f1 <<<"$line")" "$cpu" >&2
}

n_for() { # test pipeline clients
	local n
	if [[ "$MODE" == durable ]]; then
		if [[ "$3" == 1 ]]; then n=$N_DURABLE_C1; else n=$N_DURABLE; fi
	elif [[ "$2" == 1 ]]; then n=$N_P1; else n=$N_PIPE; fi
	[[ "$1" == mset ]] && n=$((n / MSET_DIV))
	echo "$n"
}

# ---------------------------------------------------------------- modes
CASES=()
RUVIO_NAME=ruvio
RUVIO_BENCH_ARGS=""
case "$MODE" in
core)
	start_redis --appendonly no
	start_ruvio "$SERVER_CPU" 1 --fsync no
	for t in $TESTS; do for p in $PIPELINES; do CASES+=("$t:$p:$CLIENTS"); done; done
	;;
cluster)
	start_redis --appendonly no
	start_ruvio "" "$RUVIO_SHARDS_CLUSTER" --fsync no
	RUVIO_NAME="ruvio-${RUVIO_SHARDS_CLUSTER}shard"
	RUVIO_BENCH_ARGS="--cluster"
	for t in $TESTS; do for p in $PIPELINES; do CASES+=("$t:$p:$CLIENTS"); done; done
	;;
durable)
	mkdir -p "$WORK/redis"
	start_redis --appendonly yes --appendfsync always
	start_ruvio "$SERVER_CPU" 1 --fsync always
	for c in $DURABLE_CASES; do CASES+=("$c"); done
	(cd "$ROOT" && go build -o "$WORK/syncbench" ./bench/syncbench) || die "go build ./bench/syncbench failed"
	# idle fsync latency on the data directory's disk, before and after the rounds: the ceiling
	FSYNC_BEFORE=$("$WORK/syncbench" -idle -dir "$WORK" -n 400 -rounds 1 -size 64 -segment $((8 << 20)))
	;;
*) die "MODE must be core, cluster or durable (got $MODE)" ;;
esac

if ((PRELOAD > 0)); then
	[[ "$MODE" == core ]] || die "PRELOAD works with MODE=core only"
	(cd "$ROOT" && go build -o "$WORK/gen" ./bench/gen) || die "go build ./bench/gen failed"
	"$WORK/gen" resp -n "$PRELOAD" -digits 12 SET 'key:{i}' 'val:{i}' >"$WORK/preload.resp"
	for port in "$REDIS_PORT" "$RUVIO_PORT"; do
		timeout 600 redis-cli -p "$port" --pipe <"$WORK/preload.resp" >"$WORK/preload-$port.log" 2>&1 ||
			die "preload into port $port failed: $(tail -2 "$WORK/preload-$port.log")"
	done
	rm -f "$WORK/preload.resp"
	KEYSPACE=$PRELOAD
	log "preloaded $PRELOAD keys into both servers"
fi

# memline PORT PID: resident set and used_memory of one server, in MB.
memline() {
	local rss used
	rss=$(awk '/^VmRSS/{printf "%.1f", $2/1024}' "/proc/$2/status")
	used=$(redis-cli -p "$1" info memory | tr -d '\r' | awk -F: '$1=="used_memory"{printf "%.1f", $2/1048576}')
	echo "rss ${rss} MB, used_memory ${used} MB"
}

# Is ruvio's WAL actually on? (INFO persistence: aof_enabled)
WAL_ON=$(redis-cli -p "$RUVIO_PORT" info persistence 2>/dev/null | tr -d '\r' | awk -F: '$1=="aof_enabled"{print $2}')
if [[ "$MODE" == durable && "$WAL_ON" != 1 ]]; then
	log "WARNING: ruvio reports aof_enabled:${WAL_ON:-?} — the WAL is not wired; the ruvio column is NOT durable"
	RUVIO_NAME="ruvio(no-WAL)"
fi

GOMAXPROCS_RUVIO=$(redis-cli -p "$RUVIO_PORT" info server 2>/dev/null | tr -d '\r' | awk -F: '$1=="go_maxprocs"{print $2}')
log "mode=$MODE rounds=$ROUNDS redis pid=$REDIS_PID port=$REDIS_PORT; ruvio pid=$RUVIO_PID port=$RUVIO_PORT${GOMAXPROCS_RUVIO:+ GOMAXPROCS=$GOMAXPROCS_RUVIO}; work=$WORK"

START=$(date +%s)
for ((r = 1; r <= ROUNDS; r++)); do
	for c in "${CASES[@]}"; do
		IFS=: read -r t p cl <<<"$c"
		n=$(n_for "$t" "$p" "$cl")
		# alternate which server goes first, so neither always runs on a warmer box
		if ((r % 2 == 1)); then
			bench_one redis "$REDIS_PORT" "" "$t" "$p" "$cl" "$n" "$r"
			bench_one "$RUVIO_NAME" "$RUVIO_PORT" "$RUVIO_BENCH_ARGS" "$t" "$p" "$cl" "$n" "$r"
		else
			bench_one "$RUVIO_NAME" "$RUVIO_PORT" "$RUVIO_BENCH_ARGS" "$t" "$p" "$cl" "$n" "$r"
			bench_one redis "$REDIS_PORT" "" "$t" "$p" "$cl" "$n" "$r"
		fi
	done
done
ELAPSED=$(($(date +%s) - START))
RUVIO_GC=$(redis-cli -p "$RUVIO_PORT" info 2>/dev/null | tr -d '\r' | awk -F: '$1 ~ /^go_gc_(cpu_fraction|count|last_pause_ns)$/{printf "%s=%s ", $1, $2}')
MEM_REDIS=$(memline "$REDIS_PORT" "$REDIS_PID")
MEM_RUVIO=$(memline "$RUVIO_PORT" "$RUVIO_PID")
FSYNC_US=
if [[ "$MODE" == durable ]]; then
	FSYNC_AFTER=$("$WORK/syncbench" -idle -dir "$WORK" -n 400 -rounds 1 -size 64 -segment $((8 << 20)))
	FSYNC_US=$(((FSYNC_BEFORE + FSYNC_AFTER) / 2))
	RUVIO_WAL=$(redis-cli -p "$RUVIO_PORT" info persistence 2>/dev/null | tr -d '\r' |
		awk -F: '$1 ~ /^wal_(avg_fsync_latency_us|commands_per_fsync|commit_delay_max_us|commit_delays|commit_delays_early|commit_delay_avg_us|inline_syncs)$/ { printf "%s=%s ", $1, $2 }')
fi

# ---------------------------------------------------------------- report
echo
echo "# Ruvio vs redis-server — MODE=$MODE, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, redis $(redis-server --version | awk '{sub(/^v=/, "", $3); print $3}'), ROUNDS=$ROUNDS, -r $KEYSPACE"
case "$MODE" in
core) echo "# redis-server and ruvio (1 shard, --fsync no) pinned to CPU $SERVER_CPU; redis-benchmark pinned to CPU ${CLIENT_CPU:-any}" ;;
cluster) echo "# reference: one redis-server pinned to CPU $SERVER_CPU; ruvio: $RUVIO_SHARDS_CLUSTER shards in one process, unpinned, driven by redis-benchmark --cluster; redis-benchmark pinned to CPU ${CLIENT_CPU:-any}" ;;
durable) echo "# redis-server --appendonly yes --appendfsync always vs ruvio --fsync always (aof_enabled:${WAL_ON:-?}), both pinned to CPU $SERVER_CPU; data dir on $(df -T "$WORK" | awk 'NR==2{print $2}')" ;;
esac
awk -f "$HERE/summarize.awk" -v ruvio="$RUVIO_NAME" -v fsync_us="$FSYNC_US" "$RAW"
if [[ "$MODE" == durable ]]; then
	echo "# idle fsync (write + fsync of 64 bytes, preallocated file, median): ${FSYNC_BEFORE} us before, ${FSYNC_AFTER} us after the rounds; ceiling = clients / ${FSYNC_US} us"
	echo "# ruvio INFO persistence after the rounds (all cases): ${RUVIO_WAL}"
fi
echo "# after the rounds: redis-server ${MEM_REDIS}; ruvio ${MEM_RUVIO}; ruvio ${RUVIO_GC}$( ((PRELOAD > 0)) && echo "(preloaded $PRELOAD keys)")"
echo "# load time ${ELAPSED}s; 1-min load average during runs: $(awk -F, 'NF>=16 && $16!=""{s+=$16; n++; if($16>m)m=$16} END{if(n) printf "mean %.1f, max %.1f", s/n, m; else print "n/a"}' "$RAW") (2 = just this benchmark)"
echo "# raw rows: mode,round,server,test,pipeline,clients,n,secs,rps,avg,min,p50,p95,p99,max,load1,p999,client_cpu"
if [[ -n "${RAW_OUT:-}" ]]; then cp "$RAW" "$RAW_OUT"; echo "# raw CSV copied to $RAW_OUT"; fi
