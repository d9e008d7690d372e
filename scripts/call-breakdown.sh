#!/usr/bin/env bash
# call-breakdown.sh - where an RMI call's time goes (network, serialization, protocol, DGC, application:
# seed 003's figures 2 and 6), for stock RMI and for the agent: a netpipe-java server and client per
# variant, recorded with JFR method sampling (every 1 ms), then `netpipe-java breakdown` of both recordings.
#
#   scripts/call-breakdown.sh [KERNEL [OBJ [VARIANT...]]]
#     KERNEL    netpipe-java kernel: ping, ping-ii, ping-iiff, obj, pingpong, star (default obj)
#     OBJ       its object: null, int32, int4null2, tree15, float:N, byte:N, int:N (default tree15)
#     VARIANT   stock, or an agent transport with optional host keys (ucx:shm, tcp, ucx:shm@optimizations=none);
#               default: stock ucx:shm
# Needs `make build` first. Calls: CALLS (default 200000; the sampling needs a few seconds of calls).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench-pair.sh
. "$root/scripts/bench-pair.sh"
kernel=${1:-obj}
obj=${2:-tree15}
shift $(($# > 2 ? 2 : $#))
variants=("$@")
[[ ${#variants[@]} -gt 0 ]] || variants=(stock ucx:shm)
calls=${CALLS:-200000}
jdk=$("$root/scripts/jdk.sh" home 22)
jar=$root/netpipe-java/target/netpipe-java.jar
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for variant in "${variants[@]}"; do
	agent=()
	if [[ $variant != stock ]]; then
		write_agent_config "$variant" "$work/fastrmi.conf" 'optimizations = all'
		agent=(-javaagent:"$root/agent/target/fastrmi-agent.jar=config=$work/fastrmi.conf" --enable-native-access=ALL-UNNAMED)
	fi
	jfr="-XX:StartFlightRecording=settings=profile,jdk.ExecutionSample#period=1ms,jdk.NativeMethodSample#period=1ms,dumponexit=true,filename"
	"$jdk/bin/java" "${agent[@]}" -XX:FlightRecorderOptions:stackdepth=256 "$jfr=$work/server.jfr" -jar "$jar" \
		server --mode rmi >"$work/server.out" 2>&1 &
	server=$!
	port=$(await_port call-breakdown.sh "$work/server.out")
	"$jdk/bin/java" "${agent[@]}" -XX:FlightRecorderOptions:stackdepth=256 "$jfr=$work/client.jfr" -jar "$jar" \
		kernel -h 127.0.0.1 -P "$port" --kernel "$kernel" --obj "$obj" --warmup 20000 --min-repeats "$calls" \
		--max-repeats "$calls" --trials 1 -o "$work/np.out" >"$work/client.out" 2>&1 || { cat "$work/client.out" >&2; exit 1; }
	kill -TERM "$server"
	wait "$server" || true
	echo "== $variant: $kernel($obj), $(awk '/^POINT/ {print $6}' "$work/client.out") us per call, $calls calls"
	"$jdk/bin/java" -jar "$jar" breakdown "$work/client.jfr" "$work/server.jfr" | sed "s|$work/||"
done
