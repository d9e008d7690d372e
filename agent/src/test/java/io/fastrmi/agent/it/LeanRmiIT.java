package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.LeanEchoMain;
import io.fastrmi.optrmi.lean.Corpus;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lean wire format between two agent JVMs, as a user's RMI job meets it: every shape of the
 * corpus echoed back arrives as the JDK's serialization gives it, on JDK 25 and 17; remote objects
 * passed as arguments are called back; a class that differs between the two JVMs fails with an
 * InvalidClassException naming it and what differs; a JEP 290 filter (jdk.serialFilter, and the
 * registry's own) rejects on the lean path what it rejects on stock RMI; and the next call still works.
 */
class LeanRmiIT {

    private static final Pattern READY = Pattern.compile("^READY port=(\\d+)$");

    record Run(List<String> client, List<RecordedEvent> serverCalls, List<RecordedEvent> clientCalls) {
        String line(String prefix) {
            return client.stream().filter(l -> l.startsWith(prefix + " ")).findFirst()
                    .map(l -> l.substring(prefix.length() + 1)).orElseThrow(() -> new AssertionError("no " + prefix + " in " + client));
        }
    }

    private static Run run(Jdk jdk, String name, boolean agent, UnaryOperator<JvmLauncher> serverArgs,
            UnaryOperator<JvmLauncher> clientArgs) throws Exception {
        Path dir = ItSupport.directory("lean-" + name);
        Path serverJfr = dir.resolve("server.jfr");
        Path clientJfr = dir.resolve("client.jfr");
        try (ManagedJvm server = serverArgs.apply(launcher(jdk, "server", agent).jfr(serverJfr)).args("server").start()) {
            String port = server.awaitLine(READY, Duration.ofSeconds(60)).group(1);
            List<String> output;
            try (ManagedJvm client = clientArgs.apply(launcher(jdk, "client", agent).jfr(clientJfr)).args("client", port).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(3)), () -> client.failure("client exit code").getMessage());
                output = client.output();
            }
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(60)));
            return new Run(output, ItSupport.calls(serverJfr), ItSupport.calls(clientJfr));
        }
    }

    private static JvmLauncher launcher(Jdk jdk, String name, boolean agent) {
        JvmLauncher launcher = JvmLauncher.on(jdk).name(name).classpathOf(LeanEchoMain.class).classpathOf(Corpus.class)
                .classpathOf(SampleServer.class).main(LeanEchoMain.class);
        if (agent) {
            launcher.agent(ItSupport.agentJar()).jvmArgs("--enable-native-access=ALL-UNNAMED");
        }
        return launcher;
    }

    /**
     * Also: the client's calls throw no exception on the way. A stub passed as an argument (the
     * callback's) carries a remote handler that is not exported, which RMI writes as it is; asking
     * for its stub as {@code RemoteObject.toStub} does threw and filled a stack trace per call.
     */
    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {25, 17})
    void everyShapeOfTheCorpusCrossesAsOnTheJdk(int feature) throws Exception {
        Path exceptions = ItSupport.directory("lean-corpus-" + feature).resolve("client-exceptions.log").toAbsolutePath();
        Files.deleteIfExists(exceptions);
        assertEveryShapeCrossedLean(run(Jdk.of(feature), "corpus-" + feature, true, s -> s,
                c -> c.jvmArgs("-Xlog:exceptions=info:file=" + exceptions)));
        List<String> notExported = Files.readAllLines(exceptions).stream().filter(l -> l.contains("NoSuchObjectException")).toList();
        assertEquals(List.of(), notExported, "exceptions the client's calls threw");
    }

    /**
     * On JDK 17 over the agent's {@code tcp}, whose reads poll and sleep nudgeably through the
     * library bound by JNI ({@code TcpWaits}), as on 22+ through FFM.
     */
    @Test
    void everyShapeCrossesOverTcpOnJdk17() throws Exception {
        Path config = ItSupport.transportConfig(ItSupport.directory("lean-tcp-17"), "tcp");
        UnaryOperator<JvmLauncher> onTcp = jvm -> jvm.agent(ItSupport.agentJar(), "config=" + config);
        assertEveryShapeCrossedLean(run(Jdk.of(17), "tcp-17", true, onTcp, onTcp));
    }

    /**
     * Over shared memory, large primitive arrays (the corpus's 64 KiB and 1 MiB ones) are read from
     * the native stream straight into the new array (RMI's buffer read first), and arrive whole,
     * through either binding of the library (each moves arrays its own way).
     */
    @ParameterizedTest(name = "{0} through {1}")
    @CsvSource({"ucx:shm, jni", "ucx:shm, ffm", "ofi:shm, jni", "ofi:shm, ffm"})
    void largeArraysAreReadStraightIntoTheArrayOnSharedMemory(String transport, String binding) throws Exception {
        Path dir = ItSupport.directory("lean-bulk-" + transport + "-" + binding);
        Path config = ItSupport.transportConfig(dir, transport);
        Files.writeString(config, "binding = " + binding + "\n" + Files.readString(config));
        UnaryOperator<JvmLauncher> onTransport = jvm -> jvm.agent(ItSupport.agentJar(), "config=" + config);
        Run run = run(Jdk.of(25), "bulk-" + transport + "-" + binding, true, onTransport, onTransport);
        assertEveryShapeCrossedLean(run);
        assertTrue(run.line("BINDING").startsWith(binding + " ("), "the client's binding: " + run.line("BINDING"));
        // The client reads back 1 MiB of doubles, in 8 frames: all of it but what RMI's 8 KiB
        // buffer took with each frame's header.
        long straight = Long.parseLong(run.line("STRAIGHT"));
        assertTrue(straight >= (1 << 20) - 9 * (8 << 10), "bytes read straight into arrays: " + straight);
    }

    /**
     * JVMs that serialize before they use RMI: the agent leaves java.io's classes as they loaded (no
     * Byte Buddy for a JVM that only serializes) and weaves them when RMI loads its first class.
     */
    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {25, 17})
    void serializationBeforeRmiIsWovenWhenRmiStarts(int feature) throws Exception {
        String first = "-Dlean.it.serializeFirst=true";
        assertEveryShapeCrossedLean(run(Jdk.of(feature), "serialize-first-" + feature, true, s -> s.jvmArgs(first),
                c -> c.jvmArgs(first)));
    }

    private static void assertEveryShapeCrossedLean(Run run) {
        List<String> shapes = run.client().stream().filter(l -> l.startsWith("SHAPE ")).collect(Collectors.toList());
        assertEquals(Corpus.shapes().size(), shapes.size(), run.client()::toString);
        assertTrue(shapes.stream().allMatch(l -> l.endsWith(": same")), () -> String.join("\n", shapes));
        assertEquals("5", run.line("CALLBACK"));
        assertEquals("returned Versioned(7)", run.line("VERSIONED"));
        assertEquals("returned after", run.line("AFTER"));
        assertEquals("direct", run.line("FIELDS"), "the agent exports the JDK's Unsafe to the lean streams");
        Map<String, Integer> echoes = new TreeMap<>();
        for (RecordedEvent event : run.serverCalls()) {
            echoes.merge(event.getString("method") + " lean=" + event.getBoolean("lean"), 1, Integer::sum);
        }
        assertFalse(echoes.keySet().stream().anyMatch(k -> k.endsWith("lean=false")), echoes::toString);
        assertTrue(echoes.getOrDefault("echo lean=true", 0) >= Corpus.shapes().size(), echoes::toString);
    }

    @Test
    void aClassThatDiffersIsAClearInvalidClassExceptionAndTheNextCallWorks() throws Exception {
        Run lean = run(Jdk.of(25), "versions", true, s -> s.jvmArgs("-Dlean.it.uid=2"), c -> c);
        String versioned = lean.line("VERSIONED");
        assertTrue(versioned.contains("java.io.InvalidClassException: " + LeanEchoMain.Versioned.class.getName()
                + "; serialVersionUID differs: sent 1, here 2"), versioned);
        assertTrue(versioned.contains("java.rmi.UnmarshalException"), versioned);
        assertEquals("returned after", lean.line("AFTER"));
        Run stock = run(Jdk.of(25), "versions-stock", false, s -> s.jvmArgs("-Dlean.it.uid=2"), c -> c);
        assertTrue(stock.line("VERSIONED").contains("java.io.InvalidClassException"), stock.line("VERSIONED"));
        assertEquals("returned after", stock.line("AFTER"));
    }

    @Test
    void aSerialFilterRejectsOnTheLeanPathWhatItRejectsOnStockRmi() throws Exception {
        String filter = "-Djdk.serialFilter=!" + Corpus.Point.class.getName();
        Run lean = run(Jdk.of(25), "filter", true, s -> s.jvmArgs(filter), c -> c);
        Run stock = run(Jdk.of(25), "filter-stock", false, s -> s.jvmArgs(filter), c -> c);
        for (Run run : List.of(lean, stock)) {
            assertTrue(run.line("POINT").contains("java.io.InvalidClassException: filter status: REJECTED"), run.line("POINT"));
            assertEquals("returned Versioned(7)", run.line("VERSIONED"));
            assertEquals("returned after", run.line("AFTER"));
        }
        assertEquals(stock.line("POINT"), lean.line("POINT"));
    }

    /**
     * The registry's depth limit (its built-in maxdepth=20) and a maxrefs limit, crossed one step at a
     * time by binds that carry a chain of links or an array of numbers: each bind ends on the lean
     * path as on stock RMI, and stock's own outcomes show both sides of each limit.
     */
    @Test
    void theRegistrysDepthAndReferenceLimitsHoldOnTheLeanPath() throws Exception {
        String filter = "-Dsun.rmi.registry.registryFilter=" + LeanEchoMain.class.getName() + "$*;maxrefs=120";
        UnaryOperator<JvmLauncher> limits = c -> c.jvmArgs("-Dlean.it.limits=true");
        Run lean = run(Jdk.of(25), "limits", true, s -> s.jvmArgs(filter), limits);
        Run stock = run(Jdk.of(25), "limits-stock", false, s -> s.jvmArgs(filter), limits);
        List<String> stockLines = stock.client().stream().filter(l -> l.startsWith("DEPTH ") || l.startsWith("REFS ")).toList();
        List<String> leanLines = lean.client().stream().filter(l -> l.startsWith("DEPTH ") || l.startsWith("REFS ")).toList();
        System.out.println("limits, stock: " + stockLines + "\nlimits, lean: " + leanLines);
        assertEquals(String.join("\n", stockLines), String.join("\n", leanLines));
        for (String limit : List.of("DEPTH ", "REFS ")) {
            assertTrue(stockLines.stream().anyMatch(l -> l.startsWith(limit) && l.endsWith("returned bound")), limit + stockLines);
            assertTrue(stockLines.stream().anyMatch(l -> l.startsWith(limit) && l.contains("filter status: REJECTED")), limit + stockLines);
        }
        assertFalse(lean.serverCalls().isEmpty() || lean.serverCalls().stream().anyMatch(e -> !e.getBoolean("lean")),
                "every registry call lean: " + lean.serverCalls());
    }

    @Test
    void theRegistrysFilterRejectsOnTheLeanPathWhatItRejectsOnStockRmi() throws Exception {
        Run lean = run(Jdk.of(25), "registry", true, s -> s, c -> c);
        Run stock = run(Jdk.of(25), "registry-stock", false, s -> s, c -> c);
        for (Run run : List.of(lean, stock)) {
            assertTrue(run.line("REGISTRY").contains("filter status: REJECTED"), run.line("REGISTRY"));
            assertEquals("returned after", run.line("AFTER"));
        }
        assertEquals(stock.line("REGISTRY"), lean.line("REGISTRY"));
    }
}
