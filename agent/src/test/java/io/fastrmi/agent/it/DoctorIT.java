package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * {@code java -jar fastrmi-agent.jar doctor}, run as a user runs it (the built jar, JDK 25, no main
 * class), against sample servers with and without the agent and on the other JDK.
 */
class DoctorIT {

    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    /** A finished doctor (or other command line) run: its exit code and all it printed. */
    private record Run(int exitCode, List<String> lines) {
        String text() {
            return String.join("\n", lines) + "\n";
        }

        /** The value printed after a label ("  result             fast"), or null. */
        String value(String label) {
            for (String line : lines) {
                if (line.startsWith("  " + label + " ")) {
                    return line.substring(label.length() + 2).trim();
                }
            }
            return null;
        }
    }

    private static Run jar(String... args) {
        return jar(25, args);
    }

    private static Run jar(int feature, String... args) {
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(feature)).name("doctor")
                .jvmArgs("-jar", ItSupport.agentJar().toString()).args(args).timeLimit(Duration.ofSeconds(60)).start()) {
            int code = jvm.awaitExit(EXIT_TIMEOUT);
            return new Run(code, jvm.output());
        }
    }

    private static ManagedJvm sampleServer(int feature, boolean withAgent, String name, String... jvmArgs) {
        ManagedJvm server = JvmLauncher.on(Jdk.of(feature)).name(name).agent(withAgent ? ItSupport.agentJar() : null)
                .jvmArgs(jvmArgs).classpathOf(SampleServer.class).main(SampleServer.class)
                .timeLimit(Duration.ofSeconds(90)).start();
        server.awaitLine(SampleServer.READY, READY_TIMEOUT);
        return server;
    }

    private static String port(ManagedJvm server) {
        return server.awaitLine(SampleServer.READY, READY_TIMEOUT).group(1);
    }

    private static void quit(ManagedJvm server) {
        server.send("quit");
        assertEquals(0, server.awaitExit(EXIT_TIMEOUT), () -> server.failure("exit code").getMessage());
    }

    @Test
    void withoutArgumentsItPrintsTheJdkTheVersionAndTheBuiltInConfig() throws IOException {
        String version;
        try (JarFile jar = new JarFile(ItSupport.agentJar().toFile())) {
            version = jar.getManifest().getMainAttributes().getValue("Implementation-Version");
        }
        Jdk jdk = Jdk.of(25);
        Run run = jar("doctor");
        String text = run.text();
        assertEquals(0, run.exitCode(), text);
        assertEquals("FastRMI doctor", run.lines().get(0), text);
        assertEquals(version, run.value("FastRMI"), text);
        assertTrue(run.value("JDK").startsWith("JDK " + jdk.version()), text);
        assertTrue(run.value("JVM fingerprint").startsWith("Java 25, "), text);
        assertTrue(text.contains("config: none, built-in defaults (this host inside, every other host outside)\n"
                + "overrides: none\n"
                + "as parsed:\n"
                + "  scope = rmi\n"
                + "  plain-ttl = 5m\n"
                + "  spin = 20us\n"
                + "  wait = adaptive\n"
                + "  warm-up = on\n"
                + "  offer-ports = 61000-61999\n"
                + "\n"
                + "  [defaults]\n"
                + "  optimize = off\n"
                + "  optimizations = none\n"
                + "  transports = tcp\n"
                + "  jvm-ports = none\n"
                + "\n"
                + "  [host local]    # built in\n"
                + "  optimize = on\n"
                + "  optimizations = all\n"
                + "  transports = ucx:shm, tcp\n"
                + "  jvm-ports = none\n"), text);
        assertEquals("available (pure Java)", run.value("tcp"), text);
        assertTrue(run.value("native library").matches(".*\\.so \\(libfastrmi 0\\.1\\.0, libfabric 1\\.\\d+, UCX 1\\.[\\d.]+\\)"),
                text);
        assertEquals("opens", run.value("ucx:shm"), text);
        assertEquals("poll before they block, as native streams wait (wait = adaptive, spin = 20 us);"
                + " a callback's two sides nudge each other to spin",
                run.value("tcp reads"), text);
        assertNull(run.value("ofi:shm"), "only the config's transports: " + text);
        assertEquals("possible on this JDK (the config says rmi)", run.value("scope = jvm"), text);
        assertFalse(text.contains("negotiation"), text);
    }

    /**
     * Each native transport the config names is opened and closed through the agent's own code, and
     * reported as the agent would get it; --json says the same as one JSON object.
     */
    @Test
    void theConfigsTransportsAreOpenedAsTheAgentOpensThemAndJsonSaysTheSame() throws IOException {
        Path config = Files.writeString(ItSupport.directory("doctor-transports").resolve("fastrmi.conf"),
                "[host local]\noptimize = on\ntransports = ofi:shm, ucx:shm, ofi:tcp;ofi_rxm, ucx:tcp, ofi:nosuch, tcp\n");
        Run run = jar("doctor", "--config", config.toString());
        String text = run.text();
        assertEquals(0, run.exitCode(), text);
        assertEquals("opens (at most 256 peers per context; a full one is replaced)", run.value("ofi:shm"), text);
        assertEquals("opens", run.value("ucx:shm"), text);
        assertTrue(run.value("ofi:tcp;ofi_rxm").startsWith("opens; slower than tcp across hosts"), text);
        assertTrue(run.value("ucx:tcp").startsWith("opens; slower than tcp across hosts"), text);
        assertTrue(run.value("ofi:nosuch").startsWith("not usable: cannot open native transport ofi:nosuch:"
                + " fastrmi_ctx_open failed: FASTRMI_ERR_PROVIDER (-6): fi_getinfo(provider \"nosuch\""), text);

        Run json = jar("doctor", "--json", "--config", config.toString());
        assertEquals(0, json.exitCode(), json.text());
        JsonNode report = new ObjectMapper().readTree(json.text());
        assertEquals(0, report.get("exit").asInt(), json.text());
        JsonNode transports = report.get("transports");
        for (String transport : List.of("tcp", "ofi:shm", "ucx:shm", "ofi:tcp;ofi_rxm", "ucx:tcp", "ofi:nosuch")) {
            assertEquals(run.value(transport), transports.get(transport).asText(), json.text());
        }
        assertEquals("Java 25", report.get("doctor").get("JVM fingerprint").asText().substring(0, 7), json.text());
        assertEquals(config + " (from --config)", report.get("config").get("source").asText(), json.text());
        assertTrue(report.get("config").get("as parsed").toString().contains("transports = ofi:shm, ucx:shm"), json.text());
    }

    /** The jar's command line itself: usage without a command, --version, a bad option (picocli, relocated). */
    @Test
    void onJdk17TheNativeLibraryIsBoundThroughJni() {
        Run run = jar(17, "doctor");
        assertEquals(0, run.exitCode(), run.text());
        assertEquals("available (pure Java)", run.value("tcp"), run.text());
        assertTrue(run.value("native library").contains("(libfastrmi "), run.text());
        assertEquals("jni (JDK 17 has no final FFM API)", run.value("binding"), run.text());
        assertEquals("opens", run.value("ucx:shm"), run.text());
        assertTrue(run.value("tcp reads").startsWith("poll before they block, as native streams wait"), run.text());
        assertEquals("needs JDK 22 or newer: here only RMI's sockets can be FastRMI's (the config says rmi)",
                run.value("scope = jvm"), run.text());
    }

    @Test
    void theCommandLine() {
        Run usage = jar();
        assertEquals(0, usage.exitCode(), usage.text());
        assertTrue(usage.lines().get(0).startsWith("Usage: java -jar fastrmi-agent.jar [-hV] [COMMAND]"), usage.text());
        assertTrue(usage.text().contains("  doctor  Prints what FastRMI would do in this JVM, and why."), usage.text());

        Run version = jar("--version");
        assertEquals(0, version.exitCode(), version.text());
        assertTrue(version.lines().get(0).startsWith("FastRMI "), version.text());

        Run bad = jar("doctor", "--bogus");
        assertEquals(2, bad.exitCode(), bad.text());
        assertEquals(List.of("Unknown option: '--bogus'",
                "Try 'java -jar fastrmi-agent.jar doctor --help' for more information."), bad.lines(), bad.text());
    }

    @Test
    void aConfigErrorIsReportedWithFileAndLineAndExitCode1() throws IOException {
        Path config = Files.writeString(ItSupport.directory("doctor-bad-config").resolve("fastrmi.conf"),
                "# cluster\nscope = rmi\n\n[defaults]\noptimise = on\n");
        Run run = jar("doctor", "--config", config.toString(), "localhost:1099");
        String text = run.text();
        assertEquals(1, run.exitCode(), text);
        assertTrue(text.contains("config: " + config + " (from --config)\n"), text);
        assertTrue(text.contains("error: " + config + ":5: unknown key 'optimise' (expected one of: "), text);
        assertFalse(text.contains("negotiation"), text);
    }

    /**
     * A server with the agent on the same JDK: fast. The server also logs its class loading: premain
     * never loads the command line or picocli.
     */
    @Test
    void aServerWithTheAgentOnTheSameJdkIsFast() throws IOException {
        Path classLog = ItSupport.directory("doctor-fast").resolve("classes.log");
        ManagedJvm server = sampleServer(25, true, "server-25-agent", "-Xlog:class+load=info:file=" + classLog);
        try (server) {
            Run run = jar("doctor", "localhost:" + port(server));
            String text = run.text();
            assertEquals(0, run.exitCode(), text);
            assertTrue(text.contains("effective policy for localhost:\n"), text);
            assertEquals("127.0.0.1", run.value("address"), text);
            assertEquals("[host local] (built in), by pattern local", run.value("matched"), text);
            assertEquals("yes: FastRMI offers an upgrade to this host", run.value("inside"), text);
            assertEquals("fast", run.value("result"), text);
            assertEquals(ItSupport.FAST_TRANSPORT, run.value("transport"), text);
            assertEquals(run.value("this JVM"), run.value("server JVM"), text);
            quit(server);
        }
        String classes = Files.readString(classLog);
        assertTrue(classes.contains("io.fastrmi.agent.FastRmiAgent "), "the class log has the agent's classes");
        assertFalse(classes.contains("picocli"), "premain loaded picocli");
        assertFalse(classes.contains("io.fastrmi.agent.doctor."), "premain loaded the command line");
    }

    @Test
    void aServerWithoutTheAgentIsPlainByProtocolNack() {
        try (ManagedJvm server = sampleServer(25, false, "server-25-plain")) {
            Run run = jar("doctor", "127.0.0.1:" + port(server));
            String text = run.text();
            assertEquals(0, run.exitCode(), text);
            assertEquals("plain", run.value("result"), text);
            assertEquals("no FastRMI agent on the server (ProtocolNack)", run.value("reason"), text);
            assertNull(run.value("server JVM"), text);
            quit(server);
        }
    }

    @Test
    void aServerWithTheAgentOnTheOtherJdkIsPlainByFingerprint() {
        try (ManagedJvm server = sampleServer(17, true, "server-17-agent")) {
            Run run = jar("doctor", "127.0.0.1:" + port(server));
            String text = run.text();
            assertEquals(0, run.exitCode(), text);
            assertEquals("plain", run.value("result"), text);
            assertEquals("the server answered plain: JVM fingerprint mismatch: server Java 17 vs client 25",
                    run.value("reason"), text);
            assertTrue(run.value("server JVM").startsWith("Java 17, "), text);
            assertTrue(run.value("this JVM").startsWith("Java 25, "), text);
            quit(server);
        }
    }

    @Test
    void aClosedPortIsAClearErrorAndExitCode1() throws IOException {
        int port;
        try (ServerSocket closed = new ServerSocket(0)) {
            port = closed.getLocalPort();
        }
        Run run = jar("doctor", "127.0.0.1:" + port);
        String text = run.text();
        assertEquals(1, run.exitCode(), text);
        assertTrue(text.contains("error: cannot connect to 127.0.0.1:" + port + ": Connection refused\n"
                + "  is the server running, and listening on that port?\n"), text);
    }
}
