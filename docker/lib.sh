# docker/lib.sh — what docker/test.sh and docker/cluster-test.sh share: timed log lines, steps
# and counts, the compose tool, and run, which bounds a command in time. Sourced after the
# script sets project (the compose project name); the script defines fail and its trap.
# shellcheck shell=bash

t0=$(date +%s)
step_t0=$t0
passed=0
failed=0
step_name=
elapsed() { echo $(($(date +%s) - $1)); }
log() { printf '[%4ss] %s\n' "$(elapsed "$t0")" "$*"; }
step() { # name: starts a step and closes the previous one
	[ -z "$step_name" ] || log "  done: $step_name ($(elapsed "$step_t0") s)"
	step_name=$1
	step_t0=$(date +%s)
	log "== $1"
}
ok() { passed=$((passed + 1)); log "  ok: $*"; }

if docker compose version >/dev/null 2>&1; then
	compose_tool=(docker compose)
else
	compose_tool=(docker-compose)
	# docker-compose 1.x builds through the engine's API (the classic builder), not through a
	# docker CLI that may lack buildx.
	export COMPOSE_DOCKER_CLI_BUILD=0 DOCKER_BUILDKIT=0
fi
compose=("${compose_tool[@]}" -p "$project")
# Every compose call is bounded: limit in seconds, then the arguments.
dc() { local limit=$1; shift; timeout "$limit" "${compose[@]}" "$@"; }

# run LIMIT WHAT COMMAND...: runs a command bounded in time and prints its output indented
# (only the lines matching $SHOW when that is set); a failure or a timeout fails the test with
# the output's last lines.
run() {
	local limit=$1 what=$2 rc=0 out
	shift 2
	out=$(mktemp)
	# In the background, so that a signal to this script is handled at once (bash runs a trap
	# only between commands, and `wait` is one); the trap stops this child by its pid.
	timeout "$limit" "$@" >"$out" 2>&1 &
	child=$!
	wait "$child" || rc=$?
	child=
	if [ -n "${SHOW:-}" ] && [ "$rc" = 0 ]; then
		grep -E "$SHOW" "$out" | sed 's/^/    /' || true
	else
		sed 's/^/    /' "$out" | tail -n 60
	fi
	rm -f "$out"
	[ "$rc" != 124 ] || fail "$what: no end within $limit s"
	[ "$rc" = 0 ] || fail "$what: exit status $rc"
}
