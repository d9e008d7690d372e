# bench-pair.sh - sourced by the scripts that run one server/client pair (call-costs.sh,
# call-allocation.sh, call-breakdown.sh): what they share.

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
