# bench-pair.sh - sourced by the scripts that run one server/client pair (call-costs.sh, netns-call-counts.sh,
# call-allocation.sh, call-breakdown.sh): what they share.

# pair_classpath ROOT: the classpath of a BenchServer and a BenchClient run from the build (make build).
pair_classpath() {
	local root=$1
	echo "$root/netpipe-java/target/classes:$root/testkit/target/classes:$root/samples/target/classes:$root/optrmi/target/classes:$root/fastsockets/target/fastrmi-fastsockets-0.1.0-SNAPSHOT.jar"
}

# await_port SCRIPT SERVER_OUT: the port the BenchServer printed in SERVER_OUT (READY PORT), waiting
# up to 30 s; exits naming SCRIPT, with the server's output, when it did not start.
await_port() {
	local script=$1 out=$2 port
	for ((i = 0; i < 300; i++)); do
		grep -q '^READY' "$out" && break
		sleep 0.1
	done
	port=$(awk '/^READY/ {print $2}' "$out")
	if [[ -z $port ]]; then
		echo "$script: the server did not start:" >&2
		cat "$out" >&2
		exit 1
	fi
	echo "$port"
}

# write_agent_config VARIANT FILE [LINE...]: the agent's config for VARIANT (TRANSPORT[@key=value...]):
# this host inside, TRANSPORT then tcp, the LINEs, then VARIANT's keys.
write_agent_config() {
	local variant=$1 file=$2 setting
	shift 2
	local parts
	IFS=@ read -r -a parts <<<"$variant"
	{
		echo '[host local]'
		echo 'optimize = on'
		echo "transports = ${parts[0]}, tcp"
		for setting in "$@"; do
			echo "$setting"
		done
		for setting in "${parts[@]:1}"; do
			echo "${setting/=/ = }"
		done
	} >"$file"
}

# client_commands KERNELS: what a BenchClient reads on its standard input to time each of the
# comma-separated KERNELS in one batch of all its calls, report, and exit (netpipe-java's Batches).
client_commands() {
	local kernel seq=0
	local kernels
	IFS=, read -r -a kernels <<<"$1"
	for kernel in "${kernels[@]}"; do
		echo "batch $((++seq)) $kernel 0 1"
	done
	echo "report $((++seq))"
	echo quit
}

# print_stat_per_call SIDE TOTAL STAT NAME...: each counter of a `perf stat -x,` file STAT, in the
# order of its events, divided by TOTAL calls, on one line that starts with SIDE; NAMEs name the
# counters, task-clock-ms printed as cpu-us.
print_stat_per_call() {
	local side=$1 total=$2 stat=$3
	shift 3
	awk -F, -v side="$side" -v total="$total" -v names="$*" '
		BEGIN { split(names, name, " ") }
		/^[0-9]/ { n++; value[n] = $1 }
		END {
			printf "%s per call:", side
			for (i = 1; i <= n; i++)
				printf " %s=%.3f", name[i] == "task-clock-ms" ? "cpu-us" : name[i], (name[i] == "task-clock-ms" ? value[i] * 1000 : value[i]) / total
			printf "\n"
		}' "$stat"
}
