package io.fastrmi.agent.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The call events with a JFR recording on: what they record, and that a call allocates nothing for them. */
class RmiCallsRecordingTest {

    private static final int WARM_UP_CALLS = 20_000;
    private static final int COUNTED_CALLS = 10_000;

    @Test
    void aRecordedCallAllocatesNothingOnceItsThreadHasMadeOne() throws Exception {
        try (Recording recording = recordingCalls();
                ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket socket = new Socket(listener.getInetAddress(), listener.getLocalPort())) {
            for (int i = 0; i < WARM_UP_CALLS; i++) {
                serverCallMakingClientCall(socket);
            }
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < COUNTED_CALLS; i++) {
                serverCallMakingClientCall(socket);
            }
            long perCall = (threads.getCurrentThreadAllocatedBytes() - before) / COUNTED_CALLS;
            // A new event and peer text per call were 408 bytes for the two.
            assertTrue(perCall < 8, perCall + " bytes allocated per recorded server and client call");
        }
    }

    @Test
    void reusedEventsRecordEachCallsOwnFields(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("calls.jfr");
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket socket = new Socket(listener.getInetAddress(), listener.getLocalPort())) {
            try (Recording recording = recordingCalls()) {
                RmiCallEvent slow = (RmiCallEvent) RmiCalls.clientBegin("slow");
                RmiCalls.clientSocket(socket);
                Thread.sleep(200);
                RmiCalls.clientEnd(slow);

                RmiCallEvent outer = (RmiCallEvent) RmiCalls.clientBegin("outer"); // a call made while another is in progress
                RmiCallEvent nested = (RmiCallEvent) RmiCalls.clientBegin("nested");
                RmiCalls.clientEnd(nested);
                RmiCalls.clientEnd(outer);

                RmiCallEvent served = (RmiCallEvent) RmiCalls.serverBegin(null); // not an RMI call object: no peer
                RmiCalls.serverMethod(Object.class.getMethod("hashCode"));
                RmiCalls.serverEnd(served);
                recording.dump(file);
            }
            List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().equals("fastrmi.RmiCall")).toList();
            assertEquals(List.of("slow", "nested", "outer", "hashCode"),
                    events.stream().map(e -> e.getString("method")).toList());
            String peer = "127.0.0.1:" + listener.getLocalPort();
            assertEquals(peer, events.get(0).getString("peer"));
            assertNull(events.get(1).getString("peer"), "a later call on this thread keeps no earlier peer");
            assertNull(events.get(2).getString("peer"));
            assertEquals("server", events.get(3).getString("side"));
            assertNull(events.get(3).getString("peer"));
            assertTrue(events.get(0).getDuration().compareTo(Duration.ofMillis(200)) >= 0, events.get(0).toString());
            assertTrue(events.get(2).getDuration().compareTo(events.get(0).getDuration()) < 0,
                    "the reused event's duration is its own call's: " + events.get(2));
            assertTrue(events.get(2).getDuration().compareTo(events.get(1).getDuration()) >= 0);
        }
    }

    @Test
    void noEventWithoutARecording() {
        assertNull(RmiCalls.clientBegin("unrecorded"));
        assertNull(RmiCalls.serverBegin(null));
        RmiCalls.clientEndCurrent(); // nothing in progress: nothing to end
    }

    private static Recording recordingCalls() {
        Recording recording = new Recording();
        recording.enable("fastrmi.RmiCall").withoutThreshold();
        recording.start();
        return recording;
    }

    private static void serverCallMakingClientCall(Socket socket) {
        RmiCallEvent served = (RmiCallEvent) RmiCalls.serverBegin(null);
        RmiCalls.serverMethod("serve");
        RmiCallEvent call = (RmiCallEvent) RmiCalls.clientBegin("ping");
        RmiCalls.clientSocket(socket);
        RmiCalls.clientEnd(call);
        RmiCalls.serverEnd(served);
        assertNotNull(call);
    }
}
