package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.sample.JmxSampleClient;
import io.fastrmi.sample.JmxSampleServer;
import io.fastrmi.testkit.Jdk;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * JMX over RMI ({@code JMXConnectorServer} bound in an RMI registry, {@code JMXConnectorFactory} on the
 * client) works between two agent JVMs, negotiated, and from a client without the agent, plain. The
 * server JVM also talks to itself (the connector server binds its stub in its own registry through a
 * registry stub, and the registry's DGC calls the connector back): those connections are fast in
 * either case.
 */
class JmxIT {

    /** The remote calls a JMX client makes for the sample client's work (besides DGC). */
    private static final Map<String, Integer> JMX_CALLS = new TreeMap<>(Map.of(
            "lookup", 1, "newClient", 1, "getConnectionId", 1, "invoke", 2, "getAttribute", 2, "close", 1));

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void jmxBetweenTwoAgentJvmsIsNegotiated(int feature) throws Exception {
        Jdk jdk = Jdk.of(feature);
        Path agent = ItSupport.agentJar();
        AppPairRun run = AppPairRun.run(jdk, jdk, ItSupport.directory("jmx-both-" + feature),
                server -> server.agent(agent).main(JmxSampleServer.class),
                client -> client.agent(agent).main(JmxSampleClient.class), List.of());
        SslRmiIT.assertAgentStarted(run.serverOutput(), feature);
        SslRmiIT.assertAgentStarted(run.clientOutput(), feature);
        assertJmxAnswers(run.clientOutput());

        List<RecordedEvent> clientHandshakes = ItSupport.negotiations(run.clientJfr());
        List<RecordedEvent> serverHandshakes = ItSupport.negotiations(run.serverJfr());
        assertTrue(clientHandshakes.stream().anyMatch(e -> "client".equals(e.getString("side"))), clientHandshakes::toString);
        assertTrue(serverHandshakes.stream().anyMatch(e -> "server".equals(e.getString("side"))), serverHandshakes::toString);
        for (RecordedEvent event : concat(clientHandshakes, serverHandshakes)) {
            assertEquals("fast", event.getString("result"), event::toString);
            assertEquals(ItSupport.FAST_TRANSPORT, event.getString("transport"), event::toString);
        }

        List<RecordedEvent> clientCalls = ItSupport.calls(run.clientJfr());
        List<RecordedEvent> serverCalls = ItSupport.calls(run.serverJfr());
        assertJmxCalls(clientCalls, "client", true);
        assertJmxCalls(serverCalls, "server", true);
        for (RecordedEvent event : concat(clientCalls, serverCalls)) {
            assertTrue(event.getBoolean("negotiated"), event::toString);
        }
        assertNoFactoryLines(run.serverOutput());
        assertNoFactoryLines(run.clientOutput());
    }

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void jmxFromAClientWithoutTheAgentIsPlain(int feature) throws Exception {
        Jdk jdk = Jdk.of(feature);
        Path agent = ItSupport.agentJar();
        AppPairRun run = AppPairRun.run(jdk, jdk, ItSupport.directory("jmx-server-only-" + feature),
                server -> server.agent(agent).main(JmxSampleServer.class),
                client -> client.main(JmxSampleClient.class), List.of());
        SslRmiIT.assertAgentStarted(run.serverOutput(), feature);
        assertJmxAnswers(run.clientOutput());
        assertTrue(ItSupport.events(run.clientJfr(), "fastrmi.RmiCall").isEmpty());

        // The client's connections (registry, connector) are plain for want of an offer; the server's
        // connections to itself are fast.
        List<RecordedEvent> serverSide = ItSupport.negotiations(run.serverJfr()).stream()
                .filter(e -> "server".equals(e.getString("side"))).collect(Collectors.toList());
        List<RecordedEvent> plain = serverSide.stream().filter(e -> "plain".equals(e.getString("result")))
                .collect(Collectors.toList());
        assertTrue(plain.size() >= 2, () -> "expected plain handshakes for the registry and the connector: " + serverSide);
        for (RecordedEvent event : plain) {
            assertTrue(event.getString("reason").contains("no FastRMI offer"), event::toString);
            assertEquals("tcp", event.getString("transport"), event::toString);
        }

        List<RecordedEvent> serverCalls = ItSupport.calls(run.serverJfr());
        assertJmxCalls(serverCalls, "server", false);
        for (RecordedEvent event : serverCalls) {
            if ("bind".equals(event.getString("method"))) {
                assertTrue(event.getBoolean("negotiated"), () -> "the server's bind in its own registry: " + event);
            }
        }
        assertTrue(serverCalls.stream().anyMatch(e -> "bind".equals(e.getString("method"))
                && "server".equals(e.getString("side"))), serverCalls::toString);
    }

    private static void assertJmxAnswers(List<String> output) {
        List<String> jmx = output.stream().filter(l -> l.startsWith("JMX ")).collect(Collectors.toList());
        String all = String.join("\n", output);
        assertEquals(4, jmx.size(), all);
        assertEquals(List.of("JMX increment() = 1", "JMX increment() = 2", "JMX Count = 2"), jmx.subList(0, 3), all);
        assertTrue(jmx.get(3).matches("JMX Runtime\\.VmName = .*\\S.*"), all);
        assertTrue(output.contains("DONE"), all);
    }

    /** This side made or served each JMX call the expected number of times, all with {@code negotiated}. */
    private static void assertJmxCalls(List<RecordedEvent> events, String side, boolean negotiated) {
        Map<String, Integer> counts = new TreeMap<>();
        for (RecordedEvent event : events) {
            String method = event.getString("method");
            if (side.equals(event.getString("side")) && JMX_CALLS.containsKey(method)) {
                counts.merge(method, 1, Integer::sum);
                assertEquals(negotiated, event.getBoolean("negotiated"), event::toString);
                assertTrue(event.getString("peer").matches("127\\.0\\.0\\.1:\\d+"), event::toString);
            }
        }
        assertEquals(JMX_CALLS, counts, () -> side + " JMX calls in " + events);
    }

    private static void assertNoFactoryLines(List<String> output) {
        assertFalse(output.stream().anyMatch(l -> l.contains("FastRMI leaves it")), () -> String.join("\n", output));
    }

    private static List<RecordedEvent> concat(List<RecordedEvent> a, List<RecordedEvent> b) {
        List<RecordedEvent> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
