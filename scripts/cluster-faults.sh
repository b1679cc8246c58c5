#!/usr/bin/env bash
# Multi-host fault test (cmd/clusterfault): builds Ruvio, then runs the harness, which makes
# private network namespaces, runs Ruvio processes in them, injects faults (SIGKILL, SIGSTOP,
# partitions) under a concurrent workload and checks the recorded history. It needs root and
# iproute2/nft; without them it says so and exits 0, so CI machines without them pass.
#
#   scripts/cluster-faults.sh                    cluster mode (needs the cluster-mode build)
#   scripts/cluster-faults.sh -standalone        smoke test against one standalone server
#   scripts/cluster-faults.sh -selftest          the harness's own mechanics
#   scripts/cluster-faults.sh -async             cluster, sync_replicas = 0: loss is reported only
#
# Any argument is passed to the harness (go run ./cmd/clusterfault -help lists them).
# CLUSTERFAULT_DURATION sets -duration (default 90s; every fault and the whole run are bounded).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null 2>&1 || ! command -v nft >/dev/null 2>&1 \
  || ! ip netns list >/dev/null 2>&1; then
  echo "cluster-faults: skipped: needs root and ip netns (iproute2) and nft"
  exit 0
fi

out=$(mktemp -d /tmp/ruvio-cluster-faults.XXXXXX)
trap 'rm -rf "$out"' EXIT
go build -o "$out/ruvio" .
go build -o "$out/clusterfault" ./cmd/clusterfault
# The harness bounds itself (-duration plus heal, final reads and checks); timeout is a backstop
# that still lets it clean up (SIGTERM first, SIGKILL 60s later).
timeout -k 60 900 "$out/clusterfault" -bin "$out/ruvio" -duration "${CLUSTERFAULT_DURATION:-90s}" "$@"
