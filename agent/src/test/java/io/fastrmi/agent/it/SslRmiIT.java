package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.sample.AppSocketFactories;
import io.fastrmi.sample.AppSocketFactories.Mode;
import io.fastrmi.sample.SslSampleClient;
import io.fastrmi.sample.SslSampleServer;
import io.fastrmi.testkit.Jdk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.rmi.ssl.SslRMIClientSocketFactory;
import javax.rmi.ssl.SslRMIServerSocketFactory;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RMI through the application's own socket factories is left alone: the sample application over
 * {@code SslRMIClientSocketFactory}/{@code SslRMIServerSocketFactory} (registry, service, callback and
 * so DGC all behind them), over a custom plain-TCP factory pair, and over a global
 * {@code RMISocketFactory} set by the application, with the agent on both ends. The calls give the
 * usual answers, no connection is negotiated (no {@code fastrmi.Handshake} event anywhere, every
 * {@code fastrmi.RmiCall} not negotiated, yet recorded), and each JVM says once per factory class that
 * FastRMI leaves it. Each variant on JDK 17 and on JDK 25.
 */
class SslRmiIT {

    private static final String PASSWORD = "fastrmi-test";
    private static final int CALLBACKS = 4;
    private static Path keyStore;
    private static Path trustStore;

    /** A throw-away key pair (two days) for CN=localhost / IP 127.0.0.1, and a trust store holding its certificate. */
    @BeforeAll
    static void generateKeys() throws Exception {
        Path dir = ItSupport.directory("ssl-keys");
        keyStore = dir.resolve("keystore.p12");
        trustStore = dir.resolve("truststore.p12");
        Path certificate = dir.resolve("fastrmi.cer");
        Jdk jdk = Jdk.of(25);
        keytool(jdk, "-genkeypair", "-alias", "fastrmi", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                "-keystore", keyStore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool(jdk, "-exportcert", "-alias", "fastrmi", "-keystore", keyStore.toString(), "-storepass", PASSWORD,
                "-file", certificate.toString());
        keytool(jdk, "-importcert", "-noprompt", "-alias", "fastrmi", "-file", certificate.toString(),
                "-storetype", "PKCS12", "-keystore", trustStore.toString(), "-storepass", PASSWORD);
    }

    static Stream<Arguments> variants() {
        return Stream.of(Mode.values()).flatMap(mode -> Stream.of(17, 25).map(feature -> Arguments.of(mode, feature)));
    }

    @ParameterizedTest(name = "{0} socket factories, JDK {1}")
    @MethodSource("variants")
    void applicationSocketFactoriesAreLeftAlone(Mode mode, int feature) throws Exception {
        Jdk jdk = Jdk.of(feature);
        Path agent = ItSupport.agentJar();
        String[] flags = mode == Mode.SSL ? sslFlags() : new String[0];
        AppPairRun run = AppPairRun.run(jdk, jdk, ItSupport.directory("app-factories-" + mode + "-" + feature),
                server -> server.agent(agent).jvmArgs(flags).main(SslSampleServer.class).args(mode.flag()),
                client -> client.agent(agent).jvmArgs(flags).main(SslSampleClient.class),
                List.of(mode.flag()));

        assertAgentStarted(run.serverOutput(), feature);
        assertAgentStarted(run.clientOutput(), feature);
        List<String> transcript = run.clientOutput().stream().filter(l -> l.startsWith("CALL "))
                .collect(Collectors.toList());
        assertEquals(SampleAppIT.expectedTranscript(), transcript, () -> String.join("\n", run.clientOutput()));

        // No connection went through FastRMI's sockets: nothing was offered, answered or refused.
        assertEquals(List.of(), ItSupport.events(run.serverJfr(), "fastrmi.Handshake"), "server handshakes");
        assertEquals(List.of(), ItSupport.events(run.clientJfr(), "fastrmi.Handshake"), "client handshakes");

        // The calls are still seen, on both sides, and none of them negotiated.
        List<RecordedEvent> serverCalls = ItSupport.events(run.serverJfr(), "fastrmi.RmiCall");
        List<RecordedEvent> clientCalls = ItSupport.events(run.clientJfr(), "fastrmi.RmiCall");
        SampleAppIT.assertCalls(serverCalls, "server", SampleAppIT.SERVICE_METHODS, "lookup", false);
        SampleAppIT.assertCalls(clientCalls, "client", SampleAppIT.SERVICE_METHODS, "lookup", false);
        assertEquals(CALLBACKS, count(serverCalls, "client", "call"), "callbacks made by the server");
        assertEquals(CALLBACKS, count(clientCalls, "server", "call"), "callbacks served by the client");
        // DGC went through the application's factories as well.
        assertTrue(count(clientCalls, "client", "dirty") >= 1, () -> "no DGC dirty call from the client: " + clientCalls);
        assertTrue(count(serverCalls, "server", "dirty") >= 1, () -> "no DGC dirty call served: " + serverCalls);
        for (RecordedEvent event : concat(serverCalls, clientCalls)) {
            assertFalse(event.getBoolean("negotiated"), event::toString);
        }

        // Each JVM says so, once per factory class.
        for (String line : expectedLogLines(mode)) {
            assertLoggedOnce(run.serverOutput(), line);
            assertLoggedOnce(run.clientOutput(), line);
        }
    }

    /**
     * Under scope = jvm the SSL sockets of the application's factories are FastRMI's underneath: TLS
     * stays end to end (the factories and their handshake are untouched) and its encrypted bytes go
     * over shared memory. RMI's own negotiation never runs on them (every handshake is scope jvm).
     */
    @org.junit.jupiter.api.Test
    void underScopeJvmTlsRunsOverTheNativeTransport() throws Exception {
        Jdk jdk = Jdk.of(25);
        Path dir = ItSupport.directory("ssl-scope-jvm");
        Path config = java.nio.file.Files.write(dir.resolve("fastrmi.conf"),
                List.of("scope = jvm", "[host local]", "optimize = on", "transports = ucx:shm, tcp"));
        Path agent = ItSupport.agentJar();
        String[] flags = Stream.concat(Stream.of(sslFlags()), Stream.of("--enable-native-access=ALL-UNNAMED"))
                .toArray(String[]::new);
        AppPairRun run = AppPairRun.run(jdk, jdk, dir,
                server -> server.agent(agent, "config=" + config).jvmArgs(flags).main(SslSampleServer.class)
                        .args(Mode.SSL.flag()),
                client -> client.agent(agent, "config=" + config).jvmArgs(flags).main(SslSampleClient.class),
                List.of(Mode.SSL.flag()));
        List<String> transcript = run.clientOutput().stream().filter(l -> l.startsWith("CALL "))
                .collect(Collectors.toList());
        assertEquals(SampleAppIT.expectedTranscript(), transcript, () -> String.join("\n", run.clientOutput()));
        for (Path recording : List.of(run.serverJfr(), run.clientJfr())) {
            List<RecordedEvent> handshakes = ItSupport.events(recording, "fastrmi.Handshake");
            assertFalse(handshakes.isEmpty(), recording::toString);
            for (RecordedEvent event : handshakes) {
                assertEquals("jvm", event.getString("scope"), event::toString);
                assertEquals("ucx:shm", event.getString("transport"), event::toString);
            }
            for (RecordedEvent call : ItSupport.events(recording, "fastrmi.RmiCall")) {
                assertFalse(call.getBoolean("negotiated"), call::toString);
            }
        }
    }

    private static List<String> expectedLogLines(Mode mode) {
        switch (mode) {
            case SSL:
                return List.of(customFactoryLine(SslRMIClientSocketFactory.class),
                        customFactoryLine(SslRMIServerSocketFactory.class));
            case CUSTOM:
                return List.of(customFactoryLine(AppSocketFactories.PlainClientFactory.class),
                        customFactoryLine(AppSocketFactories.PlainServerFactory.class));
            default:
                return List.of("FastRMI: the application set a global RMISocketFactory ("
                        + AppSocketFactories.GlobalFactory.class.getName() + "); FastRMI leaves it");
        }
    }

    private static String customFactoryLine(Class<?> factory) {
        return "FastRMI: the application's socket factory " + factory.getName()
                + " is used for some remote objects; FastRMI leaves it";
    }

    private static void assertLoggedOnce(List<String> output, String text) {
        long times = output.stream().filter(l -> l.contains(text)).count();
        assertEquals(1, times, () -> "'" + text + "' logged " + times + " times in:\n" + String.join("\n", output));
    }

    static void assertAgentStarted(List<String> output, int feature) {
        assertTrue(output.stream().anyMatch(l -> l.contains("FastRMI ") && l.contains("(premain) on JDK " + feature)),
                () -> "no agent start-up line in:\n" + String.join("\n", output));
        assertFalse(output.stream().anyMatch(l -> l.contains("FastRMI is OFF") || l.contains("cannot instrument")),
                () -> "agent errors in:\n" + String.join("\n", output));
    }

    private static String[] sslFlags() {
        return new String[] {
            "-Djavax.net.ssl.keyStore=" + keyStore, "-Djavax.net.ssl.keyStorePassword=" + PASSWORD,
            "-Djavax.net.ssl.keyStoreType=PKCS12",
            "-Djavax.net.ssl.trustStore=" + trustStore, "-Djavax.net.ssl.trustStorePassword=" + PASSWORD,
            "-Djavax.net.ssl.trustStoreType=PKCS12"};
    }

    private static List<RecordedEvent> concat(List<RecordedEvent> a, List<RecordedEvent> b) {
        List<RecordedEvent> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static long count(List<RecordedEvent> events, String side, String method) {
        return events.stream().filter(e -> side.equals(e.getString("side")) && method.equals(e.getString("method")))
                .count();
    }

    private static void keytool(Jdk jdk, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(jdk.tool("keytool").toString());
        command.addAll(List.of(args));
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(keytool.waitFor(60, TimeUnit.SECONDS), () -> "keytool hangs: " + command);
        assertEquals(0, keytool.exitValue(), () -> String.join(" ", command) + "\n" + output);
    }
}
