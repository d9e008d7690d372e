# FastRMI - the one entry point.
#
#   make          build libfastrmi.so and the jars (agent: agent/target/fastrmi-agent.jar)
#   make test     install missing system packages, build, run every test (C and Java, JDK 17 and 25)
#   make demo     install missing system packages, build, then netpipe-java's short side-by-side run
#                 (scripts/compare.sh --quick: stock RMI, the agent on tcp, ofi:shm and ucx:shm, Dirmi; quiet and
#                 loaded; a few minutes) and print its table; results under results/compare-DATE/
#   make compare  the same, full size: every KaRMI kernel and object, sweeps to 8 MiB (COMPARE_ARGS go to compare.sh)
#   make sample-demo the sample RMI application without and with the agent, call timings side by side
#   make startup  measure the start-up time the agent adds (median of N runs, N=$(STARTUP_RUNS)), built-in config and the README's
#                 then the CPU a JVM spends to start RMI and make one call, and in the 3 s after (RMI_START_RUNS runs)
#   make fuzz     fuzzed native addresses in offers and answers against agent JVMs, FUZZ_COUNT of each, over
#                 FUZZ_LANES fuzzers at once (seeds FUZZ_SEED, FUZZ_SEED+1, ...)
#   make fuzz-lean  mutated lean-format streams against the reader, LEAN_FUZZ_INPUTS of them (make test runs 100,000)
#   make bench-lean the lean format against JDK serialization, Kryo and Fory (JMH, module lean-bench): bytes per
#                 repeated call, then write+read time of KaRMI's objects and a 3 KB object; LEAN_JMH_ARGS go to JMH;
#                 then StreamCopyFloor: a float[]'s copies and allocation alone, the floor through byte streams
#   make churn    CHURN_CLIENTS client JVMs, one after another, to one ofi:shm server (its contexts are retired
#                 and replaced as they fill: 256 peers each)
#   make jdk-rmi-tests  OpenJDK's own RMI tests (jtreg) without and with the agent, on JDK 25 and 17 (long)
#   make bench    socket ping-pong (java.net, each native transport, java.net under scope = jvm), then the RMI
#                 benchmark (io.fastrmi.netpipe.bench.Bench: per-call median/p99 of its kernels, stock RMI and the
#                 agent on each of $(BENCH_TRANSPORTS), quiet and loaded, $(BENCH_ROUNDS) rounds, each kernel's calls
#                 in batches the columns take in turn; @binding=ffm: the FFM binding beside JNI, the default),
#                 on this host, then a fresh pair's first $(BENCH_FIRST_CALLS) calls of each kernel (no warm-up)
#                 on this host, then
#                 the same on JDK 17 (the JNI binding) on $(BENCH_JDK17_TRANSPORTS),
#                 then across two network namespaces on $(BENCH_NETNS_TRANSPORTS), then four namespaces calling
#                 each other at once (io.fastrmi.netpipe.bench.mesh.Mesh: a star and an all-to-all, 8 threads per
#                 host; throughput and lost calls) on the same transports (both skipped unless root)
#   make apps     the applications SOR, ASP, TSP and N-body (io.fastrmi.netpipe.apps.AppRunner, measuring size): a
#                 coordinator and 1, 2, 4, 8 worker JVMs, stock RMI and the agent on ucx:shm, on this host
#                 with every JVM recording JFR (which checks that each connection was fast) and again
#                 without (as most jobs run), then 2 and 4 workers spread over network namespaces on tcp
#                 (root only); $(APPS_ROUNDS) rounds; every result checked against the sequential one;
#                 table, JSON and speedup plot
#   make deps     install missing system packages (scripts/install-deps.sh)
#   make clean
#
# Maven runs on a JDK >= 22: JAVA_HOME if it is one, else the newest under /usr/lib/jvm.
# Tests run the sample application on JDK 17 and on that JDK; JDK17_HOME / JDK25_HOME override.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := all
.PHONY: all build native java test test-c test-java demo compare sample-demo startup bench bench-lean apps fuzz fuzz-lean churn jdk-rmi-tests deps clean check-jdk

BUILD_JDK := $(shell scripts/jdk.sh home 22 2>/dev/null)
JDK17_HOME ?= $(shell JAVA_HOME= scripts/jdk.sh home 17 17 2>/dev/null)
JDK25_HOME ?= $(shell JAVA_HOME= scripts/jdk.sh home 25 25 2>/dev/null)
MVN := JAVA_HOME=$(BUILD_JDK) mvn -B -ntp
MVN_PROPS := -Dfastrmi.jdk17=$(JDK17_HOME) -Dfastrmi.jdk25=$(JDK25_HOME)
AGENT_JAR := agent/target/fastrmi-agent.jar
# The runnable jar: netpipe-java with everything it needs inside (Bench writes its JSON with Jackson).
NETPIPE_CP = netpipe-java/target/netpipe-java.jar
STARTUP_RUNS ?= 15
RMI_START_RUNS ?= 7
FUZZ_COUNT ?= 500000
FUZZ_LANES ?= 4
LEAN_FUZZ_INPUTS ?= 5000000
LEAN_JMH_ARGS ?=
LEAN_BENCH_CP = lean-bench/target/classes:$$(cat lean-bench/target/classpath.txt)
# The lean format's module flags: io.fastrmi.optrmi.lean.LeanModuleAccess (LeanModuleAccessTest pins this copy).
LEAN_BENCH_OPENS := --add-opens java.base/java.io=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
# The lean codec runs through the streams RMI gets, under the agent: io.fastrmi.agent.lean.RmiLeanStreams.JVM_ARGS
# (RmiLeanStreamsTest pins this copy).
LEAN_BENCH_RMI_OPENS := --add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED
LEAN_BENCH_JVM = $(LEAN_BENCH_OPENS) $(LEAN_BENCH_RMI_OPENS) -javaagent:$(AGENT_JAR)
LEAN_FUZZ_SEED ?= $(shell date +%s)
CHURN_CLIENTS ?= 1000
BENCH_TRANSPORTS ?= ucx:shm,ofi:shm,tcp,ucx:shm@binding=ffm
BENCH_JDK17_TRANSPORTS ?= ucx:shm,ofi:shm,tcp
BENCH_NETNS_TRANSPORTS ?= tcp,ucx:tcp,ofi:tcp;ofi_rxm
BENCH_ROUNDS ?= 5
APPS_ROUNDS ?= 3
BENCH_CALLS ?= 20000
BENCH_FIRST_CALLS ?= 2000
BENCH_LOAD ?= quiet,loaded
COMPARE_ARGS ?=

all: build

build: native java

check-jdk:
	@if [[ -z "$(BUILD_JDK)" ]]; then \
	  echo "make: no JDK >= 22 found: FastRMI builds on a JDK >= 22 (its native transport uses the FFM API)." >&2; \
	  echo "make: set JAVA_HOME to one, or install one under /usr/lib/jvm (e.g. Eclipse Temurin 25)." >&2; \
	  exit 1; \
	fi

native:
	$(MAKE) -C native

java: check-jdk native
	$(MVN) $(MVN_PROPS) -DskipTests install

deps:
	scripts/install-deps.sh

test: deps
	$(MAKE) test-c
	$(MAKE) test-java

test-c:
	$(MAKE) -C native test
	$(MAKE) -C native test-asan
	scripts/test-install-deps.sh
	scripts/check-links.sh

test-java: check-jdk native
	@if [[ -z "$(JDK17_HOME)" || -z "$(JDK25_HOME)" ]]; then \
	  echo "make: the tests run on JDK 17 and JDK 25; found JDK 17 at '$(JDK17_HOME)', JDK 25 at '$(JDK25_HOME)'." >&2; \
	  echo "make: run 'make deps' (it installs JDK 17), or set JDK17_HOME / JDK25_HOME." >&2; \
	  exit 1; \
	fi
	$(MVN) $(MVN_PROPS) install

bench-lean: java
	$(BUILD_JDK)/bin/java $(LEAN_BENCH_JVM) -cp "$(LEAN_BENCH_CP)" io.fastrmi.leanbench.LeanCodecSizes
	$(BUILD_JDK)/bin/java -cp "$(LEAN_BENCH_CP)" org.openjdk.jmh.Main LeanCodecBench -jvmArgsAppend "$(LEAN_BENCH_JVM)" $(LEAN_JMH_ARGS)
	$(BUILD_JDK)/bin/java -cp "$(LEAN_BENCH_CP)" org.openjdk.jmh.Main StreamCopyFloor

fuzz-lean: check-jdk
	$(MVN) -pl optrmi test -Dtest=LeanFuzzTest -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dlean.fuzz.inputs=$(LEAN_FUZZ_INPUTS) -Dlean.fuzz.seed=$(LEAN_FUZZ_SEED)
	@grep -ho "LEAN FUZZ[^&]*" optrmi/target/surefire-reports/TEST-io.fastrmi.optrmi.lean.LeanFuzzTest.xml

demo: deps
	$(MAKE) build
	scripts/compare.sh --quick

compare: build
	scripts/compare.sh $(COMPARE_ARGS)

sample-demo: build
	$(BUILD_JDK)/bin/java -cp $(NETPIPE_CP) io.fastrmi.netpipe.Demo --agent $(AGENT_JAR) \
	  --jdk $(BUILD_JDK) --calls 2000

startup: build
	$(BUILD_JDK)/bin/java -cp $(NETPIPE_CP) io.fastrmi.netpipe.StartupCost --agent $(AGENT_JAR) \
	  --jdk $(JDK17_HOME) --jdk $(JDK25_HOME) --runs $(STARTUP_RUNS)
	$(BUILD_JDK)/bin/java -cp $(NETPIPE_CP) io.fastrmi.netpipe.StartupCost --agent $(AGENT_JAR) \
	  --config scripts/fastrmi-example.conf --jdk $(JDK17_HOME) --jdk $(JDK25_HOME) --runs $(STARTUP_RUNS)
	$(BUILD_JDK)/bin/java -cp $(NETPIPE_CP) io.fastrmi.netpipe.RmiStartCost --agent $(AGENT_JAR) \
	  --jdk $(JDK17_HOME) --jdk $(JDK25_HOME) --runs $(RMI_START_RUNS)

# The native-address fuzz target at full size: $(FUZZ_COUNT) fuzzed offers to an agent server and as
# many fuzzed answers to an agent client (make test runs 5,000 of each). FUZZ_SEED repeats a run.
fuzz: build
	$(MVN) $(MVN_PROPS) -o verify -pl agent -Dtest=NoUnit -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dit.test=AddressFuzzIT -Dit.fork.timeout=0 -Dfastrmi.fuzz.count=$(FUZZ_COUNT) -Dfastrmi.fuzz.lanes=$(FUZZ_LANES) $(if $(FUZZ_SEED),-Dfastrmi.fuzz.seed=$(FUZZ_SEED))

# A long-lived ofi:shm server with client churn at full size: $(CHURN_CLIENTS) client JVMs over its life, at
# libfabric's own limit of peers per context (make test runs 20 clients against contexts of 18).
churn: build
	$(MVN) $(MVN_PROPS) -o verify -pl agent -Dtest=NoUnit -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dit.test=ShmChurnIT -Dit.fork.timeout=0 -Dfastrmi.churn.clients=$(CHURN_CLIENTS) -Dfastrmi.churn.peers=0

# OpenJDK's RMI regression tests (test/jdk/java/rmi of Debian's openjdk-17 source) with jtreg on JDK 25
# (FFM) and on 17 (JNI), each without the agent and with every test JVM under it; fails if a test
# passes only without it, on either JDK (both run whatever the first gives).
jdk-rmi-tests: build
	status=0; \
	JDK_RMI_SOURCES=target/jdk-rmi-tests/src scripts/jdk-rmi-tests.sh $(JDK25_HOME) $(AGENT_JAR) target/jdk-rmi-tests/25 \
	  || status=1; \
	JDK_RMI_SOURCES=target/jdk-rmi-tests/src scripts/jdk-rmi-tests.sh $(JDK17_HOME) $(AGENT_JAR) target/jdk-rmi-tests/17 \
	  || status=1; \
	exit $$status

apps: build
	$(BUILD_JDK)/bin/java -cp netpipe-java/target/netpipe-java.jar io.fastrmi.netpipe.apps.AppRunner --agent $(AGENT_JAR) \
	  --jdk $(BUILD_JDK) --size measure --rounds $(APPS_ROUNDS) --workers 1,2,4,8 --hosts local --transports ucx:shm
	$(BUILD_JDK)/bin/java -cp netpipe-java/target/netpipe-java.jar io.fastrmi.netpipe.apps.AppRunner --agent $(AGENT_JAR) \
	  --jdk $(BUILD_JDK) --size measure --rounds $(APPS_ROUNDS) --workers 1,2,4,8 --hosts local --transports ucx:shm --jfr off
	$(BUILD_JDK)/bin/java -cp netpipe-java/target/netpipe-java.jar io.fastrmi.netpipe.apps.AppRunner --agent $(AGENT_JAR) \
	  --jdk $(BUILD_JDK) --size measure --rounds $(APPS_ROUNDS) --workers 2,4 --hosts netns --transports tcp

bench: build
	$(BUILD_JDK)/bin/java -cp $(NETPIPE_CP) io.fastrmi.netpipe.PingPong --library native/build/libfastrmi.so \
	  --agent $(AGENT_JAR) --jdk $(BUILD_JDK) --iterations 20000 --trials 3
	$(BUILD_JDK)/bin/java -cp $(NETPIPE_CP) io.fastrmi.netpipe.bench.Bench --agent $(AGENT_JAR) --jdk $(BUILD_JDK) \
	  --rounds $(BENCH_ROUNDS) --calls $(BENCH_CALLS) --load $(BENCH_LOAD) --transports '$(BENCH_TRANSPORTS)'
	$(BUILD_JDK)/bin/java -cp $(NETPIPE_CP) io.fastrmi.netpipe.bench.Bench --agent $(AGENT_JAR) --jdk $(BUILD_JDK) \
	  --rounds $(BENCH_ROUNDS) --calls $(BENCH_FIRST_CALLS) --warmup 0 --load $(BENCH_LOAD) --transports '$(BENCH_TRANSPORTS)'
	$(BUILD_JDK)/bin/java -cp $(NETPIPE_CP) io.fastrmi.netpipe.bench.Bench --agent $(AGENT_JAR) --jdk $(JDK17_HOME) \
	  --rounds $(BENCH_ROUNDS) --calls $(BENCH_CALLS) --load $(BENCH_LOAD) --transports '$(BENCH_JDK17_TRANSPORTS)'
	$(BUILD_JDK)/bin/java -cp $(NETPIPE_CP) io.fastrmi.netpipe.bench.Bench --agent $(AGENT_JAR) --jdk $(BUILD_JDK) \
	  --rounds $(BENCH_ROUNDS) --calls $(BENCH_CALLS) --load $(BENCH_LOAD) --hosts netns --transports '$(BENCH_NETNS_TRANSPORTS)'
	$(BUILD_JDK)/bin/java -cp $(NETPIPE_CP) io.fastrmi.netpipe.bench.mesh.Mesh --agent $(AGENT_JAR) --jdk $(BUILD_JDK) \
	  --hosts 4 --rounds $(BENCH_ROUNDS) --transports '$(BENCH_NETNS_TRANSPORTS)'

clean:
	$(MAKE) -C native clean
	@if [[ -n "$(BUILD_JDK)" ]]; then $(MVN) -q clean; fi
