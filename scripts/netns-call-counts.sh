#!/usr/bin/env bash
# netns-call-counts.sh - what one kernel's calls cost across two hosts, counted rather than timed:
# a BenchServer in one network namespace and a BenchClient in another (a veth pair between them, as
# two hosts on one link), stock RMI or the agent, and per call: the TCP connections each side
# opened and accepted, the packets each side sent, each JVM's system calls (all, and the reads,
# writes, polls and futex calls among them), context switches and CPU time. Counts do not move with
# the scheduler, so they show where a kernel's time goes where this 2-core VM's latency cannot.
#
#   scripts/netns-call-counts.sh stock|TRANSPORT KERNEL CALLS [CONFIG-LINE ...]
#     TRANSPORT     the agent's first transport (tcp, ucx:tcp, 'ofi:tcp;ofi_rxm', ...); stock runs no agent
#     KERNEL        one of netpipe-java's bench kernels (null, echo-int, callback, transform, ...)
#     CALLS         timed calls (per thread for star8), after as many warm-up calls
#     CONFIG-LINE   global config lines for the agent, e.g. 'wait = block'
#
# Every count covers both JVMs' whole lives (start-up and warm-up too) and is divided by all the
# calls made (warm-up and timed): compare runs of the same CALLS, and take CALLS large (20000).
# Needs root, iproute2, perf (Debian: linux-perf) and `make build` first. The namespaces and the
# veth pair it makes are removed when it ends.
set -euo pipefail

if [[ $# -lt 3 ]]; then
	sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
command -v perf >/dev/null || { echo "netns-call-counts.sh: needs perf (apt-get install linux-perf)" >&2; exit 1; }
[[ $(id -u) == 0 ]] || { echo "netns-call-counts.sh: needs root (it makes network namespaces)" >&2; exit 1; }

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench-pair.sh
. "$root/scripts/bench-pair.sh"
mode=$1 kernel=$2 calls=$3
shift 3
jdk=$("$root/scripts/jdk.sh" home 22)
cp=$(pair_classpath "$root")
# Names unique to this run; the addresses are on a /30 of their own.
tag="frmi-cc-$$"
server_ns="$tag-1" client_ns="$tag-2"
server_ip=10.219.$(($$ % 250)).1 client_ip=10.219.$(($$ % 250)).2
work=$(mktemp -d)
cleanup() {
	exec 3>&- 2>/dev/null || true
	ip netns pids "$server_ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
	ip netns pids "$client_ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
	ip netns delete "$server_ns" 2>/dev/null || true
	ip netns delete "$client_ns" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

ip netns add "$server_ns"
ip netns add "$client_ns"
ip link add "$tag-a" netns "$server_ns" type veth peer name "$tag-b" netns "$client_ns"
ip -n "$server_ns" addr add "$server_ip/30" dev "$tag-a"
ip -n "$client_ns" addr add "$client_ip/30" dev "$tag-b"
for ns in "$server_ns" "$client_ns"; do
	ip -n "$ns" link set lo up
done
ip -n "$server_ns" link set "$tag-a" up
ip -n "$client_ns" link set "$tag-b" up

agent=()
if [[ $mode != stock ]]; then
	write_agent_config "$mode" "$work/fastrmi.conf" "$@"
	# Both namespaces' addresses are inside (write_agent_config's "local" host is neither).
	{
		echo "[host $server_ip $client_ip]"
		echo 'optimize = on'
		echo "transports = ${mode%%@*}, tcp"
		cat "$work/fastrmi.conf"
	} >"$work/inside.conf"
	mv "$work/inside.conf" "$work/fastrmi.conf"
	agent=(-javaagent:"$root/agent/target/fastrmi-agent.jar=config=$work/fastrmi.conf" --enable-native-access=ALL-UNNAMED)
fi
events=(-e task-clock -e context-switches -e raw_syscalls:sys_enter)
for call in read write recvfrom sendto poll ppoll epoll_wait futex; do
	events+=(-e "syscalls:sys_enter_$call")
done

# The namespace's counters: TCP connections opened and accepted, packets sent.
net_counts() {
	local ns=$1
	ip netns exec "$ns" awk '
		/^Tcp: [0-9]/ { active = $6; passive = $7 }
		END { printf "%d %d", active, passive }' /proc/net/snmp
	ip netns exec "$ns" awk '
		$1 !~ /lo:/ && /:/ { tx += $11 }
		END { printf " %d\n", tx }' /proc/net/dev
}
read -r s_open0 s_accept0 s_tx0 < <(net_counts "$server_ns")
read -r c_open0 c_accept0 c_tx0 < <(net_counts "$client_ns")

mkfifo "$work/server-in"
ip netns exec "$server_ns" perf stat -x, "${events[@]}" -o "$work/server.stat" "$jdk/bin/java" "${agent[@]}" \
	-Djava.rmi.server.hostname="$server_ip" -cp "$cp" \
	io.fastrmi.netpipe.bench.BenchServer --host "$server_ip" <"$work/server-in" >"$work/server.out" 2>&1 &
server=$!
exec 3>"$work/server-in"
port=$(await_port netns-call-counts.sh "$work/server.out")
ip netns exec "$client_ns" perf stat -x, "${events[@]}" -o "$work/client.stat" "$jdk/bin/java" "${agent[@]}" \
	-Djava.rmi.server.hostname="$client_ip" -cp "$cp" \
	io.fastrmi.netpipe.bench.BenchClient "$server_ip" "$port" --kernels "$kernel" --calls "$calls" --warmup "$calls" \
	< <(client_commands "$kernel") >"$work/client.out" 2>&1 || { cat "$work/client.out" >&2; exit 1; }
echo quit >&3
wait "$server" || true

read -r s_open1 s_accept1 s_tx1 < <(net_counts "$server_ns")
read -r c_open1 c_accept1 c_tx1 < <(net_counts "$client_ns")

line=$(grep '^KERNEL' "$work/client.out")
echo "$mode $line"
# All calls the JVMs made: warm-up and timed, times the threads for star8.
total=$(awk '{print $5 * 2}' <<<"$line")
awk -v total="$total" -v so=$((s_open1 - s_open0)) -v sa=$((s_accept1 - s_accept0)) -v st=$((s_tx1 - s_tx0)) \
	-v co=$((c_open1 - c_open0)) -v ca=$((c_accept1 - c_accept0)) -v ct=$((c_tx1 - c_tx0)) 'BEGIN {
	printf "server per call: connections-opened=%.4f accepted=%.4f packets-sent=%.3f\n", so / total, sa / total, st / total
	printf "client per call: connections-opened=%.4f accepted=%.4f packets-sent=%.3f\n", co / total, ca / total, ct / total
}'
for side in server client; do
	print_stat_per_call "$side" "$total" "$work/$side.stat" task-clock-ms context-switches syscalls read write recvfrom sendto poll ppoll epoll_wait futex
done
