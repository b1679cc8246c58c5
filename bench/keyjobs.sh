#!/usr/bin/env bash
# bench/keyjobs.sh — Ruvio's native key jobs against their best equivalent on redis-server 7.
#
#   bench/keyjobs.sh                          # every case, -P 1 and -P 16, ROUNDS=3, ~10 min
#   CASES="once limit" PIPELINES=1 bench/keyjobs.sh
#
# Native command on ruvio vs, on redis-server, SET NX PX (ONCE, LEASE) or a Lua script from
# bench/lua/ loaded with SCRIPT LOAD and called with EVALSHA (IDEM, SEMAPHORE, LIMIT, CL.THROTTLE, TAKE,
# INCRBY … MAX). Same set-up as `bench/run.sh` core mode: both servers pinned to CPU 0,
# redis-benchmark on CPU 1, -c 50, random keys via __rand_int__ and -r. Every run starts from
# FLUSHALL plus the case's own seed data, so both servers see the same state. Every load run
# is bounded (-n and a hard `timeout`); servers listen on free loopback ports in a temp dir;
# only the processes started here are stopped (by pid). See bench/README.md.
set -euo pipefail

ALL_CASES="once lease idem-hit idem-acquire idem-complete semaphore limit throttle take incrbymax"
CASES=${CASES:-$ALL_CASES}
ROUNDS=${ROUNDS:-3}
PIPELINES=${PIPELINES:-"1 16"}
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-100000}        # -r (and the number of seeded keys for idem-hit and take)
N_P1=${N_P1:-80000}                 # -n at -P 1
N_PIPE=${N_PIPE:-800000}            # -n at -P > 1
TTL_MS=${TTL_MS:-60000}             # ONCE/LEASE/SEMAPHORE ttl, LIMIT window, IDEM retention
SEM_MAX=${SEM_MAX:-8}               # SEMAPHORE max
LIMIT_MAX=${LIMIT_MAX:-8}           # LIMIT max
THROTTLE_ARGS=${THROTTLE_ARGS:-"15 30 60"} # CL.THROTTLE max_burst count period (redis-cell's example)
IDEM_RESULT_BYTES=${IDEM_RESULT_BYTES:-64}
IDEM_ACQUIRE_KEYSPACE=${IDEM_ACQUIRE_KEYSPACE:-1000000000} # -r for idem-acquire: nearly every key is new
COMPLETE_FACTOR=${COMPLETE_FACTOR:-4} # idem-complete seeds COMPLETE_FACTOR*n pending records
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}     # hard limit per redis-benchmark run, seconds
SEED_TIMEOUT=${SEED_TIMEOUT:-300}   # hard limit per seeding (redis-cli --pipe), seconds
RUVIO_WAL=${RUVIO_WAL:-true}        # ruvio keeps its WAL (fsync no) like core mode; false = in-memory
RUVIO_EXTRA=${RUVIO_EXTRA:-}
RUVIO_BIN=${RUVIO_BIN:-}
RAW_OUT=${RAW_OUT:-}
KEEP=${KEEP:-0}

NAME=keyjobs
MODE=keyjobs
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-benchmark redis-cli taskset go timeout
for c in $CASES; do [[ " $ALL_CASES " == *" $c "* ]] || die "unknown case $c (cases: $ALL_CASES)"; done

# ---------------------------------------------------------------- build
build_ruvio
(cd "$ROOT" && go build -o "$WORK/gen" ./bench/gen) || die "go build ./bench/gen failed"

# ---------------------------------------------------------------- servers
start_cache_redis
start_cache_ruvio

cli() { redis-cli -h 127.0.0.1 -p "$@"; }

# SCRIPT LOAD every script; SHA_<name> holds its sha1.
for f in idem_begin idem_complete semaphore limit gcra take incrby_max; do
	sha=$(cli "$REDIS_PORT" script load "$(cat "$HERE/lua/$f.lua")") || die "SCRIPT LOAD $f failed"
	[[ "$sha" =~ ^[0-9a-f]{40}$ ]] || die "SCRIPT LOAD $f: $sha"
	printf -v "SHA_$f" '%s' "$sha"
done

FP=fp-0123456789abcdef
OWNER=worker-1
RESULT=$(head -c "$IDEM_RESULT_BYTES" /dev/zero | tr '\0' r)
R=__rand_int__

# case_cmd case server: the command line redis-benchmark sends (words; no word has a space)
case_cmd() {
	local c=$1 s=$2
	case "$c:$s" in
	once:ruvio) echo "ONCE once:$R $TTL_MS" ;;
	once:redis) echo "SET once:$R 1 NX PX $TTL_MS" ;;
	lease:ruvio) echo "LEASE lease:$R $TTL_MS" ;;
	lease:redis) echo "SET lease:$R 1 NX PX $TTL_MS" ;;
	idem-hit:ruvio) echo "IDEM idem:$R BEGIN $FP worker-2 $TTL_MS" ;;
	idem-hit:redis) echo "EVALSHA $SHA_idem_begin 1 idem:$R $FP worker-2 $TTL_MS" ;;
	idem-acquire:ruvio) echo "IDEM idem:$R BEGIN $FP $OWNER $TTL_MS" ;;
	idem-acquire:redis) echo "EVALSHA $SHA_idem_begin 1 idem:$R $FP $OWNER $TTL_MS" ;;
	idem-complete:ruvio) echo "IDEM idem:$R COMPLETE $FP $OWNER $RESULT" ;;
	idem-complete:redis) echo "EVALSHA $SHA_idem_complete 1 idem:$R $FP $OWNER $RESULT" ;;
	semaphore:ruvio) echo "SEMAPHORE sem:$R $SEM_MAX $TTL_MS" ;;
	semaphore:redis) echo "EVALSHA $SHA_semaphore 1 sem:$R $SEM_MAX $TTL_MS" ;;
	limit:ruvio) echo "LIMIT lim:$R $LIMIT_MAX $TTL_MS" ;;
	limit:redis) echo "EVALSHA $SHA_limit 1 lim:$R $LIMIT_MAX $TTL_MS" ;;
	throttle:ruvio) echo "CL.THROTTLE thr:$R $THROTTLE_ARGS" ;;
	throttle:redis) echo "EVALSHA $SHA_gcra 1 thr:$R $THROTTLE_ARGS" ;;
	take:ruvio) echo "TAKE tk:$R 1" ;;
	take:redis) echo "EVALSHA $SHA_take 1 tk:$R 1" ;;
	incrbymax:ruvio) echo "INCRBY cap:$R 1 MAX 1000000000" ;;
	incrbymax:redis) echo "EVALSHA $SHA_incrby_max 1 cap:$R 1 1000000000" ;;
	esac
}

# case_label case: the row name (native command / redis equivalent)
case_label() {
	case "$1" in
	once) echo "once/set-nx-px" ;;
	lease) echo "lease/set-nx-px" ;;
	idem-hit) echo "idem-begin-completed/lua" ;;
	idem-acquire) echo "idem-begin-acquire/lua" ;;
	idem-complete) echo "idem-complete/lua" ;;
	semaphore) echo "semaphore/lua" ;;
	limit) echo "limit/lua" ;;
	throttle) echo "cl.throttle/lua-gcra" ;;
	take) echo "take/lua" ;;
	incrbymax) echo "incrby-max/lua" ;;
	esac
}

# seed server port case n: the data the case starts from, written with redis-cli --pipe.
# Redis gets the exact hash the scripts would have built, written with plain HSET + PEXPIRE.
seed() {
	local s=$1 port=$2 c=$3 n=$4 k out
	local -a g=()
	case "$c" in
	idem-hit)
		k=$KEYSPACE
		if [[ $s == ruvio ]]; then
			g=("IDEM idem:{i} BEGIN $FP $OWNER $TTL_MS" "IDEM idem:{i} COMPLETE $FP $OWNER $RESULT")
		else
			g=("HSET idem:{i} s C fp $FP owner $OWNER r $RESULT" "PEXPIRE idem:{i} $TTL_MS")
		fi ;;
	idem-complete)
		k=$((COMPLETE_FACTOR * n))
		if [[ $s == ruvio ]]; then
			g=("IDEM idem:{i} BEGIN $FP $OWNER $TTL_MS")
		else
			g=("HSET idem:{i} s P fp $FP owner $OWNER" "PEXPIRE idem:{i} $TTL_MS")
		fi ;;
	take)
		k=$KEYSPACE
		g=("SET tk:{i} 1000000000") ;;
	*) return 0 ;;
	esac
	local cmd
	# shellcheck disable=SC2086
	out=$( { for cmd in "${g[@]}"; do "$WORK/gen" resp -n "$k" $cmd; done; } |
		timeout -k 5 "$SEED_TIMEOUT" $(pinprefix "$CLIENT_CPU") redis-cli -h 127.0.0.1 -p "$port" --pipe 2>&1) ||
		die "seeding $c on $s failed: $out"
	[[ "$out" == *"errors: 0,"* ]] || die "seeding $c on $s reported errors: $out"
}

# bench_one server port case pipeline n round
bench_one() {
	local server=$1 port=$2 c=$3 pipe=$4 n=$5 round=$6
	local out t0 t1 secs line r=$KEYSPACE
	[[ $c == idem-acquire ]] && r=$IDEM_ACQUIRE_KEYSPACE
	[[ $c == idem-complete ]] && r=$((COMPLETE_FACTOR * n))
	[[ "$(cli "$port" flushall 2>&1)" == OK ]] || die "FLUSHALL on $server failed"
	seed "$server" "$port" "$c" "$n"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2046
	out=$(timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") \
		redis-benchmark -h 127.0.0.1 -p "$port" -P "$pipe" -c "$CLIENTS" -n "$n" -r "$r" --csv \
		$(case_cmd "$c" "$server") 2>&1) || log "redis-benchmark $server $c -P $pipe exited $? (timeout ${RUN_TIMEOUT}s?)"
	t1=$(date +%s.%N)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	line=$(printf '%s\n' "$out" | grep '^"' | grep -v '^"test"' | tail -n 1 || true)
	if [[ -z "$line" ]]; then
		log "no CSV from $server $c -P $pipe; output was:"
		printf '%s\n' "$out" | tail -n 5 >&2
		line='"x","NA","NA","NA","NA","NA","NA","NA"'
	fi
	line=$(printf '%s' "$line" | tr -d '"' | awk -F, '{ print $(NF-6)","$(NF-5)","$(NF-4)","$(NF-3)","$(NF-2)","$(NF-1)","$NF }')
	echo "$MODE,$round,$server,$(case_label "$c"),$pipe,$CLIENTS,$n,$secs,$line,$(cut -d' ' -f1 /proc/loadavg)" >>"$RAW"
	printf 'keyjobs: round %s %-6s %-14s -P %-3s %6.1fs rps=%s\n' "$round" "$server" "$c" "$pipe" "$secs" "$(cut -d, -f1 <<<"$line")" >&2
}

# What each command answers on a seeded key (once per case, logged): a quick check that the
# benchmark exercises the intended path on both servers.
sample_replies() {
	local c=$1 s port cmd n=1000
	for s in ruvio redis; do
		port=$RUVIO_PORT; [[ $s == redis ]] && port=$REDIS_PORT
		cli "$port" flushall >/dev/null
		seed "$s" "$port" "$c" 1
		cmd=$(case_cmd "$c" "$s")
		cmd=${cmd//$R/000000000000}
		# shellcheck disable=SC2086
		log "sample $c $s: $cmd -> $(cli "$port" $cmd 2>&1 | tr '\n' ' ' | cut -c1-80)"
	done
}

GOMAXPROCS_RUVIO=$(cli "$RUVIO_PORT" info server 2>/dev/null | tr -d '\r' | awk -F: '$1=="go_maxprocs"{print $2}')
log "rounds=$ROUNDS cases=[$CASES] redis pid=$REDIS_PID port=$REDIS_PORT; ruvio pid=$RUVIO_PID port=$RUVIO_PORT${GOMAXPROCS_RUVIO:+ GOMAXPROCS=$GOMAXPROCS_RUVIO}; work=$WORK"
for c in $CASES; do sample_replies "$c"; done

START=$(date +%s)
for ((r = 1; r <= ROUNDS; r++)); do
	for c in $CASES; do
		for p in $PIPELINES; do
			if [[ "$p" == 1 ]]; then n=$N_P1; else n=$N_PIPE; fi
			if ((r % 2 == 1)); then
				bench_one redis "$REDIS_PORT" "$c" "$p" "$n" "$r"
				bench_one ruvio "$RUVIO_PORT" "$c" "$p" "$n" "$r"
			else
				bench_one ruvio "$RUVIO_PORT" "$c" "$p" "$n" "$r"
				bench_one redis "$REDIS_PORT" "$c" "$p" "$n" "$r"
			fi
		done
	done
done
ELAPSED=$(($(date +%s) - START))

# Derived row: one BEGIN that acquires plus one COMPLETE, as pairs per second
# (1 / (1/acquire + 1/complete) of the two runs of the same round, server and -P).
awk -F, -v OFS=, '
	$4 == "idem-begin-acquire/lua" { a[$2 SUBSEP $3 SUBSEP $5] = $0 }
	$4 == "idem-complete/lua"      { c[$2 SUBSEP $3 SUBSEP $5] = $0 }
	END {
		for (k in a) if (k in c) {
			split(a[k], x, ","); split(c[k], y, ",")
			if (x[9] + 0 > 0 && y[9] + 0 > 0)
				print x[1], x[2], x[3], "idem-acquire+complete/lua (pairs/s)", x[5], x[6], x[7], x[8] + y[8], \
					sprintf("%.2f", 1 / (1 / x[9] + 1 / y[9])), "NA", "NA", "NA", "NA", "NA", "NA", x[16]
		}
	}' "$RAW" | sort -t, -k5,5n -k2,2n >"$WORK/derived.csv"
cat "$RAW" "$WORK/derived.csv" >"$WORK/all.csv"

# ---------------------------------------------------------------- report
echo
echo "# Ruvio key jobs vs redis-server — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, redis $(redis-server --version | awk '{sub(/^v=/, "", $3); print $3}'), ROUNDS=$ROUNDS, -c $CLIENTS, -r $KEYSPACE, -n $N_P1 / $N_PIPE"
echo "# redis-server (--save \"\" --appendonly no) and ruvio (1 shard, wal=$RUVIO_WAL fsync no, no snapshots) pinned to CPU $SERVER_CPU; redis-benchmark pinned to CPU ${CLIENT_CPU:-any}"
# target: >= 1x for single-command equivalents (SET NX PX), >= 2x for scripts (paired ratio)
awk -f "$HERE/summarize.awk" -v ruvio=ruvio "$WORK/all.csv" | awk -F'|' -v OFS='|' '
	NR == 1 { print $0 " target |"; next }
	NR == 2 { print $0 "--:|"; next }
	{
		t = ($2 ~ /SET-NX-PX/) ? 1 : 2
		pr = $8 + 0
		mark = ($8 ~ /NA/) ? "?" : (pr >= t ? "met" : "MISSED")
		print $0 " >=" t "x " mark " |"
	}'
echo "# load time ${ELAPSED}s; 1-min load average during runs: $(awk -F, 'NF>=16 && $16!=""{s+=$16; n++; if($16>m)m=$16} END{if(n) printf "mean %.1f, max %.1f", s/n, m; else print "n/a"}' "$RAW") (2 = just this benchmark)"
echo "# LIMIT vs MULTI INCR PEXPIRE EXEC: not measured — redis-benchmark sends one command per request, it cannot pipeline a MULTI…EXEC group"
echo "# raw rows: mode,round,server,test,pipeline,clients,n,secs,rps,avg,min,p50,p95,p99,max,load1"
if [[ -n "$RAW_OUT" ]]; then cp "$WORK/all.csv" "$RAW_OUT"; echo "# raw CSV copied to $RAW_OUT"; fi
