package io.fastrmi.agent.it;

import io.fastrmi.fastsockets.rmi.DgcConnections;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** What the integration tests share: the built agent jar, a directory per test, JFR reading. */
final class ItSupport {

    private ItSupport() {
    }

    static Path agentJar() {
        String jar = System.getProperty("fastrmi.agent.jar");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("fastrmi.agent.jar is not set to a built agent jar: " + jar
                    + " (run the tests through Maven's integration-test phase)");
        }
        return Path.of(jar);
    }

    /** A fresh directory under target/it for one test's files. */
    static Path directory(String name) throws IOException {
        Path base = Path.of(System.getProperty("fastrmi.test.dir", "target/it"));
        Files.createDirectories(base);
        return Files.createTempDirectory(base, name.replaceAll("[^A-Za-z0-9_.-]", "_") + "-");
    }

    /**
     * The transport a fast connection between two JVMs of one JDK on this host gets with the
     * built-in config: the first native one (UCX shared memory), through FFM from JDK 22 and JNI
     * before.
     */
    static final String FAST_TRANSPORT = "ucx:shm";

    /**
     * A config file in {@code dir} that makes this host inside with {@code transport} first, then tcp,
     * and every optimization (the lean format), as the built-in config has them.
     */
    static Path transportConfig(Path dir, String transport) throws IOException {
        Path config = dir.resolve("fastrmi.conf");
        Files.write(config, List.of("[host local]", "optimize = on", "optimizations = all", "transports = " + transport + ", tcp"));
        return config;
    }

    /** A client JVM on {@code jdk} under the agent with {@code config}: {@code main} (beside the samples) with {@code args}, started. */
    static ManagedJvm agentClient(Jdk jdk, Path config, Class<?> main, String... args) {
        return agentJvm("client", jdk, config, main, args);
    }

    static ManagedJvm agentJvm(String name, Jdk jdk, Path config, Class<?> main, String... args) {
        return underAgent(JvmLauncher.on(jdk).name(name), config).classpathOf(SampleServer.class)
                .classpathOf(main).main(main).args(args).start();
    }

    /** {@code jvm} under the agent with {@code config}, the native transports allowed. */
    static JvmLauncher underAgent(JvmLauncher jvm, Path config) {
        return jvm.agent(agentJar(), "config=" + config).jvmArgs("--enable-native-access=ALL-UNNAMED");
    }

    /** The sample server on {@code jdk} under the agent with {@code config}, started (not yet READY). */
    static ManagedJvm agentSampleServer(Jdk jdk, Path config) {
        return agentSampleServer(jdk, config, Duration.ofMinutes(5));
    }

    /** The same, killed after {@code limit} rather than the usual 5 minutes. */
    static ManagedJvm agentSampleServer(Jdk jdk, Path config, Duration limit) {
        return underAgent(JvmLauncher.on(jdk).name("server"), config).classpathOf(SampleServer.class).main(SampleServer.class)
                .timeLimit(limit).start();
    }

    /**
     * The {@code fastrmi.Handshake} events in {@code recording} but DGC's single-call connections,
     * plain by design ({@link DgcConnections}): the connections that were negotiated, or not, as
     * the application's.
     */
    static List<RecordedEvent> negotiations(Path recording) throws IOException {
        List<RecordedEvent> negotiations = events(recording, "fastrmi.Handshake");
        negotiations.removeIf(ItSupport::isDgcSingleCall);
        return negotiations;
    }

    static boolean isDgcSingleCall(RecordedEvent handshake) {
        return DgcConnections.recordedAsSingleCall(handshake.getString("result"), handshake.getString("reason"));
    }

    /** The {@code fastrmi.RmiCall} events in {@code recording} but DGC's calls on its single-call connections. */
    static List<RecordedEvent> calls(Path recording) throws IOException {
        List<RecordedEvent> calls = events(recording, "fastrmi.RmiCall");
        calls.removeIf(call -> !call.getBoolean("negotiated")
                && ("dirty".equals(call.getString("method")) || "clean".equals(call.getString("method"))));
        return calls;
    }

    static List<RecordedEvent> events(Path recording, String eventName) throws IOException {
        List<RecordedEvent> events = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
            if (event.getEventType().getName().equals(eventName)) {
                events.add(event);
            }
        }
        return events;
    }
}
