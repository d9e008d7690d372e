package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServiceImpl;
import io.fastrmi.testkit.Jdk;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The sample application in separate JVMs, without the agent, with it on the server only, on the
 * client only and on both, on JDK 17 and on JDK 25: the answers are the same in every case, and each
 * JVM with the agent records a fastrmi.RmiCall event for every call it made or served.
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
        return Stream.of(17, 25).flatMap(jdk -> Stream.of(Placement.values()).map(p -> Arguments.of(jdk, p)));
    }

    @ParameterizedTest(name = "JDK {0}, agent on {1}")
    @MethodSource("cells")
    void sameAnswersAndEventsForEveryCall(int feature, Placement placement) throws Exception {
        Jdk jdk = Jdk.of(feature);
        Path dir = ItSupport.directory("sample-" + feature + "-" + placement);
        Path agent = ItSupport.agentJar();
        SampleRun run = SampleRun.run(jdk, dir, server -> server.agent(placement.server ? agent : null),
                client -> client.agent(placement.client ? agent : null));
        assertAgentLine(run.serverOutput(), placement.server, feature);
        assertAgentLine(run.clientOutput(), placement.client, feature);

        assertEquals(expectedTranscript(), run.transcript());

        List<RecordedEvent> serverEvents = ItSupport.events(run.serverJfr(), "fastrmi.RmiCall");
        List<RecordedEvent> clientEvents = ItSupport.events(run.clientJfr(), "fastrmi.RmiCall");

        if (placement.server) {
            assertCalls(serverEvents, "server", SERVICE_METHODS, "lookup");
            assertEquals(CALLBACKS, count(serverEvents, "client", "call"), "callbacks made by the server");
        } else {
            assertTrue(serverEvents.isEmpty());
        }
        if (placement.client) {
            assertCalls(clientEvents, "client", SERVICE_METHODS, "lookup");
            assertEquals(CALLBACKS, count(clientEvents, "server", "call"), "callbacks served by the client");
        } else {
            assertTrue(clientEvents.isEmpty());
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

    /** Each method was called exactly once on this side, with a peer and not negotiated (no fast path yet). */
    static void assertCalls(List<RecordedEvent> events, String side, List<String> methods, String registry) {
        Map<String, Integer> counts = new TreeMap<>();
        for (RecordedEvent event : events) {
            if (side.equals(event.getString("side"))) {
                counts.merge(event.getString("method"), 1, Integer::sum);
                assertNotNull(event.getString("peer"), () -> "peer of " + event);
                assertTrue(event.getString("peer").matches("127\\.0\\.0\\.1:\\d+"), () -> "peer of " + event);
                assertFalse(event.getBoolean("negotiated"));
                assertFalse(event.getDuration().isNegative());
            }
        }
        for (String method : methods) {
            assertEquals(1, counts.getOrDefault(method, 0), () -> side + " events by method: " + counts);
        }
        assertEquals(1, counts.getOrDefault(registry, 0), () -> side + " events by method: " + counts);
    }

    private static long count(List<RecordedEvent> events, String side, String method) {
        List<RecordedEvent> matching = new ArrayList<>();
        for (RecordedEvent event : events) {
            if (side.equals(event.getString("side")) && method.equals(event.getString("method"))) {
                matching.add(event);
            }
        }
        return matching.size();
    }

}
