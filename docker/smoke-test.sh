#!/usr/bin/env bash
# Smoke test of the image and docker-compose.yml on a machine without an image registry: builds
# local base images (build-base-images.sh), then with docker compose checks that the container
# becomes healthy, serves, keeps its data on a fresh named volume across a restart (the volume is
# writable by the nonroot user), and that RUVIO_PASSWORD turns AUTH on while the health check
# still passes, and that the replica profile's container follows it (WAIT 1 0 returns 1, the
# write reads back from the replica). Not run by `go test ./...`: it needs root, docker and
# debootstrap. Uses host ports $RUVIO_HOST_PORT (default 16379) and $RUVIO_REPLICA_HOST_PORT
# (default 16380); removes its containers and volumes at the end.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/docker/build-base-images.sh"

export RUVIO_GO_IMAGE=ruvio-local/golang:bookworm
export RUVIO_RUNTIME_IMAGE=ruvio-local/static:nonroot
export RUVIO_IMAGE=ruvio:smoke
export RUVIO_HOST_PORT=${RUVIO_HOST_PORT:-16379}
export RUVIO_REPLICA_HOST_PORT=${RUVIO_REPLICA_HOST_PORT:-16380}
project=ruvio-smoke
if docker compose version >/dev/null 2>&1; then
	compose=(docker compose -p "$project")
else
	compose=(docker-compose -p "$project")
fi

fail() {
	echo "smoke test FAILED: $*" >&2
	"${compose[@]}" logs --no-color >&2 || true
	exit 1
}
cleanup() { "${compose[@]}" --profile replica down -v >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup

# The image has no shell and no redis-cli: the host's redis-cli talks to the published port.
cli() { redis-cli -p "$RUVIO_HOST_PORT" "$@"; }

wait_healthy() { # [service]
	local id status
	id=$("${compose[@]}" ps -q "${1:-ruvio}")
	for _ in $(seq 1 60); do
		status=$(docker inspect --format '{{.State.Health.Status}}' "$id")
		[ "$status" = healthy ] && return 0
		sleep 2
	done
	fail "container not healthy (last status: $status)"
}

DOCKER_BUILDKIT=${DOCKER_BUILDKIT:-0} "${compose[@]}" build
"${compose[@]}" up -d
wait_healthy
[ "$(cli PING)" = PONG ] || fail "PING"
[ "$(cli SET smoke:key value)" = OK ] || fail "SET"
"${compose[@]}" restart
wait_healthy
[ "$(cli GET smoke:key)" = value ] || fail "data lost across a restart"
[ "$(cli DEBUG HELP 2>&1 | head -c 33)" = "ERR DEBUG command not allowed. If" ] || fail "DEBUG open to a non-local client"

RUVIO_PASSWORD=smoke-secret "${compose[@]}" up -d --force-recreate
wait_healthy
cli PING 2>&1 | grep -q NOAUTH || fail "RUVIO_PASSWORD did not require AUTH"
[ "$(REDISCLI_AUTH=smoke-secret cli GET smoke:key)" = value ] || fail "AUTH with RUVIO_PASSWORD"

# The replica profile: a second container follows the first over the compose network.
RUVIO_PASSWORD=smoke-secret "${compose[@]}" --profile replica up -d
wait_healthy ruvio-replica
[ "$(REDISCLI_AUTH=smoke-secret cli SET smoke:repl v)" = OK ] || fail "SET before WAIT"
[ "$(REDISCLI_AUTH=smoke-secret cli WAIT 1 20000)" = 1 ] || fail "WAIT 1 did not count the replica"
[ "$(REDISCLI_AUTH=smoke-secret redis-cli -p "$RUVIO_REPLICA_HOST_PORT" GET smoke:repl)" = v ] || fail "replica read"

echo "smoke test passed"
