#!/usr/bin/env bash
# bench/metrics.sh — the cost of the metrics endpoint: ruvio with [metrics] listen off and on
# (scraped every SCRAPE_EVERY seconds during the load), as paired runs on the same CPU.
#
#   bench/metrics.sh                       # core rows: set get incr mset at -P 1 and -P 16
#   ROUNDS=5 SCRAPE_EVERY=0.1 bench/metrics.sh
#
# Each round runs every case against both servers, alternating which goes first, and prints the
# ratio rps(on) / rps(off) of the pair; the table shows the medians over rounds. At the end it
# scrapes the "on" server SCRAPES times and reports the scrape time and size. Every load run is
# bounded (-n and `timeout`), servers listen on free loopback ports in a temp dir, and only the
# processes started here are stopped (by pid).
set -euo pipefail

ROUNDS=${ROUNDS:-3}
TESTS=${TESTS:-"set get incr mset"}
PIPELINES=${PIPELINES:-"1 16"}
CLIENTS=${CLIENTS:-50}
KEYSPACE=${KEYSPACE:-100000}
N_P1=${N_P1:-80000}
N_PIPE=${N_PIPE:-800000}
MSET_DIV=${MSET_DIV:-2}
SCRAPE_EVERY=${SCRAPE_EVERY:-1}     # seconds between scrapes during the "on" runs
SCRAPES=${SCRAPES:-20}              # scrapes timed at the end
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-60}
RUVIO_BIN=${RUVIO_BIN:-}
KEEP=${KEEP:-0}
NAME=metrics-bench

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-benchmark redis-cli curl taskset go timeout

build_ruvio

start() { # name extra ruvio args...; sets PORT_<name>
	local name=$1 port; shift
	port=$(free_port 1)
	mkdir -p "$WORK/$name"
	# shellcheck disable=SC2046
	$(pinprefix "$SERVER_CPU") "$WORK/ruvio" --config "" --port "$port" --dir "$WORK/$name" \
		--fsync no --loglevel warn "$@" >"$WORK/$name.log" 2>&1 &
	PIDS+=("$!")
	wait_ready "$port" "$!" "ruvio ($name)"
	printf -v "PORT_$name" '%s' "$port"
}

MPORT=$(free_port 1)
start off
start on --metrics-listen "127.0.0.1:$MPORT"
URL="http://127.0.0.1:$MPORT/metrics"
curl -sf -o /dev/null "$URL" || die "no metrics at $URL"

# rps port test pipeline n: redis-benchmark's throughput.
rps() {
	# shellcheck disable=SC2046
	timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") redis-benchmark -h 127.0.0.1 -p "$1" \
		-t "$2" -P "$3" -c "$CLIENTS" -n "$4" -r "$KEYSPACE" -q 2>/dev/null | tr '\r' '\n' |
		awk '/requests per second/ { for (i = 2; i <= NF; i++) if ($i == "requests") v = $(i - 1) } END { print (v == "" ? "NA" : v) }'
}

# scraper: curl the endpoint every SCRAPE_EVERY seconds until killed.
scraper() { while :; do curl -sf -o /dev/null "$URL" || true; sleep "$SCRAPE_EVERY"; done; }

echo "round,test,pipeline,rps_off,rps_on,ratio" >"$RAW"
for ((r = 1; r <= ROUNDS; r++)); do
	for t in $TESTS; do
		for p in $PIPELINES; do
			n=$N_P1; ((p > 1)) && n=$N_PIPE
			[[ $t == mset ]] && n=$((n / MSET_DIV))
			# Its output goes nowhere: a sleep it leaves behind must not hold
			# the script's stdout open.
			scraper >/dev/null 2>&1 &
			SCRAPER=$!
			PIDS+=("$SCRAPER")
			if ((r % 2 == 1)); then off=$(rps "$PORT_off" "$t" "$p" "$n"); on=$(rps "$PORT_on" "$t" "$p" "$n")
			else on=$(rps "$PORT_on" "$t" "$p" "$n"); off=$(rps "$PORT_off" "$t" "$p" "$n"); fi
			kill "$SCRAPER" 2>/dev/null || true
			wait "$SCRAPER" 2>/dev/null || true
			ratio=$(awk -v a="$on" -v b="$off" 'BEGIN { if (b + 0 > 0 && a + 0 > 0) printf "%.3f", a / b; else print "NA" }')
			echo "$r,$t,$p,$off,$on,$ratio" >>"$RAW"
			log "round $r $t -P $p: off $off on $on ratio $ratio"
		done
	done
done

echo
echo "metrics off vs on (scraped every ${SCRAPE_EVERY}s), median over $ROUNDS rounds, $CLIENTS clients:"
printf '%-6s %-3s %12s %12s %8s\n' test -P rps_off rps_on ratio
awk -F, 'NR > 1 { k = $2 " " $3; off[k] = off[k] " " $4; on[k] = on[k] " " $5; ra[k] = ra[k] " " $6; keys[k] = 1 }
	function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	END { for (k in keys) { split(k, f, " "); printf "%-6s %-3s %12.0f %12.0f %8.3f\n", f[1], f[2], med(off[k]), med(on[k]), med(ra[k]) } }' "$RAW" | sort

# Scrape time and size on the "on" server after the load (its keyspace holds the benchmark's keys).
for ((i = 0; i < SCRAPES; i++)); do curl -sf -o /dev/null -w '%{time_total} %{size_download}\n' "$URL"; done | sort -n |
	awk -v keys="$(redis-cli -p "$PORT_on" dbsize)" '{ t[NR] = $1; s = $2 } END { printf "scrape: median %.2f ms, max %.2f ms, %d bytes, %d keys\n", 1000 * t[int((NR + 1) / 2)], 1000 * t[NR], s, keys }'
[[ "$KEEP" == 1 ]] && cp "$RAW" "$WORK/metrics.csv"
