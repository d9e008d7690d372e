#!/usr/bin/env bash
# call-costs.sh - what one kernel's calls cost each JVM, counted by the kernel rather than timed:
# a BenchServer and a BenchClient (netpipe-java) run one pair under `perf stat`, and each JVM's
# context switches, futex waits and wakes (split into the doorbell's shared futexes and private
# ones: the context mutex, the JVM's own monitors) and CPU time are printed per call. Counts do not
# move with where the scheduler puts the threads, so they tell two variants apart on this noisy
# 2-core machine where latency cannot (this is how the star8 lock waits were found).
#
#   scripts/call-costs.sh stock|TRANSPORT KERNEL CALLS [CONFIG-LINE ...]
#     TRANSPORT     the agent's first transport (ucx:shm, ofi:shm, tcp, ...), with every optimization (the
#                   lean format) as make bench's columns have it; stock runs no agent
#     KERNEL        one of netpipe-java's bench kernels (null, echo-int, tree15, star8, ...)
#     CALLS         timed calls (per thread for star8), after as many warm-up calls
#     CONFIG-LINE   global config lines for the agent, e.g. 'wait = block' 'native-library = /tmp/x.so'
#   BUSY=N        N busy loops run beside the pair (the bench's "loaded")
#
# Prints the client's KERNEL line (its last two numbers: the timed calls' CPU us and context
# switches per call, both JVMs together, as make bench counts them), then each JVM's counts per call.
# Those cover each JVM's whole life (start-up and warm-up included): compare runs of the same CALLS.
# Needs perf (Debian: linux-perf) and `make build` first.
set -euo pipefail

if [[ $# -lt 3 ]]; then
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
command -v perf >/dev/null || { echo "call-costs.sh: needs perf (apt-get install linux-perf)" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench-pair.sh
. "$root/scripts/bench-pair.sh"
mode=$1 kernel=$2 calls=$3
shift 3
jdk=$("$root/scripts/jdk.sh" home 22)
cp=$(pair_classpath "$root")
work=$(mktemp -d)
busy=()
cleanup() {
	[[ ${#busy[@]} -gt 0 ]] && kill "${busy[@]}" 2>/dev/null
	exec 3>&- 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

agent=()
if [[ $mode != stock ]]; then
	printf '%s\n' "$@" '[host local]' 'optimize = on' 'optimizations = all' "transports = $mode, tcp" >"$work/fastrmi.conf"
	agent=(-javaagent:"$root/agent/target/fastrmi-agent.jar=config=$work/fastrmi.conf" --enable-native-access=ALL-UNNAMED)
fi
# FUTEX_WAIT 0 / FUTEX_WAKE 1: shared (the doorbell); 128 / 129: process-private (mutexes, monitors).
events=(-e task-clock -e context-switches)
for op in 0 1 128 129; do
	events+=(-e syscalls:sys_enter_futex --filter "op == $op")
done

for ((i = 0; i < ${BUSY:-0}; i++)); do
	(while :; do :; done) &
	busy+=($!)
done
mkfifo "$work/server-in"
perf stat -x, "${events[@]}" -o "$work/server.stat" "$jdk/bin/java" "${agent[@]}" -cp "$cp" \
	io.fastrmi.netpipe.bench.BenchServer <"$work/server-in" >"$work/server.out" 2>&1 &
server=$!
exec 3>"$work/server-in"
port=$(await_port call-costs.sh "$work/server.out")
perf stat -x, "${events[@]}" -o "$work/client.stat" "$jdk/bin/java" "${agent[@]}" -cp "$cp" \
	io.fastrmi.netpipe.bench.BenchClient 127.0.0.1 "$port" --kernels "$kernel" --calls "$calls" --warmup "$calls" \
	< <(client_commands "$kernel") >"$work/client.out" 2>&1 || { cat "$work/client.out" >&2; exit 1; }
echo quit >&3
wait "$server" || true

line=$(grep '^KERNEL' "$work/client.out")
echo "$mode $line"
# All calls the JVMs made: warm-up and timed, times the threads for star8.
total=$(awk '{print $5 * 2}' <<<"$line")
for side in server client; do
	print_stat_per_call "$side" "$total" "$work/$side.stat" task-clock-ms context-switches doorbell-waits doorbell-wakes private-futex-waits private-futex-wakes
done
