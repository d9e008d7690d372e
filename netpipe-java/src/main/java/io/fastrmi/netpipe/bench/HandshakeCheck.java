package io.fastrmi.netpipe.bench;

import io.fastrmi.fastsockets.handshake.ClientHandshake;
import io.fastrmi.fastsockets.rmi.DgcConnections;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * Whether an agent pair really ran on its transport: every {@code fastrmi.Handshake} event in both
 * JVMs' JFR recordings (registry lookup, calls, callbacks, star's extra connections) must say
 * {@code fast} on that transport, DGC's single-call connections aside. Otherwise the agent's column
 * would time a fallback.
 */
public final class HandshakeCheck {

    static final String EVENT = "fastrmi.Handshake";

    /**
     * The JFR settings the benchmark's JVMs record with: only the handshakes (the per-call
     * {@code fastrmi.RmiCall} events would cost time in the calls being timed).
     */
    public static final String SETTINGS = """
            <?xml version="1.0" encoding="UTF-8"?>
            <configuration version="2.0" label="FastRMI bench" description="FastRMI handshakes only">
              <event name="fastrmi.Handshake"><setting name="enabled">true</setting><setting name="threshold">0 ms</setting></event>
              <event name="fastrmi.RmiCall"><setting name="enabled">false</setting></event>
            </configuration>
            """;

    private HandshakeCheck() {
    }

    /** Why the connections in {@code recordings} were not all fast on {@code transport}; empty when they were. */
    public static Optional<String> problem(String transport, List<Path> recordings) {
        return problem(transport, recordings, false);
    }

    /**
     * As above; with {@code peersExit} (JVMs of the run that exit while others still connect to
     * them, as an application's workers do), a client's plain connection to a server that closed
     * or reset on the offer, going away, is not a fallback: stock RMI's connection meets the same.
     */
    public static Optional<String> problem(String transport, List<Path> recordings, boolean peersExit) {
        int handshakes = 0;
        int other = 0;
        String firstOther = null;
        for (Path recording : recordings) {
            if (!Files.isRegularFile(recording)) {
                return Optional.of("no JFR recording " + recording.getFileName() + " (the JVM did not exit cleanly)");
            }
            List<RecordedEvent> events;
            try {
                events = RecordingFile.readAllEvents(recording);
            } catch (IOException e) {
                return Optional.of("cannot read " + recording.getFileName() + ": " + e.getMessage());
            }
            for (RecordedEvent event : events) {
                if (!event.getEventType().getName().equals(EVENT)) {
                    continue;
                }
                handshakes++;
                if (peersExit && peerWentAway(event) || dgcSingleCall(event)) {
                    continue;
                }
                if (!"fast".equals(event.getString("result")) || !transport.equals(event.getString("transport"))) {
                    other++;
                    if (firstOther == null) {
                        firstOther = event.getString("side") + " side: " + event.getString("result") + " on "
                                + event.getString("transport") + reason(event);
                    }
                }
            }
        }
        if (handshakes == 0) {
            return Optional.of("no " + EVENT + " events were recorded: did the agent run?");
        }
        if (other > 0) {
            return Optional.of(other + " of " + handshakes + " connections not fast on " + transport + ", e.g. " + firstOther);
        }
        return Optional.empty();
    }

    private static boolean peerWentAway(RecordedEvent event) {
        String reason = event.getString("reason");
        return "plain".equals(event.getString("result")) && reason != null
                && (reason.startsWith(ClientHandshake.CLOSED) || reason.startsWith(ClientHandshake.RESET_ON_OFFER));
    }

    /** A DGC call to an endpoint not otherwise called: plain by design, on both sides ({@link DgcConnections}). */
    private static boolean dgcSingleCall(RecordedEvent event) {
        return DgcConnections.recordedAsSingleCall(event.getString("result"), event.getString("reason"));
    }

    private static String reason(RecordedEvent event) {
        String reason = event.getString("reason");
        return reason == null || reason.isEmpty() ? "" : " (" + reason + ")";
    }
}
