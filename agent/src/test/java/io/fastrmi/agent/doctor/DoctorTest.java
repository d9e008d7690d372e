package io.fastrmi.agent.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.ConfigLoading;
import io.fastrmi.config.HostPolicy;
import io.fastrmi.fastsockets.handshake.Negotiation;
import io.fastrmi.optrmi.JvmFingerprint;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The doctor's report and exit codes, in this JVM (the real JVMs are DoctorIT's). */
class DoctorTest {

    /** Loads the config as the agent does (its own ConfigLoading). */
    static final AgentFacts AGENT = new AgentFacts("9.9.9", "JDK test", ConfigLoading::load);

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final Properties properties = new Properties();
    private final Map<String, String> environment = new HashMap<>();

    private int doctor(Optional<Path> config, String endpoint) {
        return new Doctor(AGENT, properties, environment, new PrintWriter(out), new PrintWriter(err))
                .run(config, Optional.ofNullable(endpoint).map(Endpoint::parse), 5000);
    }

    @Test
    void withoutArgumentsTheVersionsTheBuiltInConfigAndTheTransports() {
        assertEquals(0, doctor(Optional.empty(), null), err::toString);
        String text = out.toString();
        assertTrue(text.startsWith("FastRMI doctor\n  FastRMI            9.9.9\n  JDK                JDK test\n"), text);
        assertTrue(text.contains("config: none, built-in defaults (this host inside, every other host outside)\n"
                + "overrides: none\n"), text);
        assertTrue(text.contains("  [host local]    # built in\n  optimize = on\n"), text);
        assertTrue(text.contains("  tcp                available (pure Java)\n"), text);
        assertTrue(text.contains("  native library     "), text);
        assertEquals("", err.toString());
    }

    @Test
    void theConfigComesFromThePropertyThenTheEnvironmentAndOverridesAreListed() throws Exception {
        Path property = Files.writeString(dir.resolve("property.conf"), "[defaults]\noptimize = off\n");
        Path variable = Files.writeString(dir.resolve("variable.conf"), "[defaults]\noptimize = on\n");
        environment.put("FASTRMI_CONFIG", variable.toString());
        environment.put("FASTRMI_PLAIN_TTL", "10s");
        properties.setProperty("fastrmi.config", property.toString());
        properties.setProperty("fastrmi.transports", "tcp");
        assertEquals(0, doctor(Optional.empty(), null), err::toString);
        String text = out.toString();
        assertTrue(text.contains("config: " + property + " (from -Dfastrmi.config)\n"
                + "overrides: FASTRMI_PLAIN_TTL=10s, -Dfastrmi.transports=tcp\n"
                + "as parsed, with the overrides:\n  scope = rmi\n  plain-ttl = 10s\n"), text);

        properties.remove("fastrmi.config");
        out.getBuffer().setLength(0);
        assertEquals(0, doctor(Optional.empty(), null), err::toString);
        assertTrue(out.toString().contains("config: " + variable + " (from FASTRMI_CONFIG)\n"), out.toString());

        Path option = Files.writeString(dir.resolve("option.conf"), "");
        out.getBuffer().setLength(0);
        assertEquals(0, doctor(Optional.of(option), null), err::toString);
        assertTrue(out.toString().contains("config: " + option + " (from --config)\n"), out.toString());
    }

    @Test
    void aTransportSlowerThanTcpIsNamedWithWhy() throws Exception {
        Path config = Files.writeString(dir.resolve("cluster.conf"),
                "[host 10.0.0.0/8]\noptimize = on\ntransports = ucx:shm, ucx:tcp, tcp\n");
        assertEquals(0, doctor(Optional.of(config), null), err::toString);
        String text = out.toString();
        assertTrue(row(text, "ucx:tcp").contains("; slower than tcp across hosts"), text);
        assertTrue(!row(text, "ucx:shm").contains("slower"), text);
    }

    @Test
    void aConfigErrorIsReportedWithFileAndLine() throws Exception {
        Path config = Files.writeString(dir.resolve("bad.conf"), "scope = rmi\n[defaults]\noptimise = on\n");
        assertEquals(1, doctor(Optional.of(config), "localhost:1099"));
        assertTrue(err.toString().startsWith("error: " + config + ":3: unknown key 'optimise'"), err::toString);
        assertTrue(!out.toString().contains("negotiation"), out::toString);
    }

    @Test
    void theEffectivePolicyNamesTheSectionThatMatched() throws Exception {
        Path config = Files.writeString(dir.resolve("cluster.conf"),
                "[defaults]\noptimize = off\n\n[host 10.0.0.0/8 127.0.0.0/8]\noptimize = on\n");
        try (FakeServer server = new FakeServer((offer, o) -> o.write(0x4f))) {
            assertEquals(0, doctor(Optional.of(config), "127.0.0.1:" + server.port()), err::toString);
        }
        String text = out.toString();
        assertTrue(text.contains("effective policy for 127.0.0.1:\n"
                + "  name               127.0.0.1\n"
                + "  address            127.0.0.1\n"
                + "  matched            [host 10.0.0.0/8 127.0.0.0/8] (line 4), by pattern 127.0.0.0/8\n"
                + "  inside             yes: FastRMI offers an upgrade to this host\n"
                + "  optimizations      none (offered by this version: none)\n"
                + "  transports         tcp (offered by this version: tcp)\n"), text);
    }

    @Test
    void theLeanFormatIsOfferedAsAnAgentJvmOffersIt() throws Exception {
        Path config = Files.writeString(dir.resolve("lean.conf"),
                "[host 127.0.0.0/8]\noptimize = on\noptimizations = all\n");
        try (FakeServer server = new FakeServer((offer, o) -> o.write(0x4f))) {
            assertEquals(0, doctor(Optional.of(config), "127.0.0.1:" + server.port()), err::toString);
        }
        assertTrue(out.toString().contains("  optimizations      all (offered by this version: all)\n"), out::toString);
    }

    @Test
    void anOutsideHostIsOnlyConnectedTo() throws Exception {
        Path config = Files.writeString(dir.resolve("outside.conf"), "[defaults]\noptimize = off\n");
        try (FakeServer server = new FakeServer((offer, o) -> { })) {
            assertEquals(0, doctor(Optional.of(config), "127.0.0.1:" + server.port()), err::toString);
        }
        String text = out.toString();
        assertTrue(text.contains("  matched            [defaults] (no [host] section names it)\n"
                + "  inside             no, outside: no FastRMI offer, plain RMI\n"), text);
        assertTrue(text.contains("  result             plain\n  reason             the server's host is outside per"
                + " this config"), text);
    }

    @Test
    void aFingerprintMismatchShowsBothFingerprints() throws Exception {
        try (FakeServer server = FakeServer.answering(
                offer -> Negotiation.answer(offer, HostPolicy.INSIDE_LOCAL, ProbeTest.OTHER))) {
            assertEquals(0, doctor(Optional.empty(), "127.0.0.1:" + server.port()), err::toString);
        }
        String text = out.toString();
        assertTrue(text.contains("  result             plain\n"
                + "  reason             the server answered plain: JVM fingerprint mismatch: server Java 17 vs client "
                + JvmFingerprint.current().specificationVersion() + "\n"), text);
        assertTrue(text.contains("  server JVM         " + ProbeTest.OTHER + "\n"
                + "  this JVM           " + JvmFingerprint.current() + "\n"), text);
    }

    @Test
    void aClosedPortIsAnError() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0)) {
            port = closed.getLocalPort();
        }
        assertEquals(1, doctor(Optional.empty(), "127.0.0.1:" + port));
        assertTrue(err.toString().startsWith("error: cannot connect to 127.0.0.1:" + port + ": Connection refused"),
                err::toString);
    }

    @Test
    void theCommandLine() {
        assertEquals(0, cli());
        assertTrue(out.toString().startsWith("Usage: java -jar fastrmi-agent.jar [-hV] [COMMAND]"), out::toString);
        assertTrue(out.toString().contains("  doctor  Prints what FastRMI would do in this JVM, and why."), out::toString);

        assertEquals(0, cli("--version"));
        assertTrue(out.toString().startsWith("FastRMI 9.9.9\nJDK test\n"), out::toString);

        assertEquals(0, cli("doctor", "--help"));
        assertTrue(out.toString().startsWith("Prints what FastRMI would do in this JVM, and why.\n"
                + "Usage: java -jar fastrmi-agent.jar doctor [-hV] [--json] [--config=FILE]"), out::toString);

        assertEquals(2, cli("doctor", "--bogus"));
        assertEquals("Unknown option: '--bogus'\nTry 'java -jar fastrmi-agent.jar doctor --help' for more information.\n",
                err.toString());

        assertEquals(2, cli("doctor", "localhost"));
        assertTrue(err.toString().startsWith("Invalid value for positional parameter at index 0 (HOST:PORT): 'localhost'"
                + " is not HOST:PORT"), err::toString);

        assertEquals(2, cli("doctor", "--timeout", "0", "localhost:1"));
        assertTrue(err.toString().startsWith("--timeout must be at least 1 second, not 0\n"), err::toString);

        assertEquals(2, cli("doctr"));
        assertTrue(err.toString().contains("Did you mean: java -jar fastrmi-agent.jar doctor?"), err::toString);
    }

    private int cli(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        return Cli.run(args, AGENT, new PrintWriter(out), new PrintWriter(err));
    }

    /** The line of a row ("  ucx:tcp    opens"), or "" when there is none. */
    private static String row(String text, String label) {
        return text.lines().filter(line -> line.startsWith("  " + label + " ")).findFirst().orElse("");
    }
}
