#!/usr/bin/env bash
# bench/cluster-failover.sh — failover time of a cluster across hosts with the default settings
# (node_timeout_ms 2000, asynchronous replication, one replica per group): runs the fault
# harness (cmd/clusterfault: six members on three network-namespace hosts, three groups of a
# primary and a replica) with `-async -faults kill -down-for 4s`, long enough for FAULTS kills
# of a primary, and prints each kill's time from the fault to the first acknowledged write on its
# group (the harness's "first ack after"), their count, median and worst, and the acknowledged
# writes the asynchronous replication lost ("acknowledged writes lost").
#
#   bench/cluster-failover.sh        FAULTS=10 DOWN_FOR=4 NODE_TIMEOUT=2s MARGIN=5
#
# It needs root, ip netns (iproute2) and nft; without them it says so and exits 0.
# RAW_OUT=file copies the harness's whole output there.
# shellcheck shell=bash
set -euo pipefail
FAULTS=${FAULTS:-10}
DOWN_FOR=${DOWN_FOR:-4}
NODE_TIMEOUT=${NODE_TIMEOUT:-2s}
WARMUP=${WARMUP:-5}
MARGIN=${MARGIN:-5}
RUVIO_BIN=${RUVIO_BIN:-}
RAW_OUT=${RAW_OUT:-}
KEEP=${KEEP:-0}
NAME=cluster-failover

if [[ "$(id -u)" -ne 0 ]] || ! command -v ip >/dev/null 2>&1 || ! command -v nft >/dev/null 2>&1 \
	|| ! ip netns list >/dev/null 2>&1; then
	echo "$NAME: skipped: needs root, ip netns (iproute2) and nft"
	exit 0
fi

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need go timeout awk
build_ruvio
log "building the fault harness"
(cd "$ROOT" && go build -o "$WORK/clusterfault" ./cmd/clusterfault) || die "go build ./cmd/clusterfault failed"

# The harness's schedule (cmd/clusterfault faultPlan/runFaults): WARMUP of workload, then per
# kill: find the group's primary, SIGKILL it and wait for the exit, hold it down DOWN_FOR,
# restart it, settle 5 s; a fault starts only while hold + settle still fit before the end.
# One second per fault is allowed for finding, killing and restarting, plus MARGIN.
SETTLE=5
DURATION=$((WARMUP + FAULTS * (DOWN_FOR + SETTLE + 1) + MARGIN))
# Backstop only: the harness bounds itself (the workload, then heal, final reads and checks).
LIMIT=$((DURATION + 420))

echo "# clusterfault -async -faults kill -down-for ${DOWN_FOR}s -node-timeout $NODE_TIMEOUT -replicas 1 -warmup ${WARMUP}s -duration ${DURATION}s"
echo "# 6 members on 3 hosts (network namespaces on this machine), 3 groups of primary + replica, fsync always, sync_replicas 0"
echo "# $(nproc) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
timeout -k 60 "$LIMIT" "$WORK/clusterfault" -bin "$WORK/ruvio" -async -faults kill -down-for "${DOWN_FOR}s" \
	-node-timeout "$NODE_TIMEOUT" -replicas 1 -warmup "${WARMUP}s" -duration "${DURATION}s" \
	>"$WORK/harness.log" 2>&1 || rc=$?
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg); harness exit status $rc"
if [[ -n "$RAW_OUT" ]]; then cp "$WORK/harness.log" "$RAW_OUT"; echo "# harness output copied to $RAW_OUT"; fi

echo "## faults (harness report)"
grep -E '^  [0-9]+\. ' "$WORK/harness.log" || true
grep -E 'failover/recovery' "$WORK/harness.log" || true
echo "## checks (harness report)"
sed -n '/^== checks/,/^RESULT/{/^== checks/d;p}' "$WORK/harness.log"

# Go durations as the harness prints them (rounded to ms): 850ms, 2.345s, 1m2.345s, 0s.
awk '
function ms(d,   m) {
	if (d ~ /ms$/) return d + 0
	m = 0
	if (d ~ /m[0-9.]+s$/) { m = substr(d, 1, index(d, "m") - 1) * 60000; d = substr(d, index(d, "m") + 1) }
	sub(/s$/, "", d)
	return m + d * 1000
}
/^  [0-9]+\. kill / {
	if (match($0, /first ack after [0-9.hms]+/)) {
		v[n++] = ms(substr($0, RSTART + 16, RLENGTH - 16))
	} else if ($0 ~ /no acknowledged write afterwards/) {
		missing++
	}
}
/acknowledged writes lost:/ { lost = $NF }
END {
	printf "kills measured: %d", n
	if (missing) printf " (%d with no acknowledged write afterwards)", missing
	printf "\n"
	if (n == 0) { print "no failover time measured"; exit 1 }
	for (i = 0; i < n; i++) { raw = raw sprintf("%s%.3f", i ? " " : "", v[i] / 1000); s[i] = v[i] }
	for (i = 1; i < n; i++) for (j = i; j > 0 && s[j-1] > s[j]; j--) { t = s[j]; s[j] = s[j-1]; s[j-1] = t }
	med = n % 2 ? s[(n-1)/2] : (s[n/2-1] + s[n/2]) / 2
	printf "failover (kill of a primary to the first acknowledged write on its group): N %d, median %.3f s, worst %.3f s\n", n, med / 1000, s[n-1] / 1000
	printf "raw, in fault order (s): %s\n", raw
	printf "acknowledged writes lost (asynchronous replication): %s\n", lost == "" ? "not reported" : lost
	if (n < '"$FAULTS"') printf "WARNING: fewer than FAULTS=%d kills measured\n", '"$FAULTS"'
}' "$WORK/harness.log" || { tail -30 "$WORK/harness.log" >&2; die "no failover measured (harness exit status $rc)"; }
((rc == 0)) || { tail -30 "$WORK/harness.log" >&2; die "the harness exited with status $rc"; }
