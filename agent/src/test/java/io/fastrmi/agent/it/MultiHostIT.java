package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.fastsockets.handshake.ClientHandshake;
import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import io.fastrmi.testkit.TestNetwork;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;

/**
 * Several hosts, in network namespaces the test creates and removes: two cluster hosts ({@code host1},
 * {@code host2}) and one {@code outside} host, each with its own address on a veth pair. One config
 * file, shared by all three JVMs, lets in host1 by name (servers match it through a reverse lookup in
 * the test's hosts file) and host2 by address; everything else is outside.
 *
 * <p>A sample server runs on each host; then clients run host1→host2, host2→host1, host1→outside and
 * outside→host1. Each client's calls go out on connections from the client's host to the server's,
 * and the server's calls back to the client's callback object on connections the other way, so every
 * pair of hosts is seen in both directions, from both ends (the client JVM's and the server JVM's
 * recordings). For a connection from host X to host Y, with "inside" meaning named by the config:
 * <ul>
 *   <li>Y outside: X makes no offer (client side: "server host is outside per the client's config";
 *       server side: "the client made no FastRMI offer ...");
 *   <li>Y inside, X outside: X offers, Y answers plain ("client host is outside per the server's
 *       config", on both sides);
 *   <li>both inside: fast on both sides, and every RMI call on it is negotiated.
 * </ul>
 */
class MultiHostIT {

    private static final String HOST1 = "host1";
    private static final String HOST2 = "host2";
    private static final String OUTSIDE = "outside";
    private static final Set<String> INSIDE = Set.of(HOST1, HOST2);

    static final String OUTSIDE_FOR_CLIENT = "server host is outside per the client's config";
    static final String OUTSIDE_FOR_SERVER = "client host is outside per the server's config";
    static final String NO_OFFER = "the client made no FastRMI offer";

    private static final int CALLBACKS = 4;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(40);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration TIME_LIMIT = Duration.ofSeconds(90);

    /** A client on host {@code from} calling the server on host {@code to}. */
    private record Pair(String from, String to) {
        String name() {
            return from + "-to-" + to;
        }
    }

    private static final List<Pair> PAIRS = List.of(
            new Pair(HOST1, HOST2), new Pair(HOST2, HOST1), new Pair(HOST1, OUTSIDE), new Pair(OUTSIDE, HOST1));

    /** What one end of a connection records, for a connection from host {@code from} to host {@code to}. */
    private record Expected(String result, String reason) {
        static Expected clientSide(String from, String to) {
            if (!INSIDE.contains(to)) {
                return new Expected("plain", OUTSIDE_FOR_CLIENT);
            }
            return INSIDE.contains(from) ? new Expected("fast", "") : new Expected("plain", OUTSIDE_FOR_SERVER);
        }

        static Expected serverSide(String from, String to) {
            if (!INSIDE.contains(to)) {
                return new Expected("plain", NO_OFFER);
            }
            return INSIDE.contains(from) ? new Expected("fast", "") : new Expected("plain", OUTSIDE_FOR_SERVER);
        }

        boolean fast() {
            return result.equals("fast");
        }
    }

    /** One JVM's recording: where it ran and the FastRMI events it holds. */
    private record Recording(String name, String host, List<RecordedEvent> handshakes, List<RecordedEvent> calls) {
        static Recording read(String name, String host, Path jfr) throws Exception {
            assertTrue(Files.isRegularFile(jfr), () -> "no recording " + jfr + " of " + name);
            return new Recording(name, host, ItSupport.negotiations(jfr),
                    ItSupport.calls(jfr));
        }

        /** When this JVM's last RMI call ended: a client then unexports its callback and exits. */
        Instant lastCallEnd() {
            return calls.stream().map(RecordedEvent::getEndTime).max(Instant::compareTo).orElse(Instant.MAX);
        }
    }

    @Test
    void clusterHostsAreFastTheOutsideHostIsPlainSeenFromBothEnds() throws Exception {
        TestNetwork.requireAvailable();
        Path dir = ItSupport.directory("multi-host");
        Path agent = ItSupport.agentJar();
        Jdk jdk = Jdk.of(25);
        List<String> expectedTranscript = SampleAppIT.expectedTranscript();

        Map<String, Recording> servers = new LinkedHashMap<>();
        Map<Pair, Recording> clients = new LinkedHashMap<>();
        Map<String, String> address = new LinkedHashMap<>();
        try (TestNetwork net = TestNetwork.create(HOST1, HOST2, OUTSIDE)) {
            for (String host : net.hosts()) {
                address.put(host, net.address(host));
            }
            Path config = dir.resolve("fastrmi.conf");
            Files.writeString(config, String.join("\n",
                    "# The cluster: host1 by name, host2 by address; the outside host and all others are off.",
                    "[defaults]",
                    "optimize = off",
                    "",
                    "[host " + HOST1 + " " + net.address(HOST2) + "]",
                    "optimize = on",
                    ""), StandardCharsets.UTF_8);

            List<ManagedJvm> started = new ArrayList<>();
            try {
                // Servers on all three hosts, started together.
                Map<String, ManagedJvm> serverJvms = new LinkedHashMap<>();
                for (String host : net.hosts()) {
                    ManagedJvm jvm = launcher(jdk, agent, config, net, host, "server-" + host, dir)
                            .classpathOf(SampleServer.class).main(SampleServer.class).start();
                    started.add(jvm);
                    serverJvms.put(host, jvm);
                }
                Map<String, String> ports = new LinkedHashMap<>();
                for (Map.Entry<String, ManagedJvm> server : serverJvms.entrySet()) {
                    ports.put(server.getKey(), server.getValue().awaitLine(SampleServer.READY, READY_TIMEOUT).group(1));
                }

                // The clients, also together: each server tells its callers apart by address.
                Map<Pair, ManagedJvm> clientJvms = new LinkedHashMap<>();
                for (Pair pair : PAIRS) {
                    ManagedJvm jvm = launcher(jdk, agent, config, net, pair.from(), "client-" + pair.name(), dir)
                            .classpathOf(SampleClient.class).main(SampleClient.class)
                            .args(pair.to(), ports.get(pair.to())).start();
                    started.add(jvm);
                    clientJvms.put(pair, jvm);
                }
                for (Map.Entry<Pair, ManagedJvm> client : clientJvms.entrySet()) {
                    ManagedJvm jvm = client.getValue();
                    assertEquals(0, jvm.awaitExit(CLIENT_TIMEOUT), () -> jvm.failure("client exit code").getMessage());
                    List<String> transcript = jvm.output().stream().filter(l -> l.startsWith("CALL "))
                            .collect(Collectors.toList());
                    assertEquals(expectedTranscript, transcript, () -> jvm.failure("transcript").getMessage());
                    assertTrue(jvm.output().contains(SampleClient.DONE), () -> jvm.failure("no DONE").getMessage());
                    assertAgentStarted(jvm);
                }

                // Quit (not kill) the servers, so that their recordings are complete.
                for (ManagedJvm server : serverJvms.values()) {
                    server.send("quit");
                }
                for (ManagedJvm server : serverJvms.values()) {
                    assertEquals(0, server.awaitExit(EXIT_TIMEOUT), () -> server.failure("server exit code").getMessage());
                    assertAgentStarted(server);
                }
            } finally {
                started.forEach(ManagedJvm::close);
            }
        }

        for (String host : address.keySet()) {
            servers.put(host, Recording.read("server on " + host, host, dir.resolve("server-" + host + ".jfr")));
        }
        for (Pair pair : PAIRS) {
            clients.put(pair, Recording.read("client " + pair.name(), pair.from(),
                    dir.resolve("client-" + pair.name() + ".jfr")));
        }

        List<String> failures = new ArrayList<>();
        for (Pair pair : PAIRS) {
            Recording client = clients.get(pair);
            Recording server = servers.get(pair.to());
            String clientAddress = address.get(pair.from());
            String serverAddress = address.get(pair.to());
            // The client's calls: connections from the client's host to the server's.
            Expected toServerClientSide = Expected.clientSide(pair.from(), pair.to());
            Expected toServerServerSide = Expected.serverSide(pair.from(), pair.to());
            check(failures, client, "client", serverAddress, toServerClientSide, null);
            check(failures, server, "server", clientAddress, toServerServerSide, null);
            checkCalls(failures, client, "client", serverAddress, SampleAppIT.SERVICE_METHODS, toServerClientSide.fast());
            checkCalls(failures, server, "server", clientAddress, SampleAppIT.SERVICE_METHODS, toServerServerSide.fast());
            // The server's callbacks: connections from the server's host back to the client's.
            Expected callbackClientSide = Expected.clientSide(pair.to(), pair.from());
            Expected callbackServerSide = Expected.serverSide(pair.to(), pair.from());
            // The server's DGC may open a connection to the client (a clean call) while the client,
            // its work done, unexports and exits: that offer may meet a reset.
            check(failures, server, "client", clientAddress, callbackClientSide, client.lastCallEnd());
            check(failures, client, "server", serverAddress, callbackServerSide, null);
            checkCallbacks(failures, server, "client", clientAddress, callbackClientSide.fast());
            checkCallbacks(failures, client, "server", serverAddress, callbackServerSide.fast());
        }

        // Nothing fast touches the outside host, and every connection was between the test hosts.
        List<Recording> all = new ArrayList<>(servers.values());
        all.addAll(clients.values());
        String outsidePrefix = address.get(OUTSIDE) + ":";
        for (Recording recording : all) {
            for (RecordedEvent event : recording.handshakes()) {
                String peer = event.getString("peer");
                boolean touchesOutside = recording.host().equals(OUTSIDE) || (peer != null && peer.startsWith(outsidePrefix));
                if (touchesOutside && !"plain".equals(event.getString("result"))) {
                    failures.add(recording.name() + ": a connection with the outside host is not plain: " + event);
                }
                if (peer == null || address.values().stream().noneMatch(a -> peer.startsWith(a + ":"))) {
                    failures.add(recording.name() + ": a handshake with a peer that is no test host: " + event);
                }
            }
            for (RecordedEvent event : recording.calls()) {
                String peer = event.getString("peer");
                boolean touchesOutside = recording.host().equals(OUTSIDE) || (peer != null && peer.startsWith(outsidePrefix));
                if (touchesOutside && event.getBoolean("negotiated")) {
                    failures.add(recording.name() + ": a call with the outside host is negotiated: " + event);
                }
            }
        }
        assertTrue(failures.isEmpty(), () -> failures.size() + " failed checks:\n  " + String.join("\n  ", failures));
    }

    private static JvmLauncher launcher(Jdk jdk, Path agent, Path config, TestNetwork net, String host, String name,
            Path dir) {
        return JvmLauncher.on(jdk).name(name).agent(agent, "config=" + config.toAbsolutePath())
                .jfr(dir.resolve(name + ".jfr").toAbsolutePath()).wrapper(net.exec(host)).jvmArgs(net.jvmFlags(host))
                .timeLimit(TIME_LIMIT);
    }

    private static void assertAgentStarted(ManagedJvm jvm) {
        List<String> output = jvm.output();
        assertTrue(output.stream().anyMatch(l -> l.contains("FastRMI ") && l.contains("(premain) on JDK 25")),
                () -> jvm.failure("no agent start-up line").getMessage());
        assertFalse(output.stream().anyMatch(l -> l.contains("FastRMI is OFF") || l.contains("cannot instrument")),
                () -> jvm.failure("agent errors").getMessage());
    }

    /** The handshakes {@code recording} saw on its {@code side} of connections with {@code peerAddress}. */
    private static List<RecordedEvent> handshakes(Recording recording, String side, String peerAddress) {
        return recording.handshakes().stream()
                .filter(e -> side.equals(e.getString("side")) && peerOf(e).startsWith(peerAddress + ":"))
                .collect(Collectors.toList());
    }

    private static String peerOf(RecordedEvent event) {
        String peer = event.getString("peer");
        return peer == null ? "" : peer;
    }

    /**
     * At least one such handshake, and every one of them with the expected result and reason; except
     * that an offer begun after {@code peerGone} (the peer's work done, the peer exiting; null: never)
     * may meet a reset, and fall back to plain as it must.
     */
    private static void check(List<String> failures, Recording recording, String side, String peerAddress,
            Expected expected, Instant peerGone) {
        List<RecordedEvent> mine = handshakes(recording, side, peerAddress);
        String what = recording.name() + ", " + side + " side, peer " + peerAddress + ": expected " + expected.result()
                + (expected.fast() ? "" : " (" + expected.reason() + ")");
        if (mine.isEmpty()) {
            failures.add(what + ", but no handshake recorded; all: " + summary(recording.handshakes()));
            return;
        }
        for (RecordedEvent event : mine) {
            String reason = event.getString("reason") == null ? "" : event.getString("reason");
            boolean ok = expected.result().equals(event.getString("result")) && "tcp".equals(event.getString("transport"))
                    && (expected.fast() ? reason.isEmpty() : reason.startsWith(expected.reason()));
            boolean peerExiting = peerGone != null && reason.startsWith(ClientHandshake.RESET_ON_OFFER)
                    && !event.getStartTime().isBefore(peerGone);
            if (!ok && !peerExiting) {
                failures.add(what + ", got " + event.getString("result") + " (" + reason + ") transport "
                        + event.getString("transport") + " peer " + event.getString("peer") + " on thread "
                        + (event.getThread() == null ? "?" : event.getThread().getJavaName()) + " at "
                        + event.getStartTime() + (peerGone == null ? "" : ", the peer's last call ended " + peerGone));
            }
        }
    }

    /** Each method called once on this side with the peer (plus the registry lookup), negotiated as expected. */
    private static void checkCalls(List<String> failures, Recording recording, String side, String peerAddress,
            List<String> methods, boolean negotiated) {
        Map<String, Integer> counts = new TreeMap<>();
        for (RecordedEvent event : recording.calls()) {
            if (side.equals(event.getString("side")) && peerOf(event).startsWith(peerAddress + ":")) {
                String method = event.getString("method");
                counts.merge(String.valueOf(method), 1, Integer::sum);
                // DGC calls ride the same connections: they too must be negotiated as expected.
                if (event.getBoolean("negotiated") != negotiated) {
                    failures.add(recording.name() + ", " + side + " call " + method + " with " + event.getString("peer")
                            + ": negotiated = " + event.getBoolean("negotiated") + ", expected " + negotiated);
                }
            }
        }
        List<String> expected = new ArrayList<>(methods);
        expected.add("lookup");
        for (String method : expected) {
            if (counts.getOrDefault(method, 0) != 1) {
                failures.add(recording.name() + ", " + side + " calls with " + peerAddress + ": expected " + method
                        + " once, calls by method: " + counts);
            }
        }
    }

    /** The server's calls back to the client's callback object, seen from one end. */
    private static void checkCallbacks(List<String> failures, Recording recording, String side, String peerAddress,
            boolean negotiated) {
        List<RecordedEvent> callbacks = recording.calls().stream()
                .filter(e -> side.equals(e.getString("side")) && "call".equals(e.getString("method"))
                        && peerOf(e).startsWith(peerAddress + ":"))
                .collect(Collectors.toList());
        if (callbacks.size() != CALLBACKS) {
            failures.add(recording.name() + ", " + side + " side: expected " + CALLBACKS + " callbacks with " + peerAddress
                    + ", got " + callbacks.size());
        }
        for (RecordedEvent event : callbacks) {
            assertNotNull(event.getDuration());
            if (event.getBoolean("negotiated") != negotiated) {
                failures.add(recording.name() + ", " + side + " callback with " + event.getString("peer")
                        + ": negotiated = " + event.getBoolean("negotiated") + ", expected " + negotiated);
            }
        }
    }

    private static String summary(List<RecordedEvent> handshakes) {
        return handshakes.stream().map(e -> e.getString("side") + " " + e.getString("peer") + " " + e.getString("result")
                + " (" + e.getString("reason") + ")").collect(Collectors.joining("; ", "[", "]"));
    }
}
