#!/usr/bin/env bash
# End-to-end test of the Dockerfile and docker-compose.yml on a machine whose Docker engine has no
# image registry. Run by hand (as root, or a user allowed to use docker) and by .ci/run when an
# engine answers; never by `go test ./...`.
#
#   1. When a base image the Dockerfile names is absent, builds a local stand-in under that name
#      (docker/build-base-images.sh: Debian from debootstrap plus this machine's Go for the build
#      stage, a distroless-like root for the runtime stage). Images already present are used.
#   2. docker compose build, then up -d; waits for the image's health check.
#   3. Writes, restarts the container, reads the writes back from the volume; DEBUG is refused to
#      a client that is not on the container's loopback.
#   4. Recreates the container with RUVIO_PASSWORD: AUTH is required, the health check passes,
#      the data is still there (a new container, the same volume).
#   5. Starts the replica profile: WAIT 1 0 on the primary returns 1, the replica serves the write
#      and refuses writes of its own.
#   6. Tears everything down (containers, volumes, the project's network), also on failure or
#      interruption, and checks that nothing of the project is left.
#
# Every wait has a limit. On 2 CPUs a run takes about 1 minute when the images are up to date,
# 3 to 5 when the server is rebuilt, and 5 to 9 on a fresh machine (debootstrap, base images). Uses `docker compose` when the plugin is there, else
# docker-compose. Environment: RUVIO_HOST_PORT (16379) and RUVIO_REPLICA_HOST_PORT (16380) are
# the host's loopback ports; RUVIO_IMAGE (ruvio:compose-test) is the image built; TEST_PROJECT
# (ruvio-compose-test) the compose project name. The image built is kept, so a second run
# reuses its layers; the stand-in base images are kept too.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

export RUVIO_HOST_PORT=${RUVIO_HOST_PORT:-16379}
export RUVIO_REPLICA_HOST_PORT=${RUVIO_REPLICA_HOST_PORT:-16380}
export RUVIO_IMAGE=${RUVIO_IMAGE:-ruvio:compose-test}
# The compose file's own defaults name the base images; the test does not override them.
unset RUVIO_GO_IMAGE RUVIO_RUNTIME_IMAGE RUVIO_PASSWORD
project=${TEST_PROJECT:-ruvio-compose-test}
password=compose-test-secret

# shellcheck source=docker/lib.sh
source "$root/docker/lib.sh"

dump_logs() {
	echo "---- container logs (last 80 lines each) ----" >&2
	timeout 60 "${compose[@]}" --profile replica logs --no-color --tail 80 >&2 || true
	echo "---- end of logs ----" >&2
}
fail() {
	failed=$((failed + 1))
	log "  FAILED: $*" >&2
	dump_logs
	exit 1
}

torn_down=0
teardown() {
	timeout 180 "${compose[@]}" --profile replica down -v --remove-orphans --timeout 30 >/dev/null 2>&1 || true
}
on_exit() {
	local rc=$?
	trap - EXIT INT TERM
	if [ "$torn_down" = 0 ]; then
		log "teardown after ${step_name:-start}"
		teardown
	fi
	log "total wall time $(elapsed "$t0") s"
	[ "$rc" = 0 ] || [ "$failed" -gt 0 ] || failed=1
	echo "docker: $passed passed, $failed failed"
	exit "$rc"
}
trap on_exit EXIT
child=
on_signal() {
	log "interrupted"
	[ -z "$child" ] || kill -TERM "$child" 2>/dev/null || true
	exit 130
}
trap on_signal INT TERM

# The image has no shell and no redis-cli: the host's redis-cli talks to the published ports.
# Each returns the reply (or the error) and status 0; the checks compare the text.
cli() { timeout 10 redis-cli -p "$RUVIO_HOST_PORT" "$@" 2>&1 || true; }
cli_auth() { REDISCLI_AUTH=$password timeout 10 redis-cli --no-auth-warning -p "$RUVIO_HOST_PORT" "$@" 2>&1 || true; }
replica_cli() { REDISCLI_AUTH=$password timeout 10 redis-cli --no-auth-warning -p "$RUVIO_REPLICA_HOST_PORT" "$@" 2>&1 || true; }
expect() { # description want got
	[ "$3" = "$2" ] || fail "$1: want '$2', got '$3'"
	ok "$1: $3"
}

wait_healthy() { # service limit-seconds
	local id status= t
	t=$(date +%s)
	id=$(dc 30 ps -q "$1" 2>/dev/null) || true
	[ -n "$id" ] || fail "no container for service $1"
	while [ "$(elapsed "$t")" -lt "$2" ]; do
		status=$(timeout 10 docker inspect --format '{{.State.Health.Status}}' "$id" 2>/dev/null || echo unknown)
		case "$status" in
		healthy) ok "$1 healthy after $(elapsed "$t") s"; return 0 ;;
		unhealthy) break ;;
		esac
		sleep 1
	done
	fail "$1 not healthy within $2 s (last status: $status)"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

step "preflight"
for tool in docker timeout redis-cli; do
	command -v "$tool" >/dev/null || fail "$tool not found"
done
timeout 30 docker info >/dev/null 2>&1 || fail "no Docker engine answers"
log "  engine $(timeout 10 docker version --format '{{.Server.Version}}' 2>/dev/null || true), ${compose_tool[*]} $(timeout 10 "${compose_tool[@]}" version --short 2>/dev/null || true), redis-cli $(redis-cli --version | cut -d' ' -f2)"
# Leftovers of an interrupted run of this project would hold the ports: remove them first.
teardown
for p in "$RUVIO_HOST_PORT" "$RUVIO_REPLICA_HOST_PORT"; do
	port_in_use "$p" && fail "port $p is in use (set RUVIO_HOST_PORT / RUVIO_REPLICA_HOST_PORT)"
done
ok "ports $RUVIO_HOST_PORT and $RUVIO_REPLICA_HOST_PORT free, project $project clean"

step "base images"
run 1200 "docker/build-base-images.sh" "$root/docker/build-base-images.sh"
for arg in GO_IMAGE RUNTIME_IMAGE; do
	name=$(sed -n "s/^ARG $arg=//p" Dockerfile | head -n 1)
	kind=$(timeout 30 docker image inspect --format '{{index .Config.Labels "org.ruvio.stand-in"}}' "$name" 2>/dev/null) ||
		fail "$name missing"
	[ "$kind" = true ] && kind="local stand-in" || kind="not a stand-in"
	ok "$name present ($kind, $(timeout 30 docker image inspect --format '{{.Id}}' "$name" | cut -c8-19))"
done

step "docker compose build"
SHOW='^(Step [0-9]+/|Successfully)' run 900 "compose build" "${compose[@]}" build
ok "image $RUVIO_IMAGE built ($(timeout 10 docker image inspect --format '{{.Size}}' "$RUVIO_IMAGE") bytes)"

step "docker compose up -d"
run 120 "compose up -d" "${compose[@]}" up -d
wait_healthy ruvio 180
expect "PING" PONG "$(cli PING)"
expect "SET" OK "$(cli SET compose:key value)"
expect "RPUSH" 3 "$(cli RPUSH compose:list a b c)"
expect "INCRBY" 42 "$(cli INCRBY compose:counter 42)"

step "restart: data read back from the volume"
run 120 "compose restart" "${compose[@]}" restart
wait_healthy ruvio 180
expect "GET after restart" value "$(cli GET compose:key)"
expect "LRANGE after restart" "a b c" "$(cli LRANGE compose:list 0 -1 | tr '\n' ' ' | sed 's/ $//')"
expect "GET counter after restart" 42 "$(cli GET compose:counter)"
expect "DEBUG refused to a non-local client" "ERR DEBUG command not allowed. If" "$(cli DEBUG HELP | head -c 33)"

step "recreate with RUVIO_PASSWORD"
RUVIO_PASSWORD=$password run 120 "compose up -d --force-recreate" "${compose[@]}" up -d --force-recreate
wait_healthy ruvio 180
got=$(cli PING)
case "$got" in NOAUTH*) ok "PING without AUTH refused ($got)" ;; *) fail "PING without AUTH: want NOAUTH, got '$got'" ;; esac
expect "GET with AUTH from the same volume in a new container" value "$(cli_auth GET compose:key)"

step "replica profile: WAIT 1 0"
RUVIO_PASSWORD=$password run 180 "compose --profile replica up -d" "${compose[@]}" --profile replica up -d
wait_healthy ruvio-replica 180
expect "SET on the primary" OK "$(cli_auth SET compose:repl v)"
got=$(REDISCLI_AUTH=$password timeout 60 redis-cli --no-auth-warning -p "$RUVIO_HOST_PORT" WAIT 1 0 2>&1) || true
expect "WAIT 1 0 on the primary" 1 "$got"
expect "GET on the replica" v "$(replica_cli GET compose:repl)"
expect "GET of an older key on the replica" value "$(replica_cli GET compose:key)"
got=$(replica_cli SET compose:repl w)
case "$got" in READONLY*) ok "SET on the replica refused ($got)" ;; *) fail "SET on the replica: want READONLY, got '$got'" ;; esac
expect "replica link" "master_link_status:up" "$(replica_cli INFO replication | tr -d '\r' | grep '^master_link_status:')"

step "teardown"
run 180 "compose down -v" "${compose[@]}" --profile replica down -v --remove-orphans --timeout 30
torn_down=1
left=$(timeout 30 docker ps -aq --filter "label=com.docker.compose.project=$project")
left+=$(timeout 30 docker volume ls -q --filter "label=com.docker.compose.project=$project")
left+=$(timeout 30 docker network ls -q --filter "label=com.docker.compose.project=$project")
[ -z "$left" ] || fail "left behind after down: $left"
ok "no container, volume or network of project $project left"
log "  done: $step_name ($(elapsed "$step_t0") s)"
step_name=
