#!/usr/bin/env bash
# bench/cluster.sh — a cluster across hosts, on this one machine (each member binds its own
# loopback address), in two parts:
#
#  throughput  SET and GET rps (redis-benchmark -t set,get -n N -c CLIENTS -P P -q) of four
#              targets, their order rotating by round for ROUNDS rounds:
#                redis          one redis-server, --save "" --appendonly no (the usual reference)
#                ruvio          one Ruvio process, --shards 1 --fsync everysec
#                ruvio-3shards  one Ruvio process, --shards 3 --fsync everysec (redis-benchmark --cluster)
#                cluster        three members on 127.0.0.11-13, --shards 1 --fsync everysec
#                               --cluster-replicas 0: three groups of one (redis-benchmark --cluster)
#              Every process is unpinned: the members, the standalone servers and redis-benchmark
#              all share this machine's CPUs, so on a small box this measures what the cluster's
#              routing and control plane cost, not how a cluster scales across hosts.
#  sync        the cost of synchronous replication in a cluster: two members on 127.0.0.21/.22,
#              --cluster-replicas 1 (one group, a primary and its replica), --fsync always; durable
#              SET rps (redis-benchmark -h <primary> -t set -n SYNC_N -c SYNC_CLIENTS -P 1 -q) with
#              CONFIG SET sync-replicas 0 and 1 on the primary, alternating for ROUNDS rounds.
#
#   bench/cluster.sh        PARTS="throughput sync" ROUNDS=3 N=200000 CLIENTS=50 P=16 SYNC_N=50000 SYNC_CLIENTS=50
#
# RAW_OUT=file copies the raw per-run CSV (part,round,target,test,rps) there.
# shellcheck shell=bash
set -euo pipefail
PARTS=${PARTS:-throughput sync}
ROUNDS=${ROUNDS:-3}
N=${N:-200000}
CLIENTS=${CLIENTS:-50}
P=${P:-16}
SYNC_N=${SYNC_N:-50000}
SYNC_CLIENTS=${SYNC_CLIENTS:-50}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
RUVIO_BIN=${RUVIO_BIN:-}
RAW_OUT=${RAW_OUT:-}
KEEP=${KEEP:-0}
NAME=cluster
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-benchmark redis-cli redis-server go timeout awk
build_ruvio

# No snapshots during a run (a background snapshot would land in the middle of it); the WAL
# stays on, with the fsync policy given per process.
cat >"$WORK/ruvio.toml" <<EOT
[persistence]
snapshot_every = 0
snapshot_wal_bytes = 0
snapshot_on_shutdown = false
EOT

# free_port_on N HOST...: a port p with p..p+N-1 free on 127.0.0.1 (free_port) and on every HOST.
free_port_on() {
	local n=$1 p i h ok
	shift
	for _ in $(seq 50); do
		p=$(free_port "$n")
		ok=1
		for h in "$@"; do
			for ((i = 0; i < n; i++)); do
				if (exec 3<>"/dev/tcp/$h/$((p + i))") 2>/dev/null; then ok=0; fi
			done
		done
		[[ $ok == 1 ]] && { echo "$p"; return 0; }
	done
	die "no port free on $*"
}

# ruvio_at NAME HOST PORT [ARG...]: $WORK/ruvio bound to HOST:PORT with its own data dir,
# ARGs appended; waits (bounded) until it answers PING.
ruvio_at() {
	local name=$1 host=$2 port=$3 dir="$WORK/data-$1" pid
	shift 3
	mkdir -p "$dir"
	"$WORK/ruvio" --config "$WORK/ruvio.toml" --bind "$host" --port "$port" --dir "$dir" --loglevel warn "$@" \
		>"$dir/ruvio.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || die "$name exited during start-up (see $dir/ruvio.log)"
		[[ "$(redis-cli -h "$host" -p "$port" ping 2>/dev/null || true)" == PONG ]] && return 0
		sleep 0.1
	done
	die "$name did not answer PING on $host:$port"
}

# cluster_up PORT HOST...: waits (bounded) until every member says cluster_state:ok and takes
# writes on its slots (a new primary answers -CLUSTERDOWN until its first lease).
cluster_up() {
	local port=$1 h i ok
	shift
	for _ in $(seq 120); do
		ok=1
		for h in "$@"; do
			redis-cli -h "$h" -p "$port" cluster info 2>/dev/null | tr -d '\r' | grep -qx cluster_state:ok || ok=0
		done
		[[ $ok == 1 ]] && break
		sleep 0.5
	done
	[[ $ok == 1 ]] || die "the cluster on $* did not reach cluster_state:ok within 60 s (logs in $WORK)"
	# 64 keys with distinct hash tags reach every group (a group owns a third or more of the slots).
	for _ in $(seq 60); do
		ok=1
		for i in $(seq 64); do
			[[ "$(redis-cli -c -h "$1" -p "$port" set "{w$i}" 1 2>/dev/null)" == OK ]] || { ok=0; break; }
		done
		[[ $ok == 1 ]] && return 0
		sleep 0.5
	done
	die "the cluster on $* did not take writes within 30 s"
}

# bench_run PART ROUND TARGET ARG...: one redis-benchmark run (bounded), its rps lines into $RAW.
# redis-benchmark 7 stops at the first error reply ("Error from server"); that fails the run.
bench_run() {
	local part=$1 round=$2 target=$3 out line
	shift 3
	out=$(timeout "$RUN_TIMEOUT" redis-benchmark "$@" -q 2>&1 | tr '\r' '\n') ||
		die "redis-benchmark against $target failed or ran past ${RUN_TIMEOUT}s: $(tail -3 <<<"$out")"
	if grep -q 'Error from server' <<<"$out"; then
		die "$target answered errors: $(grep -m1 'Error from server' <<<"$out")"
	fi
	grep -q 'requests per second' <<<"$out" || die "no result from redis-benchmark against $target: $(tail -3 <<<"$out")"
	while read -r line; do
		printf '%s,%s,%s,%s,%s\n' "$part" "$round" "$target" "${line%%:*}" "$(awk '{print $2}' <<<"$line")" >>"$RAW"
		printf '%-14s %s\n' "$target" "$line"
	done < <(grep 'requests per second' <<<"$out")
}

echo "# $(nproc) CPUs shared by every process below (servers, cluster members and redis-benchmark are unpinned)"
echo "# ruvio: WAL on, no snapshots; data under ${TMPDIR:-/tmp} ($(df -T "${TMPDIR:-/tmp}" | awk 'NR==2{print $2}')); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

if [[ " $PARTS " == *" throughput "* ]]; then
	start_cache_redis
	R1=$(free_port)
	ruvio_at ruvio 127.0.0.1 "$R1" --shards 1 --fsync everysec
	R3=$(free_port 3)
	ruvio_at ruvio-3shards 127.0.0.1 "$R3" --shards 3 --fsync everysec
	CH=(127.0.0.11 127.0.0.12 127.0.0.13)
	CP=$(free_port_on 2 "${CH[@]}") # CP serves clients, CP+1 is the control port
	members="c1=${CH[0]}:$((CP + 1)),c2=${CH[1]}:$((CP + 1)),c3=${CH[2]}:$((CP + 1))"
	for i in 0 1 2; do
		ruvio_at "c$((i + 1))" "${CH[$i]}" "$CP" --shards 1 --fsync everysec --cluster-name "c$((i + 1))" \
			--cluster-announce "${CH[$i]}" --cluster-members "$members" --cluster-control-port "$((CP + 1))" \
			--cluster-replicas 0
	done
	cluster_up "$CP" "${CH[@]}"
	log "cluster of 3 formed on ${CH[*]} port $CP"
	redis-cli -h "${CH[0]}" -p "$CP" cluster nodes | awk '{print "# cluster node " $2, $3, $9}'

	echo "# throughput: redis-benchmark -t set,get -n $N -c $CLIENTS -P $P -q (--cluster for ruvio-3shards and cluster)"
	targets=(redis ruvio ruvio-3shards cluster)
	for r in $(seq "$ROUNDS"); do
		for k in 0 1 2 3; do
			t=${targets[$(((r - 1 + k) % 4))]}
			case $t in
			redis) a=(-h 127.0.0.1 -p "$REDIS_PORT") ;;
			ruvio) a=(-h 127.0.0.1 -p "$R1") ;;
			ruvio-3shards) a=(--cluster -h 127.0.0.1 -p "$R3") ;;
			cluster) a=(--cluster -h "${CH[0]}" -p "$CP") ;;
			esac
			bench_run throughput "$r" "$t" "${a[@]}" -t set,get -n "$N" -c "$CLIENTS" -P "$P"
		done
	done
	echo
	echo "| test | redis rps | ruvio rps | ruvio-3shards rps | cluster rps | cluster/ruvio | cluster/ruvio-3shards | cluster/redis | ruvio/redis | paired cluster/ruvio | paired cluster/ruvio-3shards |"
	echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
	awk -F, '
	function med(list,   a, n, i, j, t) {
		n = split(list, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	$1 == "throughput" { v[$4, $3] = v[$4, $3] " " $5; r[$4, $3, $2] = $5; if (!($4 in seen)) { seen[$4] = 1; tests[++nt] = $4 }; if ($2 > nr) nr = $2 }
	END {
		for (k = 1; k <= nt; k++) {
			x = tests[k]
			rd = med(v[x, "redis"]); r1 = med(v[x, "ruvio"]); r3 = med(v[x, "ruvio-3shards"]); c = med(v[x, "cluster"])
			p1 = ""; p3 = ""
			for (i = 1; i <= nr; i++) { p1 = p1 " " r[x, "cluster", i] / r[x, "ruvio", i]; p3 = p3 " " r[x, "cluster", i] / r[x, "ruvio-3shards", i] }
			printf "| %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", x, rd, r1, r3, c, c / r1, c / r3, c / rd, r1 / rd, med(p1), med(p3)
		}
	}' "$RAW"
	echo "# medians over $ROUNDS rounds; paired = median over rounds of that round's ratio"
	echo "# all members share this machine's $(nproc) CPUs: this is the cluster's overhead, not scaling across hosts"
	echo
fi

if [[ " $PARTS " == *" sync "* ]]; then
	SH=(127.0.0.21 127.0.0.22)
	SP=$(free_port_on 2 "${SH[@]}")
	members="s1=${SH[0]}:$((SP + 1)),s2=${SH[1]}:$((SP + 1))"
	for i in 0 1; do
		ruvio_at "s$((i + 1))" "${SH[$i]}" "$SP" --shards 1 --fsync always --cluster-name "s$((i + 1))" \
			--cluster-announce "${SH[$i]}" --cluster-members "$members" --cluster-control-port "$((SP + 1))" \
			--cluster-replicas 1
	done
	cluster_up "$SP" "${SH[@]}"
	PRIM="" REPL=""
	for h in "${SH[@]}"; do
		case "$(redis-cli -h "$h" -p "$SP" role 2>/dev/null | head -1)" in
		master) PRIM=$h ;;
		slave) REPL=$h ;;
		esac
	done
	[[ -n "$PRIM" && -n "$REPL" ]] || die "no primary and replica among ${SH[*]} (ROLE)"
	for _ in $(seq 100); do
		redis-cli -h "$REPL" -p "$SP" info replication | grep -q master_link_status:up && break
		sleep 0.1
	done
	redis-cli -h "$REPL" -p "$SP" info replication | grep -q master_link_status:up || die "the replica's link did not come up"
	log "group of primary $PRIM and replica $REPL, port $SP"

	echo "# sync: redis-benchmark -h $PRIM -t set -n $SYNC_N -c $SYNC_CLIENTS -P 1 -q; primary and replica fsync always"
	one() { # round sync-replicas
		[[ "$(redis-cli -h "$PRIM" -p "$SP" config set sync-replicas "$2")" == OK ]] || die "CONFIG SET sync-replicas $2 failed"
		bench_run sync "$1" "sync-replicas=$2" -h "$PRIM" -p "$SP" -t set -n "$SYNC_N" -c "$SYNC_CLIENTS" -P 1
	}
	for r in $(seq "$ROUNDS"); do
		if ((r % 2)); then one "$r" 0; one "$r" 1; else one "$r" 1; one "$r" 0; fi
	done
	echo
	echo "| test | sync-replicas 0 rps | sync-replicas 1 rps | 1/0 | paired 1/0 |"
	echo "|---|--:|--:|--:|--:|"
	awk -F, '
	function med(list,   a, n, i, j, t) {
		n = split(list, a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	$1 == "sync" { v[$3] = v[$3] " " $5; r[$3, $2] = $5; if ($2 > nr) nr = $2 }
	END {
		a = med(v["sync-replicas=0"]); b = med(v["sync-replicas=1"])
		for (i = 1; i <= nr; i++) p = p " " r["sync-replicas=1", i] / r["sync-replicas=0", i]
		printf "| SET | %.0f | %.0f | %.2f | %.2f |\n", a, b, b / a, med(p)
	}' "$RAW"
	timeouts=$(redis-cli -h "$PRIM" -p "$SP" info replication | tr -d '\r' | grep '^sync_timeouts:' || true)
	echo "# primary INFO: $timeouts"
fi
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ -n "$RAW_OUT" ]]; then cp "$RAW" "$RAW_OUT"; echo "# raw CSV copied to $RAW_OUT"; fi
