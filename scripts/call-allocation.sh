#!/usr/bin/env bash
# call-allocation.sh - what one RMI call allocates on each side's heap: a BenchServer and a
# BenchClient (netpipe-java) run once, and the client prints each kernel's ALLOC line (bytes per timed
# call, client then server, after as many warm-up calls; the client's includes the kernel's own
# timing, the same in every variant).
#
#   scripts/call-allocation.sh stock|TRANSPORT[@key=value...] KERNELS CALLS [--jfr]
#     TRANSPORT     the agent's first transport (ucx:shm, ofi:shm, tcp, ...); stock runs no agent
#     @key=value    host keys for the agent's [host local] section, e.g. ucx:shm@optimizations=all
#     KERNELS       netpipe-java's bench kernels, comma-separated (null,echo-int,tree15,transform,...)
#     CALLS         timed calls per kernel
#     --jfr         both JVMs record with JFR's default settings (the agent's call events on)
# Needs `make build` first.
set -euo pipefail

if [[ $# -lt 3 || $# -gt 4 || ( $# -eq 4 && $4 != --jfr ) ]]; then
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench-pair.sh
. "$root/scripts/bench-pair.sh"
mode=$1 kernels=$2 calls=$3
jdk=$("$root/scripts/jdk.sh" home 22)
cp=$(pair_classpath "$root")
work=$(mktemp -d)
trap 'exec 3>&- 2>/dev/null || true; rm -rf "$work"' EXIT

agent=()
if [[ ${4:-} == --jfr ]]; then
	agent+=(-XX:StartFlightRecording=settings=default)
fi
if [[ $mode != stock ]]; then
	write_agent_config "$mode" "$work/fastrmi.conf"
	agent+=(-javaagent:"$root/agent/target/fastrmi-agent.jar=config=$work/fastrmi.conf" --enable-native-access=ALL-UNNAMED)
fi
mkfifo "$work/server-in"
"$jdk/bin/java" "${agent[@]}" -cp "$cp" io.fastrmi.netpipe.bench.BenchServer <"$work/server-in" >"$work/server.out" 2>&1 &
server=$!
exec 3>"$work/server-in"
port=$(await_port call-allocation.sh "$work/server.out")
"$jdk/bin/java" "${agent[@]}" -cp "$cp" io.fastrmi.netpipe.bench.BenchClient 127.0.0.1 "$port" \
	--kernels "$kernels" --calls "$calls" --warmup "$calls" < <(client_commands "$kernels") >"$work/client.out" 2>&1 \
	|| { cat "$work/client.out" >&2; exit 1; }
echo quit >&3
wait "$server" || true
grep '^ALLOC' "$work/client.out" | sed "s/^/$mode /"
