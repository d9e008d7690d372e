package io.fastrmi.agent.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.fastsockets.handshake.HandshakeException;
import io.fastrmi.fastsockets.handshake.Negotiation;
import io.fastrmi.optrmi.JvmFingerprint;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Probe.probe, the client side's negotiation for the doctor, against servers made up here. */
class ProbeTest {

    static final JvmFingerprint OTHER = new JvmFingerprint("17", "OpenJDK 64-Bit Server VM", "17.0.15+6",
            ByteOrder.LITTLE_ENDIAN);

    @Test
    void aServerThatAgreesIsFast() throws Exception {
        try (FakeServer server = FakeServer.answering(
                offer -> Negotiation.answer(offer, HostPolicy.INSIDE_LOCAL, JvmFingerprint.current()))) {
            Probe.Result result = Probe.probe("127.0.0.1", server.port(), FastRmiConfig.builtIn(), 5000);
            assertTrue(result.fast(), result::toString);
            assertEquals("tcp", result.transport().toString());
            assertEquals(JvmFingerprint.current(), result.serverFingerprint());
            assertEquals(JvmFingerprint.current(), server.offer().fingerprint(), "the offer carries this JVM's fingerprint");
            List<Handshake.Transport> offered = server.offer().transports();
            assertEquals(new Handshake.Transport(TransportName.TCP, ""), offered.get(offered.size() - 1), "tcp last, always");
            for (Handshake.Transport transport : offered) {
                assertTrue(HostPolicy.INSIDE_LOCAL.transports().contains(transport.name()), offered::toString);
            }
        }
    }

    @Test
    void anotherJvmOnTheServerIsPlainWithTheServersFingerprint() throws Exception {
        try (FakeServer server = FakeServer.answering(offer -> Negotiation.answer(offer, HostPolicy.INSIDE_LOCAL, OTHER))) {
            Probe.Result result = Probe.probe("127.0.0.1", server.port(), FastRmiConfig.builtIn(), 5000);
            assertFalse(result.fast());
            assertTrue(result.reason().startsWith("JVM fingerprint mismatch: server Java 17 vs client "), result.reason());
            assertEquals(OTHER, result.serverFingerprint());
        }
    }

    @Test
    void aServerWithoutTheAgentAnswersProtocolNack() throws Exception {
        try (FakeServer server = new FakeServer((offer, out) -> out.write(0x4f))) {
            Probe.Result result = Probe.probe("127.0.0.1", server.port(), FastRmiConfig.builtIn(), 5000);
            assertFalse(result.fast());
            assertEquals("no FastRMI agent on the server (ProtocolNack)", result.reason());
            assertNull(result.answer());
            assertTrue(result.offer() != null);
        }
    }

    @Test
    void aServerThatClosesOnTheOfferIsPlain() throws Exception {
        try (FakeServer server = new FakeServer((offer, out) -> { })) {
            Probe.Result result = Probe.probe("127.0.0.1", server.port(), FastRmiConfig.builtIn(), 5000);
            assertFalse(result.fast());
            assertEquals("the server closed the connection on the FastRMI offer", result.reason());
        }
    }

    @Test
    void anOutsideHostGetsNoOffer() throws Exception {
        FastRmiConfig outside = FastRmiConfig.parse("test.conf", List.of("[defaults]", "optimize = off"));
        try (FakeServer server = new FakeServer((offer, out) -> { })) {
            Probe.Result result = Probe.probe("127.0.0.1", server.port(), outside, 5000);
            assertFalse(result.fast());
            assertNull(result.offer());
            assertEquals("server host is outside per the client's config", result.reason());
            assertNull(server.offer(), "connected, sent nothing");
        }
    }

    @Test
    void aServerThatAnswersSomethingElseIsABadHandshake() throws Exception {
        try (FakeServer server = new FakeServer((offer, out) -> out.write(0x4e))) {
            HandshakeException e = assertThrows(HandshakeException.class,
                    () -> Probe.probe("127.0.0.1", server.port(), FastRmiConfig.builtIn(), 5000));
            assertTrue(e.getMessage().contains("byte 0x4e"), e.getMessage());
        }
    }

    @Test
    void aSilentServerTimesOut() throws Exception {
        try (FakeServer server = new FakeServer((offer, out) -> {
            try {
                Thread.sleep(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        })) {
            assertThrows(SocketTimeoutException.class,
                    () -> Probe.probe("127.0.0.1", server.port(), FastRmiConfig.builtIn(), 300));
        }
    }

    @Test
    void aClosedPortIsRefused() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0)) {
            port = closed.getLocalPort();
        }
        assertThrows(ConnectException.class, () -> Probe.probe("127.0.0.1", port, FastRmiConfig.builtIn(), 5000));
    }
}
