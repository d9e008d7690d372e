package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServiceImpl;
import io.fastrmi.testkit.Jdk;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The interop matrix: the sample application with server and client each on JDK 17 or 25, each with
 * or without the agent (16 cells). Every call's answer is the same in every cell; each JVM with the
 * agent records a fastrmi.RmiCall event for every call it made or served; connections are fast
 * exactly where both ends run the agent on the same JVM, and the Handshake events say why not elsewhere.
 */
class SampleAppIT {

    /** The methods the client calls once each (plus the registry lookup). */
    static final List<String> SERVICE_METHODS = List.of(
            "fail", "ping", "add", "negate", "scale", "not", "greet", "transform", "echo", "reverse", "visit");
    private static final int CALLBACKS = 4;

    enum Placement {
        NONE(false, false), SERVER(true, false), CLIENT(false, true), BOTH(true, true);

        final boolean server;
        final boolean client;

        Placement(boolean server, boolean client) {
            this.server = server;
            this.client = client;
        }
    }

    static Stream<Arguments> cells() {
        return Stream.of(17, 25).flatMap(server -> Stream.of(17, 25).flatMap(client ->
                Stream.of(Placement.values()).map(p -> Arguments.of(server, client, p))));
    }

    @ParameterizedTest(name = "server JDK {0}, client JDK {1}, agent on {2}")
    @MethodSource("cells")
    void everyCallIsRightAndFastOnlyWhereBothEndsMatch(int serverFeature, int clientFeature, Placement placement)
            throws Exception {
        Path dir = ItSupport.directory("matrix-" + serverFeature + "-" + clientFeature + "-" + placement);
        Path agent = ItSupport.agentJar();
        SampleRun run = SampleRun.run(Jdk.of(serverFeature), Jdk.of(clientFeature), dir,
                server -> server.agent(placement.server ? agent : null),
                client -> client.agent(placement.client ? agent : null));
        assertAgentLine(run.serverOutput(), placement.server, serverFeature);
        assertAgentLine(run.clientOutput(), placement.client, clientFeature);

        assertEquals(expectedTranscript(), run.transcript());

        boolean fast = placement == Placement.BOTH && serverFeature == clientFeature;
        List<RecordedEvent> serverCalls = ItSupport.calls(run.serverJfr());
        List<RecordedEvent> clientCalls = ItSupport.calls(run.clientJfr());
        List<RecordedEvent> serverHandshakes = ItSupport.negotiations(run.serverJfr());
        List<RecordedEvent> clientHandshakes = ItSupport.negotiations(run.clientJfr());
        // The built-in config switches every optimization on: a negotiated call is a lean one.
        for (RecordedEvent call : serverCalls) {
            assertEquals(fast, call.getBoolean("lean"), call::toString);
        }
        for (RecordedEvent call : clientCalls) {
            assertEquals(fast, call.getBoolean("lean"), call::toString);
        }
        if (placement.server) {
            assertCalls(serverCalls, "server", SERVICE_METHODS, "lookup", fast);
            assertEquals(CALLBACKS, count(serverCalls, "client", "call"), "callbacks made by the server");
            assertHandshakes(serverHandshakes, "server", fast, placement.client ? "JVM fingerprint mismatch" : "no FastRMI offer",
                    ItSupport.FAST_TRANSPORT);
        } else {
            assertTrue(serverCalls.isEmpty() && serverHandshakes.isEmpty());
        }
        if (placement.client) {
            assertCalls(clientCalls, "client", SERVICE_METHODS, "lookup", fast);
            assertEquals(CALLBACKS, count(clientCalls, "server", "call"), "callbacks served by the client");
            assertHandshakes(clientHandshakes, "client", fast,
                    placement.server ? "JVM fingerprint mismatch" : "no FastRMI agent on the server (ProtocolNack)",
                    ItSupport.FAST_TRANSPORT);
        } else {
            assertTrue(clientCalls.isEmpty() && clientHandshakes.isEmpty());
        }
    }

    /** The transcript of the same calls made on the service object directly, without RMI. */
    static List<String> expectedTranscript() throws Exception {
        return SampleClient.transcript(new SampleServiceImpl(), new SampleClient.CallbackImpl());
    }

    private static void assertAgentLine(List<String> output, boolean withAgent, int feature) {
        boolean logged = output.stream().anyMatch(l -> l.contains("FastRMI ") && l.contains("(premain) on JDK " + feature));
        assertEquals(withAgent, logged, () -> "agent start-up line in " + output);
        assertFalse(output.stream().anyMatch(l -> l.contains("FastRMI is OFF") || l.contains("cannot instrument")),
                () -> "agent errors in " + output);
    }

    /**
     * The handshakes this side saw on its own connections: all fast, or all plain, at least one for
     * {@code reason} (later connections to a plain endpoint may say it was remembered).
     */
    private static void assertHandshakes(List<RecordedEvent> handshakes, String side, boolean fast, String reason,
            String fastTransport) {
        List<RecordedEvent> mine = handshakes.stream().filter(e -> side.equals(e.getString("side")))
                .collect(Collectors.toList());
        assertFalse(mine.isEmpty(), () -> "no " + side + " handshake in " + handshakes);
        for (RecordedEvent event : mine) {
            assertEquals(fast ? "fast" : "plain", event.getString("result"), event::toString);
            assertEquals(fast ? fastTransport : "tcp", event.getString("transport"), event::toString);
            if (!fast) {
                String why = event.getString("reason");
                assertTrue(why.contains(reason) || why.equals("endpoint remembered as having no FastRMI agent"),
                        event::toString);
            }
        }
        if (!fast) {
            assertTrue(mine.stream().anyMatch(e -> e.getString("reason").contains(reason)), mine::toString);
        }
    }

    /** Each method was called exactly once on this side, with a peer and the expected negotiation. */
    static void assertCalls(List<RecordedEvent> events, String side, List<String> methods, String registry,
            boolean negotiated) {
        Map<String, Integer> counts = new TreeMap<>();
        for (RecordedEvent event : events) {
            if (side.equals(event.getString("side"))) {
                counts.merge(event.getString("method"), 1, Integer::sum);
                assertNotNull(event.getString("peer"), () -> "peer of " + event);
                assertTrue(event.getString("peer").matches("127\\.0\\.0\\.1:\\d+"), () -> "peer of " + event);
                assertEquals(negotiated, event.getBoolean("negotiated"), event::toString);
                assertFalse(event.getDuration().isNegative());
            }
        }
        for (String method : methods) {
            assertEquals(1, counts.getOrDefault(method, 0), () -> side + " events by method: " + counts);
        }
        assertEquals(1, counts.getOrDefault(registry, 0), () -> side + " events by method: " + counts);
    }

    private static long count(List<RecordedEvent> events, String side, String method) {
        return events.stream().filter(e -> side.equals(e.getString("side")) && method.equals(e.getString("method")))
                .count();
    }
}
