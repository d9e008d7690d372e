#!/usr/bin/env bash
# compare.sh - netpipe-java's side-by-side run: stock RMI, the agent over tcp (lean format), ofi:shm and
# ucx:shm, and Cojen Dirmi as a reference peer, each as a server JVM and a client JVM on the same KaRMI
# kernels and array sweeps, quiet and then with as many busy threads as cores; then the C floors
# (fi_pingpong, ucx_perftest) where installed. Prints the table; writes it, a JSON summary, the np.out
# files and PNG plots under results/compare-DATE/.
#
#   scripts/compare.sh [--quick] [other options of `netpipe-java compare`, see --help]
#     --quick          make demo's short run (a few minutes)
#     --peers LIST     e.g. stock,tcp,ucx:shm,dirmi (stock is always needed: ratios are to it)
#     --hosts netns    the peers in two network namespaces joined by veth (root), e.g. with
#                      --peers stock,tcp,ucx:tcp,ofi:tcp\;ofi_rxm,dirmi
# Options given here win over this script's own (--agent, --jdk, --results), which come first.
# Needs `make build` first.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
jdk=$("$root/scripts/jdk.sh" home 22)
jar=$root/netpipe-java/target/netpipe-java.jar
agent=$root/agent/target/fastrmi-agent.jar
for built in "$jar" "$agent"; do
	if [[ ! -f $built ]]; then
		echo "compare.sh: $built is missing: run make build first" >&2
		exit 1
	fi
done
exec "$jdk/bin/java" -jar "$jar" compare --agent "$agent" --jdk "$jdk" --results "$root/results" "$@"
