#!/usr/bin/env bash
# jdk-rmi-tests.sh - OpenJDK's own RMI regression tests (test/jdk/java/rmi), run twice with jtreg on
# one JDK: without the agent, then with every test JVM under it (make jdk-rmi-tests), every
# optimization on (the lean format on every negotiated connection). Every test that passes without
# the agent must pass with it: the script lists those that do not and exits 1 if any, or if no test
# made a call in the lean format.
#
# The tests come from Debian's openjdk-17 source package (fetched with apt-get source through a
# private source list, so the system's apt configuration is left alone; its hashes are checked by
# apt), jtreg from Debian's jtreg7 package (installed by install-deps.sh).
#
# Usage: scripts/jdk-rmi-tests.sh JDK_HOME AGENT_JAR [OUT_DIR]
# Environment:
#   JDK_RMI_TESTS     the tests to run, relative to test/jdk (default java/rmi)
#   JTREG_CONCURRENCY tests at once (default 2)
#   JTREG_TIMEOUT     jtreg's timeout factor (default 4: a shared 2-core machine)
#   JDK_RMI_FETCH_ONLY  set: fetch and extract the tests, run nothing
#   JDK_RMI_SOURCES   where the extracted tests live (default OUT_DIR/src; runs on several JDKs share one)
set -euo pipefail

jdk=${1:?usage: jdk-rmi-tests.sh JDK_HOME AGENT_JAR [OUT_DIR]}
agent=${2:?usage: jdk-rmi-tests.sh JDK_HOME AGENT_JAR [OUT_DIR]}
out=$(realpath -m "${3:-target/jdk-rmi-tests}")
tests=${JDK_RMI_TESTS:-java/rmi}
agent=$(realpath "$agent")
mkdir -p "$out"

log() { printf 'jdk-rmi-tests: %s\n' "$*"; }

FASTRMI_DEPS_EXTRA="jtreg7 xz-utils" "$(dirname "${BASH_SOURCE[0]}")/install-deps.sh"
jtreg=$(command -v jtreg || true)
[[ -n $jtreg ]] || { log "jtreg is not on the PATH after installing jtreg7" >&2; exit 1; }

# ---- the tests: Debian's openjdk-17 source, only what the RMI tests need --------------------------
src=$(realpath -m "${JDK_RMI_SOURCES:-$out/src}")
if [[ ! -f $src/.extracted ]]; then
	fetch=$out/fetch
	mkdir -p "$fetch/lists/partial"
	# The main archive's: the registry this machine reaches serves no security-update sources.
	echo 'deb-src http://deb.debian.org/debian bookworm main' >"$fetch/sources.list"
	apt_opts=(-o "Dir::Etc::SourceList=$fetch/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$fetch/lists")
	log "fetching the openjdk-17 source package (about 65 MB)"
	apt-get "${apt_opts[@]}" update >"$fetch/update.log"
	(cd "$fetch" && apt-get "${apt_opts[@]}" source --download-only openjdk-17 >"$fetch/source.log")
	orig=$(ls "$fetch"/openjdk-17_*.orig.tar.xz)
	mkdir -p "$src"
	log "extracting test/jdk/java/rmi and the test libraries from $(basename "$orig")"
	tar -xJf "$orig" -C "$src" --strip-components=1 --wildcards \
		'*/test/jdk/TEST.ROOT' '*/test/jdk/ProblemList.txt' '*/test/jdk/java/rmi/*' '*/test/lib/*' \
		'*/test/jtreg-ext/*'
	rm -f "$orig"
	# TEST.ROOT wants a groups file; the JDK's names directories not extracted here.
	echo '# the RMI tests only: no groups' >"$src/test/jdk/TEST.groups"
	touch "$src/.extracted"
fi

[[ -z ${JDK_RMI_FETCH_ONLY:-} ]] || exit 0

# ---- two runs ------------------------------------------------------------------------------------
config=$out/fastrmi.conf
# Every optimization, as the built-in config has them: the lean format runs on every negotiated connection.
printf '%s\n' '[host local]' 'optimize = on' 'optimizations = all' 'transports = ucx:shm, ofi:shm, tcp' >"$config"
run() { # name, extra jtreg options...
	local name=$1
	shift
	log "running $tests on $jdk: $name"
	rm -rf "${out:?}/work-$name" "${out:?}/report-$name"
	"$jtreg" -jdk:"$jdk" -w:"$out/work-$name" -r:"$out/report-$name" -conc:"${JTREG_CONCURRENCY:-2}" \
		-timeoutFactor:"${JTREG_TIMEOUT:-4}" -exclude:"$src/test/jdk/ProblemList.txt" -v:fail,error,summary \
		"$@" "$src/test/jdk/$tests" >"$out/$name.log" 2>&1 || true
	# summary.txt: "java/rmi/.../Test.java   Passed. Execution successful" (or Failed., Error.)
	awk '{ result = $2; sub(/\.$/, "", result); print $1, result }' "$out/report-$name/text/summary.txt" \
		| sort >"$out/$name.results"
}
run stock
# -retain:all keeps each test's files (its JVMs' recordings) beside its results.
run agent -retain:all -javaoptions:"-javaagent:$agent=config=$config --enable-native-access=ALL-UNNAMED -XX:StartFlightRecording=filename=fastrmi-%p.jfr,dumponexit=true,settings=default"

# ---- results -------------------------------------------------------------------------------------
count() { grep -c " $2\$" "$out/$1.results" || true; }
for name in stock agent; do
	log "$name: $(count "$name" Passed) passed, $(count "$name" Failed) failed, $(count "$name" Error) errors ($(wc -l <"$out/$name.results") tests)"
done
under=$(grep -rl '(premain) on JDK' "$out/work-agent" --include='*.jtr' | wc -l)
recorded() { # event, pattern: how many tests have a recording with such an event
	find "$out/work-agent" -name 'fastrmi-*.jfr' -size +0 | while read -r f; do
		if "$jdk/bin/jfr" print --events "$1" "$f" 2>/dev/null | grep -q "$2"; then
			dirname "$f"
		fi
	done | sort -u | wc -l
}
fast=$(recorded fastrmi.Handshake 'result = "fast"')
lean=$(recorded fastrmi.RmiCall 'lean = true')
log "agent: $under tests ran a JVM where the agent instrumented RMI (its start line, logged at RMI's first instrumented class); $fast recorded a fast connection (fastrmi.Handshake in JFR), $lean a call in the lean format (fastrmi.RmiCall)"
if (( lean == 0 )); then
	log "no test made a call in the lean format: the run does not test it" >&2
	exit 1
fi
regressions=$(join <(grep ' Passed$' "$out/stock.results" | cut -d' ' -f1) \
	<(grep -v ' Passed$' "$out/agent.results" | cut -d' ' -f1) || true)
if [[ -n $regressions ]]; then
	log "pass without the agent, not with it:"
	printf '  %s\n' $regressions
	exit 1
fi
log "every test that passes without the agent passes with it"
