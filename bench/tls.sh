#!/usr/bin/env bash
# bench/tls.sh — Ruvio's TLS port against redis-server's --tls-port, round by round.
#
#   bench/tls.sh
#   ROUNDS=5 N=200000 TESTS="set get" PIPELINES="1 16" bench/tls.sh
#
# Both servers get the same certificates (made here with openssl: a CA, a server and a client
# certificate, ECDSA P-256), the same pinning (SERVER_CPU) and mutual TLS (tls-auth-clients yes);
# redis-benchmark --tls runs pinned to CLIENT_CPU. Each round runs every test once against each
# server, the order alternating by round. Besides requests/s it reads each server's CPU time
# (utime + stime from /proc) around every run, as bench/ab.sh does: CPU µs per request is the
# figure to compare on a shared machine. The test "connect" is the rate of new TLS
# connections: redis-benchmark -k 0 opens a connection (and a full handshake) per PING. The
# "plain-*" rows run the same tests at -P 1 on the plain ports, for what TLS itself costs each
# server (PLAIN=0 leaves them out).
# Each line: round test pipeline rpsR rpsV cpuR cpuV rpsV/R cpuR/V (> 1: Ruvio spends less CPU
# per request than redis-server).
set -euo pipefail

TESTS=${TESTS:-"set get"}     # redis-benchmark -t names
PIPELINES=${PIPELINES:-"1 16"} # -P values
ROUNDS=${ROUNDS:-5}
N=${N:-200000}                # -n per run
CONNECT_N=${CONNECT_N:-20000} # -n of the connection-rate run
CLIENTS=${CLIENTS:-50}        # -c
KEYSPACE=${KEYSPACE:-100000}  # -r
SERVER_CPU=${SERVER_CPU-0}
CLIENT_CPU=${CLIENT_CPU-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
NAME=tls

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need redis-server redis-benchmark redis-cli openssl taskset timeout bc

# Certificates.
C="$WORK/certs"
mkdir -p "$C"
(
	cd "$C"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
		-subj /CN=bench-ca -keyout ca.key -out ca.crt
	for who in server client; do
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$who" \
			-keyout "$who.key" -out "$who.csr"
		printf 'subjectAltName=IP:127.0.0.1\n' >"$who.ext"
		openssl x509 -req -in "$who.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
			-extfile "$who.ext" -out "$who.crt"
	done
) >"$WORK/openssl.log" 2>&1 || die "openssl failed (see $WORK/openssl.log)"

build_ruvio

# redis-server: plain port for the readiness check, TLS on TLS_R.
R_PORT=$(free_port)
TLS_R=$(free_port)
mkdir -p "$WORK/redis"
# shellcheck disable=SC2046
$(pinprefix "$SERVER_CPU") redis-server --port "$R_PORT" --bind 127.0.0.1 --dir "$WORK/redis" \
	--save "" --appendonly no --daemonize no --logfile "$WORK/redis.log" \
	--tls-port "$TLS_R" --tls-cert-file "$C/server.crt" --tls-key-file "$C/server.key" \
	--tls-ca-cert-file "$C/ca.crt" &
R_PID=$!
PIDS+=("$R_PID")
wait_ready "$R_PORT" "$R_PID" redis-server

# ruvio: one shard, no persistence, the same certificates.
V_PORT=$(free_port)
TLS_V=$(free_port)
cat >"$WORK/ruvio.toml" <<EOT
[persistence]
wal = false
snapshot_on_shutdown = false

[tls]
port = $TLS_V
cert_file = "$C/server.crt"
key_file = "$C/server.key"
ca_cert_file = "$C/ca.crt"
EOT
mkdir -p "$WORK/ruvio-data"
# shellcheck disable=SC2046
$(pinprefix "$SERVER_CPU") "$WORK/ruvio" --config "$WORK/ruvio.toml" --port "$V_PORT" \
	--dir "$WORK/ruvio-data" --shards 1 --loglevel warn >"$WORK/ruvio.log" 2>&1 &
V_PID=$!
PIDS+=("$V_PID")
wait_ready "$V_PORT" "$V_PID" ruvio

# one PID PORT TEST PIPELINE N [ARG...]: "rps cpu-µs-per-request"; over TLS unless PLAINRUN=1
one() {
	local pid=$1 port=$2 test=$3 pipe=$4 n=$5 c0 c1 rps tlsargs=()
	shift 5
	[[ "${PLAINRUN:-0}" == 1 ]] || tlsargs=(--tls --cacert "$C/ca.crt" --cert "$C/client.crt" --key "$C/client.key")
	c0=$(cputicks "$pid")
	# shellcheck disable=SC2046
	rps=$(timeout -k 5 "$RUN_TIMEOUT" $(pinprefix "$CLIENT_CPU") redis-benchmark -h 127.0.0.1 \
		-p "$port" "${tlsargs[@]}" \
		-t "$test" -P "$pipe" -c "$CLIENTS" -n "$n" -r "$KEYSPACE" --csv "$@" 2>/dev/null |
		tail -1 | cut -d, -f2 | tr -d '"') || true
	c1=$(cputicks "$pid")
	echo "${rps:-0} $(echo "scale=3; ($c1 - $c0) * (1000000 / $(getconf CLK_TCK)) / $n" | bc)"
}

ratio() { [[ "$2" =~ ^0*\.?0*$ ]] && echo "-" || echo "scale=3; $1 / $2" | bc; }

log "redis-server pid=$R_PID tls-port=$TLS_R, ruvio pid=$V_PID tls-port=$TLS_V; -c $CLIENTS -n $N -r $KEYSPACE"
echo "round test pipeline rpsR rpsV cpuR cpuV rpsV/R cpuR/V load1" | tee "$WORK/rows"
declare -A RPS CPU
for ((r = 1; r <= ROUNDS; r++)); do
	order="R V"
	((r % 2 == 0)) && order="V R"
	runs=()
	for t in $TESTS; do for p in $PIPELINES; do runs+=("$t $p $N"); done; done
	runs+=("connect 1 $CONNECT_N")
	# The same without TLS, for the cost of TLS itself (PLAIN=0 skips them).
	if [[ "${PLAIN:-1}" == 1 ]]; then
		for t in $TESTS; do runs+=("plain-$t 1 $N"); done
	fi
	for run in "${runs[@]}"; do
		read -r t p n <<<"$run"
		for s in $order; do
			pid=$R_PID port=$TLS_R plainport=$R_PORT
			[[ $s == V ]] && pid=$V_PID port=$TLS_V plainport=$V_PORT
			case $t in
			connect) read -r RPS[$s] CPU[$s] < <(one "$pid" "$port" ping_inline 1 "$n" -k 0) ;;
			plain-*) read -r RPS[$s] CPU[$s] < <(PLAINRUN=1 one "$pid" "$plainport" "${t#plain-}" "$p" "$n") ;;
			*) read -r RPS[$s] CPU[$s] < <(one "$pid" "$port" "$t" "$p" "$n") ;;
			esac
		done
		echo "$r $t $p ${RPS[R]} ${RPS[V]} ${CPU[R]} ${CPU[V]} $(ratio "${RPS[V]}" "${RPS[R]}")" \
			"$(ratio "${CPU[R]}" "${CPU[V]}") $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$WORK/rows"
	done
done

echo "# medians over $ROUNDS rounds: test pipeline rpsV/R cpuR/V"
awk '
	function med(a, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	NR > 1 && $4 > 0 && $5 > 0 { k = $2 " " $3; if (!(k in n)) keys[++nk] = k; n[k]++; rr[k, n[k]] = $8; cr[k, n[k]] = $9 }
	END {
		for (i = 1; i <= nk; i++) {
			k = keys[i]; delete a; delete b
			for (j = 1; j <= n[k]; j++) { a[j] = rr[k, j]; b[j] = cr[k, j] }
			printf "# %s %.2f %.2f\n", k, med(a, n[k]), med(b, n[k])
		}
	}
' "$WORK/rows"
