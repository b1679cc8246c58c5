#!/usr/bin/env bash
# End-to-end test of docker/cluster.yml: a cluster across six containers, a primary killed, its
# group failed over. Run by hand (as root, or a user allowed to use docker) on a Linux host whose
# Docker engine runs on this machine (the test reaches the containers at their bridge addresses,
# as a cluster client must); never by `go test ./...`. Mirrors docker/test.sh.
#
#   1. Builds the stand-in base images when absent (docker/build-base-images.sh), the image
#      (docker compose build) and the host's own ruvio binary (for `ruvio cluster status`).
#   2. Brings the six members up; waits for their health checks, then for CLUSTER INFO to say
#      cluster_state:ok on every member and CLUSTER SLOTS to show three ranges, each with a
#      replica.
#   3. Writes 200 keys through redis-cli -c (fsync always; WAIT 1 0 on each primary), reads them
#      back.
#   4. docker kill the primary of the group that owns a known key (found in CLUSTER NODES),
#      then retries a write of that key through redis-cli -c from another member (each attempt
#      bounded by `timeout 2`) until it succeeds: the failover time, printed, must be under 15 s.
#      The 200 keys are all read back after the failover.
#   5. docker start the killed member: CLUSTER NODES must show it as a replica (slave) of the new
#      primary; WAIT 1 0 on the new primary counts it and it serves the key (READONLY). Prints
#      `ruvio cluster status`.
#   6. Tears everything down (containers, volumes, the project's network), also on failure or
#      interruption, and checks that nothing of the project is left.
#
# Every wait has a limit, and the whole run is capped at TEST_TIMEOUT seconds (1800). On 2 CPUs
# a run takes about 1.5 minutes when the image is up to date, 3 to 4 when the server is rebuilt
# (any change to the tree, these files included, rebuilds it), more on a fresh machine (base
# images). Uses `docker compose` when the plugin is there, else docker-compose. Environment:
# RUVIO_IMAGE (ruvio:cluster-test) is the image built; TEST_PROJECT (ruvio-cluster-test) the
# compose project name. The compose file's fixed subnet (10.55.70.0/24) and host ports
# (127.0.0.1:17001..17006) must be free: a cluster brought up by hand from docker/cluster.yml
# holds them, so take that one down first. The image built is kept.
set -euo pipefail

if [ -z "${RUVIO_CLUSTER_TEST_CAPPED:-}" ]; then
	# The whole run under one limit: at its end the script gets SIGTERM and still tears down.
	export RUVIO_CLUSTER_TEST_CAPPED=1
	exec timeout --foreground -k 240 "${TEST_TIMEOUT:-1800}" "$0" "$@"
fi

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

export RUVIO_IMAGE=${RUVIO_IMAGE:-ruvio:cluster-test}
# The compose file's own defaults name the base images; the test does not override them.
unset RUVIO_GO_IMAGE RUVIO_RUNTIME_IMAGE RUVIO_PASSWORD
project=${TEST_PROJECT:-ruvio-cluster-test}
file=docker/cluster.yml
# The members' addresses and names, as docker/cluster.yml and docker/cluster-config/cluster.toml
# give them: member n is service ruvio-n at 10.55.70.1n.
subnet=10.55.70.0/24
members=(1 2 3 4 5 6)
ip_of() { echo "10.55.70.1$1"; }
failover_key=cluster-test:failover
nkeys=200
failover_limit_ms=15000

# shellcheck source=docker/lib.sh
source "$root/docker/lib.sh"
compose+=(-f "$file")
now_ms() { echo $(($(date +%s%N) / 1000000)); }
tmp=$(mktemp -d)
bin=$tmp/ruvio

dump_logs() {
	echo "---- cluster as member 1 sees it ----" >&2
	timeout 10 redis-cli -h "$(ip_of 1)" CLUSTER NODES >&2 2>&1 || true
	[ ! -x "$bin" ] || timeout 15 "$bin" cluster status --control "$(ip_of 1):16379" >&2 2>&1 || true
	echo "---- container logs (last 40 lines each) ----" >&2
	timeout 60 "${compose[@]}" logs --no-color --tail 40 >&2 || true
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
	timeout 180 "${compose[@]}" down -v --remove-orphans --timeout 30 >/dev/null 2>&1 || true
}
on_exit() {
	local rc=$?
	trap - EXIT INT TERM
	if [ "$torn_down" = 0 ]; then
		log "teardown after ${step_name:-start}"
		teardown
	fi
	rm -rf "$tmp"
	log "total wall time $(elapsed "$t0") s"
	[ "$rc" = 0 ] || [ "$failed" -gt 0 ] || failed=1
	echo "docker cluster: $passed passed, $failed failed"
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

# The image has no shell and no redis-cli: the host's redis-cli talks to the members at their
# bridge addresses. Each returns the reply (or the error) and status 0; the checks compare text.
cli() { local ip=$1; shift; timeout 10 redis-cli -h "$ip" -p 6379 "$@" 2>&1 || true; }
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

# slot_ranges IP: one line per CLUSTER SLOTS entry, "start-end primary-ip replicas".
slot_ranges() {
	local json
	json=$(timeout 10 redis-cli -2 --json -h "$1" -p 6379 CLUSTER SLOTS 2>/dev/null) || return 0
	# [start,end,["ip",port,"id",[meta]],["ip",port,"id",[meta]]...] per entry.
	grep -oE '\[[0-9]+,[0-9]+(,\["[^"]*",[0-9]+,"[0-9a-f]*",\[[^]]*\]\])*\]' <<<"$json" |
		while read -r e; do
			local nodes ips
			ips=$(grep -oE '\["[^"]*"' <<<"$e" | tr -d '["')
			nodes=$(wc -l <<<"$ips")
			echo "$(cut -d, -f1 <<<"${e#[}")-$(cut -d, -f2 <<<"$e") $(head -n 1 <<<"$ips") $((nodes - 1))"
		done
}

# cluster_ok: every member says cluster_state:ok and CLUSTER SLOTS has three ranges that cover
# the 16384 slots, each with a primary and at least one replica.
cluster_ok() {
	local n ranges total=0 r
	for n in "${members[@]}"; do
		cli "$(ip_of "$n")" CLUSTER INFO | tr -d '\r' | grep -qx 'cluster_state:ok' || return 1
	done
	ranges=$(slot_ranges "$(ip_of 1)")
	[ "$(grep -c . <<<"$ranges")" = 3 ] || return 1
	while read -r r _ reps; do
		[ "$reps" -ge 1 ] || return 1
		total=$((total + ${r#*-} - ${r%-*} + 1))
	done <<<"$ranges"
	[ "$total" = 16384 ]
}

# CLUSTER NODES fields: id addr flags primary-id ping pong epoch link slots...
nodes_of() { cli "$1" CLUSTER NODES | tr -d '\r'; }
# owner_of NODES SLOT: "id ip" of the primary serving SLOT.
owner_of() {
	awk -v slot="$2" '$3 ~ /master/ && $3 !~ /fail/ {
		for (i = 9; i <= NF; i++) {
			n = split($i, r, "-"); lo = r[1]; hi = (n > 1 ? r[2] : r[1])
			if (slot + 0 >= lo + 0 && slot + 0 <= hi + 0) { split($2, a, ":"); print $1, a[1]; exit }
		}
	}' <<<"$1"
}
member_at() { # IP: the member number whose address it is
	local n
	for n in "${members[@]}"; do [ "$(ip_of "$n")" != "$1" ] || { echo "$n"; return 0; }; done
	fail "no member at $1"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

step "preflight"
for tool in docker timeout redis-cli go awk; do
	command -v "$tool" >/dev/null || fail "$tool not found"
done
timeout 30 docker info >/dev/null 2>&1 || fail "no Docker engine answers"
log "  engine $(timeout 10 docker version --format '{{.Server.Version}}' 2>/dev/null || true), ${compose_tool[*]} $(timeout 10 "${compose_tool[@]}" version --short 2>/dev/null || true), redis-cli $(redis-cli --version | cut -d' ' -f2)"
for n in "${members[@]}"; do
	grep -q "ipv4_address: $(ip_of "$n")" "$file" || fail "$file does not give ruvio-$n the address $(ip_of "$n")"
done
# Leftovers of an interrupted run of this project would hold the ports: remove them first.
teardown
for n in "${members[@]}"; do
	port_in_use "1700$n" && fail "port 1700$n is in use (a cluster from $file already up? take it down first)"
done
taken=$(timeout 30 docker network ls -q | while read -r id; do
	timeout 10 docker network inspect --format '{{.Name}} {{range .IPAM.Config}}{{.Subnet}} {{end}}' "$id" 2>/dev/null
done | grep -F " ${subnet%.*/*}." || true)
[ -z "$taken" ] || fail "subnet $subnet is taken by network $taken"
ok "ports 17001..17006 and subnet $subnet free, project $project clean"

step "base images"
run 1200 "docker/build-base-images.sh" "$root/docker/build-base-images.sh"
for arg in GO_IMAGE RUNTIME_IMAGE; do
	name=$(sed -n "s/^ARG $arg=//p" Dockerfile | head -n 1)
	timeout 30 docker image inspect "$name" >/dev/null 2>&1 || fail "$name missing"
	ok "$name present"
done
# (build-base-images.sh rebuilds a Go stand-in that lacks a module go.mod now needs.)

step "build: the image and the host's ruvio"
SHOW='^(Step [0-9]+/|Successfully)' run 900 "compose build" "${compose[@]}" build
ok "image $RUVIO_IMAGE built ($(timeout 10 docker image inspect --format '{{.Size}}' "$RUVIO_IMAGE") bytes)"
run 600 "go build" go build -o "$bin" .
ok "host binary $bin (for ruvio cluster status)"

step "docker compose up -d: six members"
run 180 "compose up -d" "${compose[@]}" up -d --no-build
for n in "${members[@]}"; do wait_healthy "ruvio-$n" 180; done
expect "PING at $(ip_of 1) from the host (the bridge is routed)" PONG "$(cli "$(ip_of 1)" PING)"

step "cluster formed: cluster_state:ok, three ranges with a replica each"
t=$(date +%s)
until cluster_ok; do
	[ "$(elapsed "$t")" -lt 120 ] || fail "cluster not formed within 120 s: $(slot_ranges "$(ip_of 1)" | tr '\n' ';')"
	sleep 1
done
ok "formed $(elapsed "$t") s after the members were healthy"
slot_ranges "$(ip_of 1)" | while read -r r p reps; do log "    slots $r primary $p replicas $reps"; done

step "write $nkeys keys through redis-cli -c, WAIT 1 0, read them back"
out=$(seq 1 "$nkeys" | sed 's/.*/SET cluster-test:key:& value-&/' | timeout 60 redis-cli -c -h "$(ip_of 1)" 2>&1) || true
expect "SET replies OK" "$nkeys" "$(grep -cx OK <<<"$out" || true)"
expect "SET $failover_key" OK "$(timeout 10 redis-cli -c -h "$(ip_of 1)" SET "$failover_key" before 2>&1 | tail -n 1)"
nodes=$(nodes_of "$(ip_of 1)")
for p in $(awk '$3 ~ /master/ { split($2, a, ":"); print a[1] }' <<<"$nodes"); do
	expect "WAIT 1 0 on primary $p" 1 "$(timeout 30 redis-cli -h "$p" WAIT 1 0 2>&1)"
done
want=$(seq 1 "$nkeys" | sed 's/.*/value-&/')
read_all() { # IP: the values of the keys, in order, through redis-cli -c
	seq 1 "$nkeys" | sed 's/.*/GET cluster-test:key:&/' | timeout 60 redis-cli -c -h "$1" 2>&1 | grep -v '^-> Redirected' || true
}
[ "$(read_all "$(ip_of 1)")" = "$want" ] || fail "keys read back differ from those written"
ok "$nkeys keys read back through redis-cli -c"

step "failover: docker kill the primary of the group owning $failover_key"
slot=$(cli "$(ip_of 1)" CLUSTER KEYSLOT "$failover_key")
read -r old_id old_ip <<<"$(owner_of "$nodes" "$slot")"
[ -n "${old_ip:-}" ] || fail "no primary owns slot $slot in CLUSTER NODES"
read -r rep_id rep_ip <<<"$(awk -v p="$old_id" '$4 == p { split($2, a, ":"); print $1, a[1]; exit }' <<<"$nodes")"
[ -n "${rep_ip:-}" ] || fail "primary $old_ip has no replica in CLUSTER NODES"
victim=$(member_at "$old_ip")
# The client asks a member outside the group, so that it follows a redirection.
for n in "${members[@]}"; do
	seed=$(ip_of "$n")
	[ "$seed" = "$old_ip" ] || [ "$seed" = "$rep_ip" ] || break
done
victim_id=$(dc 30 ps -q "ruvio-$victim")
[ -n "$victim_id" ] || fail "no container for ruvio-$victim"
log "  slot $slot: primary ruvio-$victim ($old_ip), replica ruvio-$(member_at "$rep_ip") ($rep_ip); client at $seed"
timeout 30 docker kill "$victim_id" >/dev/null || fail "docker kill ruvio-$victim"
killed_at=$(now_ms)
attempts=0
last=
while :; do
	attempts=$((attempts + 1))
	last=$(timeout 2 redis-cli -c -h "$seed" SET "$failover_key" after 2>&1 | tail -n 1) || last="${last:-}(no answer within 2 s)"
	[ "$last" != OK ] || break
	[ $(($(now_ms) - killed_at)) -lt $((failover_limit_ms + 15000)) ] || break
	sleep 0.1
done
took=$(($(now_ms) - killed_at))
[ "$last" = OK ] || fail "no write to $failover_key succeeded within $took ms (last: $last)"
[ "$took" -lt "$failover_limit_ms" ] || fail "failover took $took ms, over $failover_limit_ms ms"
ok "write to $failover_key succeeded $took ms after docker kill (attempt $attempts)"
log "  FAILOVER TIME: $took ms"
nodes=$(nodes_of "$seed")
read -r new_id new_ip <<<"$(owner_of "$nodes" "$slot")"
expect "new primary of slot $slot" "$rep_id $rep_ip" "$new_id $new_ip"
expect "GET $failover_key" after "$(timeout 10 redis-cli -c -h "$seed" GET "$failover_key" 2>&1 | tail -n 1)"
[ "$(read_all "$seed")" = "$want" ] || fail "keys read back after the failover differ from those written"
ok "all $nkeys keys written before the kill read back after the failover"

step "docker start the killed member: it rejoins as a replica of the new primary"
timeout 30 docker start "$victim_id" >/dev/null || fail "docker start ruvio-$victim"
t=$(date +%s)
while :; do
	line=$(nodes_of "$seed" | awk -v id="$old_id" '$1 == id')
	case "$line" in
	*" slave $new_id "*connected*) [[ "$line" == *fail* ]] || break ;;
	esac
	[ "$(elapsed "$t")" -lt 120 ] || fail "ruvio-$victim not a replica of $new_id within 120 s: $line"
	sleep 1
done
ok "ruvio-$victim is a replica of ruvio-$(member_at "$new_ip") after $(elapsed "$t") s: $line"
wait_healthy "ruvio-$victim" 120
expect "WAIT 1 0 on the new primary" 1 "$(timeout 60 redis-cli -h "$new_ip" WAIT 1 0 2>&1)"
expect "GET $failover_key on the rejoined replica (READONLY)" after \
	"$(printf 'READONLY\nGET %s\n' "$failover_key" | timeout 10 redis-cli -h "$old_ip" 2>&1 | tail -n 1)"
expect "DBSIZE of the rejoined replica and the new primary" "$(cli "$new_ip" DBSIZE)" "$(cli "$old_ip" DBSIZE)"

step "ruvio cluster status --control $seed:16379 (the host's binary)"
status=$(timeout 15 "$bin" cluster status --control "$seed:16379" 2>&1) || fail "ruvio cluster status: $status"
sed 's/^/    /' <<<"$status"
expect "members ok in ruvio cluster status" 6 "$(grep -cE '^  ruvio-[0-9].* ok$' <<<"$status" || true)"
grep -qE "primary ruvio-$(member_at "$new_ip") replicas ruvio-$victim " <<<"$status" ||
	fail "ruvio cluster status does not show ruvio-$(member_at "$new_ip") as the primary with ruvio-$victim as replica"
ok "the group's primary is ruvio-$(member_at "$new_ip"), its replica ruvio-$victim"

step "teardown"
run 180 "compose down -v" "${compose[@]}" down -v --remove-orphans --timeout 30
torn_down=1
left=$(timeout 30 docker ps -aq --filter "label=com.docker.compose.project=$project")
left+=$(timeout 30 docker volume ls -q --filter "label=com.docker.compose.project=$project")
left+=$(timeout 30 docker network ls -q --filter "label=com.docker.compose.project=$project")
[ -z "$left" ] || fail "left behind after down: $left"
ok "no container, volume or network of project $project left"
log "  done: $step_name ($(elapsed "$step_t0") s)"
step_name=
