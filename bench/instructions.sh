#!/usr/bin/env bash
# bench/instructions.sh — instructions per request for redis-server and Ruvio, counted by callgrind.
#
#   bench/instructions.sh                                   # builds ruvio from the repository
#   RUVIO_BIN=/tmp/ruvio TESTS="get set" PIPELINES="1 16" bench/instructions.sh
#
# Each server runs under valgrind --tool=callgrind (which counts every instruction it executes,
# whatever else the machine does), pinned to SERVER_CPU, twice per test and pipeline depth: once
# serving a few requests of one redis-benchmark client and once many (N1_LO and N1_HI at -P 1,
# NP_LO and NP_HI deeper). The difference of the two totals over the difference in requests is
# what one request costs, start-up, shutdown and redis-benchmark's
# own set-up commands taken out. One client keeps each request its own turn of the event loop
# (with -P, each pipeline its own read), so the count does not depend on timing, except for
# work a server does per unit of time (Go's sysmon, timers): under valgrind a request takes
# about 50 times longer, so that share is inflated, and it is reported apart for Ruvio
# (runtime.sysmon's inclusive count). Go runs with GODEBUG=asyncpreemptoff=1 (valgrind does
# not deliver the preemption signals at the points Go expects) and cpu.rdtscp=off (valgrind
# cannot decode RDTSCP, which the runtime's cputicks uses when the CPU has it).
# Output: "test P server instructions-per-request sysmon-per-request"; redis has no sysmon (-).
set -euo pipefail

TESTS=${TESTS:-"get set incr hset lpush zadd sadd mset"}
PIPELINES=${PIPELINES:-"1 16"}
N1_LO=${N1_LO:-1000}   # requests of the short and the long run at -P 1
N1_HI=${N1_HI:-6000}
NP_LO=${NP_LO:-4000}   # and at deeper pipelines
NP_HI=${NP_HI:-40000}
KEYSPACE=${KEYSPACE:-100000}
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
NAME=instructions

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need valgrind callgrind_annotate redis-server redis-benchmark redis-cli taskset timeout
build_ruvio

# totalIr FILE: the Ir total of a callgrind output file.
totalIr() { awk '/^(summary|totals):/ { print $2; exit }' "$1"; }
# sysmonIr FILE: runtime.sysmon's inclusive Ir.
sysmonIr() {
	callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
		awk '/runtime\.sysmon[ \[]/ { gsub(",", "", $1); print $1; found = 1; exit } END { if (!found) print 0 }'
}

# count SERVER TEST P N: runs SERVER under callgrind for N requests; prints "Ir sysmonIr".
count() {
	local server=$1 t=$2 p=$3 n=$4 port out pid
	port=$(free_port)
	out="$WORK/$server-$t-$p-$n.cg"
	rm -rf "$WORK/data-$server"
	mkdir -p "$WORK/data-$server"
	case $server in
	redis)
		# shellcheck disable=SC2046
		$(pinprefix "$SERVER_CPU") valgrind --tool=callgrind --callgrind-out-file="$out" \
			redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize no \
			--dir "$WORK/data-$server" --logfile "$WORK/$server.log" >"$WORK/$server.vg" 2>&1 &
		;;
	ruvio)
		# shellcheck disable=SC2046
		GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off $(pinprefix "$SERVER_CPU") valgrind --tool=callgrind --callgrind-out-file="$out" \
			"$WORK/ruvio" --config "" --shards 1 --fsync no --loglevel warn --port "$port" \
			--dir "$WORK/data-$server" >"$WORK/$server.vg" 2>&1 &
		;;
	esac
	pid=$!
	PIDS+=("$pid")
	for _ in $(seq 300); do
		[[ "$(redis-cli -p "$port" ping 2>/dev/null || true)" == PONG ]] && break
		kill -0 "$pid" 2>/dev/null || die "$server exited under valgrind (see $WORK/$server.vg)"
		sleep 0.2
	done
	# shellcheck disable=SC2046
	timeout -k 5 600 $(pinprefix "$CLIENT_CPU") redis-benchmark -p "$port" -t "$t" -P "$p" -c 1 -n "$n" \
		-r "$KEYSPACE" --csv >/dev/null 2>&1 || die "redis-benchmark against $server failed"
	# SHUTDOWN rather than a signal: callgrind can abort on a signal a Go
	# program takes while it runs.
	redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
	for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	wait "$pid" 2>/dev/null || true
	[[ -s "$out" ]] || die "no callgrind output from $server"
	if [[ $server == ruvio ]]; then
		echo "$(totalIr "$out") $(sysmonIr "$out")"
	else
		echo "$(totalIr "$out") 0"
	fi
}

echo "# instructions per request (callgrind), one client: test P server Ir/request sysmon-Ir/request"
for p in $PIPELINES; do
	nlo=$NP_LO nhi=$NP_HI
	[[ $p == 1 ]] && nlo=$N1_LO nhi=$N1_HI
	for t in $TESTS; do
		for server in redis ruvio; do
			read -r lo slo < <(count "$server" "$t" "$p" "$nlo")
			read -r hi shi < <(count "$server" "$t" "$p" "$nhi")
			per=$(((hi - lo) / (nhi - nlo)))
			if [[ $server == ruvio ]]; then
				echo "$t $p $server $per $(((shi - slo) / (nhi - nlo)))"
			else
				echo "$t $p $server $per -"
			fi
		done
	done
done
